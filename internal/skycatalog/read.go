// Package skycatalog reads a SkyPilot price catalog (the public
// skypilot-catalog repository's format v7, catalogs/v7/<cloud>/vms.csv)
// into offers, and plans what importing them makes of a platform's quote
// series: new series, next versions where something changed, nothing where
// nothing did (docs/RULES.md §7.7). It does no IO beyond the reader it is
// given; the store writes what the plan says.
package skycatalog

import (
	"encoding/csv"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
)

// The columns of a catalog file that are read, as the catalog names them.
// Others (AvailabilityZone, …) are ignored.
const (
	ColInstanceType     = "InstanceType"
	ColAcceleratorName  = "AcceleratorName"
	ColAcceleratorCount = "AcceleratorCount"
	ColVCPUs            = "vCPUs"
	ColMemoryGiB        = "MemoryGiB"
	ColPrice            = "Price"
	ColRegion           = "Region"
	ColGpuInfo          = "GpuInfo"
	ColSpotPrice        = "SpotPrice"
)

// RequiredColumns must be in the header; OptionalColumns are read when
// present (docs/RULES.md §7.7).
var (
	RequiredColumns = []string{ColInstanceType, ColAcceleratorName, ColAcceleratorCount, ColVCPUs, ColMemoryGiB, ColPrice, ColRegion}
	OptionalColumns = []string{ColGpuInfo, ColSpotPrice}
)

// Currency is the currency of every catalog price.
const Currency = "USD"

const (
	// MaxRows bounds the rows of one file: a catalog repeats each
	// instance type once per region or zone, so files are long; every
	// record read counts, and reading stops past it (docs/RULES.md §16.4).
	MaxRows = 100_000
	// MaxBytes is the largest file taken, as for the quote CSV.
	MaxBytes = quote.CSVMaxBytes
	// MaxGPUCount is the most GPUs of one instance (a quote's bound).
	MaxGPUCount = 1024
	// maxLabel and maxRegion are the lengths a quote's label and one
	// region may have.
	maxLabel  = 200
	maxRegion = 100
)

// Message IDs of the problems only a catalog has; the others are the quote
// CSV's (import.error.*) and the form's (form.*).
const (
	MsgNoGPURows = "catalog.error.no_gpu_rows"
	MsgCount     = "catalog.error.count"
	MsgWhole     = "catalog.error.whole"
	MsgGpuInfo   = "catalog.error.gpu_info"
	MsgText      = "catalog.error.text"
)

// Offer is one offer of the catalog: the rows of one instance type that
// differ only by region (or by a column that is not read), folded into
// one, with every region it is sold in.
type Offer struct {
	// InstanceType is the catalog's name of the instance (the quote's
	// label); GPUName its AcceleratorName as written.
	InstanceType string
	GPUName      string
	GPUCount     int
	// VCPUs, MemoryGiB and VRAMGiB (one GPU's memory) are absent when the
	// catalog leaves them empty.
	VCPUs     *int
	MemoryGiB decimal.NullDecimal
	VRAMGiB   decimal.NullDecimal
	// Hourly is Price; SpotHourly SpotPrice when given. Exact, as written.
	Hourly     decimal.Decimal
	SpotHourly decimal.NullDecimal
	// Regions are the distinct regions, sorted.
	Regions []string
	// Rows is how many rows of the file the offer folds.
	Rows int
}

// Catalog is what a file holds, counted.
type Catalog struct {
	// Offers are the GPU offers, in a fixed order (see sortOffers).
	Offers []Offer
	// Rows counts the rows read after the header (blank lines aside);
	// GPURows those of a GPU offer; NoGPURows those without a GPU
	// (AcceleratorName empty or a count of 0); FractionalRows those
	// offering a fraction of one GPU, which a quote cannot state.
	Rows, GPURows, NoGPURows, FractionalRows int
}

// Folded is how many GPU rows were folded into another row's offer.
func (c Catalog) Folded() int { return c.GPURows - len(c.Offers) }

// row problems are kept as the quote CSV keeps them: every one counted,
// the first quote.CSVMaxErrors kept (docs/RULES.md §16.4).
func rowProblem(p *quote.CSVProblems, row int, column, id string, args ...any) {
	p.RowProblems++
	if len(p.Rows) < quote.CSVMaxErrors {
		p.Rows = append(p.Rows, quote.CSVRowProblem{Row: row, Column: column, Message: form.Message{ID: id, Args: args}})
	}
}

// Read reads a whole catalog file. The header names the columns (in any
// order, compared without regard to case); a required column missing is a
// problem naming it. Every row with a GPU is checked; a wrong one is a
// problem naming its row, column and reason, and any problem means no
// offers (the file is refused whole). Rows without a GPU are counted and
// passed over. Prices are read exactly from their text.
func Read(r io.Reader) (Catalog, quote.CSVProblems) {
	var p quote.CSVProblems
	cr := quote.CSVReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		p.File = append(p.File, form.Message{ID: "import.error.empty"})
		return Catalog{}, p
	}
	if err != nil {
		p.File = append(p.File, form.Message{ID: "import.error.csv", Args: []any{"Line", syntaxLine(err)}})
		return Catalog{}, p
	}
	index, fileProblems := readHeader(header)
	if len(fileProblems) > 0 {
		p.File = fileProblems
		return Catalog{}, p
	}

	var c Catalog
	folded := map[string]int{} // fold key → index in c.Offers
	memory := gpuMemory{}
	regions := []map[string]bool{}
	for rowNum := 2; ; rowNum++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		fieldCount := errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount)
		if err != nil && !fieldCount {
			p.File = append(p.File, form.Message{ID: "import.error.csv", Args: []any{"Line", syntaxLine(err)}})
			return Catalog{}, p
		}
		if rowNum-1 > MaxRows {
			p.File = append(p.File, form.Message{ID: "import.error.too_many_rows", Args: []any{"Max", MaxRows}})
			return Catalog{}, p
		}
		c.Rows++
		if fieldCount {
			p.BadRows++
			id := "import.error.field_count.other"
			if len(rec) == 1 {
				id = "import.error.field_count.one"
			}
			rowProblem(&p, rowNum, "", id, "Row", rowNum, "Got", len(rec), "Want", len(header))
			continue
		}
		if !quote.ValidText(rec) {
			p.BadRows++
			rowProblem(&p, rowNum, "", "import.error.encoding", "Row", rowNum)
			continue
		}
		get := func(col string) string {
			if i, ok := index[col]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		o, kind, problems := readRow(get, memory)
		switch kind {
		case rowNoGPU:
			c.NoGPURows++
			continue
		case rowFractional:
			c.FractionalRows++
			continue
		}
		c.GPURows++
		if len(problems) > 0 {
			p.BadRows++
			for _, col := range columnOrder {
				if m, ok := problems[col]; ok {
					rowProblem(&p, rowNum, col, m.ID, m.Args...)
				}
			}
			continue
		}
		if p.RowProblems > 0 {
			continue // nothing will be imported: the offers are not kept
		}
		region := get(ColRegion)
		k := foldKey(o)
		if i, ok := folded[k]; ok {
			c.Offers[i].Rows++
			regions[i][region] = true
			continue
		}
		o.Rows = 1
		folded[k] = len(c.Offers)
		c.Offers = append(c.Offers, o)
		regions = append(regions, map[string]bool{region: true})
	}
	if p.Any() {
		return Catalog{}, p
	}
	if c.Rows == 0 {
		p.File = append(p.File, form.Message{ID: "import.error.empty"})
		return Catalog{}, p
	}
	if c.GPURows == 0 {
		p.File = append(p.File, form.Message{ID: MsgNoGPURows})
		return Catalog{}, p
	}
	for i := range c.Offers {
		for r := range regions[i] {
			c.Offers[i].Regions = append(c.Offers[i].Regions, r)
		}
		slices.Sort(c.Offers[i].Regions)
	}
	sortOffers(c.Offers)
	return c, p
}

// columnOrder is the order a row's problems are listed in.
var columnOrder = []string{ColInstanceType, ColAcceleratorName, ColAcceleratorCount, ColVCPUs, ColMemoryGiB, ColPrice,
	ColSpotPrice, ColRegion, ColGpuInfo}

// readHeader maps each column read to its field index; a column the
// format needs and the file lacks, or one it names twice, is a problem.
func readHeader(header []string) (map[string]int, []form.Message) {
	index, dup, missing, _ := quote.ColumnIndex(header, append(slices.Clone(RequiredColumns), OptionalColumns...), RequiredColumns)
	var out []form.Message
	if len(missing) > 0 {
		out = append(out, form.Message{ID: "import.error.missing_columns", Args: []any{"Columns", strings.Join(missing, ", ")}})
	}
	if len(dup) > 0 {
		out = append(out, form.Message{ID: "import.error.duplicate_columns", Args: []any{"Columns", strings.Join(dup, ", ")}})
	}
	return index, out
}

type rowKind int

const (
	rowGPU rowKind = iota
	rowNoGPU
	rowFractional
)

// readRow reads one row: whether it offers GPUs, and for a GPU row its
// offer (region aside) and its problems by column.
func readRow(get func(string) string, memory gpuMemory) (Offer, rowKind, form.Errors) {
	errs := form.Errors{}
	name := get(ColAcceleratorName)
	rawCount := get(ColAcceleratorCount)
	if name == "" {
		return Offer{}, rowNoGPU, nil
	}
	o := Offer{GPUName: name, InstanceType: get(ColInstanceType)}
	count, err := money.ParseDecimal(rawCount)
	switch {
	case rawCount == "":
		errs.Set(ColAcceleratorCount, form.MsgRequired)
	case err != nil || count.Sign() < 0:
		errs.Set(ColAcceleratorCount, MsgCount, "Value", rawCount)
	case count.Sign() == 0:
		return Offer{}, rowNoGPU, nil
	case !count.IsInteger():
		// A share of one card (0.25 of a GPU): a quote counts whole GPUs.
		return Offer{}, rowFractional, nil
	case count.GreaterThan(decimal.New(MaxGPUCount, 0)):
		errs.Set(ColAcceleratorCount, form.MsgRange, "Min", "1", "Max", strconv.Itoa(MaxGPUCount))
	default:
		o.GPUCount = int(count.IntPart())
	}
	checkText(errs, ColInstanceType, o.InstanceType, maxLabel, true)
	checkText(errs, ColAcceleratorName, name, maxLabel, true)
	checkText(errs, ColRegion, get(ColRegion), maxRegion, true)

	if v := get(ColVCPUs); v != "" {
		d, err := money.ParseDecimal(v)
		switch {
		case err != nil:
			errs.Set(ColVCPUs, form.NumberProblem(v, false))
		case !d.IsInteger() || d.Sign() <= 0 || d.GreaterThan(decimal.New(100000, 0)):
			errs.Set(ColVCPUs, MsgWhole, "Value", v)
		default:
			n := int(d.IntPart())
			o.VCPUs = &n
		}
	}
	if v := get(ColMemoryGiB); v != "" {
		d, err := money.ParseDecimal(v)
		switch {
		case err != nil:
			errs.Set(ColMemoryGiB, form.NumberProblem(v, false))
		case d.Sign() < 0:
			errs.Set(ColMemoryGiB, form.MsgNegative)
		case form.IntDigits(d) > 8: // ram_gb is NUMERIC(10,2)
			errs.Set(ColMemoryGiB, form.MsgDigits(8), "Digits", 8)
		case d.Sign() > 0:
			// Memory, not money: rounded to the 2 places a quote keeps.
			if m := d.Round(2); m.Sign() > 0 {
				o.MemoryGiB = decimal.NewNullDecimal(m)
			}
		}
	}
	// Prices: exact decimals read from their text, at most 6 places, as a
	// quote's (docs/RULES.md §1.1).
	r := form.NewReader(get)
	price := form.Decimal{Places: quote.PricePlaces, Below: decimal.NewNullDecimal(quote.MaxAmount), Required: true}
	o.Hourly = r.Decimal(ColPrice, price).Decimal
	price.Required = false
	o.SpotHourly = r.Decimal(ColSpotPrice, price)
	for k, m := range r.Errs {
		errs[k] = m
	}
	if o.GPUCount > 0 {
		vram, err := memory.perGPU(get(ColGpuInfo), o.GPUCount)
		if err != nil {
			errs.Set(ColGpuInfo, MsgGpuInfo)
		}
		o.VRAMGiB = vram
	}
	return o, rowGPU, errs
}

// gpuMemory keeps what each GpuInfo cell and count came to: a catalog
// repeats the same cell on every row of an instance type.
type gpuMemory map[string]gpuMemoryOf

type gpuMemoryOf struct {
	vram decimal.NullDecimal
	err  error
}

func (m gpuMemory) perGPU(cell string, count int) (decimal.NullDecimal, error) {
	k := strconv.Itoa(count) + "\x00" + cell
	if r, ok := m[k]; ok {
		return r.vram, r.err
	}
	v, err := vramPerGPU(cell, count)
	m[k] = gpuMemoryOf{v, err}
	return v, err
}

// checkText refuses text a quote cannot store on one line, or too long.
func checkText(errs form.Errors, col, v string, max int, required bool) {
	switch {
	case v == "" && required:
		errs.Set(col, form.MsgRequired)
	case !form.StorableText(v) || !form.OneLine(v):
		errs.Set(col, MsgText)
	case utf8.RuneCountInString(v) > max:
		errs.Set(col, form.MsgTooLong, "Max", strconv.Itoa(max))
	}
}

// foldKey is what rows of one offer share: everything read but the region.
func foldKey(o Offer) string {
	f := []string{o.InstanceType, o.GPUName, strconv.Itoa(o.GPUCount), optInt(o.VCPUs), optDec(o.MemoryGiB), optDec(o.VRAMGiB),
		money.String(o.Hourly), optDec(o.SpotHourly)}
	return strings.Join(f, "\x00")
}

func optInt(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func optDec(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return money.String(d.Decimal)
}

// sortOffers puts offers in one order whatever the file's: by instance
// type, GPU name and count, then price, spot price, vCPUs, memory, VRAM
// and regions.
func sortOffers(offers []Offer) {
	slices.SortStableFunc(offers, func(a, b Offer) int {
		if c := strings.Compare(a.InstanceType, b.InstanceType); c != 0 {
			return c
		}
		if c := strings.Compare(a.GPUName, b.GPUName); c != 0 {
			return c
		}
		if a.GPUCount != b.GPUCount {
			return a.GPUCount - b.GPUCount
		}
		if c := a.Hourly.Cmp(b.Hourly); c != 0 {
			return c
		}
		for _, pair := range [][2]decimal.NullDecimal{{a.SpotHourly, b.SpotHourly}, {a.MemoryGiB, b.MemoryGiB}, {a.VRAMGiB, b.VRAMGiB}} {
			if c := cmpNull(pair[0], pair[1]); c != 0 {
				return c
			}
		}
		if c := cmpIntPtr(a.VCPUs, b.VCPUs); c != 0 {
			return c
		}
		return strings.Compare(strings.Join(a.Regions, "\x00"), strings.Join(b.Regions, "\x00"))
	})
}

// cmpIntPtr orders an absent number before any present one.
func cmpIntPtr(a, b *int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return *a - *b
}

// cmpNull orders an absent decimal before any present one.
func cmpNull(a, b decimal.NullDecimal) int {
	switch {
	case !a.Valid && !b.Valid:
		return 0
	case !a.Valid:
		return -1
	case !b.Valid:
		return 1
	}
	return a.Decimal.Cmp(b.Decimal)
}

// syntaxLine is the line a CSV syntax error was found on.
func syntaxLine(err error) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Line
	}
	return 0
}
