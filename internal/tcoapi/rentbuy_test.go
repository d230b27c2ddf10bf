package tcoapi

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// rentBuyGolden is the worked example of docs/RULES.md §17: a 1.98 CNY/h
// rental (second granularity, all twelve lines included) beside a 25,000
// CNY server (20 % residual over 36 months, 450 W at 0.6 CNY/kWh).
func rentBuyGolden(hours string, months int) string {
	var lines []string
	for _, it := range []string{"bandwidth", "egress", "data_migration", "public_ip", "system_disk", "data_disk",
		"object_storage", "bundled_addon", "snapshot", "image", "stopped_retention", "start_stop_schedule"} {
		lines = append(lines, `{"item":"`+it+`","status":"included"}`)
	}
	m, _ := json.Marshal(months)
	return `{"report_currency": "CNY",
	  "quote": {"currency": "CNY", "gpu_count": 1, "hourly": "1.98", "billing_granularity": "second",
	            "prices_include_tax": true, "lines": [` + strings.Join(lines, ",") + `]},
	  "own": {"currency": "CNY", "gpu_count": 1, "purchase_price": "25000", "residual_pct": "20",
	          "life_months": 36, "power_load_w": "450", "kwh_price": "0.6", "prices_include_tax": true},
	  "profile": {"hours_per_month": "` + hours + `", "months": ` + string(m) + `, "instances": 1}}`
}

func TestRentVsBuyGolden(t *testing.T) {
	res, errs, err := RentVsBuy([]byte(rentBuyGolden("200", 12)), nil, today)
	if err != nil || len(errs) > 0 {
		t.Fatalf("%v %+v", err, errs)
	}
	got := toMap(t, res)
	own := got["own"].(map[string]any)
	wantLines := []any{
		map[string]any{"item": "depreciation", "amount": "6666.67"},
		map[string]any{"item": "capital_cost", "amount": "0.00"},
		map[string]any{"item": "electricity", "amount": "648.00"},
		map[string]any{"item": "hosting", "amount": "0.00"},
		map[string]any{"item": "operations", "amount": "0.00"},
		map[string]any{"item": "maintenance", "amount": "0.00"},
		map[string]any{"item": "setup", "amount": "0.00"},
	}
	if !reflect.DeepEqual(own["lines"], wantLines) {
		t.Errorf("own lines %v", own["lines"])
	}
	if own["tco"] != "7314.67" || own["upfront_cash"] != "25000.00" || own["effective_per_gpu_hour"] != "3.0478" || len(own) != 4 {
		t.Errorf("own %v", own)
	}
	if got["cheaper"] != "rent" || got["own_cheaper_from_month"] != float64(59) || got["own_cheaper_from_hours"] != float64(325) || len(got) != 5 {
		t.Errorf("verdict %v / %v / %v (%d fields)", got["cheaper"], got["own_cheaper_from_month"], got["own_cheaper_from_hours"], len(got))
	}
	// "rent" is exactly the evaluation API's answer for the same request
	// without "own".
	body := rentBuyGolden("200", 12)
	i := strings.Index(body, `"own":`)
	j := strings.Index(body, `"profile":`)
	alone := evaluateOK(t, body[:i]+body[j:], nil)
	if !reflect.DeepEqual(got["rent"], toMap(t, alone)) {
		t.Errorf("rent %v\nevaluate %v", got["rent"], toMap(t, alone))
	}
	if got["rent"].(map[string]any)["tco"] != "4752.00" {
		t.Errorf("rent tco %v", got["rent"].(map[string]any)["tco"])
	}

	// At 730 h the electricity is 2365.20 and owning is cheaper.
	res, errs, err = RentVsBuy([]byte(rentBuyGolden("730", 12)), nil, today)
	if err != nil || len(errs) > 0 {
		t.Fatalf("%v %+v", err, errs)
	}
	if res.Own.TCO != "9031.87" || res.Own.Lines[2].Amount != "2365.20" || res.Cheaper != "own" {
		t.Errorf("730 h: %+v %s", res.Own, res.Cheaper)
	}
	// No crossing within ten years: null.
	cheap := strings.Replace(rentBuyGolden("10", 12), `"hourly": "1.98"`, `"hourly": "0.01"`, 1)
	res, errs, err = RentVsBuy([]byte(cheap), nil, today)
	if err != nil || len(errs) > 0 {
		t.Fatalf("%v %+v", err, errs)
	}
	m := toMap(t, res)
	if v, ok := m["own_cheaper_from_month"]; !ok || v != nil {
		t.Errorf("month %v (present %v), want null", v, ok)
	}
	if v, ok := m["own_cheaper_from_hours"]; !ok || v != nil {
		t.Errorf("hours %v (present %v), want null", v, ok)
	}
}

func fields(errs []FieldError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+":"+e.Code)
	}
	return out
}

func TestRentVsBuyNamesEveryBadField(t *testing.T) {
	body := `{"quote": {"currency": "CNY", "gpu_count": 1, "hourly": "abc", "billing_granularity": "second", "prices_include_tax": true},
	  "own": {"currency": "EUR", "purchase_price": "-1", "residual_pct": "120", "life_months": 0, "pue": "0",
	          "kwh_price": "0.1234567", "always_on": "yes", "maintenance_pct_per_year": "x", "wattage": "1",
	          "prices_include_tax": false},
	  "profile": {"hours_per_month": "800", "months": 1, "instances": 1}}`
	_, errs, err := RentVsBuy([]byte(body), nil, today)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"quote.hourly:invalid_decimal", "own.life_months:int_out_of_range", "own.pue:out_of_range",
		"own.always_on:wrong_type", "own.maintenance_pct_per_year:invalid_decimal", "own.wattage:unknown_field",
		"own.gpu_count:required", "own.power_load_w:required",
		"profile.hours_per_month:hours_out_of_range",
		"own.currency:currency_mismatch", "own.purchase_price:must_be_positive", "own.residual_pct:out_of_range",
		"own.kwh_price:too_many_decimals", "own.tax_rate:required",
	}
	got := fields(errs)
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("missing %s in %v", w, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d errors %v, want %d", len(got), got, len(want))
	}

	// No own option at all: named once, at "own".
	_, errs, _ = RentVsBuy([]byte(`{"quote": {"currency": "CNY", "gpu_count": 1, "hourly": "1", "billing_granularity": "second", "prices_include_tax": true},
	  "profile": {"hours_per_month": "100", "months": 1, "instances": 1}}`), nil, today)
	if got := fields(errs); !reflect.DeepEqual(got, []string{"own:required"}) {
		t.Errorf("no own: %v", got)
	}
	// The evaluation API does not take "own".
	_, errs, _ = Evaluate([]byte(rentBuyGolden("200", 12)), nil, today)
	if got := fields(errs); !reflect.DeepEqual(got, []string{"own:unknown_field"}) {
		t.Errorf("evaluate with own: %v", got)
	}
}

// TestRentVsBuyFromForm: the calculator's rent-or-buy mode builds the
// same request from its form, the own option in the quote's currency.
func TestRentVsBuyFromForm(t *testing.T) {
	form := url.Values{"mode": {"buy"}, "report_currency": {"CNY"}, "quote.currency": {"CNY"}, "quote.gpu_count": {"1"},
		"quote.hourly": {"1.98"}, "quote.billing_granularity": {"second"}, "quote.prices_include_tax": {"true"},
		"profile.hours_per_month": {"200"}, "profile.months": {"12"}, "profile.instances": {"1"},
		"own.gpu_count": {"1"}, "own.purchase_price": {"25000"}, "own.residual_pct": {"20"}, "own.life_months": {"36"},
		"own.power_load_w": {"450"}, "own.kwh_price": {"0.6"}, "own.prices_include_tax": {"true"}, "own.pue": {""}}
	for i := 0; i < 12; i++ {
		form.Set("quote.lines["+string(rune('0'+i%10))+"].status", "")
	}
	res, errs, err := FromForm(form).RentVsBuy(nil, today)
	if err != nil || len(errs) > 0 {
		t.Fatalf("%v %+v", err, errs)
	}
	if res.Own.TCO != "7314.67" || res.Rent.TCO != "4752.00" || *res.OwnCheaperFromMonth != 59 || *res.OwnCheaperFromHours != 325 {
		t.Errorf("%+v", res)
	}
	// A number typed the way people write it is worded for the page.
	form.Set("own.purchase_price", "２５０００")
	_, errs, _ = FromForm(form).RentVsBuy(nil, today)
	if len(errs) != 1 || errs[0].Field != "own.purchase_price" || strings.HasPrefix(errs[0].MessageID, "err.tco.") {
		t.Errorf("%+v", errs)
	}
	// Without the mode the form is the plain calculator's.
	form.Del("mode")
	if strings.Contains(string(FromForm(form).Body), `"own"`) {
		t.Error("own option sent outside the rent-or-buy mode")
	}
}
