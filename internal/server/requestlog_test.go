package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// TestRequestLogRedactsSecrets: a secret pasted into an address — a token
// as ?access_token= or ?token=, a password, a CSRF token, an API token
// anywhere in the path or the query, or inside the ?next= the login
// redirect carries — never reaches the request log; the rest of the address
// is logged as it came (docs/RULES.md §16.6).
func TestRequestLogRedactsSecrets(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	app := testutil.NewApp(t, func(d *server.Deps) {
		d.Logger = slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	token, _ := apiToken(t, app, auth.RoleAnalyst)
	secret := strings.TrimPrefix(token, auth.APITokenPrefix)
	feedToken := auth.NewFeedToken()
	paths := []string{
		"/feeds/watch/" + feedToken + ".atom",
		"/feeds/quotes.atom?token=" + feedToken,
		"/api/v1/platforms?access_token=" + token + "&limit=5",
		"/quotes?q=h100&token=s3cret-one&Password=s3cret-two",
		"/compare?_csrf=s3cret-three&api_key=s3cret-four&client_secret=s3cret-five",
		"/quotes?q=" + token,
		"/api/v1/quotes/" + token,
		"/login?next=" + url.QueryEscape("/reports?access_token="+token+"&x=1"),
	}
	c := app.Client()
	for _, p := range paths {
		c.Get(p)
	}
	// An anonymous request for a page redirects to the login page with the
	// address in ?next=, which is logged there too.
	if r := c.Get("/reports?token=s3cret-six"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("anonymous /reports: %d", r.StatusCode)
	}
	c.Get(c.Get("/reports?token=s3cret-seven").Header.Get("Location"))

	var uris []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var e struct{ Msg, URI string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if e.Msg == "request" {
			uris = append(uris, e.URI)
		}
	}
	all := strings.Join(uris, "\n")
	for _, s := range []string{secret, "s3cret", strings.TrimPrefix(feedToken, auth.FeedTokenPrefix)} {
		if strings.Contains(logs.String(), s) {
			t.Errorf("the log holds %q:\n%s", s, all)
		}
	}
	for _, want := range []string{"/api/v1/platforms?access_token=REDACTED&limit=5", "/quotes?q=h100&token=REDACTED&Password=REDACTED",
		"_csrf=REDACTED&api_key=REDACTED&client_secret=REDACTED", "/quotes?q=gqt_REDACTED", "/api/v1/quotes/gqt_REDACTED",
		"/login?next=" + url.QueryEscape("/reports?access_token=REDACTED&x=1"), "/login?next=" + url.QueryEscape("/reports?token=REDACTED"),
		"/feeds/watch/gqf_REDACTED.atom", "/feeds/quotes.atom?token=REDACTED"} {
		if !strings.Contains(all, want) {
			t.Errorf("no request logged as %s in:\n%s", want, all)
		}
	}
}
