package market

import (
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/text/language"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
)

// Message IDs of the problems only market data has.
const (
	MsgNameRequired    = "platform.error.name_required"
	MsgWebsite         = "platform.error.website"
	MsgCountry         = "platform.error.country"
	MsgOperatingSince  = "platform.error.operating_since"
	MsgRangeOrder      = "gpu.error.range_order"
	MsgNominalRequired = "perf.error.nominal_required"
	MsgSourceRequired  = "perf.error.source_required"
	MsgBenchRequired   = "perf.error.benchmark_required"
	MsgMeasuredMissing = "perf.error.measured_required"
	MsgItem            = "prices.error.item"
	MsgUnitNotAllowed  = "prices.error.unit_not_allowed"
	MsgSameCurrency    = "prices.error.same_currency"
	MsgWritingNoAnswer = "terms.error.in_writing_without_answer"
	MsgAliasesTooMany  = "alias.error.too_many"
	MsgAliasTooLong    = "alias.error.too_long"
)

// Bounds of a row's aliases (docs/RULES.md §7.6).
const (
	AliasesMax = 20
	AliasMax   = 100
)

// NameKey is how names and aliases are compared: spaces collapsed, lower
// case.
func NameKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// ReadAliases reads the "aliases" field, one alias per line (docs/RULES.md
// §7.6): spaces collapsed, empty lines, repeats and the row's own names
// (own, compared by NameKey) dropped; never nil.
func ReadAliases(r *form.Reader, own ...string) []string {
	seen := map[string]bool{}
	for _, n := range own {
		seen[NameKey(n)] = true
	}
	out := []string{}
	for _, line := range strings.Split(r.Raw("aliases"), "\n") {
		a := strings.Join(strings.Fields(line), " ")
		if a == "" || seen[NameKey(a)] {
			continue
		}
		seen[NameKey(a)] = true
		if utf8.RuneCountInString(a) > AliasMax {
			r.Fail("aliases", MsgAliasTooLong, "Name", a, "Max", strconv.Itoa(AliasMax))
		}
		out = append(out, a)
	}
	if len(out) > AliasesMax {
		r.Fail("aliases", MsgAliasesTooMany, "Max", strconv.Itoa(AliasesMax))
	}
	return out
}

// Bounds of market data (the columns' CHECKs and types say the same).
var (
	// specBelow is the first value too large for numeric(10,2).
	specBelow = decimal.NewNullDecimal(decimal.New(1, 8))
	// tflopsBelow is the first value too large for numeric(12,3).
	tflopsBelow = decimal.NewNullDecimal(decimal.New(1, 9))
	// unitPriceBelow is the first value too large for numeric(20,6).
	unitPriceBelow = decimal.NewNullDecimal(decimal.New(1, 14))
	// rateBelow is the first value too large for numeric(28,12).
	rateBelow = decimal.NewNullDecimal(decimal.New(1, 16))
)

const (
	// specIntMax bounds a GPU model's whole numbers, well inside int4.
	specIntMax = 1_000_000
	// SourceMax bounds the "source" of a dated sample (a URL, a document
	// or a ticket reference), like a quote's source.
	SourceMax = 500
	// TermAnswerMax bounds an answer to an SLA clause or confirmation.
	TermAnswerMax = 2000
	// firstYear is the earliest year a platform may have started in.
	firstYear = 1990
)

var countryCode = regexp.MustCompile(`^[A-Z]{2}$`)

// validCountry accepts an ISO 3166-1 alpha-2 code in upper case that names
// a country or territory ("CN", "DE", "HK"): not a macro-region ("EU",
// "UN"), an unassigned code ("ZZ") or a deprecated alias ("UK" for GB).
func validCountry(s string) bool {
	if !countryCode.MatchString(s) {
		return false
	}
	r, err := language.ParseRegion(s)
	return err == nil && r.IsCountry() && r.Canonicalize().String() == s && r.ISO3() != "ZZZ"
}

// validWebsite accepts an absolute http or https URL with a host.
func validWebsite(s string) bool {
	if len(s) > 500 || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil
}

// ReadPlatform reads and checks a platform's form (every problem in r);
// picked are the billing granularities ticked. thisYear bounds the year it
// started operating. Text is stored trimmed; codes upper case ("cn" is
// read as CN).
func ReadPlatform(r *form.Reader, picked []string, thisYear int) Platform {
	p := Platform{NameZH: r.Text("name_zh", 100), NameEN: r.Text("name_en", 100)}
	if p.NameZH == "" && p.NameEN == "" {
		r.Fail("name_zh", MsgNameRequired)
	}
	if p.Website = r.Raw("website"); p.Website != "" && !validWebsite(p.Website) {
		r.Fail("website", MsgWebsite)
	}
	if p.Country = strings.ToUpper(r.Raw("country")); p.Country != "" && !validCountry(p.Country) {
		r.Fail("country", MsgCountry)
	}
	p.Currency = r.Currency("currency", true)
	if since := r.Raw("operating_since"); since != "" {
		probe := form.NewReader(func(string) string { return since })
		if y, ok := probe.Int("y", firstYear, thisYear, true); ok {
			p.OperatingSince = &y
		} else {
			r.Fail("operating_since", MsgOperatingSince)
		}
	}
	for _, q := range PlatformQualifications {
		switch r.Raw(q) {
		case "":
		case "true", "false":
			b := r.Raw(q) == "true"
			p.SetQualification(q, &b)
		default:
			r.Fail(q, form.MsgChoice)
		}
	}
	p.GuaranteeNote = r.Paragraphs("guarantee_note", 500)
	p.SupportChannel = r.Choice("support_channel", false, PlatformSupportChannels...)
	// Stored finest first, each once, whatever order the boxes came in.
	p.BillingGranularities = []string{}
	for _, g := range picked {
		if !slices.Contains(PlatformGranularities, g) {
			r.Fail("billing_granularities", form.MsgChoice)
		}
	}
	for _, g := range PlatformGranularities {
		if slices.Contains(picked, g) {
			p.BillingGranularities = append(p.BillingGranularities, g)
		}
	}
	p.Notes = r.Paragraphs("notes", 5000)
	p.Aliases = ReadAliases(r, p.NameZH, p.NameEN)
	return p
}

// PerfField names the form field of one precision's figure: "perf.bf16.nominal".
func PerfField(precision, part string) string { return "perf." + precision + "." + part }

// ReadGPUModel reads and checks a GPU model's form, its table of figures
// per precision included: a row left empty is no figure; a row with
// anything needs its nominal figure and source, and a measured reference
// figure names the benchmark that produced it.
func ReadGPUModel(r *form.Reader) GPUModel {
	spec := form.Decimal{Places: 2, Positive: true, Below: specBelow}
	g := GPUModel{Vendor: r.RequiredText("vendor", 50), Name: r.RequiredText("name", 100),
		Interconnect: r.Choice("interconnect", true, GPUInterconnects...),
		Source:       r.Text("source", 500), Notes: r.Paragraphs("notes", 5000)}
	required := spec
	required.Required = true
	g.Aliases = ReadAliases(r, g.Vendor+" "+g.Name, g.Name)
	g.VRAMGB = r.Decimal("vram_gb", required).Decimal
	g.MemoryBandwidthGBs = r.Decimal("memory_bandwidth_gbs", spec)
	g.InterconnectGBs = r.Decimal("interconnect_gbs", spec)
	count := func(name string) *int {
		if n, ok := r.Int(name, 1, specIntMax, false); ok {
			return &n
		}
		return nil
	}
	g.TDPW, g.BoostClockMHz = count("tdp_w"), count("boost_clock_mhz")
	g.LoadPowerMinW, g.LoadPowerMaxW = count("load_power_min_w"), count("load_power_max_w")
	g.LoadClockMinMHz, g.LoadClockMaxMHz = count("load_clock_min_mhz"), count("load_clock_max_mhz")
	if g.LoadPowerMinW != nil && g.LoadPowerMaxW != nil && *g.LoadPowerMaxW < *g.LoadPowerMinW {
		r.Fail("load_power_max_w", MsgRangeOrder)
	}
	if g.LoadClockMinMHz != nil && g.LoadClockMaxMHz != nil && *g.LoadClockMaxMHz < *g.LoadClockMinMHz {
		r.Fail("load_clock_max_mhz", MsgRangeOrder)
	}
	if d, ok := r.Date("as_of", form.Date{}); ok {
		g.AsOf = &d
	}
	tflops := form.Decimal{Places: 3, Positive: true, Below: tflopsBelow}
	for _, prec := range PerfPrecisions {
		name := func(part string) string { return PerfField(prec, part) }
		sparse := r.Check(name("sparse"))
		if r.Raw(name("nominal")) == "" && r.Raw(name("nominal_source")) == "" && r.Raw(name("measured")) == "" &&
			r.Raw(name("benchmark")) == "" && r.Raw(name("measured_source")) == "" && !sparse {
			continue // a row left empty: no figure for this precision
		}
		p := GPUPerf{Precision: prec, Sparse: sparse, NominalSource: r.Text(name("nominal_source"), 500),
			MeasuredBenchmark: r.Text(name("benchmark"), 500), MeasuredSource: r.Text(name("measured_source"), 500)}
		if r.Raw(name("nominal")) == "" {
			r.Fail(name("nominal"), MsgNominalRequired)
		} else {
			p.NominalTFLOPS = r.Decimal(name("nominal"), tflops).Decimal
		}
		if p.NominalSource == "" {
			r.Fail(name("nominal_source"), MsgSourceRequired)
		}
		p.MeasuredTFLOPS = r.Decimal(name("measured"), tflops)
		if r.Raw(name("measured")) != "" && p.MeasuredBenchmark == "" {
			r.Fail(name("benchmark"), MsgBenchRequired)
		}
		if r.Raw(name("measured")) == "" && (p.MeasuredBenchmark != "" || p.MeasuredSource != "") {
			r.Fail(name("measured"), MsgMeasuredMissing)
		}
		g.Perf = append(g.Perf, p)
	}
	return g
}

// ReadReferencePrice reads and checks a dated reference price: one of the
// twelve items, a unit that item may be priced in (never a guess), a unit
// price ≥ 0 with at most 6 places, a date not after latest, a source.
func ReadReferencePrice(r *form.Reader, latest time.Time) ReferencePrice {
	p := ReferencePrice{Item: r.Raw("item"), Unit: r.Raw("unit")}
	it, itemOK := catalog.LookupItem(catalog.ItemKey(p.Item))
	switch {
	case p.Item == "":
		r.Fail("item", form.MsgRequired)
	case !itemOK:
		r.Fail("item", MsgItem)
	}
	p.Currency = r.Currency("currency", true)
	switch {
	case p.Unit == "":
		r.Fail("unit", form.MsgRequired)
	case !catalog.Unit(p.Unit).Valid():
		r.Fail("unit", form.MsgChoice)
	case itemOK && !it.Allows(catalog.Unit(p.Unit)):
		r.Fail("unit", MsgUnitNotAllowed)
	}
	p.UnitPrice = r.Decimal("unit_price", form.Decimal{Places: 6, Below: unitPriceBelow, Required: true}).Decimal
	p.AsOf, _ = r.Date("as_of", form.Date{Required: true, NotAfter: latest})
	p.Source = r.RequiredText("source", SourceMax)
	return p
}

// ReadFXRate reads and checks a dated exchange rate (1 base = rate
// quote): two different currencies, a rate > 0 with at most 10 places, a
// date not after latest, a source.
func ReadFXRate(r *form.Reader, latest time.Time) FXRate {
	fx := FXRate{Base: r.Currency("base", true), Quote: r.Currency("quote", true)}
	if !r.Has("base") && !r.Has("quote") && fx.Base == fx.Quote {
		r.Fail("quote", MsgSameCurrency)
	}
	fx.Rate = r.Decimal("rate", form.Decimal{Places: 10, Positive: true, Below: rateBelow, Required: true}).Decimal
	fx.AsOf, _ = r.Date("as_of", form.Date{Required: true, NotAfter: latest})
	fx.Source = r.RequiredText("source", SourceMax)
	return fx
}

// TermField names the form field of one term: "sla.availability.answer".
func TermField(kind, key, part string) string { return kind + "." + key + "." + part }

// ReadTerms reads and checks the answers to the eleven terms (TermClauses
// order): an answer of at most TermAnswerMax characters, in writing only
// with an answer, and its date (not after latest, not before 2000). The
// lock version each form row edits is the caller's to read.
func ReadTerms(r *form.Reader, latest time.Time) []PlatformTerm {
	var out []PlatformTerm
	for _, tc := range TermClauses() {
		name := func(part string) string { return TermField(tc.Kind, tc.Clause.Key, part) }
		t := PlatformTerm{Kind: tc.Kind, Key: tc.Clause.Key, Answer: r.Paragraphs(name("answer"), TermAnswerMax),
			InWriting: r.Check(name("in_writing"))}
		if t.InWriting && t.Answer == "" {
			r.Fail(name("in_writing"), MsgWritingNoAnswer)
		}
		if d, ok := r.Date(name("answered_on"), form.Date{NotAfter: latest,
			NotBefore: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}); ok {
			t.AnsweredOn = &d
		}
		out = append(out, t)
	}
	return out
}
