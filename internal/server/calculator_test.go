package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// postJSON sends body to the evaluation API without cookies or CSRF token,
// as a script would.
func postJSON(t *testing.T, app *testutil.App, body, lang string) (int, map[string]any, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/tco/evaluate", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if lang != "" {
		req.Header.Set("Accept-Language", lang)
	}
	resp := app.Client().Do(req) // the answer is checked against the OpenAPI description
	var out map[string]any
	dec := json.NewDecoder(strings.NewReader(resp.Body))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("response is not JSON: %v", err)
	}
	return resp.StatusCode, out, resp.Header
}

// golden builds the golden quote of docs/RULES.md §13.1: EUR, hourly 0.471, second
// granularity, one GPU, all twelve lines included, tax included.
func golden(monthly, hours string) string {
	var lines []string
	for _, it := range []string{"bandwidth", "egress", "data_migration", "public_ip", "system_disk", "data_disk",
		"object_storage", "bundled_addon", "snapshot", "image", "stopped_retention", "start_stop_schedule"} {
		lines = append(lines, `{"item":"`+it+`","status":"included"}`)
	}
	m := ""
	if monthly != "" {
		m = `"monthly": "` + monthly + `",`
	}
	return `{"report_currency": "EUR",
	  "quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", ` + m + `
	            "billing_granularity": "second", "prices_include_tax": true, "tax_rate": "0",
	            "lines": [` + strings.Join(lines, ",") + `]},
	  "profile": {"hours_per_month": "` + hours + `", "months": 1, "instances": 1}}`
}

func modeTotal(out map[string]any, mode string) string {
	for _, m := range out["modes"].([]any) {
		mm := m.(map[string]any)
		if mm["mode"] == mode {
			return mm["tco"].(string)
		}
	}
	return ""
}

// TestEvaluateAPIGoldenExamples runs every golden example of docs/RULES.md §13.1 through
// the real HTTP stack.
func TestEvaluateAPIGoldenExamples(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	cases := []struct {
		name, monthly, hours         string
		chosen, tco, hourly, breakEv string
	}{
		{"200 h", "", "200", "hourly", "94.20", "94.20", ""},
		{"730 h", "", "730", "hourly", "343.83", "343.83", ""},
		{"50 h", "", "50", "hourly", "23.55", "23.55", ""},
		{"monthly 70 at 200 h", "70", "200", "monthly", "70.00", "94.20", "148.62"},
		{"monthly 70 at 100 h", "70", "100", "hourly", "47.10", "47.10", "148.62"},
		{"monthly 118", "118", "200", "hourly", "94.20", "94.20", "250.53"},
		{"monthly 284", "284", "200", "hourly", "94.20", "94.20", "602.97"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, out, _ := postJSON(t, app, golden(c.monthly, c.hours), "")
			if status != http.StatusOK {
				t.Fatalf("status %d: %v", status, out)
			}
			if out["chosen_mode"] != c.chosen || out["tco"] != c.tco || modeTotal(out, "hourly") != c.hourly {
				t.Fatalf("chosen %v tco %v hourly %v; want %s %s %s", out["chosen_mode"], out["tco"], modeTotal(out, "hourly"), c.chosen, c.tco, c.hourly)
			}
			if c.breakEv != "" && out["break_even_hours"] != c.breakEv {
				t.Fatalf("break_even_hours %v, want %s", out["break_even_hours"], c.breakEv)
			}
			if c.breakEv == "" && out["break_even_hours"] != nil {
				t.Fatalf("break_even_hours %v without a monthly price", out["break_even_hours"])
			}
			if n := len(out["lines"].([]any)); n != 12 {
				t.Fatalf("%d lines, want 12", n)
			}
		})
	}
}

// TestEvaluateAPIContractExample posts the request of docs/RULES.md §12 and compares the
// whole response with the documented one.
func TestEvaluateAPIContractExample(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	status, out, h := postJSON(t, app, `{"report_currency": "EUR", "fx_rate": "1",
	 "quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "monthly": "70",
	           "billing_granularity": "second", "prices_include_tax": true, "tax_rate": "0",
	           "lines": [{"item": "egress", "status": "charged", "unit": "per_gb",
	                      "unit_price": "0.05", "free_allowance": "100"}]},
	 "reference_prices": [{"item": "snapshot", "unit": "per_month", "unit_price": "0.1"}],
	 "profile": {"hours_per_month": "200", "months": 1, "instances": 1}}`, "")
	if status != http.StatusOK || !strings.HasPrefix(h.Get("Content-Type"), "application/json") {
		t.Fatalf("status %d, content type %s", status, h.Get("Content-Type"))
	}
	want := map[string]any{"report_currency": "EUR", "fx_rate": "1", "chosen_mode": "monthly",
		"break_even_hours": "148.62", "break_even_months": nil, "compute_total": "70.00", "hidden_total": "0.00",
		"one_off_total": "0.00", "tco": "70.00", "tco_pessimistic": "70.00", "hidden_share": "0.0000",
		"effective_per_gpu_hour": "0.3500", "per_reference_gpu_hour": nil, "cost_per_million_tokens": nil}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("%s = %#v, want %#v", k, out[k], v)
		}
	}
	if f, _ := json.Marshal(out["flags"]); string(f) != `["unconfirmed_lines"]` {
		t.Errorf("flags %s", f)
	}
	// Rules 2027.1: the eleven missing lines are unconfirmed; the bundled
	// add-on (always 1) and the one start a month are used and have no
	// reference price, so the pessimistic figure leaves them out.
	if u, _ := json.Marshal(out["pessimistic_unpriced"]); string(u) != `["bundled_addon","start_stop_schedule"]` {
		t.Errorf("pessimistic_unpriced %s", u)
	}
	if out["hidden_share_pessimistic"] != "0.0000" {
		t.Errorf("hidden_share_pessimistic %#v", out["hidden_share_pessimistic"])
	}
	if m, _ := json.Marshal(out["modes"]); string(m) != `[{"billable_hours_per_month":"200.00","compute_total":"94.20","mode":"hourly","status":"allowed","tco":"94.20"},{"compute_total":"70.00","mode":"monthly","status":"allowed","tco":"70.00"}]` {
		t.Errorf("modes %s", m)
	}
	egress := out["lines"].([]any)[1].(map[string]any)
	if egress["item"] != "egress" || egress["quantity"] != "0" || egress["amount"] != "0.00" || egress["unit_price"] != "0.05" {
		t.Errorf("egress line %v", egress)
	}
}

// TestEvaluateAPIReportsEveryBadField sends several bad fields at once and
// expects each named with its path, messages in the asked language.
func TestEvaluateAPIReportsEveryBadField(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	body := `{"report_currency": "EUR",
	  "quote": {"currency": "EURO", "gpu_count": 1, "hourly": "-0.471", "monthly": "70.1234567",
	            "billing_granularity": "second", "prices_include_tax": true,
	            "lines": [{"item": "egress", "status": "charged", "unit": "per_gb", "unit_price": "0.05"},
	                      {"item": "warp_drive", "status": "charged", "unit": "per_gb", "unit_price": "1"},
	                      {"item": "public_ip", "status": "charged", "unit": "per_gb", "unit_price": "1"},
	                      {"item": "snapshot", "status": "charged", "unit": "per_month", "unit_price": "1e3"}]},
	  "profile": {"hours_per_month": "731", "months": 0, "instances": 1}}`
	want := []string{"quote.currency", "quote.hourly", "quote.monthly", "quote.lines[1].item",
		"quote.lines[2].unit", "quote.lines[3].unit_price", "profile.hours_per_month", "profile.months"}
	for _, lang := range []string{"en", "zh-CN"} {
		status, out, _ := postJSON(t, app, body, lang)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("status %d, want 422", status)
		}
		got := map[string]string{}
		for _, e := range out["errors"].([]any) {
			em := e.(map[string]any)
			got[em["field"].(string)] = em["message"].(string)
		}
		for _, f := range want {
			msg, ok := got[f]
			if !ok {
				t.Errorf("[%s] no error for %s; got %v", lang, f, got)
				continue
			}
			if msg == "" || strings.HasPrefix(msg, "[") {
				t.Errorf("[%s] %s: untranslated message %q", lang, f, msg)
			}
			if lang == "zh-CN" && !containsHan(msg) {
				t.Errorf("[zh-CN] %s: message %q is not Chinese", f, msg)
			}
		}
	}
	// Not JSON at all: one error for the body.
	if status, out, _ := postJSON(t, app, `{"quote": `, "en"); status != http.StatusUnprocessableEntity || len(out["errors"].([]any)) != 1 {
		t.Fatalf("syntax error: %d %v", status, out)
	}
}

func containsHan(s string) bool {
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

// TestEvaluateAPIUsesTheServersDatedRate omits fx_rate for EUR → CNY: the
// newest rate on or before today is used and named with its date.
func TestEvaluateAPIUsesTheServersDatedRate(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	st := testutil.Store(t)
	for _, r := range []market.FXRate{
		{Base: "EUR", Quote: "CNY", Rate: decimal.RequireFromString("7.5"), AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{Base: "EUR", Quote: "CNY", Rate: decimal.RequireFromString("7.8"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{Base: "EUR", Quote: "CNY", Rate: decimal.RequireFromString("9.9"), AsOf: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}, // future
	} {
		if _, err := st.CreateFXRate(context.Background(), user.SystemActor, r); err != nil {
			t.Fatal(err)
		}
	}
	app := testutil.NewAppOn(t, st, withClock(clock))
	body := strings.Replace(golden("", "200"), `"report_currency": "EUR"`, `"report_currency": "CNY"`, 1)
	status, out, _ := postJSON(t, app, body, "")
	if status != http.StatusOK {
		t.Fatalf("status %d %v", status, out)
	}
	// 0.471 × 200 = 94.2 EUR × 7.8 = 734.76 CNY
	if out["fx_rate"] != "7.8" || out["fx_date"] != "2026-12-01" || out["tco"] != "734.76" || out["report_currency"] != "CNY" {
		t.Fatalf("fx %v %v tco %v", out["fx_rate"], out["fx_date"], out["tco"])
	}
	// Without any rate for the pair: the field is named.
	body = strings.Replace(golden("", "200"), `"report_currency": "EUR"`, `"report_currency": "USD"`, 1)
	if status, out, _ := postJSON(t, app, body, "en"); status != http.StatusUnprocessableEntity || !strings.Contains(mustJSON(out), `"field":"fx_rate"`) {
		t.Fatalf("no rate: %d %v", status, out)
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestEvaluateAPIReferencesAcrossCurrencies: reference prices in another
// currency are converted at the server's dated rate into the quote's (none
// held: the reference does not exist), market references name their quote,
// and the lines the pessimistic TCO leaves out are listed
// (docs/RULES.md §3.6, §12).
func TestEvaluateAPIReferencesAcrossCurrencies(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	st := testutil.Store(t)
	for _, r := range []market.FXRate{
		{Base: "USD", Quote: "EUR", Rate: decimal.RequireFromString("0.9"), AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{Base: "USD", Quote: "EUR", Rate: decimal.RequireFromString("0.92"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{Base: "USD", Quote: "EUR", Rate: decimal.RequireFromString("5"), AsOf: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}, // future
		{Base: "CNY", Quote: "EUR", Rate: decimal.RequireFromString("0.128"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if _, err := st.CreateFXRate(context.Background(), user.SystemActor, r); err != nil {
			t.Fatal(err)
		}
	}
	app := testutil.NewAppOn(t, st, withClock(clock))
	body := `{"quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "billing_granularity": "second",
	           "prices_include_tax": true},
	 "reference_prices": [
	   {"item": "egress", "unit": "per_gb", "unit_price": "0.05", "currency": "USD"},
	   {"item": "snapshot", "unit": "per_month", "unit_price": "0.5", "currency": "CNY", "source": "market", "quote_id": 314},
	   {"item": "data_disk", "unit": "per_month", "unit_price": "0.1", "currency": "GBP"}],
	 "profile": {"hours_per_month": "200", "months": 1, "instances": 1, "egress_gb_per_month": "300",
	             "snapshot_gb": "100", "data_disk_gb": "500"}}`
	status, out, _ := postJSON(t, app, body, "")
	if status != http.StatusOK {
		t.Fatalf("status %d %v", status, out)
	}
	lines := out["lines"].([]any)
	egress, disk, snap := lines[1].(map[string]any), lines[5].(map[string]any), lines[8].(map[string]any)
	// 0.05 USD × 0.92 (the newest rate, 2026-12-01) = 0.046 EUR × 300 GB = 13.80.
	if egress["reference_unit_price"] != "0.046" || egress["reference_amount"] != "13.80" ||
		egress["reference_source"] != "editor" || egress["reference_quote_id"] != nil {
		t.Errorf("egress %v", egress)
	}
	// 0.5 CNY × 0.128 = 0.064 EUR × 100 GB = 6.40, from published quote 314.
	if snap["reference_amount"] != "6.40" || snap["reference_source"] != "market" || snap["reference_quote_id"] != json.Number("314") {
		t.Errorf("snapshot %v", snap)
	}
	// No GBP rate: the data disk reference does not exist.
	if disk["reference_unit_price"] != nil || disk["reference_source"] != nil {
		t.Errorf("data disk %v", disk)
	}
	if u := mustJSON(out["pessimistic_unpriced"]); u != `["data_disk","bundled_addon","start_stop_schedule"]` {
		t.Errorf("pessimistic_unpriced %s", u)
	}
	// 94.20 + 13.80 + 6.40 = 114.40; (114.40 − 94.20) ÷ 114.40 = 0.17657… → 0.1766.
	if out["tco"] != "94.20" || out["tco_pessimistic"] != "114.40" || out["hidden_share_pessimistic"] != "0.1766" {
		t.Errorf("tco %v pessimistic %v share %v", out["tco"], out["tco_pessimistic"], out["hidden_share_pessimistic"])
	}

	// A bad reference is named at its path.
	bad := strings.Replace(body, `"source": "market", "quote_id": 314`, `"source": "market"`, 1)
	if status, out, _ := postJSON(t, app, bad, "en"); status != http.StatusUnprocessableEntity ||
		!strings.Contains(mustJSON(out), `"field":"reference_prices[1].quote_id"`) {
		t.Fatalf("market reference without its quote: %d %v", status, out)
	}
}

func TestEvaluateAPIIsRateLimited(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicRateLimit = 2 })
	got429 := false
	for i := 0; i < 20 && !got429; i++ { // burst is 6; 20 quick requests must hit the limit
		req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/tco/evaluate", strings.NewReader(golden("", "200")))
		got429 = app.Client().Do(req).StatusCode == http.StatusTooManyRequests
	}
	if !got429 {
		t.Fatal("20 requests at once never got 429")
	}
}

// TestCalculatorWordsMistypedNumbers: numbers typed wrongly into the
// calculator are told how to write them, in the page's language, with the
// messages every form of the site uses — never a JSON type or a note that
// a minus sign is allowed.
func TestCalculatorWordsMistypedNumbers(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	form := url.Values{"report_currency": {"EUR"}, "quote.currency": {"EUR"}, "quote.gpu_count": {"1"},
		"quote.hourly": {"0,471"}, "quote.billing_granularity": {"second"}, "quote.prices_include_tax": {"true"},
		"profile.hours_per_month": {"２００"}, "profile.months": {"1.5"}, "profile.instances": {"1"},
		"profile.mbps": {"-5"}, "profile.public_ips": {"-1"}}
	cases := map[string][]string{
		"en": {"Use a dot as the decimal mark", "Use half-width digits", "Enter a whole number.",
			"Must not be negative.", "Enter a number from 0 to 10,000."},
		"zh-CN": {"小数点请用", "请使用半角数字", "请输入整数。", "不能为负数。", "请输入 0 到 10,000 之间的数。"},
	}
	for lang, wants := range cases {
		c := app.Client()
		c.Header.Set("Accept-Language", lang)
		r := c.PostForm("/calculator", form)
		if r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("[%s] status %d", lang, r.StatusCode)
		}
		for _, want := range wants {
			if !strings.Contains(r.Body, want) {
				t.Errorf("[%s] missing %q", lang, want)
			}
		}
		for _, bad := range []string{"leading minus", "负号", "类型不对", "Expected", "integer"} {
			if strings.Contains(r.Body, bad) {
				t.Errorf("[%s] page says %q", lang, bad)
			}
		}
		for _, f := range []string{"quote.hourly", "profile.hours_per_month", "profile.months", "profile.mbps", "profile.public_ips"} {
			if !strings.Contains(r.Body, `data-testid="error-`+f+`"`) {
				t.Errorf("[%s] no error next to %s", lang, f)
			}
		}
	}
}

func TestCalculatorWorksWithoutJavaScript(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c := app.Client()
	c.Header.Set("Accept-Language", "en")
	r := c.Get("/calculator")
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="calc-tco">€94.20<`) {
		t.Fatalf("example result missing: %d", r.StatusCode)
	}
	for _, it := range []string{"bandwidth", "egress", "stopped_retention", "start_stop_schedule"} {
		if !strings.Contains(r.Body, `data-testid="line-`+it+`"`) {
			t.Errorf("line row %s missing", it)
		}
	}
	// A full post, as a browser without JavaScript sends it.
	form := url.Values{"report_currency": {"EUR"}, "quote.currency": {"EUR"}, "quote.gpu_count": {"1"},
		"quote.hourly": {"0.471"}, "quote.monthly": {"70"}, "quote.billing_granularity": {"second"},
		"quote.prices_include_tax": {"true"}, "profile.hours_per_month": {"200"}, "profile.months": {"1"},
		"profile.instances": {"1"}, "quote.lines[1].status": {"unconfirmed"}, "quote.lines[1].reference_price": {"0.5"},
		"profile.egress_gb_per_month": {"100"}}
	r = c.PostForm("/calculator", form)
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="calc-tco">€70.00<`) ||
		!strings.Contains(r.Body, `data-testid="calc-tco-pessimistic">€120.00<`) || !strings.Contains(r.Body, `data-testid="calc-break-even">148.62<`) {
		t.Fatalf("posted result wrong: %d", r.StatusCode)
	}
	// Bad input comes back with 422, each problem next to its field, and
	// everything typed kept.
	form.Set("quote.hourly", "abc")
	form.Set("profile.hours_per_month", "800")
	r = c.PostForm("/calculator", form)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad input: %d", r.StatusCode)
	}
	for _, want := range []string{`data-testid="error-quote.hourly"`, `data-testid="error-profile.hours_per_month"`,
		`data-testid="calc-errors"`, `value="abc"`, `value="800"`, `value="0.5"`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("missing %s", want)
		}
	}
	// The same bad post from htmx: 200 (so htmx swaps it) with the errors.
	c.Header.Set("HX-Request", "true")
	r = c.PostForm("/calculator", form)
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="calc-errors"`) || strings.Contains(r.Body, "<html") {
		t.Fatalf("htmx post: %d", r.StatusCode)
	}
}

// TestCalculatorNamesWhatThePessimisticTCOLeavesOut: an unconfirmed data
// disk in use with no reference price is named beside the pessimistic TCO,
// with the pessimistic hidden share (docs/RULES.md §3.6).
func TestCalculatorNamesWhatThePessimisticTCOLeavesOut(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c := app.Client()
	c.Header.Set("Accept-Language", "en")
	form := url.Values{"report_currency": {"EUR"}, "quote.currency": {"EUR"}, "quote.gpu_count": {"1"},
		"quote.hourly": {"0.471"}, "quote.billing_granularity": {"second"}, "quote.prices_include_tax": {"true"},
		"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"quote.lines[1].status": {"unconfirmed"}, "quote.lines[1].reference_price": {"0.05"}, "profile.egress_gb_per_month": {"300"},
		"quote.lines[5].status": {"unconfirmed"}, "profile.data_disk_gb": {"500"}}
	for i := range 12 {
		if k := fmt.Sprintf("quote.lines[%d].status", i); form.Get(k) == "" {
			form.Set(k, "included")
		}
	}
	r := c.PostForm("/calculator", form)
	doc := document(t, r.Body)
	tr := app.Catalog.Translator(i18n.EN)
	got := strings.TrimSpace(doc.Find(`[data-testid="pessimistic-unpriced"]`).Text())
	// Inside an English sentence the item's name loses its capital.
	if want := tr.T("pessimistic.unpriced", "Items", "data disk"); r.StatusCode != http.StatusOK || got != want {
		t.Fatalf("status %d, unpriced %q, want %q", r.StatusCode, got, want)
	}
	// 94.20 + egress 300 × 0.05 = 109.20; share 15.00 ÷ 109.20 = 13.74 %.
	if p, s := doc.Find(`[data-testid="calc-tco-pessimistic"]`).Text(), doc.Find(`[data-testid="calc-hidden-share-pessimistic"]`).Text(); p != "€109.20" ||
		s != tr.T("calc.result.percent", "Value", "13.74") {
		t.Errorf("pessimistic %q, share %q", p, s)
	}
}
