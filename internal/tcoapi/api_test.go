package tcoapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// The example of docs/RULES.md §12.
const exampleRequest = `{"report_currency": "EUR", "fx_rate": "1",
 "quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "monthly": "70",
           "billing_granularity": "second", "prices_include_tax": true, "tax_rate": "0",
           "lines": [{"item": "egress", "status": "charged", "unit": "per_gb",
                      "unit_price": "0.05", "free_allowance": "100"}]},
 "reference_prices": [{"item": "snapshot", "unit": "per_month", "unit_price": "0.1"}],
 "profile": {"hours_per_month": "200", "months": 1, "instances": 1}}`

const exampleResponse = `{"report_currency": "EUR", "fx_rate": "1", "chosen_mode": "monthly",
 "break_even_hours": "148.62", "break_even_months": null,
 "modes": [{"mode": "hourly", "status": "allowed", "billable_hours_per_month": "200.00",
            "compute_total": "94.20", "tco": "94.20"},
           {"mode": "monthly", "status": "allowed", "compute_total": "70.00", "tco": "70.00"}],
 "compute_total": "70.00", "hidden_total": "0.00", "one_off_total": "0.00",
 "tco": "70.00", "tco_pessimistic": "70.00",
 "pessimistic_unpriced": ["bundled_addon", "start_stop_schedule"],
 "hidden_share": "0.0000", "hidden_share_pessimistic": "0.0000",
 "effective_per_gpu_hour": "0.3500", "per_reference_gpu_hour": null,
 "cost_per_million_tokens": null,
 "lines": [{"item": "egress", "status": "charged", "quantity": "0", "unit": "per_gb",
            "unit_price": "0.05", "amount": "0.00"}],
 "flags": ["unconfirmed_lines"]}`

var today = time.Date(2026, 3, 15, 10, 0, 0, 0, time.UTC)

func toMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func evaluateOK(t *testing.T, body string, lookup FXLookup) Response {
	t.Helper()
	resp, errs, err := Evaluate([]byte(body), lookup, today)
	if err != nil || len(errs) > 0 {
		t.Fatalf("Evaluate: %v %+v", err, errs)
	}
	return resp
}

func TestExampleRequestResponse(t *testing.T) {
	got := toMap(t, evaluateOK(t, exampleRequest, nil))
	var want map[string]any
	if err := json.Unmarshal([]byte(exampleResponse), &want); err != nil {
		t.Fatal(err)
	}
	// Every top-level field is exactly the example's, and there are no others.
	for k, w := range want {
		if k == "lines" {
			continue
		}
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("%s = %#v, want %#v", k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("extra field %s = %#v", k, got[k])
		}
	}
	// lines: the twelve items in table order; the example's egress line
	// exactly as shown.
	lines := got["lines"].([]any)
	if len(lines) != 12 {
		t.Fatalf("%d lines", len(lines))
	}
	for i, l := range lines {
		if l.(map[string]any)["item"] != string(catalog.Items[i].Key) {
			t.Errorf("line %d is %v", i, l)
		}
	}
	wantEgress := want["lines"].([]any)[0]
	if !reflect.DeepEqual(lines[1], wantEgress) {
		t.Errorf("egress line %#v, want %#v", lines[1], wantEgress)
	}
	// The unconfirmed snapshot line names its reference (0.1 × 0 GB = 0),
	// an editors' one; lines without a reference say so with nulls.
	snap := lines[8].(map[string]any)
	if snap["status"] != "unconfirmed" || snap["reference_unit_price"] != "0.1" || snap["reference_amount"] != "0.00" ||
		snap["reference_source"] != "editor" || snap["reference_quote_id"] != nil {
		t.Errorf("snapshot line %#v", snap)
	}
	image := lines[9].(map[string]any)
	for _, k := range []string{"reference_unit_price", "reference_amount", "reference_source", "reference_quote_id"} {
		if v, ok := image[k]; !ok || v != nil {
			t.Errorf("image line %s = %#v (present %v), want null", k, v, ok)
		}
	}
	if lines[10].(map[string]any)["quantity"] != "0.00" {
		t.Errorf("stopped hours shown %v", lines[10])
	}
}

func TestResponseJSONShape(t *testing.T) {
	// Nulls are explicit; line reference fields only on unconfirmed lines.
	b, err := json.Marshal(evaluateOK(t, exampleRequest, nil))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, frag := range []string{`"break_even_months":null`, `"per_reference_gpu_hour":null`, `"cost_per_million_tokens":null`} {
		if !strings.Contains(s, frag) {
			t.Errorf("missing %s in %s", frag, s)
		}
	}
	var back Response
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b2) != s {
		t.Errorf("response does not round-trip:\n%s\n%s", s, b2)
	}
}

func TestFullRequest(t *testing.T) {
	// Every field used once. CNY quote, tax-exclusive 6 %, reported in EUR
	// at 0.128. Hourly 3.5 × 200 h × 2 months × 2 instances = 2800 CNY ×
	// 0.128 × 1.06 = 379.904 → 379.90. Hidden: snapshot 0.05 × 200 × 2 × 2 =
	// 40 CNY → 5.4272 → 5.43. Migration one-off 0.1 × 300 × 2 = 60 → 8.1408
	// → 8.14. tco 393.47; effective 393.47 ÷ (200 × 2 × 2 × 8) = 0.061479…
	body := `{"report_currency": "EUR", "fx_rate": "0.128", "fx_date": "2026-03-02",
	  "quote": {"currency": "CNY", "gpu_model": "RTX 4090", "gpu_count": 8, "vram_gb": "24",
	    "sharing": "dedicated", "hourly": "3.5", "billing_granularity": "minute",
	    "included_mbps": "10", "included_system_disk_gb": "50", "included_data_disk_gb": "0",
	    "commitment_months": 0, "early_termination_pct": "25", "deposit": "1000",
	    "deposit_refundable": true, "balance_withdrawable": false,
	    "prices_include_tax": false, "tax_rate": "0.06", "as_of": "2025-11-01",
	    "lines": [
	      {"item": "snapshot", "status": "charged", "unit": "per_month", "unit_price": "0.05", "note": "written 2026-02"},
	      {"item": "data_migration", "status": "charged", "unit": "per_gb", "unit_price": "0.1", "free_allowance": "0"},
	      {"item": "bandwidth", "status": "included"}, {"item": "egress", "status": "not_applicable"},
	      {"item": "public_ip", "status": "included"}, {"item": "system_disk", "status": "included"},
	      {"item": "data_disk", "status": "included"}, {"item": "object_storage", "status": "included"},
	      {"item": "bundled_addon", "status": "not_applicable"}, {"item": "image", "status": "included"},
	      {"item": "stopped_retention", "status": "included"}, {"item": "start_stop_schedule", "status": "included"}
	    ]},
	  "reference_prices": [],
	  "profile": {"hours_per_month": "200", "months": 2, "instances": 2, "starts_per_month": 1,
	    "between_runs": "release", "resumable": false, "spot_overhead": "0.1", "mbps": "5",
	    "system_disk_gb": "50", "data_disk_gb": "0", "object_storage_gb": "0", "snapshot_gb": "200",
	    "image_gb": "0", "egress_gb_per_month": "0", "migration_gb": "300", "public_ips": 1,
	    "tokens_per_second_per_gpu": "2000", "performance_ratio": "0.9",
	    "task": "lora", "params_billions": "7", "precision": "bf16"}}`
	r := evaluateOK(t, body, nil)
	if r.ReportCurrency != "EUR" || r.FXRate != "0.128" || r.FXDate != "2026-03-02" {
		t.Errorf("fx %s %s %s", r.ReportCurrency, r.FXRate, r.FXDate)
	}
	if r.ComputeTotal != "379.90" || r.HiddenTotal != "5.43" || r.OneOffTotal != "8.14" || r.TCO != "393.47" {
		t.Errorf("totals %s %s %s %s", r.ComputeTotal, r.HiddenTotal, r.OneOffTotal, r.TCO)
	}
	if r.EffectivePerGPUHour != "0.0615" || *r.PerReferenceGPUHour != "0.0683" {
		// 393.47 ÷ 6400 = 0.06148; ÷ (6400 × 0.9) = 0.068311…
		t.Errorf("rates %s %s", r.EffectivePerGPUHour, *r.PerReferenceGPUHour)
	}
	// 393.47 × 10⁶ ÷ (6400 × 2000 × 3600) = 0.008538… → 0.0085
	if *r.CostPerMillionTokens != "0.0085" || *r.HiddenShare != "0.0345" || *r.VRAMFloorGB != "19.48" {
		t.Errorf("tokens %s share %s floor %s", *r.CostPerMillionTokens, *r.HiddenShare, *r.VRAMFloorGB)
	}
	wantFlags := []string{"early_termination_ge_20pct", "balance_not_withdrawable", "quote_stale_90d"}
	if !reflect.DeepEqual(r.Flags, wantFlags) {
		t.Errorf("flags %v, want %v", r.Flags, wantFlags)
	}
	if r.BreakEvenHours != nil || len(r.Modes) != 1 || *r.Modes[0].BillableHoursPerMonth != "200.00" {
		t.Errorf("modes %+v", r.Modes)
	}
}

func TestFXLookup(t *testing.T) {
	body := `{"report_currency": "EUR",
	  "quote": {"currency": "CNY", "gpu_count": 1, "hourly": "3.5", "billing_granularity": "hour",
	            "prices_include_tax": true},
	  "profile": {"hours_per_month": "200", "months": 1, "instances": 1}}`
	var asked []string
	lookup := func(from, to string, day time.Time) (FXRate, bool, error) {
		asked = append(asked, from+"→"+to+" "+day.Format(DateLayout))
		return FXRate{Rate: money.MustParse("0.128"), Date: time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)}, true, nil
	}
	r := evaluateOK(t, body, lookup)
	if r.FXRate != "0.128" || r.FXDate != "2026-03-14" || r.TCO != "89.60" {
		t.Errorf("fx %s %s tco %s", r.FXRate, r.FXDate, r.TCO)
	}
	if len(asked) != 1 || asked[0] != "CNY→EUR 2026-03-15" {
		t.Errorf("asked %v", asked)
	}

	// No rate held: the field error names the pair.
	none := func(from, to string, day time.Time) (FXRate, bool, error) { return FXRate{}, false, nil }
	_, errs, err := Evaluate([]byte(body), none, today)
	if err != nil || len(errs) != 1 || errs[0].Field != "fx_rate" || errs[0].Code != tco.CodeFXRateRequired ||
		errs[0].Args["From"] != "CNY" || errs[0].Args["To"] != "EUR" {
		t.Errorf("errs %+v err %v", errs, err)
	}
	// The lookup failing is the server's error, not the user's.
	boom := errors.New("db down")
	failing := func(from, to string, day time.Time) (FXRate, bool, error) { return FXRate{}, false, boom }
	if _, _, err := Evaluate([]byte(body), failing, today); !errors.Is(err, boom) {
		t.Errorf("err %v", err)
	}
	// A rate in the request is used as given, without a lookup.
	asked = nil
	r = evaluateOK(t, strings.Replace(body, `"report_currency": "EUR",`, `"report_currency": "EUR", "fx_rate": "0.13",`, 1), lookup)
	if len(asked) != 0 || r.FXRate != "0.13" || r.FXDate != "" {
		t.Errorf("asked %v fx %s %s", asked, r.FXRate, r.FXDate)
	}
}

func errorSet(errs []FieldError) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Field + ":" + e.Code
	}
	sort.Strings(out)
	return out
}

// TestEveryBadFieldNamed sends one request with many bad fields and expects
// each named once at its exact path.
func TestEveryBadFieldNamed(t *testing.T) {
	body := `{
	  "report_currency": "Euro",
	  "fx_rate": "1.0.0",
	  "fx_date": "15/03/2026",
	  "colour": "red",
	  "quote": {
	    "currency": "EUR", "currency": "USD",
	    "gpu_count": 1.5,
	    "vram_gb": true,
	    "hourly": "1e3",
	    "monthly": "-70",
	    "yearly": "0.1234567",
	    "billing_granularity": "day",
	    "tax_rate": "0.2",
	    "prices_include_tax": "yes",
	    "as_of": "yesterday",
	    "lines": [
	      {"item": "egress", "status": "charged", "unit": "per_gb", "unit_price": "0.05"},
	      {"item": "egress", "status": "included"},
	      {"item": "public_ip", "status": "charged", "unit": "per_gb", "unit_price": "NaN"},
	      {"item": "snapshot", "status": "charged", "unit": "per_month", "unit_price": " 0.1"},
	      {"item": "gpu", "status": "maybe", "price": "1"},
	      "egress"
	    ]
	  },
	  "reference_prices": [{"item": "snapshot", "unit": "per_month"}],
	  "profile": {
	    "hours_per_month": "731",
	    "months": 0,
	    "instances": "1",
	    "starts_per_month": 0,
	    "between_runs": "sleep",
	    "resumable": "no",
	    "mbps": "Inf",
	    "public_ips": 1e2,
	    "performance_ratio": "0"
	  }
	}`
	_, errs, err := Evaluate([]byte(body), nil, today)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"report_currency:unknown_currency",
		"fx_rate:invalid_decimal",
		"fx_date:invalid_date",
		"colour:unknown_field",
		"quote.currency:duplicate_key",
		"quote.gpu_count:not_integer",
		"quote.vram_gb:wrong_type",
		"quote.hourly:invalid_decimal",
		"quote.monthly:negative",
		"quote.yearly:too_many_decimals",
		"quote.billing_granularity:unknown_granularity",
		"quote.prices_include_tax:wrong_type",
		"quote.as_of:invalid_date",
		"quote.lines[1].item:duplicate_item",
		"quote.lines[2].unit:unit_not_allowed",
		"quote.lines[2].unit_price:invalid_decimal",
		"quote.lines[3].unit_price:invalid_decimal",
		"quote.lines[4].item:unknown_item",
		"quote.lines[4].status:unknown_status",
		"quote.lines[4].price:unknown_field",
		"quote.lines[5]:wrong_type",
		"reference_prices[0].unit_price:required",
		"profile.hours_per_month:hours_out_of_range",
		"profile.months:int_out_of_range",
		"profile.instances:wrong_type",
		"profile.starts_per_month:int_out_of_range",
		"profile.between_runs:unknown_between_runs",
		"profile.resumable:wrong_type",
		"profile.mbps:invalid_decimal",
		"profile.public_ips:not_integer",
		"profile.performance_ratio:must_be_positive",
	}
	sort.Strings(want)
	got := errorSet(errs)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range errs {
		if e.MessageID != "err.tco."+e.Code {
			t.Errorf("%s: message ID %s", e.Field, e.MessageID)
		}
	}
}

func TestRequiredFields(t *testing.T) {
	_, errs, _ := Evaluate([]byte(`{}`), nil, today)
	if got := errorSet(errs); !reflect.DeepEqual(got, []string{"profile:required", "quote:required"}) {
		t.Errorf("errors %v", got)
	}
	_, errs, _ = Evaluate([]byte(`{"quote": {}, "profile": {}}`), nil, today)
	want := []string{
		"profile.hours_per_month:required", "profile.instances:required", "profile.months:required",
		"quote:no_price", "quote.currency:required", "quote.gpu_count:required",
		"quote.prices_include_tax:required",
	}
	sort.Strings(want)
	if got := errorSet(errs); !reflect.DeepEqual(got, want) {
		t.Errorf("errors\n%v\nwant\n%v", got, want)
	}
}

func TestBodyErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"syntax", `{"quote": }`, ":invalid_json"},
		{"truncated", `{"quote": {"currency": "EUR"`, ":invalid_json"},
		{"trailing", `{} {}`, ":invalid_json"},
		{"trailing garbage", `{}x`, ":invalid_json"},
		{"empty", ``, ":invalid_json"},
		{"array", `[]`, ":wrong_type"},
		{"string", `"hello"`, ":wrong_type"},
		{"deep", strings.Repeat("[", 100) + strings.Repeat("]", 100), ":too_deep"},
		{"large", `{"x": "` + strings.Repeat("a", MaxBodyBytes) + `"}`, ":body_too_large"},
	}
	for _, tt := range tests {
		_, errs, err := Evaluate([]byte(tt.body), nil, today)
		if err != nil || len(errs) != 1 || errs[0].Field+":"+errs[0].Code != tt.want {
			t.Errorf("%s: %v %v", tt.name, errorSet(errs), err)
		}
	}
}

// TestUnstorableTextIsNamed: a string holding a NUL byte, another control
// character or DEL, or bytes that are not UTF-8, is named at its path as
// the form doors' guard refuses it (docs/RULES.md §16.4); tab and line
// breaks are text.
func TestUnstorableTextIsNamed(t *testing.T) {
	const prof = `"profile": {"hours_per_month": "1", "months": 1, "instances": 1}`
	for _, note := range []string{`"a\u0000b"`, `"a\u0001b"`, "\"a\x7fb\"", "\"a\xffb\""} {
		body := `{"quote": {"currency": "EUR", "gpu_count": 1, "prices_include_tax": true, "hourly": "1",
			"lines": [{"item": "egress", "status": "included", "note": ` + note + `}]}, ` + prof + `}`
		_, errs := Decode([]byte(body))
		if got := errorSet(errs); !reflect.DeepEqual(got, []string{"quote.lines[0].note:unstorable_text"}) {
			t.Errorf("%q: %v", note, got)
		}
	}
	body := `{"quote": {"currency": "EUR", "gpu_count": 1, "prices_include_tax": true, "hourly": "1",
		"lines": [{"item": "egress", "status": "included", "note": "a\tb\r\nc"}]}, ` + prof + `}`
	if _, errs := Decode([]byte(body)); len(errs) > 0 {
		t.Errorf("tab and line breaks: %v", errorSet(errs))
	}
}

func TestNumbersNeverThroughFloat(t *testing.T) {
	// 0.1 + 0.2 style noise cannot appear: decimals travel as strings and
	// are read from their text; a 17-digit price survives exactly. A
	// decimal sent as a JSON number, whatever its literal, is refused and
	// named as such (docs/RULES.md §19.1).
	const minimal = `"currency": "EUR", "gpu_count": 1, "prices_include_tax": true`
	const prof = `"profile": {"hours_per_month": "1", "months": 1, "instances": 1}`
	req, errs := Decode([]byte(`{"quote": {` + minimal + `, "hourly": "0.100000000000000005"}, ` + prof + `}`))
	if len(errs) > 0 || money.String(req.Quote.Hourly.Decimal) != "0.100000000000000005" {
		t.Errorf("decoded %s %v", req.Quote.Hourly.Decimal, errs)
	}
	for _, lit := range []string{`0.471`, `0.100000000000000005`, `1`, `1e2`, `1E400`, `-0.5e-3`} {
		_, errs := Decode([]byte(`{"quote": {` + minimal + `, "hourly": ` + lit + `}, ` + prof + `}`))
		if got := errorSet(errs); !reflect.DeepEqual(got, []string{"quote.hourly:decimal_as_number"}) {
			t.Errorf("%s: %v", lit, got)
		}
	}
	for _, lit := range []string{`"1e2"`, `"-0.5e-3"`, `"0x10"`} {
		_, errs := Decode([]byte(`{"quote": {` + minimal + `, "hourly": ` + lit + `}, ` + prof + `}`))
		if got := errorSet(errs); !reflect.DeepEqual(got, []string{"quote.hourly:invalid_decimal"}) {
			t.Errorf("%s: %v", lit, got)
		}
	}
	_, errs = Decode([]byte(`{"quote": {` + minimal + `}, "profile": {"hours_per_month": "1", "months": 99999999999999999999, "instances": 1}}`))
	if got := errorSet(errs); !reflect.DeepEqual(got, []string{"profile.months:too_large"}) {
		t.Errorf("huge integer: %v", got)
	}
	// null means absent.
	req, errs = Decode([]byte(`{"quote": {` + minimal + `, "hourly": null, "lines": null}, "fx_rate": null, ` + prof + `}`))
	if len(errs) > 0 || req.Quote.Hourly.Valid || req.FXRate.Valid {
		t.Errorf("null: %+v %v", req, errs)
	}
}

func TestMessages(t *testing.T) {
	errs := []FieldError{
		tco.NewFieldError("quote.lines[3].unit_price", tco.CodeTooManyDecimals, "Max", "6"),
		tco.NewFieldError("", tco.CodeInvalidJSON, "Offset", "12"),
	}
	tr := func(id string, data map[string]any) string {
		s := id
		for k, v := range data {
			s += " " + k + "=" + v.(string)
		}
		return s
	}
	got := Messages(errs, tr)
	b, _ := json.Marshal(got)
	want := `[{"field":"quote.lines[3].unit_price","code":"too_many_decimals","message":"err.tco.too_many_decimals Max=6"},{"field":"","code":"invalid_json","message":"err.tco.invalid_json Offset=12"}]`
	if string(b) != want {
		t.Errorf("%s\nwant %s", b, want)
	}
}

func TestNewResponseRounding(t *testing.T) {
	// Rendering rounds exactly as docs/RULES.md §1.4 asks even if a caller hands an
	// unrounded result: money 2 dp, hours 2, rates 4.
	r := tco.Result{
		ReportCurrency: "EUR", FXRate: money.MustParse("1.2500"), ChosenMode: catalog.ModeHourly,
		TCO: money.MustParse("1.005"), EffectivePerGPUHour: money.MustParse("0.00005"),
		HiddenShare: decimal.NewNullDecimal(money.MustParse("0.12345")),
	}
	resp := NewResponse(r)
	if resp.FXRate != "1.25" || resp.TCO != "1.01" || resp.EffectivePerGPUHour != "0.0001" || *resp.HiddenShare != "0.1235" {
		t.Errorf("%+v", resp)
	}
	if resp.Flags == nil || resp.Lines == nil || resp.Modes == nil {
		t.Error("nil slices would marshal as null")
	}
}
