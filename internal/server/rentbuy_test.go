package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"gpuquote/internal/testutil"
)

// postRentBuy sends body to the rent-or-buy API as a script would: no
// cookies, no CSRF token.
func postRentBuy(t *testing.T, app *testutil.App, body, lang string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/tco/rent-vs-buy", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp := app.Client().Do(req) // the answer is checked against the OpenAPI description
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	var out map[string]any
	if err := json.NewDecoder(strings.NewReader(resp.Body)).Decode(&out); err != nil {
		t.Fatalf("response is not JSON: %v", err)
	}
	return resp.StatusCode, out
}

// rentBuyBody is the worked example of docs/RULES.md §17: a 1.98 CNY/h
// rental (second granularity, all twelve lines included, tax included)
// beside a 25,000 CNY server (20 % residual, 36 months, 450 W, 0.6 CNY/kWh).
func rentBuyBody(hours, months string) string {
	var lines []string
	for _, it := range []string{"bandwidth", "egress", "data_migration", "public_ip", "system_disk", "data_disk",
		"object_storage", "bundled_addon", "snapshot", "image", "stopped_retention", "start_stop_schedule"} {
		lines = append(lines, `{"item":"`+it+`","status":"included"}`)
	}
	return `{"report_currency": "CNY",
	  "quote": {"currency": "CNY", "gpu_count": 1, "hourly": "1.98", "billing_granularity": "second",
	            "prices_include_tax": true, "tax_rate": "0", "lines": [` + strings.Join(lines, ",") + `]},
	  "own": {"currency": "CNY", "gpu_count": 1, "purchase_price": "25000", "residual_pct": "20", "life_months": 36,
	          "power_load_w": "450", "kwh_price": "0.6", "prices_include_tax": true},
	  "profile": {"hours_per_month": "` + hours + `", "months": ` + months + `, "instances": 1}}`
}

// TestRentVsBuyAPIGolden runs the worked example through the real HTTP
// stack: the seven lines, upfront cash, rate per GPU-hour, the rental's
// whole evaluation and both crossing points.
func TestRentVsBuyAPIGolden(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	status, out := postRentBuy(t, app, rentBuyBody("200", "12"), "")
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, out)
	}
	own := out["own"].(map[string]any)
	amounts := map[string]string{}
	var order []string
	for _, l := range own["lines"].([]any) {
		lm := l.(map[string]any)
		amounts[lm["item"].(string)] = lm["amount"].(string)
		order = append(order, lm["item"].(string))
	}
	if want := []string{"depreciation", "capital_cost", "electricity", "hosting", "operations", "maintenance", "setup"}; !reflect.DeepEqual(order, want) {
		t.Errorf("lines %v", order)
	}
	if amounts["depreciation"] != "6666.67" || amounts["electricity"] != "648.00" || amounts["setup"] != "0.00" {
		t.Errorf("lines %v", amounts)
	}
	if own["tco"] != "7314.67" || own["upfront_cash"] != "25000.00" || own["effective_per_gpu_hour"] != "3.0478" {
		t.Errorf("own %v", own)
	}
	rent := out["rent"].(map[string]any)
	if rent["tco"] != "4752.00" || rent["chosen_mode"] != "hourly" || len(rent["lines"].([]any)) != 12 || rent["report_currency"] != "CNY" {
		t.Errorf("rent %v", rent)
	}
	if out["cheaper"] != "rent" || out["own_cheaper_from_month"] != float64(59) || out["own_cheaper_from_hours"] != float64(325) {
		t.Errorf("cheaper %v, from month %v, from hours %v", out["cheaper"], out["own_cheaper_from_month"], out["own_cheaper_from_hours"])
	}

	status, out = postRentBuy(t, app, rentBuyBody("730", "12"), "en")
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, out)
	}
	own = out["own"].(map[string]any)
	if own["tco"] != "9031.87" || own["lines"].([]any)[2].(map[string]any)["amount"] != "2365.20" || out["cheaper"] != "own" {
		t.Errorf("730 h: own %v, cheaper %v", own, out["cheaper"])
	}
}

// TestRentVsBuyAPIReportsEveryBadField: 422 with every bad field by its
// JSON path, once, messages in the request's language, in the evaluation
// API's error shape.
func TestRentVsBuyAPIReportsEveryBadField(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	body := `{"report_currency": "CNY",
	  "quote": {"currency": "CNY", "gpu_count": 1, "hourly": "-1", "billing_granularity": "second", "prices_include_tax": true},
	  "own": {"currency": "USD", "gpu_count": 0, "purchase_price": "abc", "residual_pct": "150", "pue": "0.5",
	          "power_load_w": "450", "power_idle_w": "-3", "kwh_price": "0.6", "life_months": 0, "prices_include_tax": true,
	          "hosting": "100"},
	  "profile": {"hours_per_month": "200", "months": 0, "instances": 1}}`
	want := []string{"quote.hourly", "own.currency", "own.gpu_count", "own.purchase_price", "own.residual_pct", "own.pue",
		"own.power_idle_w", "own.life_months", "own.hosting", "profile.months"}
	for _, lang := range []string{"en", "zh-CN", ""} {
		status, out := postRentBuy(t, app, body, lang)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422: %v", status, out)
		}
		got := map[string]string{}
		for _, e := range out["errors"].([]any) {
			em := e.(map[string]any)
			f := em["field"].(string)
			if _, dup := got[f]; dup {
				t.Errorf("[%s] %s named twice", lang, f)
			}
			got[f] = em["message"].(string)
			if em["code"] == "" {
				t.Errorf("[%s] %s without a code", lang, f)
			}
		}
		for _, f := range want {
			msg, ok := got[f]
			switch {
			case !ok:
				t.Errorf("[%s] no error for %s; got %v", lang, f, got)
			case msg == "" || strings.HasPrefix(msg, "["):
				t.Errorf("[%s] %s: untranslated %q", lang, f, msg)
			case lang != "en" && !containsHan(msg):
				t.Errorf("[%s] %s: %q is not Chinese", lang, f, msg)
			case lang == "en" && containsHan(msg):
				t.Errorf("[en] %s: %q is not English", f, msg)
			}
		}
		if len(got) != len(want) {
			t.Errorf("[%s] %d errors, want %d: %v", lang, len(got), len(want), got)
		}
	}
	// The own option missing: one error at "own".
	status, out := postRentBuy(t, app, strings.Replace(rentBuyBody("200", "12"), `"own":`, `"own_":`, 1), "en")
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", status)
	}
	var fields []string
	for _, e := range out["errors"].([]any) {
		fields = append(fields, e.(map[string]any)["field"].(string))
	}
	if !reflect.DeepEqual(fields, []string{"own_", "own"}) {
		t.Errorf("fields %v", fields)
	}
}

// TestCalculatorRentOrBuyMode: the calculator's rent-or-buy mode works
// without JavaScript — a link opens it with the worked example, a post
// prices the own option beside the quote, a bad own field comes back next
// to its input — in both languages.
func TestCalculatorRentOrBuyMode(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	wants := map[string][]string{
		"en": {"Owning costs no more than renting from month 59 on (at 200 h a month). That month lies beyond the 36-month life of the machine, by when it would need replacing.",
			"Owning costs no more than renting from 325 hours a month up",
			"Renting is cheaper: CN¥2,562.67 less over 12 months at 200 h a month.",
			`data-testid="rentbuy-own-tco">CN¥7,314.67<`, `data-testid="rentbuy-rent-tco">CN¥4,752.00<`,
			`data-testid="rentbuy-upfront">CN¥25,000.00<`, `data-testid="rentbuy-own-effective">CN¥3.0478<`},
		"zh-CN": {"从第 59 个月起，自购不比租用贵（每月 200 小时）。该月已超过机器 36 个月的使用寿命，届时需重新购置。", "每月使用 325 小时及以上时，自购不比租用贵",
			"租用更省：每月 200 小时、12 个月内比自购少花 ¥2,562.67。", `data-testid="rentbuy-own-tco">¥7,314.67<`},
	}
	for lang, want := range wants {
		c := app.Client()
		c.Header.Set("Accept-Language", lang)
		r := c.Get("/calculator?mode=buy")
		if r.StatusCode != http.StatusOK {
			t.Fatalf("[%s] status %d", lang, r.StatusCode)
		}
		for _, w := range want {
			if !strings.Contains(r.Body, w) {
				t.Errorf("[%s] missing %q", lang, w)
			}
		}
		if !strings.Contains(r.Body, `name="mode" value="buy"`) || !strings.Contains(r.Body, `name="own.purchase_price"`) {
			t.Errorf("[%s] the form does not carry the mode and the own fields", lang)
		}
	}
	// The plain calculator has no own option.
	c := app.Client()
	c.Header.Set("Accept-Language", "en")
	if r := c.Get("/calculator"); strings.Contains(r.Body, `data-testid="rentbuy"`) || strings.Contains(r.Body, `name="own.purchase_price"`) {
		t.Error("plain calculator shows the own option")
	}
	// A post as a browser without JavaScript sends it: at 0.10 CNY/h
	// owning never catches up, and the wording says so.
	form := url.Values{"mode": {"buy"}, "report_currency": {"CNY"}, "quote.currency": {"CNY"}, "quote.gpu_count": {"1"},
		"quote.hourly": {"0.10"}, "quote.billing_granularity": {"second"}, "quote.prices_include_tax": {"true"},
		"profile.hours_per_month": {"730"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"own.gpu_count": {"1"}, "own.purchase_price": {"25000"}, "own.residual_pct": {"20"}, "own.power_load_w": {"450"},
		"own.kwh_price": {"0.6"}, "own.prices_include_tax": {"true"}}
	r := c.PostForm("/calculator", form)
	for _, w := range []string{"Renting is cheaper: CN¥679.66 less over 1 month at 730 h a month.",
		"Owning costs more than renting in every month within 10 years (at 730 h a month).",
		"Renting stays cheaper at any use up to 730 h a month"} {
		if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, w) {
			t.Errorf("post: %d, missing %q", r.StatusCode, w)
		}
	}
	form.Set("own.purchase_price", "25,000")
	form.Set("own.pue", "0.5")
	r = c.PostForm("/calculator", form)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad own fields: %d", r.StatusCode)
	}
	for _, w := range []string{`data-testid="error-own.purchase_price"`, `data-testid="error-own.pue"`, `value="25,000"`,
		"from 1 to 10", `data-testid="calc-errors"`} {
		if !strings.Contains(r.Body, w) {
			t.Errorf("bad own fields: missing %q", w)
		}
	}
}
