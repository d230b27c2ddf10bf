package tcoapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/money"
)

// billBody is a bill check body: a CNY quote of 3000 a month before 6 %
// tax and its bill, with the members extra says.
func billBody(billCurrency, month, extra string) string {
	return `{"quote": {"currency": "CNY", "gpu_count": 1, "monthly": "3000", "prices_include_tax": false, "tax_rate": "0.06"},` +
		extra + `
 "bill": {"month": "` + month + `", "currency": "` + billCurrency + `", "prices_include_tax": true,
          "lines": [{"item": "compute_monthly", "quantity": "1", "amount": "3180.00", "description": "包月"},
                    {"item": "data_disk", "quantity": "100", "amount": "0"}]}}`
}

func billCheckOK(t *testing.T, body string, lookup FXLookup) BillResponse {
	t.Helper()
	r, errs, err := BillCheck([]byte(body), lookup, today)
	if err != nil || len(errs) > 0 {
		t.Fatalf("BillCheck: %v %+v", err, errs)
	}
	return r
}

// fieldCodes lists errors as "field:code".
func fieldCodes(errs []FieldError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+":"+e.Code)
	}
	return out
}

func TestBillCheckAnswer(t *testing.T) {
	r := billCheckOK(t, billBody("CNY", "2026-02", ""), nil)
	got := toMap(t, r)
	lines := got["lines"].([]any)
	want := map[string]any{"item": "compute_monthly", "quantity": "1", "billed": "3180.00", "expected": "3180.00",
		"allowance": nil, "variance": "0.00", "verdict": "match", "reference_expected": nil, "description": "包月"}
	if !reflect.DeepEqual(lines[0], want) {
		t.Errorf("line 0 %#v, want %#v", lines[0], want)
	}
	// An unconfirmed line billed nothing matches; no description is null.
	if l := lines[1].(map[string]any); l["verdict"] != "match" || l["expected"] != nil || l["description"] != nil {
		t.Errorf("line 1 %#v", l)
	}
	if got["month"] != "2026-02" || got["days"] != float64(28) || got["fx_rate"] != "1" || got["currency"] != "CNY" {
		t.Errorf("head %v %v %v %v", got["month"], got["days"], got["fx_rate"], got["currency"])
	}
}

func TestMoneyText(t *testing.T) {
	for in, want := range map[string]string{"94.2": "94.20", "94.20": "94.20", "0": "0.00", "-180": "-180.00",
		"0.123456": "0.123456", "3180.004": "3180.004", "1.500000": "1.50", "12": "12.00"} {
		if got := moneyText(money.MustParse(in)); got != want {
			t.Errorf("moneyText(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestBillCheckHeldRate: without fx_rate, a bill in another currency uses
// the server's rate in force on the month's last day, and references in
// a third currency are converted into the quote's at that day's rate; a
// sent rate is used as sent; none held names fx_rate.
func TestBillCheckHeldRate(t *testing.T) {
	var asked []string
	lookup := func(from, to string, day time.Time) (FXRate, bool, error) {
		asked = append(asked, from+"→"+to+" "+day.Format(DateLayout))
		switch from + to {
		case "CNYEUR":
			return FXRate{Rate: money.MustParse("0.13"), Date: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}, true, nil
		case "USDCNY":
			return FXRate{Rate: money.MustParse("7"), Date: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}, true, nil
		}
		return FXRate{}, false, nil
	}
	refs := `"reference_prices": [{"item": "data_disk", "unit": "per_month", "unit_price": "0.05", "currency": "USD"}],`
	r := billCheckOK(t, billBody("EUR", "2026-11", refs), lookup)
	// 3000 × 1.06 × 0.13 = 413.40; 0.05 USD × 7 × 100 × 1.06 × 0.13 = 4.823 → 4.82.
	if r.FXRate != "0.13" || *r.Lines[0].Expected != "413.40" || r.Lines[0].Verdict != "overcharged" ||
		r.Lines[1].ReferenceExpected == nil || *r.Lines[1].ReferenceExpected != "4.82" {
		t.Errorf("%+v %+v %+v", r, r.Lines[0], r.Lines[1])
	}
	if want := []string{"CNY→EUR 2026-11-30", "USD→CNY 2026-11-30"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("asked %v, want %v", asked, want)
	}

	asked = nil
	r = billCheckOK(t, billBody("EUR", "2026-11", `"fx_rate": "0.14",`), lookup)
	if r.FXRate != "0.14" || *r.Lines[0].Expected != "445.20" || len(asked) != 0 {
		t.Errorf("sent rate: %s %s, asked %v", r.FXRate, *r.Lines[0].Expected, asked)
	}

	_, errs, err := BillCheck([]byte(billBody("USD", "2026-11", "")), lookup, today)
	if err != nil || !reflect.DeepEqual(fieldCodes(errs), []string{"fx_rate:fx_rate_required"}) {
		t.Errorf("no rate held: %v %v", err, fieldCodes(errs))
	}
	// Without a month no rate can be looked up: the month is named, not the rate.
	_, errs, _ = BillCheck([]byte(billBody("USD", "2026-13", "")), lookup, today)
	if !reflect.DeepEqual(fieldCodes(errs), []string{"bill.month:invalid_month"}) {
		t.Errorf("bad month: %v", fieldCodes(errs))
	}
	// A failing lookup is the server's error.
	broken := func(string, string, time.Time) (FXRate, bool, error) { return FXRate{}, false, errors.New("down") }
	if _, _, err := BillCheck([]byte(billBody("EUR", "2026-11", "")), broken, today); err == nil {
		t.Error("a failing lookup was not reported")
	}
}

// TestBillCheckNamesEveryField: each problem at its path, once, for its
// cause.
func TestBillCheckNamesEveryField(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"empty", `{}`, []string{"quote:required", "bill:required"}},
		{"not an object", `[]`, []string{":wrong_type"}},
		{"bill not an object", `{"quote": {"currency": "EUR", "gpu_count": 1, "monthly": "70", "prices_include_tax": true}, "bill": "2026-11"}`,
			[]string{"bill:wrong_type"}},
		{"bill empty", `{"quote": {"currency": "EUR", "gpu_count": 1, "monthly": "70", "prices_include_tax": true}, "bill": {}}`,
			[]string{"bill.month:required", "bill.currency:required", "bill.prices_include_tax:required", "bill.lines:required"}},
		{"no lines", strings.Replace(billBody("CNY", "2026-11", ""), `"lines": [`, `"lines": [], "x": [`, 1),
			[]string{"bill.x:unknown_field", "bill.lines:required"}},
		{"lines", `{"quote": {"currency": "EUR", "gpu_count": 1, "monthly": "70", "prices_include_tax": true},
		  "bill": {"month": 202611, "currency": "EURO", "prices_include_tax": "yes", "instances": 0,
		   "lines": [1, {"item": "gpu"}, {"item": "other", "quantity": 1, "amount": "1e3", "note": ""},
		             {"item": "egress", "quantity": "-1", "amount": "-0.1234567"}]}}`,
			[]string{"bill.month:wrong_type", "bill.prices_include_tax:wrong_type", "bill.lines[0]:wrong_type",
				"bill.lines[1].quantity:required", "bill.lines[1].amount:required",
				"bill.lines[2].quantity:decimal_as_number", "bill.lines[2].amount:invalid_decimal", "bill.lines[2].note:unknown_field",
				"bill.currency:unknown_currency", "bill.instances:int_out_of_range", "bill.lines[1].item:unknown_bill_item",
				"bill.lines[3].quantity:negative", "bill.lines[3].amount:too_many_decimals"}},
		{"evaluate's members", strings.Replace(billBody("CNY", "2026-11", ""), `{"quote"`,
			`{"profile": {}, "report_currency": "EUR", "own": {}, "quote"`, 1),
			[]string{"profile:unknown_field", "report_currency:unknown_field", "own:unknown_field"}},
		{"same currency", billBody("CNY", "2026-11", `"fx_rate": "7",`), []string{"fx_rate:fx_rate_not_one"}},
		{"negative rate", billBody("EUR", "2026-11", `"fx_rate": "-1",`), []string{"fx_rate:must_be_positive"}},
		{"quote's tax rate", strings.Replace(strings.Replace(billBody("CNY", "2026-11", ""), `"prices_include_tax": false, "tax_rate": "0.06"`,
			`"prices_include_tax": true`, 1), `"prices_include_tax": true,
          "lines"`, `"prices_include_tax": false,
          "lines"`, 1), []string{"quote.tax_rate:required"}},
		{"reference twice", billBody("CNY", "2026-11", `"reference_prices": [{"item": "egress", "unit": "per_gb", "unit_price": "0.5"},
			{"item": "egress", "unit": "per_gb", "unit_price": "0.6", "currency": "CNY"}],`),
			[]string{"reference_prices[1]:duplicate_reference"}},
	}
	for _, tc := range cases {
		_, errs, err := BillCheck([]byte(tc.body), nil, today)
		if err != nil {
			t.Fatal(err)
		}
		if got := fieldCodes(errs); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
	// The same-currency rate is worded for a bill.
	_, errs, _ := BillCheck([]byte(billBody("CNY", "2026-11", `"fx_rate": "7",`)), nil, today)
	if len(errs) != 1 || errs[0].MessageID != "err.bill.fx_rate_not_one" {
		t.Errorf("%+v", errs)
	}
}

// TestBillCheckInstancesDefault: instances is 1 when absent or null, and
// N multiplies the free allowance.
func TestBillCheckInstancesDefault(t *testing.T) {
	body := func(instances string) string {
		return `{"quote": {"currency": "USD", "gpu_count": 1, "hourly": "1", "billing_granularity": "second", "prices_include_tax": true,
		  "lines": [{"item": "egress", "status": "charged", "unit": "per_gb", "unit_price": "0.09", "free_allowance": "50"}]},
		 "bill": {"month": "2026-11", "currency": "USD", "prices_include_tax": true` + instances + `,
		  "lines": [{"item": "egress", "quantity": "120", "amount": "6.30"}]}}`
	}
	for _, in := range []string{"", `, "instances": null`, `, "instances": 1`} {
		l := billCheckOK(t, body(in), nil).Lines[0]
		if *l.Allowance != "50" || *l.Expected != "6.30" || l.Verdict != "match" {
			t.Errorf("instances %q: %+v", in, l)
		}
	}
	l := billCheckOK(t, body(`, "instances": 2`), nil).Lines[0]
	if *l.Allowance != "100" || *l.Expected != "1.80" || l.Verdict != "overcharged" || *l.Variance != "4.50" {
		t.Errorf("two instances: allowance %s expected %s %s", *l.Allowance, *l.Expected, l.Verdict)
	}
}

// TestEvaluateBodiesRefuseTheBill: the evaluation and rent-or-buy doors do
// not take the bill check's member.
func TestEvaluateBodiesRefuseTheBill(t *testing.T) {
	body := strings.Replace(exampleRequest, `"report_currency": "EUR",`, `"report_currency": "EUR", "bill": {},`, 1)
	_, errs, err := Evaluate([]byte(body), nil, today)
	if err != nil || !reflect.DeepEqual(fieldCodes(errs), []string{"bill:unknown_field"}) {
		t.Errorf("%v %v", err, fieldCodes(errs))
	}
}

func TestBillResponseJSON(t *testing.T) {
	r := billCheckOK(t, billBody("CNY", "2026-11", ""), nil)
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back BillResponse
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("%v: %s", err, b)
	}
	for _, k := range []string{`"month":`, `"days":30`, `"fx_rate":"1"`, `"billed_total":"3180.00"`, `"expected_total":"3180.00"`,
		`"overcharge_total":"0.00"`, `"undercharge_total":"0.00"`, `"unquoted_total":"0.00"`, `"reference_expected":null`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("%s not in %s", k, b)
		}
	}
}

// FuzzBillCheckBody feeds arbitrary bytes to the bill check: it must never
// panic, must answer with either a response or field errors, and a
// response must add up: one line per bill line, and the billed total
// their sum.
func FuzzBillCheckBody(f *testing.F) {
	f.Add([]byte(billBody("CNY", "2026-11", "")))
	f.Add([]byte(billBody("EUR", "2026-02", `"reference_prices": [{"item": "data_disk", "unit": "per_month", "unit_price": "0.05", "currency": "USD"}],`)))
	f.Add([]byte(billBody("CNY", "2026-13", `"fx_rate": 1,`)))
	f.Add([]byte(`{"quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "billing_granularity": "second", "prices_include_tax": true,
	  "lines": [{"item": "egress", "status": "charged", "unit": "per_gb", "unit_price": "0.09", "free_allowance": "50"}]},
	 "bill": {"month": "2026-11", "currency": "EUR", "prices_include_tax": false, "instances": 3,
	  "lines": [{"item": "egress", "quantity": "30", "amount": "0.000001"}, {"item": "other", "quantity": "0", "amount": "-5"}]}}`))
	f.Add([]byte(`{"bill": {"lines": [null, [], {"item": null}]}}`))
	lookup := func(from, to string, day time.Time) (FXRate, bool, error) {
		if from == "CNY" && to == "EUR" {
			return FXRate{Rate: money.MustParse("0.128"), Date: day}, true, nil
		}
		return FXRate{}, false, nil
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, errs, err := BillCheck(body, lookup, today)
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		if len(errs) > 0 {
			for _, e := range errs {
				if e.Code == "" || e.MessageID != "err.tco."+e.Code && e.MessageID != "err.bill."+e.Code {
					t.Fatalf("bad field error %+v", e)
				}
			}
			if len(errs) > MaxErrors {
				t.Fatalf("%d errors", len(errs))
			}
			return
		}
		req, _ := DecodeBill(body)
		if len(resp.Lines) != len(req.Bill.Lines) || len(resp.Lines) == 0 {
			t.Fatalf("%d lines for %d", len(resp.Lines), len(req.Bill.Lines))
		}
		var billed []string
		for _, l := range resp.Lines {
			billed = append(billed, l.Billed)
		}
		sum := money.MustParse("0")
		for _, s := range billed {
			sum = money.Add(sum, money.MustParse(s))
		}
		if !sum.Equal(money.MustParse(resp.BilledTotal)) {
			t.Fatalf("billed total %s != %s", resp.BilledTotal, sum)
		}
		if _, err := json.Marshal(resp); err != nil {
			t.Fatal(err)
		}
	})
}
