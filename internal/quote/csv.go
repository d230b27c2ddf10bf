package quote

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/market"
)

// The CSV format of quotes (docs/CSV.md): one row per quote, the columns
// of the entry form (Fields, then "<item>.<field>" for the twelve lines in
// table order), values as Values writes them and Read reads them. An
// export starts with four identifying columns that an import ignores, so
// an exported file imports as it is.

const (
	// CSVMaxRows bounds one file so an import finishes well within the
	// request deadline.
	CSVMaxRows = 10000
	// CSVMaxBytes is the largest file an import takes.
	CSVMaxBytes = 20 << 20
	// CSVMaxErrors is how many row problems an import keeps to show; the
	// others are only counted (docs/RULES.md §16.4).
	CSVMaxErrors = 100
)

// csvIdentity are the export's leading columns, ignored on import.
var csvIdentity = []string{"id", "series_id", "version", "state"}

// CSVDataColumns are the columns an import reads, in export order.
var CSVDataColumns = func() []string {
	var cols []string
	for _, f := range Fields {
		cols = append(cols, f.Name)
	}
	for _, it := range catalog.Items {
		for _, f := range LineFields {
			cols = append(cols, string(it.Key)+"."+f)
		}
	}
	return cols
}()

// CSVExample is the small file the import page shows: one quote with an
// hourly price and one charged line, the GPU model named by an alias
// (docs/RULES.md §7.6); every other column left out.
const CSVExample = `platform,gpu_model,gpu_count,sharing,currency,hourly,billing_granularity,prices_include_tax,as_of,source,egress.status,egress.unit_price
HOSTKEY,NVIDIA RTX 4090,1,dedicated,EUR,0.471,hour,false,2026-11-30,https://hostkey.com,charged,0.01
`

// CSVRequiredColumns are the columns a row must fill (besides one of the
// four prices), in CSV order.
var CSVRequiredColumns = func() []string {
	var cols []string
	for _, f := range Fields {
		if f.Required {
			cols = append(cols, f.Name)
		}
	}
	return cols
}()

// CSVHeader is the header row of an export.
var CSVHeader = append(append([]string(nil), csvIdentity...), CSVDataColumns...)

// UTF8BOM starts an export so spreadsheets detect the encoding.
const UTF8BOM = "\ufeff"

// Spreadsheets run a cell that starts with = + - @ (or a tab or carriage
// return) as a formula. An export guards such text with a leading
// apostrophe and an import removes it, so the round trip is exact: a value
// is guarded when it starts with one of those characters, or with an
// apostrophe followed by one of them or by another apostrophe (so that
// removing exactly one apostrophe is always right).
func formulaStart(b byte) bool {
	return b == '=' || b == '+' || b == '-' || b == '@' || b == '\t' || b == '\r'
}

// GuardCell protects a text cell from being run as a formula.
func GuardCell(s string) string {
	if s == "" {
		return s
	}
	if formulaStart(s[0]) || s[0] == '\'' && len(s) > 1 && (formulaStart(s[1]) || s[1] == '\'') {
		return "'" + s
	}
	return s
}

// UnguardCell removes the apostrophe GuardCell added.
func UnguardCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && (formulaStart(s[1]) || s[1] == '\'') {
		return s[1:]
	}
	return s
}

// ExportNames maps platform and GPU model ids to the name an export
// writes: the platform's Chinese name (else English) and the GPU's
// "Vendor Name", each only when it resolves back to the same id on import;
// otherwise the id, which always does.
func ExportNames(platforms, gpus []market.RefName) (platformName, gpuName map[int64]string) {
	refs := NewRefs(platforms, gpus)
	pick := func(dst map[int64]string, resolve func(string) (int64, bool), list []market.RefName) {
		for _, r := range list {
			dst[r.ID] = strconv.FormatInt(r.ID, 10)
			for _, n := range r.Names {
				if id, ok := resolve(n); ok && id == r.ID && strings.TrimSpace(n) != "" {
					dst[r.ID] = strings.TrimSpace(n)
					break
				}
			}
		}
	}
	platformName, gpuName = map[int64]string{}, map[int64]string{}
	pick(platformName, refs.Platform, platforms)
	pick(gpuName, refs.GPUModel, gpus)
	return platformName, gpuName
}

// CSVRow fills row (len(CSVHeader)) with a quote, its platform and GPU
// model written by name.
func CSVRow(row []string, q Quote, platformName, gpuName string) {
	v := Values(q)
	v.Set("platform", platformName)
	v.Set("gpu_model", gpuName)
	row[0], row[1], row[2], row[3] = strconv.FormatInt(q.ID, 10), strconv.FormatInt(q.SeriesID, 10), strconv.Itoa(q.Version), q.State
	for i, col := range CSVDataColumns {
		row[len(csvIdentity)+i] = GuardCell(v.Get(col))
	}
}

// CSVRowProblem is a problem with one row (Column empty when it concerns
// the whole row). Row is the spreadsheet's row number: the header is 1.
type CSVRowProblem struct {
	Row    int
	Column string
	form.Message
}

// CSVProblems is what is wrong with an uploaded file: problems with the
// file as a whole, or with single rows. Only the first CSVMaxErrors row
// problems are kept; RowProblems counts them all (up to where reading
// stopped), so a file of millions of bad rows costs no more memory than
// one of a hundred (docs/RULES.md §16.4).
type CSVProblems struct {
	File []form.Message
	// Rows are the first CSVMaxErrors row problems, in file order.
	Rows []CSVRowProblem
	// RowProblems counts every row problem found, kept or not.
	RowProblems int
	// BadRows counts rows with at least one problem.
	BadRows int
}

// Any reports whether there is a problem.
func (p CSVProblems) Any() bool { return len(p.File) > 0 || p.RowProblems > 0 }

func (p *CSVProblems) file(id string, args ...any) {
	p.File = append(p.File, form.Message{ID: id, Args: args})
}

// row counts a row problem and keeps it while fewer than CSVMaxErrors are
// kept. args is only called for a kept problem, so a dropped one costs
// nothing beyond the count.
func (p *CSVProblems) row(rowNum int, column, id string, args func() []any) {
	p.RowProblems++
	if len(p.Rows) >= CSVMaxErrors {
		return
	}
	var a []any
	if args != nil {
		a = args()
	}
	p.Rows = append(p.Rows, CSVRowProblem{Row: rowNum, Column: column, Message: form.Message{ID: id, Args: a}})
}

// ReadCSV reads and validates a whole file: every row through Read, all or
// nothing. It returns the quotes when there is no problem.
func ReadCSV(r io.Reader, refs Refs, today time.Time) ([]Quote, CSVProblems) {
	var p CSVProblems
	cr := CSVReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		p.file("import.error.empty")
		return nil, p
	}
	if err != nil {
		p.file("import.error.csv", "Line", syntaxLine(err))
		return nil, p
	}

	// Header: every column known, none twice.
	known := map[string]bool{}
	for _, col := range csvIdentity {
		known[col] = true
	}
	for _, col := range CSVDataColumns {
		known[col] = true
	}
	index := map[string]int{}
	var unknown, dup []string
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		switch {
		case !utf8.ValidString(h) || !known[h]:
			unknown = append(unknown, strconv.Quote(h))
		case index[h] > 0:
			dup = append(dup, h)
		default:
			index[h] = i + 1 // 0 means absent
		}
	}
	if len(unknown) > 0 {
		p.file("import.error.unknown_columns", "Columns", strings.Join(unknown, ", "))
	}
	if len(dup) > 0 {
		p.file("import.error.duplicate_columns", "Columns", strings.Join(dup, ", "))
	}
	if len(index) == 0 {
		p.file("import.error.no_header")
	}
	if len(p.File) > 0 {
		return nil, p
	}

	// Rows: each validated on its own by Read; every problem counted, the
	// first CSVMaxErrors kept. Every record read counts against the row
	// cap, whatever is wrong with it, and reading stops at the cap
	// (docs/RULES.md §16.4).
	order := map[string]int{}
	for i, col := range CSVDataColumns {
		order[col] = i
	}
	missing := map[string]bool{}
	var quotes []Quote
	for rowNum := 2; ; rowNum++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		fieldCount := errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount)
		if err != nil && !fieldCount {
			p.file("import.error.csv", "Line", syntaxLine(err))
			return nil, p
		}
		if rowNum-1 > CSVMaxRows {
			p.file("import.error.too_many_rows", "Max", CSVMaxRows)
			return nil, p
		}
		if fieldCount {
			p.BadRows++
			got := len(rec)
			id := "import.error.field_count.other"
			if got == 1 {
				id = "import.error.field_count.one"
			}
			p.row(rowNum, "", id, func() []any { return []any{"Row", rowNum, "Got", got, "Want", len(header)} })
			continue
		}
		if blank(rec) {
			continue
		}
		if !ValidText(rec) {
			p.BadRows++
			p.row(rowNum, "", "import.error.encoding", func() []any { return []any{"Row", rowNum} })
			continue
		}
		get := func(name string) string {
			if i := index[name]; i > 0 {
				return UnguardCell(rec[i-1])
			}
			return ""
		}
		q, errs := Read(get, refs, today)
		if len(errs) == 0 {
			if p.RowProblems == 0 { // once a row is wrong, nothing is imported
				quotes = append(quotes, q)
			}
			continue
		}
		fields := make([]string, 0, len(errs))
		for f := range errs {
			if index[f] == 0 {
				// A problem in a column the file does not have is one
				// problem with the header, not one per row.
				missing[f] = true
				continue
			}
			fields = append(fields, f)
		}
		if len(fields) == 0 {
			continue
		}
		sort.Slice(fields, func(i, j int) bool { return order[fields[i]] < order[fields[j]] })
		p.BadRows++
		for _, f := range fields {
			m := errs[f]
			p.row(rowNum, f, m.ID, func() []any { return m.Args })
		}
	}
	if len(missing) > 0 {
		cols := make([]string, 0, len(missing))
		for f := range missing {
			cols = append(cols, f)
		}
		sort.Slice(cols, func(i, j int) bool { return order[cols[i]] < order[cols[j]] })
		p.file("import.error.missing_columns", "Columns", strings.Join(cols, ", "))
	}
	if len(quotes) == 0 && !p.Any() {
		p.file("import.error.empty")
	}
	if p.Any() {
		return nil, p
	}
	return quotes, p
}

// blank reports whether every field of a row is empty.
func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// ValidText reports whether every field of a CSV record is UTF-8 without
// NUL bytes (PostgreSQL text cannot hold NUL): the quote CSV and the
// SkyPilot catalog refuse any other row.
func ValidText(rec []string) bool {
	for _, f := range rec {
		if !utf8.ValidString(f) || strings.IndexByte(f, 0) >= 0 {
			return false
		}
	}
	return true
}

// syntaxLine is the line of a CSV syntax error ("?" when not known).
func syntaxLine(err error) any {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.StartLine
	}
	return "?"
}

// CSVReader reads a CSV file as every import does: a UTF-8 byte-order
// mark at its start skipped, each record's slice reused by the next (a
// caller keeps values, never the slice).
func CSVReader(r io.Reader) *csv.Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, err := br.Peek(len(UTF8BOM)); err == nil && string(bom) == UTF8BOM {
		_, _ = br.Discard(len(UTF8BOM))
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	return cr
}

// ColumnIndex finds an import's columns in its header row, by name, in any
// order and case, around spaces: index maps each of columns found to its
// position; dup lists the columns named twice, missing the required ones
// absent, unknown the header cells that name none of columns (trimmed).
func ColumnIndex(header, columns, required []string) (index map[string]int, dup, missing, unknown []string) {
	index = map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		found := false
		for _, col := range columns {
			if !strings.EqualFold(h, col) {
				continue
			}
			found = true
			if _, seen := index[col]; seen {
				dup = append(dup, col)
			} else {
				index[col] = i
			}
		}
		if !found {
			unknown = append(unknown, h)
		}
	}
	for _, col := range required {
		if _, ok := index[col]; !ok {
			missing = append(missing, col)
		}
	}
	return index, dup, missing, unknown
}
