package quote

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// Refs resolves the platform and GPU model a quote names: an id, or (in a
// CSV) a name as the list pages show it, case-insensitively.
type Refs struct {
	platforms map[string]int64 // id or lower-case name → id
	gpus      map[string]int64 // id, lower-case "vendor name" or name → id
	// Every name and alias as written, in list order, for suggestions.
	platformNames, gpuNames []string
}

// NewRefs indexes the names of every platform (Chinese and English) and
// GPU model ("Vendor Name" and name), with their aliases (docs/RULES.md
// §7.6). A name two records share resolves to the first.
func NewRefs(platforms, gpus []market.RefName) Refs {
	r := Refs{platforms: map[string]int64{}, gpus: map[string]int64{}}
	for _, x := range []struct {
		dst   map[string]int64
		names *[]string
		refs  []market.RefName
	}{{r.platforms, &r.platformNames, platforms}, {r.gpus, &r.gpuNames, gpus}} {
		for _, ref := range x.refs {
			x.dst[strconv.FormatInt(ref.ID, 10)] = ref.ID
			for _, n := range ref.Names {
				*x.names = append(*x.names, strings.TrimSpace(n))
				n = strings.ToLower(strings.TrimSpace(n))
				if _, taken := x.dst[n]; n != "" && !taken {
					x.dst[n] = ref.ID
				}
			}
		}
	}
	return r
}

// SuggestPlatform is the known platform name nearest to v ("" when none is
// near): see Nearest.
func (r Refs) SuggestPlatform(v string) string { return Nearest(v, r.platformNames) }

// SuggestGPUModel is the known GPU model name nearest to v ("" when none
// is near): see Nearest.
func (r Refs) SuggestGPUModel(v string) string { return Nearest(v, r.gpuNames) }

// suggestKey normalises a name for Nearest: lower case, "-" and "_" as
// spaces, runs of spaces as one.
func suggestKey(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(s))), " ")
}

// Nearest is the name among names nearest to v (docs/RULES.md §7.5),
// comparing normalised names: the most words shared with v, then the least
// edit distance, then the earlier name. A name that differs from v in more
// than half the characters of the longer of the two is never suggested;
// "" when none is left. Deterministic: the same input gives the same
// suggestion.
func Nearest(v string, names []string) string {
	key := suggestKey(v)
	if key == "" {
		return ""
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(key) {
		words[w] = true
	}
	best, bestDist, bestShared := "", 0, 0
	seen := map[string]bool{}
	for _, n := range names {
		k := suggestKey(n)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		d := editDistance([]rune(key), []rune(k))
		if 2*d > max(utf8.RuneCountInString(key), utf8.RuneCountInString(k)) {
			continue
		}
		shared := 0
		for _, w := range strings.Fields(k) {
			if words[w] {
				shared++
			}
		}
		if best == "" || shared > bestShared || shared == bestShared && d < bestDist {
			best, bestDist, bestShared = strings.Join(strings.Fields(n), " "), d, shared
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Platform resolves a platform's id or name.
func (r Refs) Platform(v string) (int64, bool) {
	id, ok := r.platforms[strings.ToLower(strings.TrimSpace(v))]
	return id, ok
}

// GPUModel resolves a GPU model's id or name.
func (r Refs) GPUModel(v string) (int64, bool) {
	id, ok := r.gpus[strings.ToLower(strings.TrimSpace(v))]
	return id, ok
}

// Message IDs of the problems only a quote has.
const (
	MsgUnknownPlatform = "quote.error.unknown_platform"
	MsgUnknownGPU      = "quote.error.unknown_gpu"
	MsgNoPrice         = "quote.error.no_price"
	MsgGranularity     = "quote.error.granularity_required"
	MsgTaxRate         = "quote.error.tax_rate"
	MsgUnit            = "quote.error.unit"
	MsgPriceRequired   = "quote.error.price_required"
	MsgPriceNotCharged = "quote.error.price_not_charged"
	MsgNoAllowance     = "quote.error.allowance_not_allowed"
)

// The unknown platform and GPU model problems naming the nearest known name
// ("Name").
const (
	MsgUnknownPlatformSuggest = "quote.error.unknown_platform_suggest"
	MsgUnknownGPUSuggest      = "quote.error.unknown_gpu_suggest"
)

// Read reads and validates a whole quote, the twelve lines included, from
// its named fields (Fields, then "<item>.<field>" for the lines): the one
// validation the entry form and the CSV import share. Every bad field is
// reported; the quote is meaningful only without problems. today is the
// latest day a price may be dated. A line that is not given at all is
// unconfirmed (docs/RULES.md §3.1: a missing answer is an unconfirmed answer).
func Read(get func(string) string, refs Refs, today time.Time) (Quote, form.Errors) {
	r := form.NewReader(get)
	var q Quote
	for _, f := range Fields {
		readField(r, f, f.Value(&q), refs, today)
	}
	// At least one price; a price by the hour says how the hour is billed.
	if !q.Hourly.Valid && !q.Monthly.Valid && !q.Yearly.Valid && !q.SpotHourly.Valid {
		r.Fail("hourly", MsgNoPrice)
	}
	if q.BillingGranularity == "" && (q.Hourly.Valid || q.SpotHourly.Valid) {
		r.Fail("billing_granularity", MsgGranularity)
	}
	if q.TaxRate.GreaterThanOrEqual(decimal.New(1, 0)) {
		r.Fail("tax_rate", MsgTaxRate)
	}
	for _, it := range catalog.Items {
		q.Lines = append(q.Lines, readLine(r, it))
	}
	return q, r.Errs
}

// readField reads field f into dst (a pointer to the quote's field, whose
// type says whether an empty value is null, zero or a problem).
func readField(r *form.Reader, f Field, dst any, refs Refs, today time.Time) {
	rule := form.Decimal{Places: f.Places, Positive: f.Positive, Below: decimal.NewNullDecimal(MaxAmount), Max: f.MaxValue,
		Required: f.Required, Digits: columnDigits[f.Column]}
	switch p := dst.(type) {
	case *int64: // KindRef
		v := r.Raw(f.Name)
		resolve, unknown, suggest, suggestMsg := refs.Platform, MsgUnknownPlatform, refs.SuggestPlatform, MsgUnknownPlatformSuggest
		if f.Name == "gpu_model" {
			resolve, unknown, suggest, suggestMsg = refs.GPUModel, MsgUnknownGPU, refs.SuggestGPUModel, MsgUnknownGPUSuggest
		}
		if v == "" {
			r.Fail(f.Name, form.MsgRequired)
		} else if id, ok := resolve(v); ok {
			*p = id
		} else if near := suggest(v); near != "" {
			r.Fail(f.Name, suggestMsg, "Name", near)
		} else {
			r.Fail(f.Name, unknown)
		}
	case *string:
		switch f.Kind {
		case KindCurrency:
			*p = r.Currency(f.Name, f.Required)
		case KindChoice:
			*p = r.Choice(f.Name, f.Required, f.Choices...)
		default:
			switch {
			case f.Lines:
				*p = r.Paragraphs(f.Name, f.Max)
			case f.Required:
				*p = r.RequiredText(f.Name, f.Max)
			default:
				*p = r.Text(f.Name, f.Max)
			}
		}
	case *decimal.NullDecimal:
		*p = r.Decimal(f.Name, rule)
	case *decimal.Decimal:
		*p = r.Decimal(f.Name, rule).Decimal // empty is 0
	case *int:
		*p, _ = r.Int(f.Name, f.Min, f.Max, f.Required) // empty is 0
	case **int:
		if n, ok := r.Int(f.Name, f.Min, f.Max, f.Required); ok {
			*p = &n
		}
	case **bool:
		*p = r.YesNo(f.Name)
	case *bool:
		b := r.YesNo(f.Name)
		if b == nil && f.Required {
			r.Fail(f.Name, form.MsgRequired)
		}
		*p = b != nil && *b
	case *time.Time:
		*p, _ = r.Date(f.Name, form.Date{Required: f.Required, NotAfter: today})
	default:
		panic("quote: field " + f.Name + " has no reader for its type")
	}
}

// readLine reads one of the twelve lines: status (empty is unconfirmed),
// unit (one the item allows; empty on a charged line is its default),
// unit price (only, and always, on a charged line), free allowance (empty
// is 0), note and whether the answer is in writing.
func readLine(r *form.Reader, it catalog.Item) Line {
	k := string(it.Key) + "."
	l := Line{Item: string(it.Key)}
	l.Status = r.Choice(k+"status", false, strs(catalog.Statuses)...)
	if l.Status == "" {
		l.Status = string(catalog.StatusUnconfirmed)
	}
	l.Unit = r.Choice(k+"unit", false, strs(it.Units)...)
	if r.Has(k + "unit") {
		r.Errs.Set(k+"unit", MsgUnit)
	}
	price := form.Decimal{Places: PricePlaces, Below: decimal.NewNullDecimal(MaxAmount), Digits: columnDigits["unit_price"]}
	l.UnitPrice = r.Decimal(k+"unit_price", price)
	l.FreeAllowance = r.Decimal(k+"free_allowance", price).Decimal
	// The engine's rule, applied here too (docs/RULES.md §3.4).
	if !tco.AllowanceAllowed(it.Key, l.FreeAllowance) {
		r.Fail(k+"free_allowance", MsgNoAllowance)
	}
	l.Note = r.Paragraphs(k+"note", lineNoteMax)
	if b := r.YesNo(k + "in_writing"); b != nil {
		l.InWriting = *b
	}
	switch catalog.Status(l.Status) {
	case catalog.StatusCharged:
		if l.Unit == "" {
			l.Unit = string(it.DefaultUnit)
		}
		if !l.UnitPrice.Valid {
			r.Fail(k+"unit_price", MsgPriceRequired)
		}
	default:
		// Only a charged line carries a price; anything typed for the
		// others is an error rather than silently dropped.
		if l.UnitPrice.Valid {
			r.Errs.Set(k+"unit_price", MsgPriceNotCharged)
		}
	}
	return l
}

// Values is the inverse of Read: the named fields of a quote, to fill the
// edit form and write a CSV row. Empty and zero-default values are left
// out, so they read back as they were.
func Values(q Quote) url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	for _, f := range Fields {
		set(f.Name, valueText(f.Value(&q)))
	}
	for _, l := range q.Lines {
		k := l.Item + "."
		set(k+"status", l.Status)
		set(k+"unit", l.Unit)
		set(k+"unit_price", valueText(&l.UnitPrice))
		set(k+"free_allowance", valueText(&l.FreeAllowance))
		set(k+"note", l.Note)
		if l.InWriting {
			set(k+"in_writing", "true")
		}
	}
	return v
}

// valueText writes a field's value as Read reads it: decimals exactly,
// without trailing zeros; 0 and false-by-default as empty where empty
// means that.
func valueText(src any) string {
	switch p := src.(type) {
	case *int64:
		return strconv.FormatInt(*p, 10)
	case *string:
		return *p
	case *decimal.NullDecimal:
		if !p.Valid {
			return ""
		}
		return money.String(p.Decimal)
	case *decimal.Decimal:
		if p.Sign() == 0 {
			return ""
		}
		return money.String(*p)
	case *int:
		if *p == 0 {
			return ""
		}
		return strconv.Itoa(*p)
	case **int:
		if *p == nil {
			return ""
		}
		return strconv.Itoa(**p)
	case **bool:
		if *p == nil {
			return ""
		}
		return strconv.FormatBool(**p)
	case *bool:
		return strconv.FormatBool(*p)
	case *time.Time:
		if p.IsZero() {
			return ""
		}
		return p.Format(time.DateOnly)
	}
	return ""
}
