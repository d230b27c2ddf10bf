package server_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestAPIExports: a token holding read downloads, through the data API,
// the files the pages' links download — the quote list as CSV (with the
// list's filters, a bad one 400 naming it) and a saved report as CSV and
// XLSX, byte for byte what the report page's links give its author — where
// the pages' links answer a token with the sign-in page. A report the
// caller may not see is 404, a token without read 403 (docs/RULES.md
// §19.5).
func TestAPIExports(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	author, authorID := app.AsUser(auth.RoleAnalyst)
	id := saveReport(t, author, marketForm("Exported", a, b))
	token := tokenOf(t, app, authorID, user.ScopeRead)
	other, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	noRead, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeTrialsWrite)

	// The page's link does not take a token.
	if r := apiCall(t, app, http.MethodGet, "/reports/"+itoa(id)+"/export.csv", token, ""); r.StatusCode == http.StatusOK {
		t.Errorf("the page's link answered a token: %d", r.StatusCode)
	}
	for _, f := range []struct{ ext, contentType string }{
		{"csv", "text/csv; charset=utf-8"},
		{"xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	} {
		path := "/api/v1/reports/" + itoa(id) + "/export." + f.ext
		r := apiCall(t, app, http.MethodGet, path, token, "", "Accept-Language", "en")
		page := author.Get("/reports/" + itoa(id) + "/export." + f.ext)
		if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != f.contentType ||
			!strings.Contains(r.Header.Get("Content-Disposition"), "attachment; filename=") || r.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d %q %q", path, r.StatusCode, r.Header.Get("Content-Type"), r.Header.Get("Content-Disposition"))
		}
		if len(r.Body) < 100 {
			t.Errorf("%s: %d bytes", path, len(r.Body))
		}
		if page.StatusCode != http.StatusOK {
			t.Errorf("the page's %s: %d", f.ext, page.StatusCode)
		}
		if f.ext == "csv" && !strings.Contains(r.Body, "Exported") {
			t.Errorf("%s does not hold the report's title", path)
		}
		if r := apiCall(t, app, http.MethodGet, path, other, ""); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s for someone else's draft: %d, want 404", path, r.StatusCode)
		}
		if r := apiCall(t, app, http.MethodGet, path, noRead, ""); r.StatusCode != http.StatusForbidden {
			t.Errorf("%s without read: %d, want 403", path, r.StatusCode)
		}
	}
	// The same language gives the page's bytes.
	zh := apiCall(t, app, http.MethodGet, "/api/v1/reports/"+itoa(id)+"/export.csv", token, "")
	if page := author.Get("/reports/" + itoa(id) + "/export.csv"); zh.Body != page.Body {
		t.Errorf("the API's CSV differs from the page's (%d and %d bytes)", len(zh.Body), len(page.Body))
	}

	// The quote list as CSV, with the list's filters.
	r := apiCall(t, app, http.MethodGet, "/api/v1/quotes/export.csv?currency=EUR", token, "")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/csv; charset=utf-8" || !strings.HasPrefix(r.Body, quote.UTF8BOM) {
		t.Fatalf("quotes CSV: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
	if rows := strings.Count(r.Body, "\r\n"); rows != 2 || !strings.Contains(r.Body, ",EUR,0.471,") { // the header and the EUR quote
		t.Errorf("EUR quotes CSV has %d lines, want 2:\n%s", rows, r.Body)
	}
	if all := apiCall(t, app, http.MethodGet, "/api/v1/quotes/export.csv", token, ""); strings.Count(all.Body, "\r\n") != 3 {
		t.Errorf("quotes CSV: %q", all.Body)
	}
	if none := apiCall(t, app, http.MethodGet, "/api/v1/quotes/export.csv?currency=JPY", token, ""); strings.Count(none.Body, "\r\n") != 1 {
		t.Errorf("JPY quotes CSV: %q", none.Body)
	}
	for _, bad := range []string{"platform=x", "gpu=-1", "currency=euro"} {
		field, _, _ := strings.Cut(bad, "=")
		r := apiCall(t, app, http.MethodGet, "/api/v1/quotes/export.csv?"+bad, token, "")
		if codes := apiErrorCodes(t, r.Body); r.StatusCode != http.StatusBadRequest || len(codes) != 1 || !strings.HasPrefix(codes[0], field+":") {
			t.Errorf("%s: %d %v", bad, r.StatusCode, codes)
		}
	}
}

// TestAPIOwnHardwareAndTrialLists: the options a comparison takes by
// version id and the trials whose checks are recorded by id can be listed
// through the API: each caller gets the options they may read (their own,
// shared ones; finance every one), with the list's filters, a keyset page
// at a time, and a listed version id compares; trials come newest start
// first with the trial list's filters; a filter value the list does not
// offer is 400 (docs/RULES.md §19.5).
func TestAPIOwnHardwareAndTrialLists(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	gpu := testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	_, _, aliceID := app.CreateUser(auth.RoleAnalyst)
	_, _, bobID := app.CreateUser(auth.RoleAnalyst)
	_, _, editorID := app.CreateUser(auth.RoleEditor)
	alicePrivate := testfactory.OwnOption(t, app.Store, aliceID, testfactory.OwnVersion("Alice's box", gpu.ID), false)
	alicePrivate2 := testfactory.OwnOption(t, app.Store, aliceID, testfactory.OwnVersion("Alice's second box", gpu.ID), false)
	bobPrivate := testfactory.OwnOption(t, app.Store, bobID, testfactory.OwnVersion("Bob's box", gpu.ID), false)
	shared := testfactory.OwnOption(t, app.Store, editorID, testfactory.OwnVersion("Shared rack", gpu.ID), true)
	alice := tokenOf(t, app, aliceID, user.ScopeRead)
	finance, _ := apiToken(t, app, auth.RoleFinance, user.ScopeRead)

	type ownPage struct {
		Items []struct {
			ID        int64  `json:"id"`
			VersionID int64  `json:"version_id"`
			Name      string `json:"name"`
			Shared    bool   `json:"shared"`
		} `json:"items"`
		NextCursor string `json:"next_cursor"`
	}
	list := func(token, query string) []int64 {
		t.Helper()
		var ids []int64
		cursor := ""
		for range 10 {
			path := "/api/v1/own-hardware?limit=1" + query
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := apiCall(t, app, http.MethodGet, path, token, "")
			var p ownPage
			if r.StatusCode != http.StatusOK || json.Unmarshal([]byte(r.Body), &p) != nil {
				t.Fatalf("%s: %d %s", path, r.StatusCode, r.Body)
			}
			for _, it := range p.Items {
				ids = append(ids, it.ID)
			}
			if cursor = p.NextCursor; cursor == "" {
				return ids
			}
		}
		t.Fatal("the pages never end")
		return nil
	}
	if got, want := list(alice, ""), []int64{shared.ID, alicePrivate2.ID, alicePrivate.ID}; !slices.Equal(got, want) {
		t.Errorf("Alice's options %v, want %v (newest first, not Bob's)", got, want)
	}
	if got, want := list(alice, "&scope=mine"), []int64{alicePrivate2.ID, alicePrivate.ID}; !slices.Equal(got, want) {
		t.Errorf("Alice's own options %v, want %v", got, want)
	}
	if got, want := list(alice, "&scope=shared"), []int64{shared.ID}; !slices.Equal(got, want) {
		t.Errorf("shared options %v, want %v", got, want)
	}
	if got, want := list(finance, ""), []int64{shared.ID, bobPrivate.ID, alicePrivate2.ID, alicePrivate.ID}; !slices.Equal(got, want) {
		t.Errorf("finance reads %v, want %v", got, want)
	}
	if got := list(alice, "&archived=true"); len(got) != 0 {
		t.Errorf("archived options %v", got)
	}
	// A listed option's version id is what a comparison takes.
	r := apiCall(t, app, http.MethodGet, "/api/v1/own-hardware?scope=mine&limit=1", alice, "")
	var p ownPage
	if err := json.Unmarshal([]byte(r.Body), &p); err != nil || len(p.Items) != 1 || p.Items[0].VersionID != alicePrivate2.Current.ID {
		t.Fatalf("version id: %s", r.Body)
	}
	cmp := apiMarketCompare(a, b)
	cmp["own_hardware"] = []int64{p.Items[0].VersionID}
	res := apiCall(t, app, http.MethodPost, "/api/v1/compare", alice, jsonText(t, cmp))
	if res.StatusCode != http.StatusOK || !strings.Contains(res.Body, "Alice's second box") {
		t.Errorf("comparing the listed option: %d %.300s", res.StatusCode, res.Body)
	}
	for _, bad := range []string{"scope=everyone", "gpu=x", "archived=1", "cursor=nope"} {
		field, _, _ := strings.Cut(bad, "=")
		r := apiCall(t, app, http.MethodGet, "/api/v1/own-hardware?"+bad, alice, "")
		if codes := apiErrorCodes(t, r.Body); r.StatusCode != http.StatusBadRequest || len(codes) != 1 || !strings.HasPrefix(codes[0], field+":") {
			t.Errorf("own-hardware?%s: %d %v", bad, r.StatusCode, codes)
		}
	}

	// Trials: newest start first, the list's filters, a page at a time.
	t1 := testfactory.Trial(t, app.Store, user.Actor{UserID: aliceID}, a)
	t2 := testfactory.Trial(t, app.Store, user.Actor{UserID: bobID}, b)
	t3 := testfactory.Trial(t, app.Store, user.Actor{UserID: aliceID}, a)
	type trialPage struct {
		Items []struct {
			ID      int64  `json:"id"`
			QuoteID int64  `json:"quote_id"`
			Verdict string `json:"verdict"`
			Author  struct {
				ID int64 `json:"id"`
			} `json:"author"`
		} `json:"items"`
		NextCursor string `json:"next_cursor"`
	}
	trials := func(query string) []int64 {
		t.Helper()
		var ids []int64
		cursor := ""
		for range 10 {
			path := "/api/v1/trials?limit=2" + query
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			r := apiCall(t, app, http.MethodGet, path, alice, "")
			var p trialPage
			if r.StatusCode != http.StatusOK || json.Unmarshal([]byte(r.Body), &p) != nil {
				t.Fatalf("%s: %d %s", path, r.StatusCode, r.Body)
			}
			for _, it := range p.Items {
				ids = append(ids, it.ID)
				if it.Verdict != "in_progress" {
					t.Errorf("trial %d: verdict %q", it.ID, it.Verdict)
				}
			}
			if cursor = p.NextCursor; cursor == "" {
				return ids
			}
		}
		t.Fatal("the pages never end")
		return nil
	}
	if got, want := trials(""), []int64{t3.ID, t2.ID, t1.ID}; !slices.Equal(got, want) {
		t.Errorf("trials %v, want %v", got, want)
	}
	if got, want := trials("&quote="+itoa(a)), []int64{t3.ID, t1.ID}; !slices.Equal(got, want) {
		t.Errorf("trials of quote %d: %v, want %v", a, got, want)
	}
	if got := trials("&verdict=exit"); len(got) != 0 {
		t.Errorf("exited trials %v", got)
	}
	for _, bad := range []string{"verdict=failed", "platform=0", "quote=x"} {
		field, _, _ := strings.Cut(bad, "=")
		r := apiCall(t, app, http.MethodGet, "/api/v1/trials?"+bad, alice, "")
		if codes := apiErrorCodes(t, r.Body); r.StatusCode != http.StatusBadRequest || len(codes) != 1 || !strings.HasPrefix(codes[0], field+":") {
			t.Errorf("trials?%s: %d %v", bad, r.StatusCode, codes)
		}
	}
	// A cursor of one filter is no cursor of another.
	r = apiCall(t, app, http.MethodGet, "/api/v1/trials?limit=1", alice, "")
	var tp trialPage
	if err := json.Unmarshal([]byte(r.Body), &tp); err != nil || tp.NextCursor == "" {
		t.Fatalf("first trial page: %s", r.Body)
	}
	if r := apiCall(t, app, http.MethodGet, "/api/v1/trials?limit=1&quote="+itoa(a)+"&cursor="+tp.NextCursor, alice, ""); r.StatusCode != http.StatusBadRequest {
		t.Errorf("a cursor with other filters: %d", r.StatusCode)
	}
}

// tokenOf makes a token of user uid holding scopes.
func tokenOf(t *testing.T, app *testutil.App, uid int64, scopes ...string) string {
	t.Helper()
	email := ""
	if err := app.Store.Pool().QueryRow(t.Context(), `SELECT email FROM users WHERE id = $1`, uid).Scan(&email); err != nil {
		t.Fatal(err)
	}
	return testfactory.APIToken(t, app.Store, uid, email, "token of "+email, scopes...)
}
