package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// writesOf counts the user's API tokens and the audit log's rows: what a
// token creation writes.
func writesOf(t *testing.T, app *testutil.App, userID int64) (tokens, audit int) {
	t.Helper()
	ctx := context.Background()
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE user_id = $1`, userID).Scan(&tokens); err != nil {
		t.Fatal(err)
	}
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log`).Scan(&audit); err != nil {
		t.Fatal(err)
	}
	return tokens, audit
}

// TestCrossOriginPostRefused: a state-changing request that carries the
// right CSRF token but an Origin other than the site's own (or "null") is
// refused with the CSRF 403 and writes nothing; the site's own origin, in
// any spelling a browser may use, and no Origin at all pass
// (docs/RULES.md §16.6).
func TestCrossOriginPostRefused(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, id := app.AsUser(auth.RoleAnalyst)
	tokens0, audit0 := writesOf(t, app, id)
	u, _ := url.Parse(app.URL)
	for _, origin := range []string{"https://evil.example", "null", "http://" + u.Hostname(), "https://" + u.Host,
		"http://" + u.Hostname() + ":1", "http://evil.example:" + u.Port(), app.URL + ".evil.example", "file://", "not an origin"} {
		c.Header.Set("Origin", origin)
		r := c.PostForm("/account/tokens", tokenForm("cross "+origin, testutil.Password(auth.RoleAnalyst)))
		if r.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %q: %d, want 403", origin, r.StatusCode)
		}
	}
	if tokens, audit := writesOf(t, app, id); tokens != tokens0 || audit != audit0 {
		t.Fatalf("refused requests wrote: tokens %d→%d, audit rows %d→%d", tokens0, tokens, audit0, audit)
	}
	for i, origin := range []string{app.URL, strings.ToUpper(app.URL), app.URL + "/", ""} {
		if origin == "" {
			c.Header.Del("Origin")
		} else {
			c.Header.Set("Origin", origin)
		}
		if r := c.PostForm("/account/tokens", tokenForm("same "+origin, testutil.Password(auth.RoleAnalyst))); r.StatusCode != http.StatusCreated {
			t.Errorf("Origin %q: %d, want 201", origin, r.StatusCode)
		}
		if tokens, _ := writesOf(t, app, id); tokens != tokens0+i+1 {
			t.Errorf("Origin %q: %d tokens, want %d", origin, tokens, tokens0+i+1)
		}
	}
	// Two Origin headers are not an origin.
	req, _ := http.NewRequest(http.MethodPost, app.URL+"/lang", strings.NewReader(url.Values{"lang": {"en"}, "_csrf": {c.CSRF}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	c.Header.Del("Origin")
	req.Header["Origin"] = []string{app.URL, "https://evil.example"}
	if r := c.Do(req); r.StatusCode != http.StatusForbidden {
		t.Errorf("two Origin headers: %d, want 403", r.StatusCode)
	}
}

// TestCrossOriginLoginRefused: the login form posted from another site is
// refused even with the visitor's own anonymous token and good credentials.
func TestCrossOriginLoginRefused(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	c := app.Client()
	c.Get("/login")
	c.Header.Set("Origin", "https://evil.example")
	if r := c.PostForm("/login", url.Values{"email": {email}, "password": {pw}}); r.StatusCode != http.StatusForbidden || c.Cookie("gq_session") != nil {
		t.Fatalf("cross-origin login: %d, session cookie %v", r.StatusCode, c.Cookie("gq_session"))
	}
	c.Header.Set("Origin", app.URL)
	if r := c.PostForm("/login", url.Values{"email": {email}, "password": {pw}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("same-origin login: %d", r.StatusCode)
	}
}

// TestOriginAgainstThePublicURL: with GPUQUOTE_PUBLIC_URL set, that
// address is the site's origin, whatever Host the request names.
func TestOriginAgainstThePublicURL(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicURL = "https://gpuquote.example.com" })
	c, id := app.AsUser(auth.RoleAnalyst)
	c.Header.Set("Origin", app.URL)
	if r := c.PostForm("/account/tokens", tokenForm("via host", testutil.Password(auth.RoleAnalyst))); r.StatusCode != http.StatusForbidden {
		t.Errorf("the Host's origin instead of the public URL: %d, want 403", r.StatusCode)
	}
	c.Header.Set("Origin", "https://gpuquote.example.com")
	if r := c.PostForm("/account/tokens", tokenForm("via public url", testutil.Password(auth.RoleAnalyst))); r.StatusCode != http.StatusCreated {
		t.Errorf("the public URL's origin: %d, want 201", r.StatusCode)
	}
	if tokens, _ := writesOf(t, app, id); tokens != 1 {
		t.Errorf("%d tokens, want 1", tokens)
	}
}

// TestPlantedAnonymousCSRFCookieRefused: an anonymous CSRF cookie the
// client made up is never adopted as the token: the server replaces it, and
// a login form posted with the planted value as _csrf is refused
// (docs/RULES.md §16.6).
func TestPlantedAnonymousCSRFCookieRefused(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	u, _ := url.Parse(app.URL)
	for _, planted := range []string{
		strings.Repeat("A", 43), // the old shape: any 43 characters
		auth.NewToken() + ".forged-signature-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	} {
		c := app.Client()
		plant := func() {
			c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gq_csrf", Value: planted, Path: "/"}})
		}
		plant()
		r := c.Get("/login")
		if c.CSRF == planted || c.Cookie("gq_csrf") == nil || c.Cookie("gq_csrf").Value == planted {
			t.Errorf("planted %q adopted: page token %q, cookie %v", planted, c.CSRF, c.Cookie("gq_csrf"))
		}
		if r.StatusCode != http.StatusOK {
			t.Fatalf("login page: %d", r.StatusCode)
		}
		plant()
		r = c.PostForm("/login", url.Values{"email": {email}, "password": {pw}, "_csrf": {planted}})
		if r.StatusCode != http.StatusForbidden || c.Cookie("gq_session") != nil {
			t.Fatalf("login with planted token %q: %d, session %v; want 403 and no session", planted, r.StatusCode, c.Cookie("gq_session"))
		}
	}
	// The token the server issued still signs a visitor in.
	c := app.Client()
	c.Login(email, pw)
}
