package compare

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(decimal.RequireFromString(s)) }

func cand(id int64, currency string, hourly, monthly, spot string, gpu market.GPUModel) Candidate {
	q := quote.Quote{ID: id, Currency: currency, GPUCount: 1, Sharing: "dedicated", PricesIncludeTax: true,
		BillingGranularity: "second", AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	for _, it := range catalog.Items {
		q.Lines = append(q.Lines, quote.Line{Item: string(it.Key), Status: "included", InWriting: true})
	}
	if hourly != "" {
		q.Hourly = nd(hourly)
	}
	if monthly != "" {
		q.Monthly = nd(monthly)
	}
	if spot != "" {
		q.SpotHourly = nd(spot)
	}
	return Candidate{Quote: q, GPU: gpu}
}

var (
	r9700 = market.GPUModel{Vendor: "AMD", Name: "R9700", VRAMGB: decimal.RequireFromString("32"), Interconnect: "pcie"}
	h100  = market.GPUModel{Vendor: "NVIDIA", Name: "H100", VRAMGB: decimal.RequireFromString("80"), Interconnect: "nvlink"}
)

func profile(hours string) tco.Profile {
	return tco.Profile{HoursPerMonth: decimal.RequireFromString(hours), Months: 1, Instances: 1}
}

func input(p tco.Profile) Input {
	return Input{Profile: p, ReportCurrency: "EUR", Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Rates: map[string]tco.FX{"CNY": {Rate: decimal.RequireFromString("0.128"), Date: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}}}
}

func reasons(r Row) []string {
	var out []string
	for _, x := range r.Reasons {
		out = append(out, x.MessageID)
	}
	return out
}

func TestRunMarksCheapestAndExplainsRuledOut(t *testing.T) {
	rows := Run([]Candidate{
		cand(1, "EUR", "0.471", "", "", r9700), // 200 h → 94.20
		cand(2, "EUR", "", "70", "", r9700),    // 70.00, cheapest
		cand(3, "USD", "0.1", "", "", r9700),   // no USD → EUR rate: never converted
		cand(4, "EUR", "", "", "0.1", h100),    // spot only, jobs cannot resume
		cand(5, "CNY", "", "500", "", h100),    // 500 × 0.128 = 64.00 EUR
	}, input(profile("200")))
	if got := rows[0].Result.TCO.StringFixed(2); !rows[0].Priced || got != "94.20" {
		t.Fatalf("quote 1: %v %s", rows[0].Priced, got)
	}
	if rows[2].Priced || len(rows[2].Reasons) != 1 || rows[2].Reasons[0].MessageID != ReasonNoRate || rows[2].Reasons[0].Args["From"] != "USD" {
		t.Fatalf("quote 3 (no rate): %+v", rows[2])
	}
	if rows[3].Priced || len(rows[3].Reasons) != 1 || rows[3].Reasons[0].MessageID != ReasonSpotOnly {
		t.Fatalf("quote 4 (spot only): %v", reasons(rows[3]))
	}
	if rows[4].Result.TCO.StringFixed(2) != "64.00" || !rows[4].Result.FXDate.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("quote 5 converted: %s", rows[4].Result.TCO)
	}
	for i, want := range []bool{false, false, false, false, true} {
		if rows[i].CheapestConfirmed != want {
			t.Errorf("row %d cheapest confirmed %v", i, rows[i].CheapestConfirmed)
		}
	}
	// With resumable jobs the spot-only quote is priced and, at 0.1 × 220 h, cheapest.
	p := profile("200")
	p.Resumable = true
	rows = Run([]Candidate{cand(2, "EUR", "", "70", "", r9700), cand(4, "EUR", "", "", "0.1", h100)}, input(p))
	if !rows[1].Eligible() || rows[1].Result.TCO.StringFixed(2) != "22.00" || !rows[1].CheapestConfirmed || rows[0].CheapestConfirmed {
		t.Fatalf("resumable spot: %+v %s", reasons(rows[1]), rows[1].Result.TCO)
	}
}

func TestTheProfileRulesOutButStillShows(t *testing.T) {
	p := profile("730")
	p.Task, p.ParamsBillions, p.Instances = catalog.TaskFullTraining, nd("7"), 2
	rows := Run([]Candidate{cand(1, "EUR", "0.471", "", "", r9700), cand(2, "EUR", "3", "", "", h100)}, input(p))
	got := reasons(rows[0])
	if len(got) != 2 || got[0] != ReasonVRAMFloor || got[1] != ReasonNoNVLink {
		t.Fatalf("R9700 for multi-node full training of 7B: %v", got)
	}
	if !rows[0].Priced || rows[0].Eligible() || rows[0].CheapestConfirmed {
		t.Fatal("a ruled-out quote is priced (shown greyed) but never marked cheapest")
	}
	if len(rows[1].Reasons) != 1 || rows[1].Reasons[0].MessageID != ReasonVRAMFloor {
		// 7B full training needs ~169 GB: 80 GB per H100 instance is below it too.
		t.Fatalf("H100 × 1: %v", reasons(rows[1]))
	}
	// LoRA of 7B fits a 32 GB card; single-instance work needs no NVLink.
	p.Task, p.Instances = catalog.TaskLoRA, 1
	rows = Run([]Candidate{cand(1, "EUR", "0.471", "", "", r9700)}, input(p))
	if !rows[0].Eligible() {
		t.Fatalf("LoRA 7B on 32 GB: %v", reasons(rows[0]))
	}
}

func TestSortKeepsRuledOutLast(t *testing.T) {
	rows := Run([]Candidate{
		cand(1, "EUR", "0.471", "", "", r9700), cand(2, "USD", "0.1", "", "", r9700),
		cand(3, "EUR", "", "70", "", r9700), cand(4, "EUR", "", "100", "", r9700),
	}, input(profile("200")))
	Sort(rows, SortTCO, false)
	if rows[0].Quote.ID != 3 || rows[1].Quote.ID != 1 || rows[2].Quote.ID != 4 || rows[3].Quote.ID != 2 {
		t.Fatalf("ascending: %d %d %d %d", rows[0].Quote.ID, rows[1].Quote.ID, rows[2].Quote.ID, rows[3].Quote.ID)
	}
	Sort(rows, SortTCO, true)
	if rows[0].Quote.ID != 4 || rows[3].Quote.ID != 2 {
		t.Fatalf("descending: first %d last %d", rows[0].Quote.ID, rows[3].Quote.ID)
	}
}
