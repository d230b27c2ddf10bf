package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"gpuquote/internal/apierror"
	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// The JSON doors read their bodies by one rule (docs/RULES.md §19.1,
// §16.4): one JSON object of the endpoint's fields, each of its one type,
// no key twice, text the database can store, at most 256 KiB; every
// refusal names the field at fault.

// jsonDoors is a JSON door of the route table and a valid body for it,
// made over app's records once (a fresh report or trial per door).
type jsonDoor struct {
	path string
	body map[string]any
}

// inputApp is a report test's app with a market of two quotes and an
// admin token of every scope (an admin may take every step of every
// door).
func inputApp(t *testing.T) (app *testutil.App, token string, quotes [2]int64) {
	t.Helper()
	app, _ = reportApp(t)
	a, b := reportMarket(t, app)
	token, _ = apiToken(t, app, auth.RoleAdmin)
	return app, token, [2]int64{a, b}
}

// jsonDoorBodies are valid bodies of the JSON doors that store text, each
// built fresh: the report's steps act on another analyst's submitted
// report, the trial's on a trial the system opened.
func jsonDoorBodies(t *testing.T, app *testutil.App, quotes [2]int64) map[string]jsonDoor {
	t.Helper()
	submitted := itoa(someonesReport(app, "submitted"))
	trial := itoa(routeTrial(app))
	report := apiMarketCompare(quotes[0], quotes[1])
	report["title"] = "Input guard"
	report["purpose"] = "line one\nline two"
	return map[string]jsonDoor{
		"availability": {"/api/v1/availability", map[string]any{
			"platform_id": testfactory.Platform(t, app.Store, market.Platform{}).ID, "gpu_model_id": testfactory.GPUModel(t, app.Store, market.GPUModel{}).ID,
			"attempted_at": "2026-11-30T10:00:00Z", "gpu_count": 1, "obtained": true, "wait_minutes": 5, "note": "fine"}},
		"report":  {"/api/v1/reports", report},
		"approve": {"/api/v1/reports/" + submitted + "/approve", map[string]any{"comment": "fine"}},
		"return":  {"/api/v1/reports/" + submitted + "/return", map[string]any{"comment": "fine"}},
		"check":   {"/api/v1/trials/" + trial + "/checks", map[string]any{"check": 1, "state": "fail", "note": "fine", "output": "fine"}},
	}
}

// apiErrorsOf reads an error answer.
func apiErrorsOf(t *testing.T, r *testutil.Response) apierror.Body {
	t.Helper()
	var body apierror.Body
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
		t.Fatalf("not the one error shape: %v: %s", err, r.Body)
	}
	return body
}

// hasFieldError reports whether an error answer names field with code
// (any code when "").
func hasFieldError(body apierror.Body, field, code string) bool {
	for _, e := range body.Errors {
		if e.Field == field && (code == "" || e.Code == code) {
			return true
		}
	}
	return false
}

// TestJSONDoorsGuardText: a NUL byte, another control character, DEL, an
// object or an array where a JSON door expects text is refused with 422
// naming the field — never stored, never a 500 — as the input guard
// refuses a form's (docs/RULES.md §16.4).
func TestJSONDoorsGuardText(t *testing.T) {
	t.Parallel()
	app, token, quotes := inputApp(t)
	doors := jsonDoorBodies(t, app, quotes)
	fields := []struct{ door, field string }{
		{"availability", "note"}, {"report", "title"}, {"report", "purpose"}, {"approve", "comment"}, {"return", "comment"},
		{"check", "note"}, {"check", "output"}, {"check", "measured"},
	}
	before := [3]int{countRows(t, app, "availability_records"), countRows(t, app, "reports"), countRows(t, app, "trial_check_results")}
	for _, f := range fields {
		d := doors[f.door]
		for _, v := range []any{"a\u0000b", "a\u0001b", "a\u007fb", map[string]any{"x": "y"}, []any{"x"}} {
			body := map[string]any{}
			for k, x := range d.body {
				body[k] = x
			}
			body[f.field] = v
			r := apiCall(t, app, http.MethodPost, d.path, token, jsonText(t, body))
			want := "api.error.text"
			if _, ok := v.(string); !ok {
				want = "api.write.error.text"
			}
			if r.StatusCode != http.StatusUnprocessableEntity || !hasFieldError(apiErrorsOf(t, r), f.field, want) {
				t.Errorf("%s %s = %q: %d %s, want 422 naming %s with %s", d.path, f.field, v, r.StatusCode, r.Body, f.field, want)
			}
		}
	}
	after := [3]int{countRows(t, app, "availability_records"), countRows(t, app, "reports"), countRows(t, app, "trial_check_results")}
	if after != before {
		t.Errorf("refused bodies stored rows: %v → %v", before, after)
	}
	// The same bodies with storable text are taken: the guard refuses
	// nothing else (a comment keeps its line breaks).
	for _, name := range []string{"availability", "report", "check", "approve"} {
		d := doors[name]
		if name == "approve" {
			d.body["comment"] = "line one\r\nline two"
		}
		if r := apiCall(t, app, http.MethodPost, d.path, token, jsonText(t, d.body)); r.StatusCode >= 300 {
			t.Errorf("%s: %d %s", d.path, r.StatusCode, r.Body)
		}
	}
}

// TestJSONDoorsNameTheField: a value of the wrong type, a field the
// endpoint does not have and a key given twice are each refused with 422
// naming the field by its dotted path, on every JSON door alike — the
// availability API included, which took unknown fields and the last of
// two keys.
func TestJSONDoorsNameTheField(t *testing.T) {
	t.Parallel()
	app, token, quotes := inputApp(t)
	doors := jsonDoorBodies(t, app, quotes)
	cmp := jsonText(t, apiMarketCompare(quotes[0], quotes[1]))
	cases := []struct {
		name, path, body, field, code string
	}{
		{"profile type", "/api/v1/compare", strings.Replace(cmp, `"months":1`, `"months":"1"`, 1), "profile.months", "api.error.type.integer"},
		{"profile unknown", "/api/v1/compare", strings.Replace(cmp, `"months":1`, `"hours":1`, 1), "profile.hours", "api.error.field_unknown"},
		{"quotes type", "/api/v1/compare", `{"quotes": "1"}`, "quotes", "api.error.type.array"},
		{"quote id type", "/api/v1/compare", `{"quotes": [1, "2"]}`, "quotes[1]", "api.error.type.integer"},
		{"scenario unknown", "/api/v1/compare", `{"scenario_b": {"hourz": "1"}}`, "scenario_b.hourz", "api.error.field_unknown"},
		{"compare duplicate", "/api/v1/compare", `{"sort": "tco", "sort": "name"}`, "sort", "api.error.field_duplicate"},
		{"comment type", doors["return"].path, `{"comment": 5}`, "comment", "api.write.error.text"},
		{"comment duplicate", doors["return"].path, `{"comment": "a", "comment": "b"}`, "comment", "api.error.field_duplicate"},
		{"step unknown", doors["approve"].path, `{"comments": "a"}`, "comments", "api.error.field_unknown"},
		{"check type", doors["check"].path, `{"check": "1", "state": "pass"}`, "check", "api.error.type.integer"},
		{"check fraction", doors["check"].path, `{"check": 1.5, "state": "pass"}`, "check", "api.error.type.integer"},
		{"report unknown", "/api/v1/reports", `{"titel": "x"}`, "titel", "api.error.field_unknown"},
		{"report duplicate", "/api/v1/reports", `{"title": "x", "title": "y"}`, "title", "api.error.field_duplicate"},
		{"availability unknown", "/api/v1/availability", `{"colour": "red"}`, "colour", "api.error.field_unknown"},
		{"availability duplicate", "/api/v1/availability", `{"note": "a", "note": "b"}`, "note", "api.error.field_duplicate"},
		{"availability type", "/api/v1/availability", `{"note": ["a"]}`, "note", "api.write.error.text"},
		{"quote unknown", "/api/v1/quotes", `{"labels": "x"}`, "labels", "api.error.field_unknown"},
		{"quote line unknown", "/api/v1/quotes", `{"lines": {"egres": {}}}`, "lines.egres", "api.error.field_unknown"},
		{"quote line field unknown", "/api/v1/quotes", `{"lines": {"egress": {"colour": "red"}}}`, "lines.egress.colour", "api.error.field_unknown"},
		{"quote lines type", "/api/v1/quotes", `{"lines": []}`, "lines", "api.error.type.object"},
		{"quote duplicate", "/api/v1/quotes", `{"label": "a", "label": "b"}`, "label", "api.error.field_duplicate"},
		{"rate unknown", "/api/v1/fx-rates", `{"base": "USD", "when": "today"}`, "when", "api.error.field_unknown"},
	}
	for _, tc := range cases {
		r := apiCall(t, app, http.MethodPost, tc.path, token, tc.body)
		if r.StatusCode != http.StatusUnprocessableEntity || !hasFieldError(apiErrorsOf(t, r), tc.field, tc.code) {
			t.Errorf("%s: %d %s, want 422 naming %s with %s", tc.name, r.StatusCode, r.Body, tc.field, tc.code)
		}
	}
	// Every problem of a body's form at once: a key twice, an unknown
	// field, a wrong type, text that cannot be stored.
	r := apiCall(t, app, http.MethodPost, "/api/v1/reports", token, `{"title": "x", "title": "y", "titel": "z", "quotes": "1", "purpose": "a\u0000"}`)
	if got := apiErrorCodes(t, r.Body); r.StatusCode != http.StatusUnprocessableEntity || !slices.Equal(got, []string{
		"title:api.error.field_duplicate", "purpose:api.error.text", "titel:api.error.field_unknown", "quotes:api.error.type.array"}) {
		t.Errorf("every problem at once: %d %v", r.StatusCode, got)
	}
	// What is not one JSON object stays the body's problem, field "".
	for _, body := range []string{`[]`, `{} {}`, `{"title": `, `"x"`} {
		r := apiCall(t, app, http.MethodPost, "/api/v1/reports", token, body)
		if r.StatusCode != http.StatusUnprocessableEntity || !hasFieldError(apiErrorsOf(t, r), "", "api.error.json") {
			t.Errorf("%s: %d %s", body, r.StatusCode, r.Body)
		}
	}
}

// TestJSONBodyBound: every JSON door answers a body over 256 KiB with 413
// in the one error shape, naming the bound, and reads one under it
// (docs/RULES.md §19.1); the trial evidence endpoint keeps its own bound.
func TestJSONBodyBound(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicRateLimit = 0 })
	token, _ := apiToken(t, app, auth.RoleAdmin)
	under := `{"x": "` + strings.Repeat("a", 200<<10) + `"}`
	for _, size := range []int{300 << 10, 1000 << 10} {
		over := `{"x": "` + strings.Repeat("a", size) + `"}`
		n := 0
		for _, r := range app.Server.Routes() {
			if r.Method != http.MethodPost || !strings.HasPrefix(r.Path, "/api/") || r.Path == "/api/v1/verify/nvidia-smi" {
				continue
			}
			n++
			path := pathParam.ReplaceAllString(r.Path, "1")
			res := apiCall(t, app, http.MethodPost, path, token, over, "Accept-Language", "en")
			if res.StatusCode != http.StatusRequestEntityTooLarge {
				t.Errorf("%s with %d KiB: %d, want 413", path, size>>10, res.StatusCode)
				continue
			}
			body := apiErrorsOf(t, res)
			if len(body.Errors) != 1 || body.Errors[0].Code != "too_large" || !strings.Contains(body.Errors[0].Message, "256 KiB") ||
				body.RequestID == "" {
				t.Errorf("%s with %d KiB: %s", path, size>>10, res.Body)
			}
			if size == 300<<10 {
				if res := apiCall(t, app, http.MethodPost, path, token, under); res.StatusCode == http.StatusRequestEntityTooLarge {
					t.Errorf("%s with 200 KiB: 413", path)
				}
			}
		}
		if n < 14 {
			t.Errorf("%d JSON doors walked", n)
		}
	}
}

// TestDecimalsAreStrings: a decimal sent as a JSON number is refused by
// every door with 422 naming the field, its message saying to send it as
// a string — quotes, comparisons and the TCO calculator's endpoints alike
// (docs/RULES.md §19.1).
func TestDecimalsAreStrings(t *testing.T) {
	t.Parallel()
	app, token, quotes := inputApp(t)
	en := app.Catalog.Translator(i18n.EN)
	cmp := apiMarketCompare(quotes[0], quotes[1])
	cmp["profile"].(map[string]any)["hours_per_month"] = 200
	cases := []struct {
		path, body, field, code string
	}{
		{"/api/v1/compare", jsonText(t, cmp), "profile.hours_per_month", "api.write.error.text"},
		{"/api/v1/compare", `{"scenario_b": {"mbps": 5}}`, "scenario_b.mbps", "api.write.error.text"},
		{"/api/v1/fx-rates", `{"rate": 7.1}`, "rate", "api.write.error.decimal"},
		{"/api/v1/tco/evaluate", strings.Replace(golden("", "200"), `"hourly": "0.471"`, `"hourly": 0.471`, 1), "quote.hourly", "decimal_as_number"},
		{"/api/v1/tco/evaluate", strings.Replace(golden("", "200"), `"hours_per_month": "200"`, `"hours_per_month": 200`, 1), "profile.hours_per_month", "decimal_as_number"},
		{"/api/v1/tco/rent-vs-buy", strings.Replace(rentBuyBody("200", "12"), `"purchase_price": "25000"`, `"purchase_price": 25000`, 1), "own.purchase_price", "decimal_as_number"},
	}
	for _, tc := range cases {
		r := apiCall(t, app, http.MethodPost, tc.path, token, tc.body, "Accept-Language", "en")
		body := apiErrorsOf(t, r)
		if r.StatusCode != http.StatusUnprocessableEntity || !hasFieldError(body, tc.field, tc.code) {
			t.Errorf("%s %s: %d %s, want 422 naming %s with %s", tc.path, tc.field, r.StatusCode, r.Body, tc.field, tc.code)
			continue
		}
		for _, e := range body.Errors {
			if e.Field == tc.field && !strings.Contains(e.Message, "string") {
				t.Errorf("%s %s: %q does not say to send it as a string", tc.path, tc.field, e.Message)
			}
		}
	}
	if m := en.T("err.tco.decimal_as_number"); !strings.Contains(m, "string") {
		t.Errorf("err.tco.decimal_as_number: %q", m)
	}
}

// TestJSONDoorErrorsCarryTheRequestID: every error answer of every JSON
// door — the TCO calculator's public endpoints and the availability API
// included — carries the request id its header carries (docs/API.md).
func TestJSONDoorErrorsCarryTheRequestID(t *testing.T) {
	t.Parallel()
	app, token, quotes := inputApp(t)
	doors := jsonDoorBodies(t, app, quotes)
	for _, tc := range []struct{ path, body string }{
		{"/api/v1/tco/evaluate", `{}`},
		{"/api/v1/tco/evaluate", `[]`},
		{"/api/v1/tco/rent-vs-buy", `{"quote": 1}`},
		{"/api/v1/bills/check", `{"bill": {"month": "2026-13"}}`},
		{"/api/v1/availability", `{}`},
		{"/api/v1/availability", `[]`},
		{doors["check"].path, `{"check": 99}`},
		{"/api/v1/compare", `{"quotes": "x"}`},
	} {
		r := apiCall(t, app, http.MethodPost, tc.path, token, tc.body)
		if r.StatusCode < 400 {
			t.Errorf("%s %s: %d", tc.path, tc.body, r.StatusCode)
			continue
		}
		if id := r.Header.Get("X-Request-Id"); id == "" || apiErrorsOf(t, r).RequestID != id {
			t.Errorf("%s %s: request_id missing or not the header's %q: %s", tc.path, tc.body, id, r.Body)
		}
	}
}
