package watch

import (
	"testing"
	"time"

	"gpuquote/internal/compare"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// TestNormalizeKeepsTheProfileOfATCOWatchOnly: a profile belongs to the
// TCO basis; any other watch drops it (docs/RULES.md §24.1).
func TestNormalizeKeepsTheProfileOfATCOWatchOnly(t *testing.T) {
	cases := []struct {
		w    Watch
		want int64
	}{
		{Watch{Kind: PriceBelow, Basis: TCO, ProfileID: 7, Target: d("1")}, 7},
		{Watch{Kind: PriceBelow, Basis: Hourly, ProfileID: 7, Target: d("1")}, 0},
		{Watch{Kind: NewLow, Basis: TCO, ProfileID: 7}, 0},
	}
	for _, c := range cases {
		c.w.Normalize()
		if c.w.ProfileID != c.want {
			t.Errorf("%+v: profile %d, want %d", c.w, c.w.ProfileID, c.want)
		}
	}
}

// TestTCOPrice prices one quote for a saved profile as the compare page
// does (compare.Run, the chosen mode's confirmed TCO over the horizon),
// in the watch's currency at the dated rate, and says when there is
// nothing to compare (docs/RULES.md §24.1).
func TestTCOPrice(t *testing.T) {
	today := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	gpu := market.GPUModel{ID: 1, Vendor: "NVIDIA", Name: "RTX 4090", VRAMGB: d("24")}
	q := quote.Quote{ID: 9, PlatformID: 1, GPUModelID: 1, GPUCount: 1, Sharing: "dedicated", Currency: "CNY",
		Hourly: nd("10"), BillingGranularity: "second", PricesIncludeTax: true, TaxRate: d("0"), AsOf: today.AddDate(0, 0, -3), State: "published"}
	params := map[string]string{"profile.hours_per_month": "100", "profile.months": "2", "profile.instances": "1"}
	profile, ok := ProfileOf(params)
	if !ok {
		t.Fatal("the profile does not read")
	}
	if _, ok := ProfileOf(map[string]string{"profile.hours_per_month": "900", "profile.months": "1", "profile.instances": "1"}); ok {
		t.Fatal("900 hours a month made a profile")
	}
	big, _ := ProfileOf(map[string]string{"profile.hours_per_month": "100", "profile.months": "1", "profile.instances": "1",
		"profile.task": "full_training", "profile.params_billions": "70"})
	spotOnly := q
	spotOnly.Hourly, spotOnly.SpotHourly = nd(""), nd("4")
	usd := q
	usd.Currency = "USD"
	fx := &tco.FX{Rate: d("7.1"), Date: today}

	cases := []struct {
		name     string
		q        quote.Quote
		p        tco.Profile
		currency string
		fx       *tco.FX
		want     string // "" for no figure
	}{
		{"same currency: 10 × 100 h × 2 months", q, profile, "CNY", nil, "2000"},
		{"converted at the dated rate", usd, profile, "CNY", fx, "14200"},
		{"no rate, no conversion", usd, profile, "CNY", nil, ""},
		{"spot only for jobs that cannot resume", spotOnly, profile, "CNY", nil, ""},
		{"below the task's VRAM floor", q, big, "CNY", nil, ""},
	}
	for _, c := range cases {
		got, ok := TCOPrice(c.q, gpu, c.p, c.currency, c.fx, today)
		switch {
		case c.want == "" && ok:
			t.Errorf("%s: a figure %s, want none", c.name, got)
		case c.want != "" && (!ok || !got.Equal(d(c.want))):
			t.Errorf("%s: %s %v, want %s", c.name, got, ok, c.want)
		}
		if !ok {
			continue
		}
		// The compare page's own figure for the same quote and profile.
		in := compare.Input{Profile: c.p, ReportCurrency: c.currency, Rates: map[string]tco.FX{}, Today: today}
		if c.fx != nil {
			in.Rates[c.q.Currency] = *c.fx
		}
		rows := compare.Run([]compare.Candidate{{Quote: c.q, GPU: gpu}}, in)
		if !rows[0].Result.TCO.Equal(got) {
			t.Errorf("%s: %s, the compare page says %s", c.name, got, rows[0].Result.TCO)
		}
	}

	// The reading: at or below the target is a hit; 2 % above it clears.
	w := Watch{Kind: PriceBelow, Basis: TCO, ProfileID: 1, Currency: "CNY", Target: d("2000")}
	for _, c := range []struct {
		total      string
		hit, clear bool
	}{{"2000", true, false}, {"2039.99", false, false}, {"2040", false, true}} {
		r := PriceReading(w, d(c.total))
		if r.Hit != c.hit || r.Clear != c.clear {
			t.Errorf("TCO %s: hit %v clear %v, want %v %v", c.total, r.Hit, r.Clear, c.hit, c.clear)
		}
	}
}
