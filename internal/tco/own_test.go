package tco

import (
	"errors"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// goldenOwn is the own option of docs/RULES.md §17.1's worked example: a
// 25,000 CNY server, 20 % residual over 36 months, 450 W at 0.6 CNY/kWh,
// nothing else.
func goldenOwn() Own {
	return Own{Currency: "CNY", GPUCount: 1, PurchasePrice: d("25000"), ResidualPct: d("20"),
		LifeMonths: 36, PowerLoadW: d("450"), KWhPrice: d("0.6"), PricesIncludeTax: true}
}

// goldenRental is the rental beside it: 1.98 CNY/h, second granularity,
// all twelve lines included, tax included.
func goldenRental() Quote {
	return Quote{Currency: "CNY", GPUCount: 1, Hourly: nd("1.98"), BillingGranularity: catalog.GranularitySecond,
		PricesIncludeTax: true, Lines: included()}
}

func ownLine(r OwnResult, it OwnItem) string {
	for _, l := range r.Lines {
		if l.Item == it {
			return money.Fixed(l.Amount, 2)
		}
	}
	return "missing"
}

func TestOwnGolden(t *testing.T) {
	cases := []struct {
		hours                             string
		depreciation, electricity, tco    string
		upfront, effective                string
		capital, hosting, ops, main, setp string
	}{
		{"200", "6666.67", "648.00", "7314.67", "25000.00", "3.0478", "0.00", "0.00", "0.00", "0.00", "0.00"},
		{"730", "6666.67", "2365.20", "9031.87", "25000.00", "1.0310", "0.00", "0.00", "0.00", "0.00", "0.00"},
	}
	for _, c := range cases {
		r, err := EvaluateOwn(goldenOwn(), profile(c.hours, 12), Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{ownLine(r, OwnDepreciation), ownLine(r, OwnElectricity), money.Fixed(r.TCO, 2),
			money.Fixed(r.UpfrontCash, 2), money.Fixed(r.EffectivePerGPUHour, 4),
			ownLine(r, OwnCapitalCost), ownLine(r, OwnHosting), ownLine(r, OwnOperations),
			ownLine(r, OwnMaintenance), ownLine(r, OwnSetup)}
		want := []string{c.depreciation, c.electricity, c.tco, c.upfront, c.effective, c.capital, c.hosting, c.ops, c.main, c.setp}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("H=%s: figure %d = %s, want %s (all: %v)", c.hours, i, got[i], want[i], got)
			}
		}
		if len(r.Lines) != 7 {
			t.Errorf("%d lines", len(r.Lines))
		}
	}
}

func TestRentOrBuyGolden(t *testing.T) {
	r, err := RentOrBuy(goldenRental(), goldenOwn(), profile("200", 12), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := money.Fixed(r.Rent.TCO, 2); got != "4752.00" {
		t.Errorf("rental tco %s, want 4752.00", got)
	}
	if got := money.Fixed(r.Own.TCO, 2); got != "7314.67" {
		t.Errorf("own tco %s, want 7314.67", got)
	}
	if r.Cheaper != CheaperRent {
		t.Errorf("cheaper %s", r.Cheaper)
	}
	if r.FromHours != 325 || r.FromMonth != 59 {
		t.Errorf("crossings from hour %d, month %d; want 325, 59", r.FromHours, r.FromMonth)
	}
	// At the crossing points themselves owning costs no more, and one
	// step before it costs more.
	for _, c := range []struct {
		h    string
		m    int
		own  bool
		note string
	}{{"325", 12, true, "hour 325"}, {"324", 12, false, "hour 324"}, {"200", 59, true, "month 59"}, {"200", 58, false, "month 58"}} {
		x, err := RentOrBuy(goldenRental(), goldenOwn(), profile(c.h, c.m), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if x.Own.TCO.LessThanOrEqual(x.Rent.TCO) != c.own {
			t.Errorf("%s: own %s, rent %s", c.note, x.Own.TCO, x.Rent.TCO)
		}
	}
}

// TestRentOrBuyTieGoesToRent: at equal tco renting is called cheaper (no
// cash tied up, no commitment), while the crossing point counts the tie as
// owning costing no more.
func TestRentOrBuyTieGoesToRent(t *testing.T) {
	q := goldenRental()
	q.Hourly = nd("10")
	o := Own{Currency: "CNY", GPUCount: 1, PurchasePrice: d("2000"), LifeMonths: 1, PricesIncludeTax: true}
	r, err := RentOrBuy(q, o, profile("200", 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Own.TCO.Equal(r.Rent.TCO) {
		t.Fatalf("not a tie: own %s rent %s", r.Own.TCO, r.Rent.TCO)
	}
	if r.Cheaper != CheaperRent {
		t.Errorf("tie: cheaper %s, want rent", r.Cheaper)
	}
	if r.FromMonth != 1 || r.FromHours != 200 {
		t.Errorf("tie crossings month %d hours %d, want 1 and 200", r.FromMonth, r.FromHours)
	}
}

func TestOwnLinesEachRule(t *testing.T) {
	o := Own{Currency: "EUR", GPUCount: 8, PurchasePrice: d("200000"), ResidualPct: d("10"), LifeMonths: 48,
		PowerLoadW: d("6000"), PowerIdleW: d("1200"), PUE: d("1.4"), KWhPrice: d("0.2"), AlwaysOn: true,
		HostingMonthly: d("800"), OpsMonthly: d("1500"), MaintenancePctPerYear: d("8"), SetupOneOff: d("5000"),
		CapitalRatePerYear: d("0.05"), PricesIncludeTax: false, TaxRate: nd("0.2")}
	p := Profile{HoursPerMonth: d("300"), Months: 24, Instances: 2}
	r, err := EvaluateOwn(o, p, Options{ReportCurrency: "USD", FXRate: nd("1.1")})
	if err != nil {
		t.Fatal(err)
	}
	// k = N × fx × tax = 2 × 1.1 × 1.2 = 2.64.
	want := map[OwnItem]string{
		OwnDepreciation: "237600.00", // 200000 × 0.9 × 24/48 × 2.64
		OwnCapitalCost:  "52800.00",  // 200000 × 0.05 × 24/12 × 2.64
		// (300 × 6000 + 430 × 1200) ÷ 1000 × 1.4 × 0.2 × 24 × 2.64 = 2316 × 0.28 × 63.36
		OwnElectricity: "41087.69",
		OwnHosting:     "50688.00", // 800 × 24 × 2.64
		OwnOperations:  "95040.00", // 1500 × 24 × 2.64
		OwnMaintenance: "84480.00", // 200000 × 8 % × 2 years × 2.64
		OwnSetup:       "13200.00", // 5000 × 2.64
	}
	for it, w := range want {
		if got := ownLine(r, it); got != w {
			t.Errorf("%s = %s, want %s", it, got, w)
		}
	}
	if got := money.Fixed(r.UpfrontCash, 2); got != "541200.00" { // 200000 × 2.64 + 13200
		t.Errorf("upfront %s", got)
	}
	if r.ReportCurrency != "USD" || !r.FXRate.Equal(d("1.1")) {
		t.Errorf("currency %s rate %s", r.ReportCurrency, r.FXRate)
	}
	var total decimal.Decimal
	for _, l := range r.Lines {
		total = total.Add(l.Amount)
	}
	if !total.Equal(r.TCO) {
		t.Errorf("tco %s != Σ lines %s", r.TCO, total)
	}
	// Not always on: idle draw does not count.
	o.AlwaysOn = false
	r, _ = EvaluateOwn(o, p, Options{ReportCurrency: "USD", FXRate: nd("1.1")})
	if got := ownLine(r, OwnElectricity); got != "31933.44" { // 1800 × 0.28 × 63.36
		t.Errorf("electricity not always on = %s", got)
	}
	// Beyond the life the server is written off: depreciation stops growing.
	p.Months = 60
	r, _ = EvaluateOwn(o, p, Options{ReportCurrency: "USD", FXRate: nd("1.1")})
	if got := ownLine(r, OwnDepreciation); got != "475200.00" {
		t.Errorf("depreciation past the life = %s", got)
	}
}

func TestOwnDefaults(t *testing.T) {
	o := Own{Currency: "CNY", GPUCount: 1, PurchasePrice: d("36000"), PowerLoadW: d("1000"), KWhPrice: d("1"), PricesIncludeTax: true}
	r, err := EvaluateOwn(o, profile("100", 12), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// life 36, residual 0 → 12000; pue 1 → 100 kWh × 12 = 1200.
	if ownLine(r, OwnDepreciation) != "12000.00" || ownLine(r, OwnElectricity) != "1200.00" {
		t.Errorf("defaults: %v", r.Lines)
	}
}

func TestValidateOwnNamesEveryField(t *testing.T) {
	o := Own{Currency: "usd", GPUCount: 0, PurchasePrice: d("0"), ResidualPct: d("101"), LifeMonths: 121,
		PowerLoadW: d("-1"), PowerIdleW: d("2000000"), PUE: d("0.9"), KWhPrice: d("0.1234567"),
		HostingMonthly: d("-5"), OpsMonthly: d("10000000000000"), MaintenancePctPerYear: d("-1"), SetupOneOff: d("1.0000001"),
		CapitalRatePerYear: d("1.5"), PricesIncludeTax: false}
	errs := ValidateOwn(o, profile("200", 12), Options{})
	want := []string{"own.currency", "own.gpu_count", "own.purchase_price", "own.residual_pct", "own.life_months",
		"own.power_load_w", "own.power_idle_w", "own.pue", "own.kwh_price", "own.hosting_monthly", "own.ops_monthly",
		"own.maintenance_pct_per_year", "own.setup_one_off", "own.capital_rate_per_year", "own.tax_rate"}
	got := map[string]bool{}
	for _, e := range errs {
		got[e.Field] = true
	}
	for _, f := range want {
		if !got[f] {
			t.Errorf("%s not named; errors %v", f, errs)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("%d errors, want %d: %v", len(errs), len(want), errs)
	}
	if _, err := EvaluateOwn(o, profile("200", 12), Options{}); !errors.As(err, new(*ValidationError)) {
		t.Errorf("EvaluateOwn: %v", err)
	}
}

func TestValidateRentOrBuyCurrency(t *testing.T) {
	o := goldenOwn()
	o.Currency = "EUR"
	errs := ValidateRentOrBuy(goldenRental(), o, profile("200", 12), Options{})
	if len(errs) != 1 || errs[0].Field != "own.currency" || errs[0].Code != CodeCurrencyMismatch {
		t.Errorf("errors %v", errs)
	}
	// A bad quote currency is named once, at the quote.
	q := goldenRental()
	q.Currency, o.Currency = "XXX", "XXX"
	errs = ValidateRentOrBuy(q, o, profile("200", 12), Options{})
	if len(errs) != 1 || errs[0].Field != "quote.currency" {
		t.Errorf("errors %v", errs)
	}
}

// TestCapitalRateIsAFractionBelowOne: the cost of capital is a fraction
// below 1, as the option form reads it (docs/RULES.md §17.1, §17.4): the
// engine refuses 1 and takes 0.999999.
func TestCapitalRateIsAFractionBelowOne(t *testing.T) {
	for rate, ok := range map[string]bool{"0": true, "0.05": true, "0.999999": true, "1": false, "1.5": false} {
		o := Own{Currency: "EUR", GPUCount: 1, PurchasePrice: d("25000"), LifeMonths: 36, PowerLoadW: d("600"), PUE: d("1"),
			KWhPrice: d("0.2"), CapitalRatePerYear: d(rate), PricesIncludeTax: true}
		named := false
		for _, e := range ValidateOwn(o, profile("200", 12), Options{}) {
			named = named || e.Field == "own.capital_rate_per_year"
		}
		if named == ok {
			t.Errorf("capital rate %s: refused %v, want %v", rate, named, !ok)
		}
	}
}
