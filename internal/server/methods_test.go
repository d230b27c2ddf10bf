package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// do sends method path through c with the header name/value pairs.
func do(t *testing.T, c *testutil.Client, app *testutil.App, method, path string, header ...string) *testutil.Response {
	t.Helper()
	req, err := http.NewRequest(method, app.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return c.Do(req)
}

// TestHeadAnswersAsGet: HEAD of a page, an asset or an API answer gets
// the status and headers GET gets, without a body; HEAD of a path that
// does not exist is 404 (RFC 9110 §9.3.2).
func TestHeadAnswersAsGet(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	signedIn, _ := app.AsUser(auth.RoleAnalyst)
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	bearer := []string{"Authorization", "Bearer " + token}
	cases := []struct {
		c      *testutil.Client
		path   string
		header []string
		status int
	}{
		{app.Client(), "/", nil, http.StatusOK},
		{app.Client(), "/login", nil, http.StatusOK},
		{app.Client(), "/calculator", nil, http.StatusOK},
		{app.Client(), "/static/css/app.css", nil, http.StatusOK},
		{app.Client(), "/quotes", nil, http.StatusSeeOther},
		{signedIn, "/quotes", nil, http.StatusOK},
		{signedIn, "/account", nil, http.StatusOK},
		{signedIn, "/admin/users", nil, http.StatusForbidden},
		{app.Client(), "/api/v1/platforms", bearer, http.StatusOK},
		{app.Client(), "/no/such/page", nil, http.StatusNotFound},
	}
	for _, tc := range cases {
		get := do(t, tc.c, app, http.MethodGet, tc.path, tc.header...)
		head := do(t, tc.c, app, http.MethodHead, tc.path, tc.header...)
		if get.StatusCode != tc.status || head.StatusCode != tc.status {
			t.Errorf("%s: GET %d, HEAD %d, want %d", tc.path, get.StatusCode, head.StatusCode, tc.status)
			continue
		}
		if head.Body != "" {
			t.Errorf("HEAD %s has a body: %.80q", tc.path, head.Body)
		}
		for _, h := range []string{"Content-Type", "Cache-Control", "Location", "ETag"} {
			if g, hd := get.Header.Get(h), head.Header.Get(h); g != hd && h != "ETag" || h == "ETag" && g != "" && hd == "" {
				t.Errorf("%s: %s GET %q, HEAD %q", tc.path, h, g, hd)
			}
		}
	}
}

// TestUnsupportedMethodIs405: a method an existing address does not take
// is 405 with Allow naming those it does, as a page that shows who is
// signed in, or in the API's error shape; an address that does not exist
// stays 404 whatever the method.
func TestUnsupportedMethodIs405(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPut, "/quotes", "GET, HEAD, POST"},
		{http.MethodDelete, "/account", "GET, HEAD"},
		{http.MethodPost, "/reports/inbox", "GET, HEAD"},
		{http.MethodPatch, "/", "GET, HEAD"},
		{http.MethodOptions, "/login", "GET, HEAD, POST"},
		{http.MethodPost, "/static/css/app.css", "GET, HEAD"},
	} {
		r := do(t, c, app, tc.method, tc.path)
		if r.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: %d, want 405", tc.method, tc.path, r.StatusCode)
			continue
		}
		if got := r.Header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
		if tc.method == http.MethodOptions {
			continue
		}
		if !strings.Contains(r.Body, `data-testid="current-user"`) || strings.Contains(r.Body, `data-testid="login-link"`) {
			t.Errorf("%s %s: the 405 page does not show who is signed in", tc.method, tc.path)
		}
	}
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	r := apiCall(t, app, http.MethodDelete, "/api/v1/quotes", token, "", "Accept-Language", "en")
	var body struct {
		Errors []struct{ Code, Message string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil || r.StatusCode != http.StatusMethodNotAllowed ||
		r.Header.Get("Allow") != "GET, HEAD, POST" || len(body.Errors) != 1 || body.Errors[0].Code != "method_not_allowed" {
		t.Errorf("DELETE /api/v1/quotes: %d, Allow %q: %s", r.StatusCode, r.Header.Get("Allow"), r.Body)
	}
	for _, m := range []string{http.MethodPut, http.MethodPost} {
		if r := do(t, c, app, m, "/no/such/page"); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s of an unknown path: %d, want 404", m, r.StatusCode)
		}
		// /metrics on the site's port never tells it is there (§16.6).
		if r := do(t, c, app, m, "/metrics"); r.StatusCode != http.StatusNotFound || r.Header.Get("Allow") != "" {
			t.Errorf("%s /metrics: %d, Allow %q, want 404", m, r.StatusCode, r.Header.Get("Allow"))
		}
	}
}
