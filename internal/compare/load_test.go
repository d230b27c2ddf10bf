package compare

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
	"gpuquote/internal/vendorq"
)

// memory is what a comparison reads, held in memory: the service is
// tested without a database (the store's own tests cover the SQL).
type memory struct {
	gpus   []market.GPUModel
	quotes map[int64]quote.Quote
	rates  []market.FXRate
	refs   []market.ReferencePrice
	market []market.MarketPrice
	perf   map[market.PlatformGPU]decimal.Decimal
	terms  map[int64][]market.PlatformTerm
	// current maps a series to its current published version.
	current map[int64]int64
	// ownVersions are own-hardware option versions by id, ownOptions the
	// options by id, power the electricity samples in force by region.
	ownVersions map[int64]own.Version
	ownOptions  map[int64]own.Option
	power       map[string]own.ElectricityPrice
}

func (m memory) OwnOptionVersionByID(_ context.Context, id int64) (own.Version, error) {
	if v, ok := m.ownVersions[id]; ok {
		return v, nil
	}
	return own.Version{}, own.ErrNotFound
}

func (m memory) OwnOptionByID(_ context.Context, id int64) (own.Option, error) {
	if o, ok := m.ownOptions[id]; ok {
		return o, nil
	}
	return own.Option{}, own.ErrNotFound
}

func (m memory) ResolveElectricity(_ context.Context, v own.Version, _ time.Time) (own.Electricity, error) {
	if v.ElectricityRegion == "" {
		return own.Electricity{KWhPrice: v.KWhPrice.Decimal}, nil
	}
	p, ok := m.power[v.ElectricityRegion]
	if !ok {
		return own.Electricity{}, own.ErrNoElectricitySample
	}
	return own.Electricity{KWhPrice: p.KWhPrice, SampleID: p.ID, Region: p.Region, AsOf: p.AsOf, Source: p.Source}, nil
}

func (m memory) AllGPUModels(context.Context) ([]market.GPUModel, error) { return m.gpus, nil }

func (m memory) QuotesByIDs(_ context.Context, ids []int64) ([]quote.Quote, error) {
	var out []quote.Quote
	for _, id := range ids {
		if q, ok := m.quotes[id]; ok {
			out = append(out, q)
		}
	}
	return out, nil
}

func (m memory) CurrentFXRates(context.Context, time.Time) ([]market.FXRate, error) {
	return m.rates, nil
}

func (m memory) CurrentReferencePrices(context.Context, string, time.Time) ([]market.ReferencePrice, error) {
	return m.refs, nil
}

func (m memory) MarketPrices(context.Context, time.Time) ([]market.MarketPrice, error) {
	return m.market, nil
}

func (m memory) PerformanceRatios(context.Context) (map[market.PlatformGPU]decimal.Decimal, error) {
	return m.perf, nil
}

func (m memory) PlatformTermsByPlatform(context.Context, []int64) (map[int64][]market.PlatformTerm, error) {
	return m.terms, nil
}

func (m memory) CurrentQuoteVersions(context.Context, []int64) (map[int64]int64, error) {
	return m.current, nil
}

var loadDay = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func market3() memory {
	gpu := r9700
	gpu.ID = 1
	m := memory{gpus: []market.GPUModel{gpu}, quotes: map[int64]quote.Quote{},
		rates: []market.FXRate{{Base: "USD", Quote: "EUR", Rate: decimal.RequireFromString("0.9"), AsOf: loadDay}}}
	for id, cur := range map[int64]string{1: "EUR", 2: "USD", 3: "EUR"} {
		c := cand(id, cur, "0.5", "", "", gpu)
		c.Quote.SeriesID, c.Quote.GPUModelID, c.Quote.PlatformID, c.Quote.State = id, 1, 10+id, quote.Published
		m.quotes[id] = c.Quote
	}
	d := m.quotes[3]
	d.State = quote.Draft
	m.quotes[3] = d
	return m
}

// TestLoadPricesTheSelection: drafts are never compared, rates convert
// into the report currency, the trial's ratio replaces the profile's for
// its platform × GPU model, and the rows come in table order.
func TestLoadPricesTheSelection(t *testing.T) {
	m := market3()
	m.perf = map[market.PlatformGPU]decimal.Decimal{{PlatformID: 12, GPUModelID: 1}: decimal.RequireFromString("0.8")}
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"report_currency": {"eur"}, "q": {"2", "1", "3", "2", "x"}}
	cmp, err := Load(context.Background(), m, values, loadDay)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.SelectedIDs) != 3 || len(cmp.Selected) != 2 || cmp.In.ReportCurrency != "EUR" {
		t.Fatalf("selected %v, compared %d, currency %s", cmp.SelectedIDs, len(cmp.Selected), cmp.In.ReportCurrency)
	}
	// USD 0.5 × 200 × 0.9 = 90.00 before EUR 0.5 × 200 = 100.00.
	if len(cmp.Rows) != 2 || cmp.Rows[0].Quote.ID != 2 || cmp.Rows[0].Result.TCO.StringFixed(2) != "90.00" ||
		cmp.Rows[1].Result.TCO.StringFixed(2) != "100.00" {
		t.Fatalf("rows %+v", cmp.Rows)
	}
	if !cmp.Rows[0].Result.PerReferenceGPUHour.Valid || cmp.Rows[1].Result.PerReferenceGPUHour.Valid {
		t.Error("the trial's ratio applies to its platform × GPU model only")
	}
}

// TestLoadCapsTheSelection: more than MaxSelected quotes are cut, and said.
func TestLoadCapsTheSelection(t *testing.T) {
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}}
	for i := 1; i <= MaxSelected+3; i++ {
		values.Add("q", strconv.Itoa(i))
	}
	cmp, err := Load(context.Background(), market3(), values, loadDay)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.TooMany || len(cmp.SelectedIDs) != MaxSelected {
		t.Fatalf("too many %v, %d selected", cmp.TooMany, len(cmp.SelectedIDs))
	}
	// No currency asked for: the compared quotes' common one; EUR and USD
	// share none, so the default.
	if cmp.In.ReportCurrency != DefaultCurrency {
		t.Errorf("report currency %s", cmp.In.ReportCurrency)
	}
}

// TestRecomputeTakesTheCurrentVersions: recomputing a report's comparison
// prices each offer at its current version and freezes the platform's
// answers into the questions.
func TestRecomputeTakesTheCurrentVersions(t *testing.T) {
	m := market3()
	newer := m.quotes[1]
	newer.ID, newer.Version, newer.Hourly = 4, 2, nd("0.3")
	m.quotes[4] = newer
	m.current = map[int64]int64{1: 4}
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"report_currency": {"EUR"}, "q": {"1"}}
	old, err := FreezeValues(context.Background(), m, values, loadDay)
	if err != nil || !old.Savable() {
		t.Fatalf("freeze: %v %+v", err, old)
	}
	again, err := Recompute(context.Background(), m, old.Snapshot, loadDay)
	if err != nil || !again.Savable() {
		t.Fatalf("recompute: %v", err)
	}
	if got := again.Snapshot.Rows[0]; got.Quote.ID != 4 || got.Result.TCO.StringFixed(2) != "60.00" {
		t.Fatalf("recomputed row: quote %d, TCO %s", got.Quote.ID, got.Result.TCO)
	}
	d := report.Compare(old.Snapshot, again.Snapshot)
	if len(d.Changes) != 1 || !d.Changes[0].VersionChanged {
		t.Errorf("changes %+v", d.Changes)
	}
	if len(vendorq.Frozen(again.Snapshot.Rows[0])) == 0 {
		t.Error("the questions are frozen with the row")
	}
}

// TestLoadPricesUnconfirmedLinesWithEveryReference: an editor's reference
// in another currency is converted at the dated rate and comes before the
// market's; the market reference names its quote; a line no reference
// prices is named, and the pessimistic hidden share is computed
// (docs/RULES.md §3.6).
func TestLoadPricesUnconfirmedLinesWithEveryReference(t *testing.T) {
	m := market3()
	for _, id := range []int64{1, 2} {
		q := m.quotes[id]
		for i := range q.Lines {
			switch q.Lines[i].Item {
			case "egress", "snapshot", "public_ip":
				q.Lines[i].Status, q.Lines[i].InWriting = "unconfirmed", false
			}
		}
		m.quotes[id] = q
	}
	m.rates = append(m.rates, market.FXRate{Base: "CNY", Quote: "EUR", Rate: decimal.RequireFromString("0.13"), AsOf: loadDay})
	m.refs = []market.ReferencePrice{{Item: "egress", Currency: "CNY", Unit: "per_gb", UnitPrice: decimal.RequireFromString("0.5"), AsOf: loadDay}}
	m.market = []market.MarketPrice{
		{Item: "egress", Unit: "per_gb", Currency: "EUR", UnitPrice: decimal.RequireFromString("0.08"), QuoteID: 8, AsOf: loadDay},
		{Item: "snapshot", Unit: "per_month", Currency: "EUR", UnitPrice: decimal.RequireFromString("0.1"), QuoteID: 7, AsOf: loadDay},
	}
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"profile.egress_gb_per_month": {"100"}, "profile.snapshot_gb": {"50"}, "profile.public_ips": {"1"},
		"report_currency": {"EUR"}, "q": {"1", "2"}}
	cmp, err := Load(context.Background(), m, values, loadDay)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int64]Row{}
	for _, r := range cmp.Rows {
		byID[r.Quote.ID] = r
	}
	eur, usd := byID[1].Result, byID[2].Result
	line := func(res tco.Result, item catalog.ItemKey) tco.LineResult {
		for _, l := range res.Lines {
			if l.Item == item {
				return l
			}
		}
		t.Fatalf("no line %s", item)
		return tco.LineResult{}
	}
	// EUR quote: egress at the editor's 0.5 CNY × 0.13 = 0.065 EUR (before
	// the market's 0.08), snapshot at the market's 0.1 from quote 7; no
	// reference for the public IP.
	if l := line(eur, catalog.ItemEgress); l.ReferenceSource != tco.SourceEditor || l.ReferenceUnitPrice.Decimal.String() != "0.065" ||
		l.ReferenceAmount.Decimal.StringFixed(2) != "6.50" {
		t.Errorf("egress %+v", l)
	}
	if l := line(eur, catalog.ItemSnapshot); l.ReferenceSource != tco.SourceMarket || l.ReferenceQuoteID != 7 {
		t.Errorf("snapshot %+v", l)
	}
	if fmt.Sprint(eur.PessimisticUnpriced) != "[public_ip]" {
		t.Errorf("EUR unpriced %v", eur.PessimisticUnpriced)
	}
	// 100.00 compute + 6.50 + 5.00 = 111.50; (111.50 − 100.00) ÷ 111.50.
	if eur.TCOPessimistic.StringFixed(2) != "111.50" || eur.HiddenSharePessimistic.Decimal.String() != "0.1031" {
		t.Errorf("EUR pessimistic %s, share %v", eur.TCOPessimistic, eur.HiddenSharePessimistic)
	}
	// USD quote: no rate from CNY or EUR into USD, so no reference exists.
	if fmt.Sprint(usd.PessimisticUnpriced) != "[egress public_ip snapshot]" || !usd.TCOPessimistic.Equal(usd.TCO) {
		t.Errorf("USD unpriced %v, pessimistic %s = TCO %s", usd.PessimisticUnpriced, usd.TCOPessimistic, usd.TCO)
	}
}
