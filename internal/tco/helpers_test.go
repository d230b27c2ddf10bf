package tco

import (
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

func d(s string) decimal.Decimal { return money.MustParse(s) }

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(d(s)) }

// included returns all twelve lines as included.
func included() []Line {
	out := make([]Line, len(catalog.Items))
	for i, it := range catalog.Items {
		out[i] = Line{Item: it.Key, Status: catalog.StatusIncluded}
	}
	return out
}

// withLine replaces the line of l.Item.
func withLine(lines []Line, l Line) []Line {
	out := append([]Line(nil), lines...)
	for i := range out {
		if out[i].Item == l.Item {
			out[i] = l
			return out
		}
	}
	return append(out, l)
}

func charged(item catalog.ItemKey, unit catalog.Unit, price string) Line {
	return Line{Item: item, Status: catalog.StatusCharged, Unit: unit, UnitPrice: nd(price)}
}

// hostkey is the golden-example quote of docs/RULES.md §13.1: EUR, hourly 0.471, second
// granularity, one GPU, all twelve lines included, tax included.
func hostkey() Quote {
	return Quote{
		Currency:           "EUR",
		GPUCount:           1,
		Hourly:             nd("0.471"),
		BillingGranularity: catalog.GranularitySecond,
		PricesIncludeTax:   true,
		Lines:              included(),
	}
}

func profile(h string, months int) Profile {
	return Profile{HoursPerMonth: d(h), Months: months, Instances: 1}
}

func mustEval(t *testing.T, q Quote, p Profile, o Options) Result {
	t.Helper()
	r, err := Evaluate(q, p, o)
	if err != nil {
		t.Fatalf("Evaluate: %v", err)
	}
	checkLedger(t, r)
	return r
}

// checkLedger asserts the ledger invariants every result must hold.
func checkLedger(t testing.TB, r Result) {
	t.Helper()
	if !r.TCO.Equal(r.ComputeTotal.Add(r.HiddenTotal).Add(r.OneOffTotal)) {
		t.Errorf("tco %s != compute %s + hidden %s + one-off %s", r.TCO, r.ComputeTotal, r.HiddenTotal, r.OneOffTotal)
	}
	var hidden, oneOff, refs decimal.Decimal
	for _, l := range r.Lines {
		if money.Places(l.Amount) > 2 {
			t.Errorf("%s amount %s not rounded to cents", l.Item, l.Amount)
		}
		if l.OneOff {
			oneOff = oneOff.Add(l.Amount)
		} else {
			hidden = hidden.Add(l.Amount)
		}
		if l.ReferenceAmount.Valid {
			refs = refs.Add(l.ReferenceAmount.Decimal)
		}
	}
	if !hidden.Equal(r.HiddenTotal) || !oneOff.Equal(r.OneOffTotal) {
		t.Errorf("lines sum to hidden %s one-off %s, result says %s %s", hidden, oneOff, r.HiddenTotal, r.OneOffTotal)
	}
	if !r.TCOPessimistic.Equal(r.TCO.Add(refs)) {
		t.Errorf("tco_pessimistic %s != tco %s + references %s", r.TCOPessimistic, r.TCO, refs)
	}
	if len(r.Lines) != catalog.ItemCount {
		t.Errorf("%d lines", len(r.Lines))
	}
	var unpriced []catalog.ItemKey
	for i, l := range r.Lines {
		if l.Item != catalog.Items[i].Key {
			t.Errorf("line %d is %s", i, l.Item)
		}
		if l.Status == catalog.StatusUnconfirmed && !l.ReferenceUnitPrice.Valid &&
			(l.Quantity.Sign() > 0 || l.Item == catalog.ItemBundledAddon) {
			unpriced = append(unpriced, l.Item)
		}
		if l.ReferenceUnitPrice.Valid != (l.ReferenceSource != "") || (l.ReferenceQuoteID != 0 && l.ReferenceSource != SourceMarket) {
			t.Errorf("%s reference source %q quote %d", l.Item, l.ReferenceSource, l.ReferenceQuoteID)
		}
	}
	// The unpriced list is exactly the used unconfirmed lines without a
	// reference, in table order (docs/RULES.md §3.6).
	if len(unpriced) != len(r.PessimisticUnpriced) {
		t.Errorf("unpriced %v, lines say %v", r.PessimisticUnpriced, unpriced)
	} else {
		for i := range unpriced {
			if unpriced[i] != r.PessimisticUnpriced[i] {
				t.Errorf("unpriced %v, lines say %v", r.PessimisticUnpriced, unpriced)
				break
			}
		}
	}
	if r.HiddenSharePessimistic.Valid != (r.TCOPessimistic.Sign() > 0) {
		t.Errorf("hidden_share_pessimistic %v with tco_pessimistic %s", r.HiddenSharePessimistic, r.TCOPessimistic)
	}
}

// eq compares a decimal with a string value exactly.
func eq(t *testing.T, what string, got decimal.Decimal, want string) {
	t.Helper()
	if !got.Equal(d(want)) {
		t.Errorf("%s = %s, want %s", what, money.String(got), want)
	}
}

func eqNull(t *testing.T, what string, got decimal.NullDecimal, want string) {
	t.Helper()
	if want == "" {
		if got.Valid {
			t.Errorf("%s = %s, want absent", what, money.String(got.Decimal))
		}
		return
	}
	if !got.Valid {
		t.Errorf("%s absent, want %s", what, want)
		return
	}
	eq(t, what, got.Decimal, want)
}

func mode(r Result, m catalog.Mode) ModeResult {
	for _, x := range r.Modes {
		if x.Mode == m {
			return x
		}
	}
	return ModeResult{}
}

func line(r Result, item catalog.ItemKey) LineResult {
	return r.Lines[catalog.ItemIndex(item)]
}

func hasFlag(r Result, f catalog.Flag) bool {
	for _, x := range r.Flags {
		if x == f {
			return true
		}
	}
	return false
}
