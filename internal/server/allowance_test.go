package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/testutil"
)

// TestAllowanceOnBundledAddonIsRefused: a charged bundled add-on with a
// free allowance used to cost 0.00; the evaluation API answers 422 with a
// field error, and so does the calculator form (docs/RULES.md §3.4).
func TestAllowanceOnBundledAddonIsRefused(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	body := func(allowance string) string {
		return `{"report_currency": "EUR",
		  "quote": {"currency": "EUR", "gpu_count": 1, "monthly": "70", "prices_include_tax": true,
		            "lines": [{"item": "bundled_addon", "status": "charged", "unit": "per_month",
		                       "unit_price": "30.83"` + allowance + `}]},
		  "profile": {"hours_per_month": "200", "months": 1, "instances": 1}}`
	}
	status, out, _ := postJSON(t, app, body(""), "en")
	if status != http.StatusOK || out["hidden_total"] != "30.83" {
		t.Fatalf("without an allowance: %d %v", status, out)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		status, out, _ = postJSON(t, app, body(`, "free_allowance": "4"`), lang)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("[%s] status %d, want 422: %v", lang, status, out)
		}
		errs, _ := out["errors"].([]any)
		if len(errs) != 1 {
			t.Fatalf("[%s] errors %v", lang, out["errors"])
		}
		e := errs[0].(map[string]any)
		msg, _ := e["message"].(string)
		if e["field"] != "quote.lines[0].free_allowance" || e["code"] != "allowance_not_allowed" ||
			msg == "" || strings.HasPrefix(msg, "[") || (lang == "zh-CN" && !containsHan(msg)) {
			t.Errorf("[%s] error %v", lang, e)
		}
	}

	// The calculator form: line 8 is the add-on.
	form := url.Values{"report_currency": {"EUR"}, "quote.currency": {"EUR"}, "quote.gpu_count": {"1"},
		"quote.monthly": {"70"}, "quote.prices_include_tax": {"true"}, "profile.hours_per_month": {"200"},
		"profile.months": {"1"}, "profile.instances": {"1"}, "quote.lines[7].status": {"charged"},
		"quote.lines[7].unit": {"per_month"}, "quote.lines[7].unit_price": {"30.83"}, "quote.lines[7].free_allowance": {"4"}}
	c := app.Client()
	c.Header.Set("Accept-Language", "en")
	r := c.PostForm("/calculator", form)
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-quote.lines[7].free_allowance"`) {
		t.Fatalf("calculator: %d, no error next to the add-on's allowance", r.StatusCode)
	}
	form.Del("quote.lines[7].free_allowance")
	if r = c.PostForm("/calculator", form); r.StatusCode != http.StatusOK {
		t.Fatalf("calculator without an allowance: %d", r.StatusCode)
	}
}
