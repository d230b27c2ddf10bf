package compare

import (
	"reflect"
	"sort"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
	"gpuquote/internal/quote"
)

// CrossingKind says which prices of two offers a crossing sets against
// each other (docs/RULES.md §4.7).
type CrossingKind string

// The kinds of crossing.
const (
	// CrossingHours sets an hourly-only offer against a monthly-only one:
	// the figure is running hours per month.
	CrossingHours CrossingKind = "hours"
	// CrossingMonths sets a monthly-only offer against a yearly-only one:
	// the figure is months.
	CrossingMonths CrossingKind = "months"
)

// SpecFields are the quote fields (quote.Fields names) that say what an
// offer rents besides its GPU model and count: the guide's "align specs
// before comparing" names the fields of this list on which two offers
// differ. Prices, terms, region and the sample's date are not specs.
var SpecFields = []string{
	"vram_gb", "sharing", "cpu_cores", "ram_gb",
	"included_system_disk_gb", "included_data_disk_gb", "included_mbps",
}

// Crossing is where the price of one offer meets that of another offer of
// the same platform, GPU model and GPU count (docs/RULES.md §4.7).
type Crossing struct {
	Kind CrossingKind
	// Flexible and Committed index the rows: the offer without the
	// commitment (hourly-only for hours, monthly-only for months) and the
	// one with it (monthly-only, yearly-only).
	Flexible, Committed int
	// Value is committed ÷ flexible price, both in the report currency
	// with tax, rounded half-up to 0.01: hours per month for
	// CrossingHours, months for CrossingMonths.
	Value decimal.Decimal
	// Differs names the SpecFields on which the two offers differ, in the
	// order of SpecFields; a field stated by one and not the other differs.
	Differs []string
}

// offerKind is which of a quote's compute prices are given.
type offerKind int

const (
	otherOffer offerKind = iota
	hourlyOnly
	monthlyOnly
	yearlyOnly
)

// kindOf classifies a quote by its hourly, monthly and yearly prices (a
// spot price does not count).
func kindOf(q quote.Quote) offerKind {
	h, m, y := q.Hourly.Valid, q.Monthly.Valid, q.Yearly.Valid
	switch {
	case h && !m && !y:
		return hourlyOnly
	case m && !h && !y:
		return monthlyOnly
	case y && !h && !m:
		return yearlyOnly
	}
	return otherOffer
}

// offerGroup is what two offers must share to be set against each other.
type offerGroup struct {
	platform, gpu int64
	count         int
}

// Crossings pairs the priced rows that hold an offer without commitment
// and one with it for the same platform, GPU model and GPU count: each
// hourly-only offer with each monthly-only one (break-even hours per
// month), each monthly-only offer with each yearly-only one (break-even
// months). Both prices are taken as the comparison prices them: converted
// into the report currency at the row's rate and with tax (so offers in
// different currencies or with different tax treatment pair too), the
// quotient computed exactly and rounded once. Rows that could not be
// priced have no rate and pair with nothing.
//
// The result is ordered hours before months, then by the flexible offer's
// row, then by the figure.
func Crossings(rows []Row) []Crossing {
	var out []Crossing
	pair := func(kind CrossingKind, flexPrice func(quote.Quote) decimal.NullDecimal, fromKind, toKind offerKind) {
		for i, a := range rows {
			if !a.Priced || kindOf(a.Quote) != fromKind {
				continue
			}
			fa, ok := priceFactor(a)
			p := flexPrice(a.Quote)
			if !ok || !p.Valid || p.Decimal.Sign() <= 0 {
				continue
			}
			for j, b := range rows {
				if !b.Priced || kindOf(b.Quote) != toKind || groupOf(a) != groupOf(b) {
					continue
				}
				fb, ok := priceFactor(b)
				if !ok {
					continue
				}
				c := committedPrice(b.Quote)
				v := money.QuoRound([]decimal.Decimal{c, fb}, []decimal.Decimal{p.Decimal, fa}, 2)
				out = append(out, Crossing{Kind: kind, Flexible: i, Committed: j, Value: v, Differs: SpecDifferences(a, b)})
			}
		}
	}
	hourly := func(q quote.Quote) decimal.NullDecimal { return q.Hourly }
	monthly := func(q quote.Quote) decimal.NullDecimal { return q.Monthly }
	pair(CrossingHours, hourly, hourlyOnly, monthlyOnly)
	pair(CrossingMonths, monthly, monthlyOnly, yearlyOnly)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Kind != b.Kind {
			return a.Kind == CrossingHours
		}
		if a.Flexible != b.Flexible {
			return a.Flexible < b.Flexible
		}
		return a.Value.LessThan(b.Value)
	})
	return out
}

// committedPrice is the price of a monthly-only or yearly-only offer.
func committedPrice(q quote.Quote) decimal.Decimal {
	if q.Monthly.Valid {
		return q.Monthly.Decimal
	}
	return q.Yearly.Decimal
}

func groupOf(r Row) offerGroup {
	return offerGroup{platform: r.Quote.PlatformID, gpu: r.Quote.GPUModelID, count: r.Quote.GPUCount}
}

// priceFactor turns one of a priced row's prices into the report currency
// with tax, as UnitPrices does: the row's rate times the tax factor.
func priceFactor(r Row) (decimal.Decimal, bool) {
	k := r.Result.FXRate
	if k.Sign() <= 0 {
		return decimal.Decimal{}, false
	}
	if !r.Quote.PricesIncludeTax {
		k = k.Mul(decimal.NewFromInt(1).Add(r.Quote.TaxRate))
	}
	return k, true
}

// SpecDifferences names the SpecFields on which two rows' offers differ.
// The VRAM per GPU is the quote's, else the GPU model's, as the engine
// reads it; any other field stated on one offer and not on the other
// differs.
func SpecDifferences(a, b Row) []string {
	qa, qb := specQuote(a), specQuote(b)
	var out []string
	for _, name := range SpecFields {
		f, ok := quote.FieldByName(name)
		if !ok {
			continue
		}
		if !sameValue(f.Value(&qa), f.Value(&qb)) {
			out = append(out, name)
		}
	}
	return out
}

func specQuote(r Row) quote.Quote {
	q := r.Quote
	if !q.VRAMGB.Valid && r.GPU.VRAMGB.Sign() > 0 {
		q.VRAMGB = decimal.NewNullDecimal(r.GPU.VRAMGB)
	}
	return q
}

// sameValue compares two pointers a quote.Field's Value returns, decimals
// by value (1.50 = 1.5).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case *decimal.NullDecimal:
		y := b.(*decimal.NullDecimal)
		return x.Valid == y.Valid && (!x.Valid || x.Decimal.Equal(y.Decimal))
	case *decimal.Decimal:
		return x.Equal(*b.(*decimal.Decimal))
	case **int:
		y := b.(**int)
		return (*x == nil) == (*y == nil) && (*x == nil || **x == **y)
	case **bool:
		y := b.(**bool)
		return (*x == nil) == (*y == nil) && (*x == nil || **x == **y)
	}
	return reflect.DeepEqual(reflect.ValueOf(a).Elem().Interface(), reflect.ValueOf(b).Elem().Interface())
}
