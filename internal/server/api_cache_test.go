package server_test

import (
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestAPIAnswersAreNotStored: the data API's private answers — a list, one
// record, and the 304 of an unchanged one — tell every cache not to keep
// them (Cache-Control: no-store), while keeping the ETag a client compares
// on its own (docs/RULES.md §19.1).
func TestAPIAnswersAreNotStored(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	id := publishQuote(app, "EUR", "0.471", "", nil)
	for _, path := range []string{"/api/v1/quotes", "/api/v1/quotes/" + itoa(id), "/api/v1/reports", "/api/v1/fx-rates"} {
		r := apiCall(t, app, http.MethodGet, path, token, "")
		cc, etag := r.Header.Get("Cache-Control"), r.Header.Get("ETag")
		if r.StatusCode != http.StatusOK || etag == "" {
			t.Fatalf("GET %s: %d, ETag %q", path, r.StatusCode, etag)
		}
		if !strings.Contains(cc, "no-store") || strings.Contains(cc, "no-cache") {
			t.Errorf("GET %s: Cache-Control %q, want no-store", path, cc)
		}
		again := apiCall(t, app, http.MethodGet, path, token, "", "If-None-Match", etag)
		if again.StatusCode != http.StatusNotModified || !strings.Contains(again.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("GET %s with its ETag: %d, Cache-Control %q, want 304 no-store", path, again.StatusCode, again.Header.Get("Cache-Control"))
		}
	}
}
