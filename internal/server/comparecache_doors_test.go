package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBothDoorsPriceThroughTheKeptComparisons: a comparison the compare
// page priced is not priced again when the same state is asked for
// through the data API (POST /api/v1/compare) or saved as a report from
// the page; the API's answer is byte for byte the one a server keeping
// nothing gives (docs/RULES.md §19.5, §20.1).
func TestBothDoorsPriceThroughTheKeptComparisons(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.CompareCache = 16 })
	off := testutil.NewAppOn(t, app.Store, func(d *server.Deps) { d.Config.CompareCache = 0 })
	eur := publishQuote(app, "EUR", "0.5", "", testfactory.AllIncluded())
	c, _ := app.AsUser(auth.RoleAnalyst)
	token, _ := apiToken(t, app, auth.RoleAnalyst)

	state := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"report_currency": {"EUR"}, "q": {itoa(eur)}}
	if r := c.Get("/compare?" + state.Encode()); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="row-`) {
		t.Fatalf("compare page: %d", r.StatusCode)
	}
	_, hits, misses := compareCacheUse(t, app)
	if misses != 1 {
		t.Fatalf("the page priced %d comparisons, want 1", misses)
	}

	body := `{"profile": {"hours_per_month": "200", "months": 1, "instances": 1}, "quotes": [` + itoa(eur) + `], "report_currency": "EUR"}`
	kept := apiCall(t, app, http.MethodPost, "/api/v1/compare", token, body)
	fresh := apiCall(t, off, http.MethodPost, "/api/v1/compare", token, body)
	if kept.StatusCode != http.StatusOK || kept.Body != fresh.Body {
		t.Fatalf("API compare: %d, kept and fresh answers differ:\n%s", kept.StatusCode, firstDifference(kept.Body, fresh.Body))
	}
	if _, h, m := compareCacheUse(t, app); h != hits+1 || m != misses {
		t.Fatalf("API compare: hits %d → %d, misses %d → %d; want one hit, no miss", hits, h, misses, m)
	}

	saveReport(t, c, reportForm("kept", "200", eur))
	if _, h, m := compareCacheUse(t, app); h != hits+2 || m != misses {
		t.Fatalf("report saved from the page: hits %d → %d, misses %d → %d; want a hit, no miss", hits+1, h, misses, m)
	}
}
