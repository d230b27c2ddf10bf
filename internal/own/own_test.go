package own_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/form"
	"gpuquote/internal/own"
	"gpuquote/internal/tco"
)

// latest is the latest day on Earth the tests read forms on (§7.4).
var latest = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// TestMayReadAndMayWrite checks who reads and who changes an own-hardware
// option (docs/RULES.md §17.4 "Who sees and changes an option"): a private
// option is read by its author, editors, admins and finance and changed by
// its author, editors and admins; a shared one is read by every signed-in
// user and changed by editors and admins only, whoever created it.
func TestMayReadAndMayWrite(t *testing.T) {
	const (
		analystID int64 = 1
		otherID   int64 = 2
		editorID  int64 = 3
		financeID int64 = 4
		adminID   int64 = 5
		keeperID  int64 = 6 // another editor
	)
	var (
		privateOfAnalyst = own.Option{ID: 10, CreatedBy: analystID}
		privateOfEditor  = own.Option{ID: 11, CreatedBy: editorID}
		privateOfFinance = own.Option{ID: 12, CreatedBy: financeID}
		sharedByEditor   = own.Option{ID: 13, CreatedBy: editorID, Shared: true}
		sharedBySeed     = own.Option{ID: 14, CreatedBy: 0, Shared: true}
	)
	tests := []struct {
		name      string
		opt       own.Option
		user      int64
		role      string
		wantRead  bool
		wantWrite bool
	}{
		{name: "private of an analyst, its author", opt: privateOfAnalyst, user: analystID, role: "analyst", wantRead: true, wantWrite: true},
		{name: "private of an analyst, another analyst", opt: privateOfAnalyst, user: otherID, role: "analyst", wantRead: false, wantWrite: false},
		{name: "private of an analyst, finance", opt: privateOfAnalyst, user: financeID, role: "finance", wantRead: true, wantWrite: false},
		{name: "private of an analyst, an editor", opt: privateOfAnalyst, user: keeperID, role: "editor", wantRead: true, wantWrite: true},
		{name: "private of an analyst, an admin", opt: privateOfAnalyst, user: adminID, role: "admin", wantRead: true, wantWrite: true},

		{name: "private of an editor, its author", opt: privateOfEditor, user: editorID, role: "editor", wantRead: true, wantWrite: true},
		{name: "private of an editor, another editor", opt: privateOfEditor, user: keeperID, role: "editor", wantRead: true, wantWrite: true},
		{name: "private of an editor, an analyst", opt: privateOfEditor, user: analystID, role: "analyst", wantRead: false, wantWrite: false},
		{name: "private of an editor, finance", opt: privateOfEditor, user: financeID, role: "finance", wantRead: true, wantWrite: false},
		{name: "private of an editor, the author now an analyst", opt: privateOfEditor, user: editorID, role: "analyst", wantRead: true, wantWrite: true},

		{name: "private of finance, its author", opt: privateOfFinance, user: financeID, role: "finance", wantRead: true, wantWrite: true},
		{name: "private of finance, an analyst", opt: privateOfFinance, user: analystID, role: "analyst", wantRead: false, wantWrite: false},

		{name: "shared by an editor, an analyst", opt: sharedByEditor, user: analystID, role: "analyst", wantRead: true, wantWrite: false},
		{name: "shared by an editor, finance", opt: sharedByEditor, user: financeID, role: "finance", wantRead: true, wantWrite: false},
		{name: "shared by an editor, its author", opt: sharedByEditor, user: editorID, role: "editor", wantRead: true, wantWrite: true},
		{name: "shared by an editor, another editor", opt: sharedByEditor, user: keeperID, role: "editor", wantRead: true, wantWrite: true},
		{name: "shared by an editor, an admin", opt: sharedByEditor, user: adminID, role: "admin", wantRead: true, wantWrite: true},
		{name: "shared by an editor, the author now an analyst", opt: sharedByEditor, user: editorID, role: "analyst", wantRead: true, wantWrite: false},

		{name: "shared by the seed, an analyst", opt: sharedBySeed, user: analystID, role: "analyst", wantRead: true, wantWrite: false},
		{name: "shared by the seed, an admin", opt: sharedBySeed, user: adminID, role: "admin", wantRead: true, wantWrite: true},

		{name: "private of nobody, nobody signed in", opt: own.Option{ID: 15, CreatedBy: 0}, user: 0, role: "", wantRead: false, wantWrite: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := own.MayRead(tt.opt, tt.user, tt.role); got != tt.wantRead {
				t.Errorf("MayRead(shared %v, by %d; user %d, %q) = %v, want %v", tt.opt.Shared, tt.opt.CreatedBy, tt.user, tt.role, got, tt.wantRead)
			}
			if got := own.MayWrite(tt.opt, tt.user, tt.role); got != tt.wantWrite {
				t.Errorf("MayWrite(shared %v, by %d; user %d, %q) = %v, want %v", tt.opt.Shared, tt.opt.CreatedBy, tt.user, tt.role, got, tt.wantWrite)
			}
			if tt.wantWrite && !tt.wantRead {
				t.Errorf("test case changes an option it cannot read")
			}
		})
	}
}

// TestMayShare checks who may create a shared option: editors and admins
// (docs/RULES.md §17.4: "created shared by an editor or admin").
func TestMayShare(t *testing.T) {
	tests := []struct {
		name string
		role string
		want bool
	}{
		{name: "editor", role: "editor", want: true},
		{name: "admin", role: "admin", want: true},
		{name: "analyst", role: "analyst", want: false},
		{name: "finance", role: "finance", want: false},
		{name: "disabled or gone", role: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := own.MayShare(tt.role); got != tt.want {
				t.Errorf("MayShare(%q) = %v, want %v", tt.role, got, tt.want)
			}
		})
	}
}

// TestRegion checks the region code rule (docs/RULES.md §17.4
// "Electricity"): an ISO 3166 country code in capitals, then optional parts
// of letters and digits after hyphens, at most 40 characters; a typed code
// is trimmed and its country part read in capitals.
func TestRegion(t *testing.T) {
	tests := []struct {
		name      string
		typed     string
		wantNorm  string
		wantValid bool
	}{
		{name: "country", typed: "CN", wantNorm: "CN", wantValid: true},
		{name: "country and province", typed: "CN-Beijing", wantNorm: "CN-Beijing", wantValid: true},
		{name: "several parts with digits", typed: "DE-Hessen-FRA1", wantNorm: "DE-Hessen-FRA1", wantValid: true},
		{name: "lower-case country is capitalised", typed: "cn-Beijing", wantNorm: "CN-Beijing", wantValid: true},
		{name: "later parts keep their case", typed: "de-hessen", wantNorm: "DE-hessen", wantValid: true},
		{name: "spaces around are trimmed", typed: "  NL \t", wantNorm: "NL", wantValid: true},
		{name: "exactly 40 characters", typed: "CN-" + strings.Repeat("a", 37), wantNorm: "CN-" + strings.Repeat("a", 37), wantValid: true},
		{name: "41 characters", typed: "CN-" + strings.Repeat("a", 38), wantNorm: "CN-" + strings.Repeat("a", 38), wantValid: false},
		{name: "one letter", typed: "C", wantNorm: "C", wantValid: false},
		{name: "three-letter country", typed: "CHN", wantNorm: "CHN", wantValid: false},
		{name: "country name", typed: "China", wantNorm: "CHina", wantValid: false},
		{name: "trailing hyphen", typed: "CN-", wantNorm: "CN-", wantValid: false},
		{name: "empty part", typed: "CN--Beijing", wantNorm: "CN--Beijing", wantValid: false},
		{name: "underscore", typed: "CN_Beijing", wantNorm: "CN_Beijing", wantValid: false},
		{name: "space inside", typed: "CN-Bei jing", wantNorm: "CN-Bei jing", wantValid: false},
		{name: "digits for a country", typed: "12-Beijing", wantNorm: "12-Beijing", wantValid: false},
		{name: "empty", typed: "", wantNorm: "", wantValid: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			norm := own.NormalizeRegion(tt.typed)
			if norm != tt.wantNorm {
				t.Errorf("NormalizeRegion(%q) = %q, want %q", tt.typed, norm, tt.wantNorm)
			}
			if got := own.ValidRegion(norm); got != tt.wantValid {
				t.Errorf("ValidRegion(%q) = %v, want %v", norm, got, tt.wantValid)
			}
		})
	}
}

// validOption is a complete option form: the worked example of
// docs/RULES.md §17.1 (CNY 25,000, residual 20 %, 36 months, 450 W,
// 0.6 CNY/kWh) with a tax rate.
func validOption() url.Values {
	return url.Values{
		"name": {"RTX 4090 workstation"}, "gpu_model": {"3"}, "gpu_count": {"1"}, "currency": {"cny"},
		"purchase_price": {"25000"}, "purchase_as_of": {"2026-11-30"}, "purchase_source": {"https://shop.example/4090"},
		"residual_pct": {"20"}, "life_months": {"36"}, "power_load_w": {"450"}, "power_idle_w": {"60"}, "pue": {"1.2"},
		"electricity": {"own"}, "kwh_price": {"0.6"},
		"hosting_monthly": {"100"}, "ops_monthly": {"50.5"}, "maintenance_pct_per_year": {"5"}, "setup_one_off": {"300"},
		"capital_rate_per_year": {"0.05"}, "prices_include_tax": {"false"}, "tax_rate": {"0.13"},
		"notes": {"sample"},
	}
}

// knownGPU says GPU model 3 exists, nothing else.
func knownGPU(id int64) bool { return id == 3 }

// ids is each field's message ID, without the arguments.
func ids(errs form.Errors) map[string]string {
	out := make(map[string]string, len(errs))
	for f, m := range errs {
		out[f] = m.ID
	}
	return out
}

func sameErrors(t *testing.T, got form.Errors, want map[string]string) {
	t.Helper()
	g := ids(got)
	for f, id := range want {
		if g[f] != id {
			t.Errorf("field %s: problem %q, want %q", f, g[f], id)
		}
	}
	for f, id := range g {
		if _, ok := want[f]; !ok {
			t.Errorf("field %s: unexpected problem %q", f, id)
		}
	}
}

// TestReadOption checks the option form's bounds, every problem at once
// and each under its own field (docs/RULES.md §17.4 "Bounds", §17.1,
// §16.4): GPUs 1–1,024; purchase price > 0; residual and maintenance
// 0–100 %; life 1–120 months; power under load > 0 W, idle ≥ 0 W and not
// above the load; PUE 1–10; cost of capital and tax rate fractions below
// 1, a tax rate required when amounts exclude tax; amounts at most 6
// places, percentages and watts 2, no more digits than the columns hold;
// the purchase day from 2000 and not after the latest day on Earth; the
// electricity a region code or the option's own kWh figure (≥ 0).
func TestReadOption(t *testing.T) {
	tests := []struct {
		name   string
		change map[string]string // fields replaced in validOption ("" empties one)
		want   map[string]string // field → message ID
	}{
		{name: "valid", want: nil},

		{name: "name missing", change: map[string]string{"name": "  "}, want: map[string]string{"name": form.MsgRequired}},
		{name: "name of 200 characters", change: map[string]string{"name": strings.Repeat("名", 200)}},
		{name: "name of 201 characters", change: map[string]string{"name": strings.Repeat("名", 201)}, want: map[string]string{"name": form.MsgTooLong}},

		{name: "GPU model missing", change: map[string]string{"gpu_model": ""}, want: map[string]string{"gpu_model": form.MsgRequired}},
		{name: "GPU model unknown", change: map[string]string{"gpu_model": "4"}, want: map[string]string{"gpu_model": own.MsgUnknownGPU}},
		{name: "GPU model not a number", change: map[string]string{"gpu_model": "rtx"}, want: map[string]string{"gpu_model": own.MsgUnknownGPU}},
		{name: "GPU model zero", change: map[string]string{"gpu_model": "0"}, want: map[string]string{"gpu_model": own.MsgUnknownGPU}},

		{name: "GPU count missing", change: map[string]string{"gpu_count": ""}, want: map[string]string{"gpu_count": form.MsgRequired}},
		{name: "GPU count 0", change: map[string]string{"gpu_count": "0"}, want: map[string]string{"gpu_count": form.MsgRange}},
		{name: "GPU count 1024", change: map[string]string{"gpu_count": "1024"}},
		{name: "GPU count 1025", change: map[string]string{"gpu_count": "1025"}, want: map[string]string{"gpu_count": form.MsgRange}},
		{name: "GPU count fraction", change: map[string]string{"gpu_count": "1.5"}, want: map[string]string{"gpu_count": form.MsgInteger}},

		{name: "currency missing", change: map[string]string{"currency": ""}, want: map[string]string{"currency": form.MsgRequired}},
		{name: "currency unknown", change: map[string]string{"currency": "ABC"}, want: map[string]string{"currency": "form.error.currency"}},

		{name: "purchase price missing", change: map[string]string{"purchase_price": ""}, want: map[string]string{"purchase_price": form.MsgRequired}},
		{name: "purchase price 0", change: map[string]string{"purchase_price": "0"}, want: map[string]string{"purchase_price": form.MsgPositive}},
		{name: "purchase price negative", change: map[string]string{"purchase_price": "-1"}, want: map[string]string{"purchase_price": form.MsgNegative}},
		{name: "purchase price 6 places", change: map[string]string{"purchase_price": "25000.123456"}},
		{name: "purchase price 7 places", change: map[string]string{"purchase_price": "25000.1234567"}, want: map[string]string{"purchase_price": form.MsgPlaces(6)}},
		{name: "purchase price 10^12", change: map[string]string{"purchase_price": "1000000000000"}},
		// §17.1: amounts within §14.1's 10¹², as the engine prices them.
		{name: "purchase price above 10^12", change: map[string]string{"purchase_price": "1000000000001"}, want: map[string]string{"purchase_price": form.MsgRange}},
		{name: "hosting above 10^12", change: map[string]string{"hosting_monthly": "1000000000000.000001"}, want: map[string]string{"hosting_monthly": form.MsgRange}},
		{name: "purchase price 15 digits", change: map[string]string{"purchase_price": "123456789012345"}, want: map[string]string{"purchase_price": form.MsgDigits(14)}},

		{name: "purchase day missing", change: map[string]string{"purchase_as_of": ""}, want: map[string]string{"purchase_as_of": form.MsgRequired}},
		{name: "purchase day the latest day", change: map[string]string{"purchase_as_of": "2026-12-02"}},
		{name: "purchase day after the latest day", change: map[string]string{"purchase_as_of": "2026-12-03"}, want: map[string]string{"purchase_as_of": form.MsgFuture}},
		{name: "purchase day 2000-01-01", change: map[string]string{"purchase_as_of": "2000-01-01"}},
		{name: "purchase day before 2000", change: map[string]string{"purchase_as_of": "1999-12-31"}, want: map[string]string{"purchase_as_of": form.MsgDate}},
		{name: "purchase day not a date", change: map[string]string{"purchase_as_of": "30.11.2026"}, want: map[string]string{"purchase_as_of": form.MsgDate}},

		{name: "purchase source missing", change: map[string]string{"purchase_source": ""}, want: map[string]string{"purchase_source": form.MsgRequired}},
		{name: "purchase source of 501 characters", change: map[string]string{"purchase_source": strings.Repeat("s", 501)}, want: map[string]string{"purchase_source": form.MsgTooLong}},

		{name: "residual 100 %", change: map[string]string{"residual_pct": "100"}},
		{name: "residual above 100 %", change: map[string]string{"residual_pct": "100.01"}, want: map[string]string{"residual_pct": form.MsgRange}},
		{name: "residual 3 places", change: map[string]string{"residual_pct": "20.125"}, want: map[string]string{"residual_pct": form.MsgPlaces(2)}},

		{name: "life 1 month", change: map[string]string{"life_months": "1"}},
		{name: "life 120 months", change: map[string]string{"life_months": "120"}},
		{name: "life 0 months", change: map[string]string{"life_months": "0"}, want: map[string]string{"life_months": form.MsgRange}},
		{name: "life 121 months", change: map[string]string{"life_months": "121"}, want: map[string]string{"life_months": form.MsgRange}},

		{name: "load missing", change: map[string]string{"power_load_w": ""}, want: map[string]string{"power_load_w": form.MsgRequired}},
		{name: "load 0 W", change: map[string]string{"power_load_w": "0"}, want: map[string]string{"power_load_w": form.MsgPositive}},
		{name: "load 3 places", change: map[string]string{"power_load_w": "450.125"}, want: map[string]string{"power_load_w": form.MsgPlaces(2)}},
		// §17.1: draws 0–1,000,000 W.
		{name: "load 1,000,000 W", change: map[string]string{"power_load_w": "1000000", "power_idle_w": "0"}},
		{name: "load above 1,000,000 W", change: map[string]string{"power_load_w": "1000000.01"}, want: map[string]string{"power_load_w": form.MsgRange}},
		{name: "idle equal to load", change: map[string]string{"power_idle_w": "450"}},
		{name: "idle above load", change: map[string]string{"power_idle_w": "450.01"}, want: map[string]string{"power_idle_w": own.MsgIdleAbove}},
		{name: "idle negative", change: map[string]string{"power_idle_w": "-1"}, want: map[string]string{"power_idle_w": form.MsgNegative}},

		{name: "PUE 1", change: map[string]string{"pue": "1"}},
		{name: "PUE 10", change: map[string]string{"pue": "10"}},
		{name: "PUE below 1", change: map[string]string{"pue": "0.99"}, want: map[string]string{"pue": form.MsgRange}},
		{name: "PUE above 10", change: map[string]string{"pue": "10.01"}, want: map[string]string{"pue": form.MsgRange}},

		{name: "electricity missing", change: map[string]string{"electricity": ""}, want: map[string]string{"electricity": form.MsgRequired}},
		{name: "electricity unknown way", change: map[string]string{"electricity": "grid"}, want: map[string]string{"electricity": form.MsgChoice}},
		{name: "own kWh price missing", change: map[string]string{"kwh_price": ""}, want: map[string]string{"kwh_price": form.MsgRequired}},
		{name: "own kWh price 0 (power in the hosting fee)", change: map[string]string{"kwh_price": "0"}},
		{name: "own kWh price 7 places", change: map[string]string{"kwh_price": "0.6000001"}, want: map[string]string{"kwh_price": form.MsgPlaces(6)}},
		{name: "region electricity", change: map[string]string{"electricity": "region", "electricity_region": "cn-Beijing", "kwh_price": ""}},
		{name: "region missing", change: map[string]string{"electricity": "region", "electricity_region": ""},
			want: map[string]string{"electricity_region": form.MsgRequired}},
		{name: "region not a code", change: map[string]string{"electricity": "region", "electricity_region": "Beijing"},
			want: map[string]string{"electricity_region": own.MsgRegion}},

		{name: "always on ticked", change: map[string]string{"always_on": "true"}},
		{name: "always on not a checkbox value", change: map[string]string{"always_on": "maybe"}, want: map[string]string{"always_on": form.MsgChoice}},

		{name: "hosting negative", change: map[string]string{"hosting_monthly": "-100"}, want: map[string]string{"hosting_monthly": form.MsgNegative}},
		{name: "operations 7 places", change: map[string]string{"ops_monthly": "1.0000001"}, want: map[string]string{"ops_monthly": form.MsgPlaces(6)}},
		{name: "maintenance above 100 %", change: map[string]string{"maintenance_pct_per_year": "101"}, want: map[string]string{"maintenance_pct_per_year": form.MsgRange}},
		{name: "setup with a decimal comma", change: map[string]string{"setup_one_off": "300,5"}, want: map[string]string{"setup_one_off": form.MsgCommaDecimal}},

		{name: "cost of capital just below 1", change: map[string]string{"capital_rate_per_year": "0.999999"}},
		{name: "cost of capital 1", change: map[string]string{"capital_rate_per_year": "1"}, want: map[string]string{"capital_rate_per_year": own.MsgFraction}},
		{name: "cost of capital as a percentage", change: map[string]string{"capital_rate_per_year": "5"}, want: map[string]string{"capital_rate_per_year": own.MsgFraction}},

		{name: "tax basis missing", change: map[string]string{"prices_include_tax": ""}, want: map[string]string{"prices_include_tax": form.MsgRequired}},
		{name: "tax basis not yes or no", change: map[string]string{"prices_include_tax": "perhaps"}, want: map[string]string{"prices_include_tax": form.MsgChoice}},
		{name: "excluding tax without a rate", change: map[string]string{"tax_rate": ""}, want: map[string]string{"tax_rate": own.MsgTaxRate}},
		{name: "excluding tax at rate 0", change: map[string]string{"tax_rate": "0"}},
		{name: "including tax without a rate", change: map[string]string{"prices_include_tax": "true", "tax_rate": ""}},
		{name: "tax rate 1", change: map[string]string{"tax_rate": "1"}, want: map[string]string{"tax_rate": own.MsgFraction}},
		{name: "tax rate as a percentage", change: map[string]string{"tax_rate": "13"}, want: map[string]string{"tax_rate": own.MsgFraction}},

		{name: "notes of 4,001 characters", change: map[string]string{"notes": strings.Repeat("n", 4001)}, want: map[string]string{"notes": form.MsgTooLong}},

		{name: "every problem at once", change: map[string]string{"gpu_count": "0", "purchase_price": "0", "pue": "11",
			"capital_rate_per_year": "2", "tax_rate": ""},
			want: map[string]string{"gpu_count": form.MsgRange, "purchase_price": form.MsgPositive, "pue": form.MsgRange,
				"capital_rate_per_year": own.MsgFraction, "tax_rate": own.MsgTaxRate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validOption()
			for k, v := range tt.change {
				in.Set(k, v)
			}
			_, errs := own.Read(in.Get, knownGPU, latest)
			sameErrors(t, errs, tt.want)
		})
	}
}

// TestReadOptionEmptyForm checks that an empty form names every required
// field at once (docs/RULES.md §17.1: price, draw, electricity, GPU count
// and tax basis have no default; §17.4 the name, GPU model, currency and
// the purchase price's day and source).
func TestReadOptionEmptyForm(t *testing.T) {
	_, errs := own.Read(url.Values{}.Get, knownGPU, latest)
	sameErrors(t, errs, map[string]string{
		"name": form.MsgRequired, "gpu_model": form.MsgRequired, "gpu_count": form.MsgRequired,
		"currency": form.MsgRequired, "purchase_price": form.MsgRequired, "purchase_as_of": form.MsgRequired,
		"purchase_source": form.MsgRequired, "power_load_w": form.MsgRequired, "electricity": form.MsgRequired,
		"prices_include_tax": form.MsgRequired,
	})
}

// TestReadOptionDefaults checks what empty optional fields mean
// (docs/RULES.md §17.1, §17.4): residual 0 %, life 36 months, idle draw
// 0 W, PUE 1, running costs, setup and cost of capital 0; and that a valid
// form is read exactly, the currency in capitals and the region's country
// part too.
func TestReadOptionDefaults(t *testing.T) {
	tests := []struct {
		name  string
		clear []string
		check func(t *testing.T, v own.Version)
	}{
		{name: "optional fields empty", clear: []string{"residual_pct", "life_months", "power_idle_w", "pue",
			"hosting_monthly", "ops_monthly", "maintenance_pct_per_year", "setup_one_off", "capital_rate_per_year", "notes"},
			check: func(t *testing.T, v own.Version) {
				zero := decimal.Zero
				for name, d := range map[string]decimal.Decimal{"residual": v.ResidualPct, "idle": v.PowerIdleW,
					"hosting": v.HostingMonthly, "ops": v.OpsMonthly, "maintenance": v.MaintenancePctPerYear,
					"setup": v.SetupOneOff, "capital": v.CapitalRatePerYear} {
					if !d.Equal(zero) {
						t.Errorf("%s = %s, want 0", name, d)
					}
				}
				if v.LifeMonths != 36 {
					t.Errorf("life = %d, want 36", v.LifeMonths)
				}
				if !v.PUE.Equal(dec("1")) {
					t.Errorf("PUE = %s, want 1", v.PUE)
				}
			}},
		{name: "everything given", check: func(t *testing.T, v own.Version) {
			if v.Name != "RTX 4090 workstation" || v.GPUModelID != 3 || v.GPUCount != 1 || v.Currency != "CNY" {
				t.Errorf("name, GPU, count, currency = %q, %d, %d, %q", v.Name, v.GPUModelID, v.GPUCount, v.Currency)
			}
			for name, c := range map[string][2]decimal.Decimal{
				"purchase": {v.PurchasePrice, dec("25000")}, "residual": {v.ResidualPct, dec("20")},
				"load": {v.PowerLoadW, dec("450")}, "idle": {v.PowerIdleW, dec("60")}, "pue": {v.PUE, dec("1.2")},
				"kwh": {v.KWhPrice.Decimal, dec("0.6")}, "hosting": {v.HostingMonthly, dec("100")},
				"ops": {v.OpsMonthly, dec("50.5")}, "maintenance": {v.MaintenancePctPerYear, dec("5")},
				"setup": {v.SetupOneOff, dec("300")}, "capital": {v.CapitalRatePerYear, dec("0.05")},
				"tax": {v.TaxRate.Decimal, dec("0.13")},
			} {
				if !c[0].Equal(c[1]) {
					t.Errorf("%s = %s, want %s", name, c[0], c[1])
				}
			}
			if !v.KWhPrice.Valid || !v.TaxRate.Valid || v.PricesIncludeTax {
				t.Errorf("kWh valid %v, tax rate valid %v, prices include tax %v", v.KWhPrice.Valid, v.TaxRate.Valid, v.PricesIncludeTax)
			}
			if !v.PurchaseAsOf.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("purchase day = %s", v.PurchaseAsOf)
			}
			if v.LifeMonths != 36 || v.Electricity() != own.ElectricityOwn || v.ElectricityRegion != "" {
				t.Errorf("life %d, electricity %q region %q", v.LifeMonths, v.Electricity(), v.ElectricityRegion)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validOption()
			for _, k := range tt.clear {
				in.Del(k)
			}
			v, errs := own.Read(in.Get, knownGPU, latest)
			if len(errs) != 0 {
				t.Fatalf("problems: %v", errs)
			}
			tt.check(t, v)
		})
	}
}

// TestValuesReadBack checks that the edit form shows a version so that
// saving it unchanged stores the same inputs (docs/RULES.md §17.4: a save
// stores every input of the version it started from), for both ways of
// taking the electricity price.
func TestValuesReadBack(t *testing.T) {
	base := own.Version{
		Name: "R9700 workstation", GPUModelID: 3, GPUCount: 2, Currency: "EUR",
		PurchasePrice: dec("4321.123456"), PurchaseAsOf: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
		PurchaseSource: "shop", ResidualPct: dec("12.5"), LifeMonths: 48,
		PowerLoadW: dec("650.25"), PowerIdleW: dec("80"), PUE: dec("1.35"),
		HostingMonthly: dec("10"), OpsMonthly: dec("0"), MaintenancePctPerYear: dec("3"), SetupOneOff: dec("0.01"),
		CapitalRatePerYear: dec("0.07"), TaxRate: decimal.NewNullDecimal(dec("0.21")), Notes: "two lines\nof notes",
	}
	regional := base
	regional.ElectricityRegion, regional.AlwaysOn = "NL", true
	ownFigure := base
	ownFigure.KWhPrice = decimal.NewNullDecimal(dec("0.284"))
	ownFigure.PricesIncludeTax, ownFigure.TaxRate = true, decimal.NullDecimal{}

	tests := []struct {
		name string
		v    own.Version
	}{
		{name: "region electricity, always on, excluding tax", v: regional},
		{name: "own kWh figure, including tax", v: ownFigure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals := own.Values(tt.v)
			got, errs := own.Read(func(k string) string { return vals[k] }, knownGPU, latest)
			if len(errs) != 0 {
				t.Fatalf("problems: %v", errs)
			}
			want := tt.v
			if got.Name != want.Name || got.GPUModelID != want.GPUModelID || got.GPUCount != want.GPUCount ||
				got.Currency != want.Currency || !got.PurchaseAsOf.Equal(want.PurchaseAsOf) ||
				got.PurchaseSource != want.PurchaseSource || got.LifeMonths != want.LifeMonths ||
				got.ElectricityRegion != want.ElectricityRegion || got.AlwaysOn != want.AlwaysOn ||
				got.PricesIncludeTax != want.PricesIncludeTax || got.Notes != want.Notes {
				t.Errorf("read back %+v, want %+v", got, want)
			}
			for name, c := range map[string][2]decimal.Decimal{
				"purchase": {got.PurchasePrice, want.PurchasePrice}, "residual": {got.ResidualPct, want.ResidualPct},
				"load": {got.PowerLoadW, want.PowerLoadW}, "idle": {got.PowerIdleW, want.PowerIdleW},
				"pue": {got.PUE, want.PUE}, "hosting": {got.HostingMonthly, want.HostingMonthly},
				"ops": {got.OpsMonthly, want.OpsMonthly}, "maintenance": {got.MaintenancePctPerYear, want.MaintenancePctPerYear},
				"setup": {got.SetupOneOff, want.SetupOneOff}, "capital": {got.CapitalRatePerYear, want.CapitalRatePerYear},
			} {
				if !c[0].Equal(c[1]) {
					t.Errorf("%s = %s, want %s", name, c[0], c[1])
				}
			}
			if got.KWhPrice.Valid != want.KWhPrice.Valid || !got.KWhPrice.Decimal.Equal(want.KWhPrice.Decimal) {
				t.Errorf("kWh price = %v, want %v", got.KWhPrice, want.KWhPrice)
			}
			if got.TaxRate.Valid != want.TaxRate.Valid || !got.TaxRate.Decimal.Equal(want.TaxRate.Decimal) {
				t.Errorf("tax rate = %v, want %v", got.TaxRate, want.TaxRate)
			}
		})
	}
}

// TestEngine checks that an option version is priced with every input it
// holds and the kWh price resolved for the day (docs/RULES.md §17.4: each
// version holds every input of §17.1), and that the card's name is its
// vendor and name.
func TestEngine(t *testing.T) {
	tax := decimal.NewNullDecimal(dec("0.13"))
	v := own.Version{
		Currency: "CNY", GPUVendor: "NVIDIA", GPUName: "RTX 4090", GPUCount: 4,
		PurchasePrice: dec("25000"), ResidualPct: dec("20"), LifeMonths: 36,
		PowerLoadW: dec("450"), PowerIdleW: dec("60"), PUE: dec("1.2"), AlwaysOn: true,
		ElectricityRegion: "CN-Beijing", KWhPrice: decimal.NewNullDecimal(dec("9.99")),
		HostingMonthly: dec("100"), OpsMonthly: dec("50"), MaintenancePctPerYear: dec("5"), SetupOneOff: dec("300"),
		CapitalRatePerYear: dec("0.05"), PricesIncludeTax: false, TaxRate: tax,
	}
	want := tco.Own{
		Currency: "CNY", GPUModel: "NVIDIA RTX 4090", GPUCount: 4,
		PurchasePrice: dec("25000"), ResidualPct: dec("20"), LifeMonths: 36,
		PowerLoadW: dec("450"), PowerIdleW: dec("60"), PUE: dec("1.2"), KWhPrice: dec("0.6"), AlwaysOn: true,
		HostingMonthly: dec("100"), OpsMonthly: dec("50"), MaintenancePctPerYear: dec("5"), SetupOneOff: dec("300"),
		CapitalRatePerYear: dec("0.05"), PricesIncludeTax: false, TaxRate: tax,
	}
	got := v.Engine(dec("0.6"))
	tests := []struct {
		name      string
		got, want any
	}{
		{name: "currency", got: got.Currency, want: want.Currency},
		{name: "GPU model", got: got.GPUModel, want: want.GPUModel},
		{name: "GPU count", got: got.GPUCount, want: want.GPUCount},
		{name: "purchase price", got: got.PurchasePrice.String(), want: want.PurchasePrice.String()},
		{name: "residual", got: got.ResidualPct.String(), want: want.ResidualPct.String()},
		{name: "life", got: got.LifeMonths, want: want.LifeMonths},
		{name: "load", got: got.PowerLoadW.String(), want: want.PowerLoadW.String()},
		{name: "idle", got: got.PowerIdleW.String(), want: want.PowerIdleW.String()},
		{name: "PUE", got: got.PUE.String(), want: want.PUE.String()},
		{name: "kWh price is the resolved one", got: got.KWhPrice.String(), want: want.KWhPrice.String()},
		{name: "always on", got: got.AlwaysOn, want: want.AlwaysOn},
		{name: "hosting", got: got.HostingMonthly.String(), want: want.HostingMonthly.String()},
		{name: "operations", got: got.OpsMonthly.String(), want: want.OpsMonthly.String()},
		{name: "maintenance", got: got.MaintenancePctPerYear.String(), want: want.MaintenancePctPerYear.String()},
		{name: "setup", got: got.SetupOneOff.String(), want: want.SetupOneOff.String()},
		{name: "cost of capital", got: got.CapitalRatePerYear.String(), want: want.CapitalRatePerYear.String()},
		{name: "prices include tax", got: got.PricesIncludeTax, want: want.PricesIncludeTax},
		{name: "tax rate", got: got.TaxRate.Decimal.String(), want: want.TaxRate.Decimal.String()},
		{name: "tax rate stated", got: got.TaxRate.Valid, want: want.TaxRate.Valid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
			}
		})
	}
}

// TestReadElectricityPrice checks the electricity sample form
// (docs/RULES.md §17.4 "Electricity"): a region code, a currency, a kWh
// price above 0 with at most 6 places, a day from 2000 not after the latest
// day on Earth, and a source; every problem at once.
func TestReadElectricityPrice(t *testing.T) {
	valid := func() url.Values {
		return url.Values{"region": {"cn-Beijing"}, "currency": {"cny"}, "kwh_price": {"0.6"},
			"as_of": {"2026-11-30"}, "source": {"State Grid tariff"}}
	}
	tests := []struct {
		name   string
		change map[string]string
		want   map[string]string
	}{
		{name: "valid", want: nil},
		{name: "region missing", change: map[string]string{"region": ""}, want: map[string]string{"region": form.MsgRequired}},
		{name: "region not a code", change: map[string]string{"region": "Beijing"}, want: map[string]string{"region": own.MsgRegion}},
		{name: "region of 41 characters", change: map[string]string{"region": "CN-" + strings.Repeat("x", 38)}, want: map[string]string{"region": own.MsgRegion}},
		{name: "currency missing", change: map[string]string{"currency": ""}, want: map[string]string{"currency": form.MsgRequired}},
		{name: "price missing", change: map[string]string{"kwh_price": ""}, want: map[string]string{"kwh_price": form.MsgRequired}},
		{name: "price 0", change: map[string]string{"kwh_price": "0"}, want: map[string]string{"kwh_price": form.MsgPositive}},
		{name: "price 6 places", change: map[string]string{"kwh_price": "0.123456"}},
		{name: "price 7 places", change: map[string]string{"kwh_price": "0.1234567"}, want: map[string]string{"kwh_price": form.MsgPlaces(6)}},
		{name: "day after the latest day", change: map[string]string{"as_of": "2026-12-03"}, want: map[string]string{"as_of": form.MsgFuture}},
		{name: "day before 2000", change: map[string]string{"as_of": "1999-12-31"}, want: map[string]string{"as_of": form.MsgDate}},
		{name: "source missing", change: map[string]string{"source": ""}, want: map[string]string{"source": form.MsgRequired}},
		{name: "source of 501 characters", change: map[string]string{"source": strings.Repeat("s", 501)}, want: map[string]string{"source": form.MsgTooLong}},
		{name: "everything missing", change: map[string]string{"region": "", "currency": "", "kwh_price": "", "as_of": "", "source": ""},
			want: map[string]string{"region": form.MsgRequired, "currency": form.MsgRequired, "kwh_price": form.MsgRequired,
				"as_of": form.MsgRequired, "source": form.MsgRequired}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			for k, v := range tt.change {
				in.Set(k, v)
			}
			r := form.Values(in)
			p := own.ReadElectricityPrice(r, latest)
			sameErrors(t, r.Errs, tt.want)
			if tt.want == nil {
				if p.Region != "CN-Beijing" || p.Currency != "CNY" || !p.AsOf.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) ||
					p.Source != "State Grid tariff" {
					t.Errorf("sample = %+v", p)
				}
				if want := dec(in.Get("kwh_price")); !p.KWhPrice.Equal(want) {
					t.Errorf("kWh price = %s, want %s", p.KWhPrice, want)
				}
			}
		})
	}
}
