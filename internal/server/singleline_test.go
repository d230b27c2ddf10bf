package server_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/testutil"
)

// TestSingleLineFieldsRefuseLineBreaks: a field of one line — a report's
// title, a quote's label and source, a platform's name, a display name, a
// token's name — refuses a line break with a field message in the
// reader's language, on the form door and the JSON door alike; a field of
// several lines (a purpose, notes, a comment) keeps its line breaks
// (docs/RULES.md §16.4). A title of three lines never reaches a mail.
func TestSingleLineFieldsRefuseLineBreaks(t *testing.T) {
	t.Parallel()
	app, token, quotes := inputApp(t)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	editor, _ := app.AsUser(auth.RoleEditor)
	admin, _ := app.AsUser(auth.RoleAdmin)
	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		want := app.Catalog.Translator(lang).T("form.error.line_break")
		for _, c := range []*testutil.Client{analyst, editor, admin} {
			c.Header.Set("Accept-Language", string(lang))
		}
		for i, brk := range []string{"one\r\ntwo", "one\ntwo", "one\rtwo"} {
			email := "line" + string(lang) + itoa(int64(i)) + "@example.test"
			forms := []struct {
				client *testutil.Client
				path   string
				form   url.Values
			}{
				{analyst, "/reports", reportForm(brk, "200", quotes[0])},
				{editor, "/quotes", func() url.Values { v := quoteForm(app); v.Set("label", brk); return v }()},
				{editor, "/quotes", func() url.Values { v := quoteForm(app); v.Set("source", brk); return v }()},
				{editor, "/platforms", func() url.Values { v := specPlatformForm(app); v.Set("name_en", brk); return v }()},
				{admin, "/admin/users", url.Values{"email": {email}, "display_name": {brk}, "role": {"analyst"}}},
				{analyst, "/account/tokens", url.Values{"name": {brk}, "password": {"whatever it is"}}},
			}
			for _, f := range forms {
				r := f.client.PostForm(f.path, f.form)
				if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, html.EscapeString(want)) {
					t.Errorf("%s %s with %q: %d, want 422 saying %q", lang, f.path, brk, r.StatusCode, want)
				}
			}
		}
	}
	// A saved usage profile's name: refused with a notice, nothing saved.
	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		analyst.Header.Set("Accept-Language", string(lang))
		r := analyst.PostForm("/compare/profiles", url.Values{"name": {"one\r\ntwo"}, "profile.hours_per_month": {"50"},
			"profile.months": {"1"}, "profile.instances": {"1"}})
		want := app.Catalog.Translator(lang).T("compare.profiles.name_one_line")
		if page := analyst.Get(r.Header.Get("Location")); r.StatusCode != http.StatusSeeOther || !strings.Contains(page.Body, html.EscapeString(want)) {
			t.Errorf("%s profile name: %d, want the notice %q", lang, r.StatusCode, want)
		}
	}
	if n := countRows(t, app, "usage_profiles"); n != 0 {
		t.Errorf("%d profiles saved", n)
	}
	// The JSON door: the same fields named, with the same message.
	report := apiMarketCompare(quotes[0], quotes[1])
	report["title"] = "one\r\ntwo"
	r := apiCall(t, app, http.MethodPost, "/api/v1/reports", token, jsonText(t, report), "Accept-Language", "en")
	if r.StatusCode != http.StatusUnprocessableEntity || !hasFieldError(apiErrorsOf(t, r), "title", "form.error.line_break") {
		t.Errorf("API report title: %d %s", r.StatusCode, r.Body)
	}
	_, gpu := qwRefs(t, app)
	q := qwQuote(gpu)
	q["label"], q["source"] = "one\ntwo", "one\r\ntwo"
	r = apiCall(t, app, http.MethodPost, "/api/v1/quotes", token, jsonText(t, q))
	if body := apiErrorsOf(t, r); r.StatusCode != http.StatusUnprocessableEntity ||
		!hasFieldError(body, "label", "form.error.line_break") || !hasFieldError(body, "source", "form.error.line_break") {
		t.Errorf("API quote label and source: %d %s", r.StatusCode, r.Body)
	}
	// Fields of several lines keep them.
	report["title"], report["purpose"] = "One line", "line one\r\nline two"
	if r := apiCall(t, app, http.MethodPost, "/api/v1/reports", token, jsonText(t, report)); r.StatusCode != http.StatusCreated ||
		!strings.Contains(r.Body, `"purpose":"line one\nline two"`) {
		t.Errorf("a purpose of two lines: %d %s", r.StatusCode, r.Body)
	}
	q["label"], q["source"], q["notes"] = "One line", "https://write.example/pricing", "line one\nline two"
	q["lines"].(map[string]any)["egress"].(map[string]any)["note"] = "over 20 GB\nper month"
	if r := apiCall(t, app, http.MethodPost, "/api/v1/quotes", token, jsonText(t, q)); r.StatusCode != http.StatusCreated {
		t.Errorf("notes of two lines: %d %s", r.StatusCode, r.Body)
	}
}
