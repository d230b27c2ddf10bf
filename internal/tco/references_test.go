package tco

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// unconfirmedAll returns all twelve lines, each answered unconfirmed.
func unconfirmedAll() []Line {
	out := make([]Line, len(catalog.Items))
	for i, it := range catalog.Items {
		out[i] = Line{Item: it.Key, Status: catalog.StatusUnconfirmed}
	}
	return out
}

// issueExample is the example of docs/RULES.md §13.3: the reference quote
// (hourly €0.471, second billing) with all twelve lines unconfirmed, for
// 200 running hours a month kept stopped in between (730 − 200 = 530
// stopped hours), 500 GB of data disk and 300 GB of egress a month.
func issueExample() (Quote, Profile) {
	q := hostkey()
	q.Lines = unconfirmedAll()
	p := profile("200", 1)
	p.DataDiskGB = d("500")
	p.EgressGBPerMonth = d("300")
	p.BetweenRuns = catalog.BetweenRunsKeepStopped
	return q, p
}

func items(keys ...catalog.ItemKey) []catalog.ItemKey { return keys }

func eqItems(t *testing.T, what string, got, want []catalog.ItemKey) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// TestPessimisticUnpriced: every unconfirmed line that is used and has no
// reference price is named, in table order; the pessimistic figure then
// equals the confirmed one, and so do the two hidden shares.
func TestPessimisticUnpriced(t *testing.T) {
	q, p := issueExample()
	r := mustEval(t, q, p, Options{})
	eq(t, "tco", r.TCO, "94.20")
	eq(t, "tco_pessimistic", r.TCOPessimistic, "94.20")
	// Quantities: bandwidth 0 Mbps, egress 300, migration 0, IPs 0, system
	// disk 0, data disk 500, object storage 0, bundled add-on 1 (always),
	// snapshot 0, image 0, stopped 530 h, starts 1 (the default S).
	eqItems(t, "unpriced", r.PessimisticUnpriced, items(catalog.ItemEgress, catalog.ItemDataDisk,
		catalog.ItemBundledAddon, catalog.ItemStoppedRetention, catalog.ItemStartStopSchedule))
	eq(t, "stopped hours", line(r, catalog.ItemStoppedRetention).Quantity, "530")
	eqNull(t, "hidden_share", r.HiddenShare, "0.0000")
	eqNull(t, "hidden_share_pessimistic", r.HiddenSharePessimistic, "0.0000")
	eqItems(t, "hourly mode unpriced", mode(r, catalog.ModeHourly).PessimisticUnpriced, r.PessimisticUnpriced)

	// An editors' reference for egress only: 0.05 × 300 = 15.00 goes in,
	// egress leaves the list; share (109.20 − 94.20) ÷ 109.20 = 0.13736…
	refs := []ReferencePrice{{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.05")}}
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	eq(t, "tco_pessimistic", r.TCOPessimistic, "109.20")
	eqItems(t, "unpriced", r.PessimisticUnpriced, items(catalog.ItemDataDisk,
		catalog.ItemBundledAddon, catalog.ItemStoppedRetention, catalog.ItemStartStopSchedule))
	eqNull(t, "hidden_share_pessimistic", r.HiddenSharePessimistic, "0.1374")
	eqNull(t, "hidden_share", r.HiddenShare, "0.0000")
	el := line(r, catalog.ItemEgress)
	if el.ReferenceSource != SourceEditor || el.ReferenceQuoteID != 0 {
		t.Errorf("egress reference from %q, quote %d", el.ReferenceSource, el.ReferenceQuoteID)
	}
	if dl := line(r, catalog.ItemDataDisk); dl.ReferenceSource != "" || dl.ReferenceUnitPrice.Valid {
		t.Errorf("data disk has a reference: %+v", dl)
	}

	// docs/RULES.md §13.3 goes on: a data-disk reference of $0.02 per
	// GB·month converted at USD → EUR 0.92 (0.0184 × 500 = 9.20), then the
	// market reference for stopped hours, €0.01 per hour from quote 314
	// (530 × 0.01 = 5.30).
	usd := func(from, to string) (decimal.Decimal, bool) { return d("0.92"), from == "USD" && to == "EUR" }
	refs = ConvertReferences(append(refs, ReferencePrice{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerMonth,
		UnitPrice: d("0.02"), Currency: "USD"}), "EUR", usd)
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	eq(t, "tco_pessimistic with data disk", r.TCOPessimistic, "118.40")
	eqNull(t, "share with data disk", r.HiddenSharePessimistic, "0.2044") // 24.20 ÷ 118.40
	refs = append(refs, ReferencePrice{Item: catalog.ItemStoppedRetention, Unit: catalog.UnitPerHour,
		UnitPrice: d("0.01"), Source: SourceMarket, QuoteID: 314})
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	eq(t, "tco_pessimistic with stopped hours", r.TCOPessimistic, "123.70")
	eqNull(t, "share with stopped hours", r.HiddenSharePessimistic, "0.2385") // 29.50 ÷ 123.70
	eqItems(t, "unpriced", r.PessimisticUnpriced, items(catalog.ItemBundledAddon, catalog.ItemStartStopSchedule))
	if sl := line(r, catalog.ItemStoppedRetention); sl.ReferenceSource != SourceMarket || sl.ReferenceQuoteID != 314 {
		t.Errorf("stopped line %+v", sl)
	}
	refs = refs[:1]

	// A reference of 0 is still a reference: priced at 0, not unpriced.
	refs = append(refs, ReferencePrice{Item: catalog.ItemBundledAddon, Unit: catalog.UnitFlatMonth, UnitPrice: d("0")})
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	eqItems(t, "unpriced", r.PessimisticUnpriced, items(catalog.ItemDataDisk,
		catalog.ItemStoppedRetention, catalog.ItemStartStopSchedule))
}

// TestPessimisticUnpricedZeroQuantities: an unused item is never named;
// the bundled add-on always is; the list is the chosen mode's, so stopped
// hours count only where the mode bills them.
func TestPessimisticUnpricedZeroQuantities(t *testing.T) {
	q := hostkey()
	q.Lines = nil // all twelve missing, so unconfirmed
	r := mustEval(t, q, profile("200", 1), Options{})
	eqItems(t, "unpriced", r.PessimisticUnpriced, items(catalog.ItemBundledAddon, catalog.ItemStartStopSchedule))

	// Answered lines are never named, whatever their quantity.
	q.Lines = withLine(included(), Line{Item: catalog.ItemEgress, Status: catalog.StatusUnconfirmed})
	p := profile("200", 1)
	p.EgressGBPerMonth = d("0")
	p.SnapshotGB = d("10")
	r = mustEval(t, q, p, Options{})
	eqItems(t, "unpriced with egress 0", r.PessimisticUnpriced, nil)

	// An allowance on an unconfirmed line is not relied on (docs/RULES.md
	// §3.4): 50 GB against a 100 GB allowance is still used.
	q.Lines = withLine(included(), Line{Item: catalog.ItemEgress, Status: catalog.StatusUnconfirmed, FreeAllowance: d("100")})
	p.EgressGBPerMonth = d("50")
	r = mustEval(t, q, p, Options{})
	eqItems(t, "unpriced egress within allowance", r.PessimisticUnpriced, items(catalog.ItemEgress))

	// keep_stopped beside a cheaper monthly price: the monthly result has
	// no stopped hours, the hourly mode has 530.
	q, p = issueExample()
	q.Monthly = nd("70")
	r = mustEval(t, q, p, Options{})
	if r.ChosenMode != catalog.ModeMonthly {
		t.Fatalf("chosen %s", r.ChosenMode)
	}
	eqItems(t, "monthly unpriced", r.PessimisticUnpriced, items(catalog.ItemEgress, catalog.ItemDataDisk,
		catalog.ItemBundledAddon, catalog.ItemStartStopSchedule))
	eqItems(t, "hourly unpriced", mode(r, catalog.ModeHourly).PessimisticUnpriced, items(catalog.ItemEgress,
		catalog.ItemDataDisk, catalog.ItemBundledAddon, catalog.ItemStoppedRetention, catalog.ItemStartStopSchedule))

	// No pessimistic share of nothing: a free quote has tco_pessimistic 0.
	q = hostkey()
	q.Hourly = nd("0")
	r = mustEval(t, q, profile("200", 1), Options{})
	eqNull(t, "hidden_share_pessimistic of 0", r.HiddenSharePessimistic, "")
	eqNull(t, "hidden_share of 0", r.HiddenShare, "")
}

// TestReferenceSources: the editors' reference comes first, item by item;
// the market reference stands in only where no editors' reference applies
// to the line, and the line names its quote.
func TestReferenceSources(t *testing.T) {
	q := hostkey()
	q.Lines = nil
	p := profile("200", 1)
	p.SnapshotGB = d("100")
	p.EgressGBPerMonth = d("300")

	// Snapshot: editors 0.05 (5.00) and market 0.08 (8.00): the editors'
	// figure wins even though the market's is higher. Egress: market only,
	// 0.09 × 300 = 27.00, from quote 42.
	refs := []ReferencePrice{
		{Item: catalog.ItemSnapshot, Unit: catalog.UnitPerMonth, UnitPrice: d("0.08"), Source: SourceMarket, QuoteID: 7},
		{Item: catalog.ItemSnapshot, Unit: catalog.UnitPerMonth, UnitPrice: d("0.05"), Source: SourceEditor},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.09"), Source: SourceMarket, QuoteID: 42},
	}
	r := mustEval(t, q, p, Options{ReferencePrices: refs})
	sl := line(r, catalog.ItemSnapshot)
	eqNull(t, "snapshot reference", sl.ReferenceAmount, "5.00")
	if sl.ReferenceSource != SourceEditor || sl.ReferenceQuoteID != 0 {
		t.Errorf("snapshot from %q quote %d", sl.ReferenceSource, sl.ReferenceQuoteID)
	}
	el := line(r, catalog.ItemEgress)
	eqNull(t, "egress reference", el.ReferenceAmount, "27.00")
	eqNull(t, "egress reference price", el.ReferenceUnitPrice, "0.09")
	if el.ReferenceSource != SourceMarket || el.ReferenceQuoteID != 42 {
		t.Errorf("egress from %q quote %d", el.ReferenceSource, el.ReferenceQuoteID)
	}
	eq(t, "tco_pessimistic", r.TCOPessimistic, "126.20") // 94.20 + 5.00 + 27.00
	eqItems(t, "unpriced", r.PessimisticUnpriced, items(catalog.ItemBundledAddon, catalog.ItemStartStopSchedule))

	// An empty source is the editors'.
	refs[1].Source = ""
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	if sl := line(r, catalog.ItemSnapshot); sl.ReferenceSource != SourceEditor || !sl.ReferenceAmount.Decimal.Equal(d("5")) {
		t.Errorf("snapshot %+v", sl)
	}

	// Market references alone, in two units and no unit named: the highest
	// amount is used (flat 40 beats 0.09 × 300 = 27).
	refs = []ReferencePrice{
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.09"), Source: SourceMarket, QuoteID: 42},
		{Item: catalog.ItemEgress, Unit: catalog.UnitFlatMonth, UnitPrice: d("40"), Source: SourceMarket, QuoteID: 43},
	}
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	el = line(r, catalog.ItemEgress)
	eqNull(t, "highest market reference", el.ReferenceAmount, "40.00")
	if el.Unit != catalog.UnitFlatMonth || el.ReferenceQuoteID != 43 {
		t.Errorf("unit %s quote %d", el.Unit, el.ReferenceQuoteID)
	}

	// The vendor named per_gb: an editors' flat reference does not apply to
	// the line, so the market's per_gb reference stands in.
	q.Lines = []Line{{Item: catalog.ItemEgress, Status: catalog.StatusUnconfirmed, Unit: catalog.UnitPerGB}}
	refs = append(refs, ReferencePrice{Item: catalog.ItemEgress, Unit: catalog.UnitFlatMonth, UnitPrice: d("50")})
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	el = line(r, catalog.ItemEgress)
	eqNull(t, "market in the named unit", el.ReferenceAmount, "27.00")
	if el.ReferenceSource != SourceMarket || el.ReferenceQuoteID != 42 {
		t.Errorf("egress from %q quote %d", el.ReferenceSource, el.ReferenceQuoteID)
	}
}

// TestReferenceNamedUnitOnly: where the vendor named a unit, a reference in
// any other unit does not apply, and the line is named as unpriced.
func TestReferenceNamedUnitOnly(t *testing.T) {
	q := hostkey()
	q.Lines = withLine(included(), Line{Item: catalog.ItemDataDisk, Status: catalog.StatusUnconfirmed, Unit: catalog.UnitPerDay})
	p := profile("200", 1)
	p.DataDiskGB = d("500")
	refs := []ReferencePrice{{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerMonth, UnitPrice: d("0.1")}}
	r := mustEval(t, q, p, Options{ReferencePrices: refs})
	eq(t, "tco_pessimistic", r.TCOPessimistic, "94.20")
	eqItems(t, "unpriced", r.PessimisticUnpriced, items(catalog.ItemDataDisk))
	if l := line(r, catalog.ItemDataDisk); l.ReferenceUnitPrice.Valid || l.Unit != catalog.UnitPerDay {
		t.Errorf("data disk %+v", l)
	}
	// In the named unit: 0.004 × 500 × 730 ÷ 24 = 60.833… → 60.83.
	refs = append(refs, ReferencePrice{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerDay, UnitPrice: d("0.004")})
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	eqNull(t, "named unit", line(r, catalog.ItemDataDisk).ReferenceAmount, "60.83")
	eqItems(t, "unpriced", r.PessimisticUnpriced, nil)
}

// TestConvertReferences: a reference in another currency is converted at
// the rate from its currency into the quote's, exactly; one without a rate
// is left out; one in the quote's currency is untouched.
func TestConvertReferences(t *testing.T) {
	var asked []string
	rate := func(from, to string) (decimal.Decimal, bool) {
		asked = append(asked, from+"→"+to)
		switch from {
		case "USD":
			return d("0.92"), true
		case "CNY":
			return d("0.1281234567"), true
		}
		return decimal.Decimal{}, false
	}
	refs := []ReferencePrice{
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.05"), Currency: "USD"},
		{Item: catalog.ItemSnapshot, Unit: catalog.UnitPerMonth, UnitPrice: d("0.1"), Currency: "EUR"},
		{Item: catalog.ItemImage, Unit: catalog.UnitPerMonth, UnitPrice: d("0.2")},
		{Item: catalog.ItemPublicIP, Unit: catalog.UnitPerMonth, UnitPrice: d("3"), Currency: "GBP"},
		{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerMonth, UnitPrice: d("0.000123"), Currency: "CNY",
			Source: SourceMarket, QuoteID: 9},
	}
	orig := append([]ReferencePrice(nil), refs...)
	got := ConvertReferences(refs, "EUR", rate)
	if len(got) != 4 {
		t.Fatalf("%d references: %+v", len(got), got)
	}
	want := []struct {
		item     catalog.ItemKey
		price    string
		currency string
	}{
		{catalog.ItemEgress, "0.046", "EUR"},                // 0.05 × 0.92
		{catalog.ItemSnapshot, "0.1", "EUR"},                // same currency: as it is
		{catalog.ItemImage, "0.2", ""},                      // no currency: the quote's
		{catalog.ItemDataDisk, "0.0000157591851741", "EUR"}, // exact: 0.000123 × 0.1281234567
	}
	for i, w := range want {
		if got[i].Item != w.item || money.String(got[i].UnitPrice) != w.price || got[i].Currency != w.currency {
			t.Errorf("reference %d = %s %s %s, want %s %s %s", i, got[i].Item, money.String(got[i].UnitPrice), got[i].Currency, w.item, w.price, w.currency)
		}
	}
	if got[3].Source != SourceMarket || got[3].QuoteID != 9 {
		t.Errorf("market reference lost its source: %+v", got[3])
	}
	if !reflect.DeepEqual(asked, []string{"USD→EUR", "GBP→EUR", "CNY→EUR"}) {
		t.Errorf("asked %v", asked)
	}
	for i := range refs {
		if !refs[i].UnitPrice.Equal(orig[i].UnitPrice) || refs[i].Currency != orig[i].Currency {
			t.Errorf("input %d changed: %+v", i, refs[i])
		}
	}

	// The engine prices with the converted reference, at all its places:
	// 300 GB × 0.046 = 13.80; data disk 500 × 0.0000157591851741 = 0.00787… → 0.01.
	q := hostkey()
	q.Lines = nil
	p := profile("200", 1)
	p.EgressGBPerMonth = d("300")
	p.DataDiskGB = d("500")
	r := mustEval(t, q, p, Options{ReferencePrices: got})
	eqNull(t, "converted egress", line(r, catalog.ItemEgress).ReferenceAmount, "13.80")
	eqNull(t, "converted data disk", line(r, catalog.ItemDataDisk).ReferenceAmount, "0.01")
	if l := line(r, catalog.ItemDataDisk); l.ReferenceSource != SourceMarket || l.ReferenceQuoteID != 9 {
		t.Errorf("data disk %+v", l)
	}
	// Unconverted, the foreign references do not exist for the quote.
	r = mustEval(t, q, p, Options{ReferencePrices: refs})
	if line(r, catalog.ItemEgress).ReferenceUnitPrice.Valid || line(r, catalog.ItemDataDisk).ReferenceUnitPrice.Valid {
		t.Error("a reference in another currency was used unconverted")
	}

	// Two currencies' references for one item and unit both convert: the
	// engine accepts both and uses the higher amount (0.05 USD = 0.046 EUR
	// against 0.04 EUR).
	two := ConvertReferences([]ReferencePrice{
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.04"), Currency: "EUR"},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.05"), Currency: "USD"},
	}, "EUR", rate)
	r = mustEval(t, q, p, Options{ReferencePrices: two})
	eqNull(t, "higher of two currencies", line(r, catalog.ItemEgress).ReferenceUnitPrice, "0.046")
}

// TestValidateReferenceSources: a source is editor or market; only the
// market reference names a quote, and it must.
func TestValidateReferenceSources(t *testing.T) {
	q := hostkey()
	o := Options{ReferencePrices: []ReferencePrice{
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.1"), Source: "vendor"},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.1"), Source: SourceEditor, QuoteID: 3},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.1"), Source: SourceMarket},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.1"), Source: SourceMarket, QuoteID: -1},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.1"), QuoteID: 4},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.12345678901234567")},
	}}
	_, err := Evaluate(q, profile("1", 1), o)
	assertFields(t, err,
		"reference_prices[0].source:unknown_source",
		"reference_prices[1].quote_id:quote_id_not_market",
		"reference_prices[2].quote_id:required",
		"reference_prices[3].quote_id:must_be_positive",
		"reference_prices[4].quote_id:quote_id_not_market",
		"reference_prices[5].unit_price:too_many_decimals",
	)
	// A converted price's 16 places, and several references for one item
	// and unit, are fine.
	o.ReferencePrices = []ReferencePrice{
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.1234567890123456")},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.2")},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.3"), Source: SourceMarket, QuoteID: 1},
	}
	if _, err := Evaluate(q, profile("1", 1), o); err != nil {
		t.Errorf("converted references: %v", err)
	}
}

// TestConvertReferencesKeepsTheHighestOfEachSource: an editor's price in
// two currencies for one item and unit becomes one reference, the higher
// once converted, where the first stood; the market's is kept beside it.
func TestConvertReferencesKeepsTheHighestOfEachSource(t *testing.T) {
	rate := func(from, to string) (decimal.Decimal, bool) { return d("0.13"), from == "CNY" }
	refs := []ReferencePrice{
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.05"), Currency: "EUR"},
		{Item: catalog.ItemSnapshot, Unit: catalog.UnitPerMonth, UnitPrice: d("0.1"), Currency: "EUR"},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.5"), Currency: "CNY"}, // 0.065 EUR
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.07"), Currency: "EUR", Source: SourceMarket, QuoteID: 4},
		{Item: catalog.ItemEgress, Unit: catalog.UnitPerGB, UnitPrice: d("0.5"), Currency: "CNY", Source: SourceMarket, QuoteID: 5},
		{Item: catalog.ItemSnapshot, Unit: catalog.UnitPerMonth, UnitPrice: d("0.1"), Currency: "EUR", Source: SourceEditor}, // a tie: the first stays
	}
	got := ConvertReferences(refs, "EUR", rate)
	var s []string
	for _, r := range got {
		s = append(s, string(r.Item)+" "+money.String(r.UnitPrice)+" "+string(r.Source)+" "+strconv.FormatInt(r.QuoteID, 10))
	}
	want := []string{"egress 0.065  0", "snapshot 0.1  0", "egress 0.07 market 4"}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %q, want %q", s, want)
	}
}
