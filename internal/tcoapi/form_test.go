package tcoapi

import (
	"encoding/json"
	"net/url"
	"testing"
	"time"
)

func TestFormBodyEqualsTheJSONRequest(t *testing.T) {
	form := url.Values{
		"report_currency":                {"EUR"},
		"fx_rate":                        {"1"},
		"quote.currency":                 {"EUR"},
		"quote.gpu_count":                {"1"},
		"quote.hourly":                   {"0.471"},
		"quote.monthly":                  {"70"},
		"quote.billing_granularity":      {"second"},
		"quote.prices_include_tax":       {"true"},
		"quote.tax_rate":                 {"0"},
		"quote.lines[1].status":          {"charged"},
		"quote.lines[1].unit":            {"per_gb"},
		"quote.lines[1].unit_price":      {"0.05"},
		"quote.lines[1].free_allowance":  {"100"},
		"quote.lines[8].reference_price": {"0.1"}, // snapshot, default unit per_month
		"profile.hours_per_month":        {"200"},
		"profile.months":                 {"1"},
		"profile.instances":              {"1"},
		"profile.mbps":                   {""}, // empty fields are left out
	}
	fromForm, errs, err := FromForm(form).Evaluate(nil, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(errs) != 0 {
		t.Fatalf("form body: %v %v", errs, err)
	}
	body := `{"report_currency": "EUR", "fx_rate": "1",
	 "quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "monthly": "70",
	           "billing_granularity": "second", "prices_include_tax": true, "tax_rate": "0",
	           "lines": [{"item": "egress", "status": "charged", "unit": "per_gb",
	                      "unit_price": "0.05", "free_allowance": "100"}]},
	 "reference_prices": [{"item": "snapshot", "unit": "per_month", "unit_price": "0.1"}],
	 "profile": {"hours_per_month": "200", "months": 1, "instances": 1}}`
	fromJSON, errs, err := Evaluate([]byte(body), nil, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil || len(errs) != 0 {
		t.Fatalf("json body: %v %v", errs, err)
	}
	a, _ := json.Marshal(fromForm)
	b, _ := json.Marshal(fromJSON)
	if string(a) != string(b) {
		t.Fatalf("form and JSON differ:\n%s\n%s", a, b)
	}
	if fromForm.ChosenMode != "monthly" || fromForm.TCO != "70.00" {
		t.Fatalf("chosen %s tco %s", fromForm.ChosenMode, fromForm.TCO)
	}
}

func TestFormBodyReportsBadFieldsAtTheirNames(t *testing.T) {
	form := url.Values{
		"quote.currency":                 {"EURO"},
		"quote.gpu_count":                {"two"},
		"quote.hourly":                   {"0,471"},
		"quote.prices_include_tax":       {"true"},
		"quote.billing_granularity":      {"second"},
		"quote.lines[3].reference_price": {"-1"},
		"quote.lines[5].reference_price": {"abc"},
		"profile.hours_per_month":        {"800"},
		"profile.months":                 {"1.5"},
		"profile.instances":              {"1"},
		// rows 7 and 10 answered, row 8 not: errors land on the right rows
		"quote.lines[7].status":      {"charged"},
		"quote.lines[7].unit":        {"per_gb"},
		"quote.lines[7].unit_price":  {"1"},
		"quote.lines[10].status":     {"charged"},
		"quote.lines[10].unit":       {"per_hour"},
		"quote.lines[10].unit_price": {"x"},
	}
	fr := FromForm(form)
	_, errs, err := fr.Evaluate(nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range errs {
		got[fr.Field(e.Field)] = true
	}
	for _, want := range []string{"quote.currency", "quote.gpu_count", "quote.hourly", "profile.hours_per_month",
		"profile.months", "quote.lines[3].reference_price", "quote.lines[5].reference_price",
		"quote.lines[7].unit", "quote.lines[10].unit_price"} {
		if !got[want] {
			t.Errorf("no error at %s; got %v", want, got)
		}
	}
}

func TestProfileFromForm(t *testing.T) {
	p, errs := ProfileFromForm(url.Values{"profile.hours_per_month": {"300"}, "profile.months": {"12"},
		"profile.instances": {"2"}, "profile.resumable": {"true"}, "profile.task": {"lora"}, "profile.params_billions": {"7"}})
	if len(errs) != 0 || p.HoursPerMonth.String() != "300" || p.Months != 12 || p.Instances != 2 || !p.Resumable || p.Task != "lora" {
		t.Fatalf("profile %+v %v", p, errs)
	}
	_, errs = ProfileFromForm(url.Values{"profile.hours_per_month": {"731"}, "profile.months": {"x"}, "profile.task": {"lora"}})
	got := map[string]bool{}
	for _, e := range errs {
		got[e.Field] = true
	}
	for _, f := range []string{"profile.hours_per_month", "profile.months", "profile.instances", "profile.params_billions"} {
		if !got[f] {
			t.Errorf("no error at %s: %v", f, errs)
		}
	}
}
