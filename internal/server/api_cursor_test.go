package server_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/user"
)

// editCursor is cursor with field k of the position it holds set to v,
// anything after its payload (a signature) kept as it was: what a client
// that edits a cursor sends.
func editCursor(t *testing.T, cursor, k string, v any) string {
	t.Helper()
	payload, rest, signed := strings.Cut(cursor, ".")
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatalf("cursor %q: %v", cursor, err)
	}
	var pos map[string]any
	if err := json.Unmarshal(b, &pos); err != nil {
		t.Fatalf("cursor %q: %v", cursor, err)
	}
	if _, ok := pos[k]; !ok {
		t.Fatalf("cursor %q holds no %q: %s", cursor, k, b)
	}
	pos[k] = v
	if b, err = json.Marshal(pos); err != nil {
		t.Fatal(err)
	}
	out := base64.RawURLEncoding.EncodeToString(b)
	if signed {
		out += "." + rest
	}
	return out
}

// TestAPICursorsAreSigned: every list's next_cursor continues the list it
// was made for, with the filters it was made with; a cursor whose position
// was edited, or presented with other filters (the audit log's too), is a
// cursor the server did not write: 400 api.error.cursor (docs/RULES.md
// §19.1, §19.3).
func TestAPICursorsAreSigned(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	reader, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead, user.ScopeReportsWrite)
	admin, _ := apiToken(t, app, auth.RoleAdmin, user.ScopeAdmin)
	testfactory.Platform(app.T, app.Store, market.Platform{})
	testfactory.Platform(app.T, app.Store, market.Platform{})
	a, b := reportMarket(t, app)
	for _, title := range []string{"first", "second"} {
		create := apiMarketCompare(a, b)
		create["title"] = title
		if r := apiCall(t, app, http.MethodPost, "/api/v1/reports", reader, jsonText(t, create)); r.StatusCode != http.StatusCreated {
			t.Fatalf("report: %d %s", r.StatusCode, r.Body)
		}
	}
	next := func(path, token string) string {
		t.Helper()
		r := apiCall(t, app, http.MethodGet, path, token, "")
		var p struct {
			NextCursor string `json:"next_cursor"`
		}
		if err := json.Unmarshal([]byte(r.Body), &p); err != nil || r.StatusCode != http.StatusOK || p.NextCursor == "" {
			t.Fatalf("GET %s: %d %.300s", path, r.StatusCode, r.Body)
		}
		return p.NextCursor
	}
	audit := "/api/v1/audit?limit=1&action=" + store.ActionAPITokenCreate
	cursors := map[string]string{
		"/api/v1/platforms?limit=1": next("/api/v1/platforms?limit=1", reader),
		"/api/v1/quotes?limit=1":    next("/api/v1/quotes?limit=1", reader),
		"/api/v1/reports?limit=1":   next("/api/v1/reports?limit=1", reader),
		audit:                       next(audit, admin),
	}
	edits := []struct {
		path, field string
		value       any
	}{
		{"/api/v1/platforms?limit=1", "i", 1},
		{"/api/v1/quotes?limit=1", "a", "2000-01-01"},
		{"/api/v1/quotes?limit=1", "i", 1},
		{"/api/v1/reports?limit=1", "id", 1},
		{audit, "before_id", 1},
	}
	token := func(path string) string {
		if strings.HasPrefix(path, "/api/v1/audit") {
			return admin
		}
		return reader
	}
	refused := func(what, path string) {
		t.Helper()
		r := apiCall(t, app, http.MethodGet, path, token(path), "")
		if r.StatusCode != http.StatusBadRequest || !strings.Contains(r.Body, `"api.error.cursor"`) {
			t.Errorf("%s: %d %.200s, want 400 api.error.cursor", what, r.StatusCode, r.Body)
		}
	}
	for path, c := range cursors {
		if r := apiCall(t, app, http.MethodGet, path+"&cursor="+url.QueryEscape(c), token(path), ""); r.StatusCode != http.StatusOK {
			t.Errorf("%s with its own cursor: %d %.200s", path, r.StatusCode, r.Body)
		}
	}
	for _, e := range edits {
		refused("an edited "+e.field+" on "+e.path, e.path+"&cursor="+url.QueryEscape(editCursor(t, cursors[e.path], e.field, e.value)))
	}
	// The audit log's cursor is bound to its filters, as the market's are.
	refused("the audit cursor with another action", "/api/v1/audit?limit=1&action="+store.ActionUserCreate+"&cursor="+url.QueryEscape(cursors[audit]))
	refused("the audit cursor without its filter", "/api/v1/audit?limit=1&cursor="+url.QueryEscape(cursors[audit]))
	// A cursor of one list is no cursor of another.
	refused("a report cursor on the audit log", "/api/v1/audit?limit=1&action="+store.ActionAPITokenCreate+"&cursor="+
		url.QueryEscape(cursors["/api/v1/reports?limit=1"]))
}
