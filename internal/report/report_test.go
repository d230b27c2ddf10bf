package report_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
	"gpuquote/internal/testutil"
)

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(decimal.RequireFromString(s)) }

var day = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// freeze prices quotes for 200 h in EUR (USD at rate) and freezes them.
func freeze(t *testing.T, rate string, quotes ...quote.Quote) report.Snapshot {
	t.Helper()
	p := tco.Profile{HoursPerMonth: decimal.RequireFromString("200"), Months: 1, Instances: 1,
		EgressGBPerMonth: decimal.RequireFromString("100")}
	in := compare.Input{Profile: p, ReportCurrency: "EUR", Today: day,
		Rates: map[string]tco.FX{"USD": {Rate: decimal.RequireFromString(rate), Date: day.AddDate(0, 0, -1)}}}
	var cands []compare.Candidate
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"profile.egress_gb_per_month": {"100"}, "report_currency": {"EUR"}, "currency": {"ignored"}}
	for _, q := range quotes {
		cands = append(cands, compare.Candidate{Quote: q, GPU: market.GPUModel{ID: 1, Vendor: "NVIDIA", Name: "RTX 4090",
			VRAMGB: decimal.RequireFromString("24"), Interconnect: "pcie"}})
		values.Add("q", itoa(q.ID))
	}
	rows := compare.Run(cands, in)
	compare.Sort(rows, compare.SortTCO, false)
	return compare.Freeze(&compare.Comparison{Values: values, In: in, Rows: rows, SortKey: compare.SortTCO}, nil)
}

func itoa(n int64) string { return decimal.NewFromInt(n).String() }

func aQuote(id, series int64, version int, currency, hourly string) quote.Quote {
	return quote.Quote{ID: id, SeriesID: series, Version: version, State: quote.Published, PlatformID: 3,
		PlatformNameZH: "示例云", PlatformNameEN: "Example", GPUModelID: 1, GPUVendor: "NVIDIA", GPUName: "RTX 4090",
		GPUCount: 1, Sharing: "dedicated", Currency: currency, Hourly: nd(hourly), BillingGranularity: "second",
		PricesIncludeTax: true, AsOf: day.AddDate(0, 0, -10), Source: "test",
		Lines: []quote.Line{{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: nd("0.05"), InWriting: true}}}
}

// TestSnapshotRoundTrip: decimals travel as JSON strings (never bare
// numbers), the page state keeps only what a report needs, and a snapshot
// read back gives the engine's figures exactly.
func TestSnapshotRoundTrip(t *testing.T) {
	s := freeze(t, "0.9", aQuote(10, 10, 1, "EUR", "0.471"), aQuote(11, 11, 1, "USD", "0.40"))
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"tco", "tco_pessimistic", "compute_total", "amount", "fx_rate", "hourly", "rate", "hours_per_month"} {
		if regexp.MustCompile(`"` + key + `":-?\d`).Match(raw) {
			t.Errorf("%s is written as a JSON number", key)
		}
	}
	if !bytes.Contains(raw, []byte(`"tco":"99.2"`)) || !bytes.Contains(raw, []byte(`"rules_version":"`+tco.RulesVersion+`"`)) {
		t.Errorf("snapshot lacks its figures or rules version: %s", raw)
	}
	if _, ok := s.Values["currency"]; ok || len(s.Values["q"]) != 2 {
		t.Errorf("page state %v", s.Values)
	}
	var back report.Snapshot
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if !bytes.Equal(raw, again) {
		t.Error("a snapshot read back writes differently")
	}
	in, rows := compare.Thaw(back)
	// EUR: 200 × 0.471 + 100 × 0.05 = 99.20; USD: (80 + 5) × 0.9 = 76.50.
	want := map[int64]string{10: "99.2", 11: "76.5"}
	for _, r := range rows {
		if !r.Priced || r.Result.TCO.String() != want[r.Quote.ID] || r.Quote.PlatformNameZH != "示例云" {
			t.Errorf("quote %d: %v %s", r.Quote.ID, r.Priced, r.Result.TCO)
		}
	}
	if rows[0].Quote.ID != 11 || in.Rates["USD"].Rate.String() != "0.9" {
		t.Error("table order and rates survive")
	}
	if len(back.Rows[0].Questions) == 0 {
		t.Error("the vendor questions are frozen with the rows")
	}
}

// TestSummaryAndCompare: the recommendation, the savings against the
// runner-up, and what a recomputation changed offer by offer.
func TestSummaryAndCompare(t *testing.T) {
	old := freeze(t, "0.9", aQuote(10, 10, 1, "EUR", "0.471"), aQuote(11, 11, 1, "USD", "0.40"))
	sum := old.Summary()
	if old.Rows[sum.Recommended].Quote.ID != 11 || old.Rows[sum.Next].Quote.ID != 10 ||
		sum.Savings.Decimal.String() != "22.7" || sum.SavingsPct.Decimal.String() != "0.2288" {
		t.Errorf("summary %+v", sum)
	}
	// Quote 10 gets version 2 (series 10) and the USD rate moves.
	now := freeze(t, "0.95", aQuote(20, 10, 2, "EUR", "0.3"), aQuote(11, 11, 1, "USD", "0.40"))
	d := report.Compare(old, now)
	if len(d.Changes) != 2 {
		t.Fatalf("changes %+v", d.Changes)
	}
	for _, c := range d.Changes {
		switch c.New.Quote.SeriesID {
		case 10:
			// 200 × 0.3 + 5 = 65.00, was 99.20.
			if !c.VersionChanged || c.RateChanged || c.TCODelta.Decimal.String() != "-34.2" {
				t.Errorf("EUR offer: %+v", c)
			}
		case 11:
			// 85 × 0.95 = 80.75, was 76.50.
			if c.VersionChanged || !c.RateChanged || c.TCODelta.Decimal.String() != "4.25" || !strings.HasPrefix(c.NewRate.Date, "2026-11-30") {
				t.Errorf("USD offer: %+v", c)
			}
		}
	}
	if report.Compare(old, old).Changes[0].Changed() {
		t.Error("a report compared with itself changed")
	}
}

// TestFrozenQuoteKeepsEveryField: a quote frozen into a snapshot and read
// back (through JSON, as stored) has every entered field it had; a field
// added to quote.Fields but not to the frozen copy fails here.
func TestFrozenQuoteKeepsEveryField(t *testing.T) {
	in := testutil.FullQuote(7, 3, day)
	raw, err := json.Marshal(report.QuoteOf(in))
	if err != nil {
		t.Fatal(err)
	}
	var frozen report.Quote
	if err := json.Unmarshal(raw, &frozen); err != nil {
		t.Fatal(err)
	}
	out := frozen.AsQuote(report.GPU{ID: 3})
	want, got := quote.Values(in), quote.Values(out)
	for k := range want {
		if got.Get(k) != want.Get(k) {
			t.Errorf("%s: %q, want %q", k, got.Get(k), want.Get(k))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d fields back, want %d", len(got), len(want))
	}
}

// TestWorkbookBytesAreTheSameEveryTime: a frozen report's workbook is the
// same bytes however many times, in whatever process, it is written (the
// number formats used to be made in map order, so styles.xml and the
// style numbers of the cells changed from one process to the next).
func TestWorkbookBytesAreTheSameEveryTime(t *testing.T) {
	s := freeze(t, "0.9", aQuote(10, 10, 1, "EUR", "0.471"), aQuote(11, 11, 1, "USD", "0.40"))
	doc := report.BuildDocument(s, [][2]string{{"Number", "R-2026-0001"}}, func(id string, _ map[string]any) string { return id },
		func(r report.Row) string { return r.Quote.Label })
	var first []byte
	for i := range 30 {
		var buf bytes.Buffer
		if err := report.WriteXLSX(&buf, doc); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = buf.Bytes()
		} else if !bytes.Equal(first, buf.Bytes()) {
			t.Fatalf("workbook %d differs from the first", i+1)
		}
	}
}
