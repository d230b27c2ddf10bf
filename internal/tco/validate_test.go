package tco

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// assertFields checks that err is a *ValidationError with exactly the given
// "path:code" entries, in any order.
func assertFields(t *testing.T, err error, want ...string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v, want *ValidationError", err)
	}
	got := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		got[i] = f.Field + ":" + f.Code
		if f.MessageID != "err.tco."+f.Code {
			t.Errorf("%s message ID %s", f.Field, f.MessageID)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestValidateEverythingAtOnce(t *testing.T) {
	q := Quote{
		Currency:            "EURO",
		GPUCount:            0,
		VRAMGB:              nd("0"),
		Sharing:             "half",
		Hourly:              nd("-1"),
		Monthly:             nd("1000000000001"),
		Yearly:              nd("0.1234567"),
		BillingGranularity:  "day",
		IncludedMbps:        d("-5"),
		CommitmentMonths:    121,
		EarlyTerminationPct: nd("101"),
		TaxRate:             nd("1"),
		Lines: []Line{
			{Item: "bandwidth", Status: "charged", Unit: "per_gb", UnitPrice: nd("1")},
			{Item: "gpu", Status: "charged", UnitPrice: nd("1")},
			{Item: "bandwidth", Status: "included"},
			{Item: "egress", Status: "charged"},
			{Item: "snapshot", Status: "free", Unit: "per_year"},
			{Item: "image", Status: "included", UnitPrice: nd("2")},
			{Status: "charged", UnitPrice: nd("1"), FreeAllowance: d("-1")},
		},
	}
	p := Profile{
		HoursPerMonth:         d("730.5"),
		Months:                0,
		Instances:             0,
		StartsPerMonth:        -1,
		BetweenRuns:           "hibernate",
		SpotOverhead:          nd("11"),
		Mbps:                  d("-1"),
		EgressGBPerMonth:      d("0.0000001"),
		PublicIPs:             -1,
		PerformanceRatio:      nd("0"),
		TokensPerSecondPerGPU: decimal.NullDecimal{Valid: true},
		Task:                  "pretrain",
		Precision:             "fp4",
	}
	o := Options{
		ReportCurrency: "usd",
		FXRate:         nd("-1"),
		ReferencePrices: []ReferencePrice{
			{Item: "egress", Unit: "per_month", UnitPrice: d("1")},
			{Item: "nope", Unit: "per_gb", UnitPrice: d("-1")},
			{Item: "egress", Unit: "per_gb", UnitPrice: d("1")},
			{Item: "egress", Unit: "per_gb", UnitPrice: d("2")},
		},
	}
	_, err := Evaluate(q, p, o)
	assertFields(t, err,
		"quote.currency:unknown_currency",
		"quote.gpu_count:int_out_of_range",
		"quote.vram_gb:must_be_positive",
		"quote.sharing:unknown_sharing",
		"quote.hourly:negative",
		"quote.monthly:too_large",
		"quote.yearly:too_many_decimals",
		"quote.billing_granularity:unknown_granularity",
		"quote.included_mbps:negative",
		"quote.commitment_months:int_out_of_range",
		"quote.early_termination_pct:out_of_range",
		"quote.tax_rate:tax_rate_out_of_range",
		"quote.lines[0].unit:unit_not_allowed",
		"quote.lines[1].item:unknown_item",
		"quote.lines[2].item:duplicate_item",
		"quote.lines[3].unit_price:required",
		"quote.lines[4].status:unknown_status",
		"quote.lines[4].unit:unknown_unit",
		"quote.lines[5].unit_price:price_on_free_line",
		"quote.lines[6].item:required",
		"quote.lines[6].free_allowance:negative",
		"profile.hours_per_month:hours_out_of_range",
		"profile.months:int_out_of_range",
		"profile.instances:int_out_of_range",
		"profile.starts_per_month:int_out_of_range",
		"profile.between_runs:unknown_between_runs",
		"profile.spot_overhead:out_of_range",
		"profile.mbps:negative",
		"profile.egress_gb_per_month:too_many_decimals",
		"profile.public_ips:int_out_of_range",
		"profile.performance_ratio:must_be_positive",
		"profile.tokens_per_second_per_gpu:must_be_positive",
		"profile.task:unknown_task",
		"profile.precision:unknown_precision",
		"report_currency:unknown_currency",
		"fx_rate:must_be_positive",
		"reference_prices[0].unit:unit_not_allowed",
		"reference_prices[1].item:unknown_item",
		"reference_prices[1].unit_price:negative",
	)
}

func TestValidateSmallRules(t *testing.T) {
	// No price at all.
	q := hostkey()
	q.Hourly.Valid = false
	_, err := Evaluate(q, profile("1", 1), Options{})
	assertFields(t, err, "quote:no_price")

	// Hourly needs a granularity; tax-exclusive prices need a rate.
	q = hostkey()
	q.BillingGranularity = ""
	q.PricesIncludeTax = false
	_, err = Evaluate(q, profile("1", 1), Options{})
	assertFields(t, err, "quote.billing_granularity:required", "quote.tax_rate:required")

	// A task needs a model size (except rendering) and a precision it can use.
	p := profile("1", 1)
	p.Task, p.Precision = catalog.TaskQLoRA, catalog.PrecisionBF16
	_, err = Evaluate(hostkey(), p, Options{})
	assertFields(t, err, "profile.params_billions:required", "profile.precision:precision_not_for_task")
	p.Task, p.Precision = catalog.TaskRendering, ""
	if _, err := Evaluate(hostkey(), p, Options{}); err != nil {
		t.Errorf("rendering without params: %v", err)
	}

	// More than twelve lines.
	q = hostkey()
	q.Lines = append(q.Lines, Line{Item: "egress", Status: "included"})
	_, err = Evaluate(q, profile("1", 1), Options{})
	assertFields(t, err, "quote.lines:too_many")

	// Bounds that pass: H = 730, M = 120, tax 0.999999, 6 decimals.
	q = hostkey()
	q.PricesIncludeTax = false
	q.TaxRate = nd("0.999999")
	q.Hourly = nd("0.123456")
	p = Profile{HoursPerMonth: d("730"), Months: 120, Instances: 10000, StartsPerMonth: 10000}
	if _, err := Evaluate(q, p, Options{}); err != nil {
		t.Errorf("bounds: %v", err)
	}
	p.HoursPerMonth = d("0")
	_, err = Evaluate(q, p, Options{})
	assertFields(t, err, "profile.hours_per_month:hours_out_of_range")

	// The message text comes from the message ID; args carry the numbers.
	fe := NewFieldError("quote.hourly", CodeTooManyDecimals, "Max", "6")
	if fe.MessageID != "err.tco.too_many_decimals" || fe.Args["Max"] != "6" || fe.Error() != "quote.hourly: too_many_decimals" {
		t.Errorf("%+v", fe)
	}
}

// TestValidateRefusesAllowanceOnBundledAddon: a free allowance on the
// bundled add-on is an input error, whatever the status; 0 and other
// items' allowances are fine (docs/RULES.md §3.4).
func TestValidateRefusesAllowanceOnBundledAddon(t *testing.T) {
	q := Quote{Currency: "EUR", GPUCount: 1, Monthly: nd("70"), PricesIncludeTax: true, Lines: []Line{
		{Item: catalog.ItemBundledAddon, Status: "charged", Unit: "per_month", UnitPrice: nd("30.83"), FreeAllowance: d("4")},
		{Item: catalog.ItemEgress, Status: "charged", Unit: "per_gb", UnitPrice: nd("0.05"), FreeAllowance: d("100")},
	}}
	p := Profile{HoursPerMonth: d("200"), Months: 1, Instances: 1}
	_, err := Evaluate(q, p, Options{ReportCurrency: "EUR"})
	assertFields(t, err, "quote.lines[0].free_allowance:allowance_not_allowed")
	for _, st := range []catalog.Status{"unconfirmed", "included"} {
		q.Lines[0] = Line{Item: catalog.ItemBundledAddon, Status: st, FreeAllowance: d("1")}
		_, err = Evaluate(q, p, Options{ReportCurrency: "EUR"})
		assertFields(t, err, "quote.lines[0].free_allowance:allowance_not_allowed")
	}
	q.Lines[0] = Line{Item: catalog.ItemBundledAddon, Status: "charged", Unit: "per_month", UnitPrice: nd("30.83"), FreeAllowance: d("0")}
	r, err := Evaluate(q, p, Options{ReportCurrency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	got := "none"
	for _, l := range r.Lines {
		if l.Item == catalog.ItemBundledAddon {
			got = l.Amount.StringFixed(2)
		}
	}
	if got != "30.83" {
		t.Errorf("add-on without allowance costs %s, want 30.83", got)
	}
}
