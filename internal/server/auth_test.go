package server_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

func countRows(t *testing.T, app *testutil.App, table string) int {
	t.Helper()
	var n int
	// table names here are constants of this test file, never input.
	if err := app.Store.Pool().QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCSRFRejectsAndWritesNothing(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	newUser := url.Values{"email": {"csrf@example.test"}, "display_name": {"X"}, "role": {"analyst"}}
	users, audits := countRows(t, app, "users"), countRows(t, app, "audit_log")

	cases := []struct {
		name   string
		token  string
		header map[string]string
	}{
		{name: "missing", token: ""},
		{name: "wrong", token: auth.NewToken()},
		{name: "cross-site", token: admin.CSRF, header: map[string]string{"Sec-Fetch-Site": "cross-site"}},
		{name: "other session's token", token: func() string { c, _ := app.AsUser(auth.RoleAdmin); return c.CSRF }()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := url.Values{}
			for k, v := range newUser {
				f[k] = v
			}
			if tc.token != "" {
				f.Set("_csrf", tc.token)
			}
			req, _ := http.NewRequest(http.MethodPost, app.URL+"/admin/users", strings.NewReader(f.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp := admin.Do(req)
			if resp.StatusCode != http.StatusForbidden {
				t.Fatalf("status %d, want 403", resp.StatusCode)
			}
		})
	}
	audits2 := countRows(t, app, "audit_log")
	// the extra admin login in the table above audits one login; nothing else.
	if got := countRows(t, app, "users"); got != users+1 || audits2 != audits+2 {
		t.Fatalf("rows changed: users %d→%d, audit %d→%d (want only the second admin and its login)", users, got, audits, audits2)
	}
	if _, found, err := app.Store.UserByEmail(context.Background(), "csrf@example.test"); found || err != nil {
		t.Fatalf("user created despite CSRF failure: %v", err)
	}

	// The htmx header carries the token just as well; same-origin is fine.
	req, _ := http.NewRequest(http.MethodPost, app.URL+"/admin/users", strings.NewReader(newUser.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-CSRF-Token", admin.CSRF)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if resp := admin.Do(req); resp.StatusCode != http.StatusCreated {
		t.Fatalf("with X-CSRF-Token: status %d, want 201", resp.StatusCode)
	}
}

func TestSessionTokenChangesAtLogin(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	c := app.Client()
	// An attacker plants a session cookie before the victim signs in.
	u, _ := url.Parse(app.URL)
	planted := auth.NewToken()
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gq_session", Value: planted, Path: "/"}})
	c.Login(email, pw)
	first := c.Cookie("gq_session")
	if first == nil || first.Value == planted {
		t.Fatalf("session token not replaced at login: %v", first)
	}
	// The planted token grants nothing.
	evil := app.Client()
	evil.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gq_session", Value: planted, Path: "/"}})
	if r := evil.Get("/account"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("planted token: status %d, want 303 to login", r.StatusCode)
	}
	// Signing in again issues yet another token and ends the previous session.
	c.Login(email, pw)
	second := c.Cookie("gq_session")
	if second.Value == first.Value {
		t.Fatal("second login reused the token")
	}
	old := app.Client()
	old.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gq_session", Value: first.Value, Path: "/"}})
	if r := old.Get("/account"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("previous token after re-login: status %d, want 303", r.StatusCode)
	}
}

// replay copies the session cookie of from into a fresh client.
func replay(app *testutil.App, from *testutil.Client) *testutil.Client {
	u, _ := url.Parse(app.URL)
	c := app.Client()
	c.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gq_session", Value: from.Cookie("gq_session").Value, Path: "/"}})
	return c
}

func TestReplayAfterLogoutAndDisableRejected(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)

	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	user, otherBrowser := app.Client(), app.Client()
	user.Login(email, pw)
	otherBrowser.Login(email, pw)
	copyBefore := replay(app, user)
	if r := copyBefore.Get("/account"); r.StatusCode != http.StatusOK {
		t.Fatalf("copied cookie before logout: %d", r.StatusCode)
	}
	if r := user.PostForm("/logout", nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("logout: %d", r.StatusCode)
	}
	for name, c := range map[string]*testutil.Client{"replayed cookie": copyBefore, "same browser": user, "other browser": otherBrowser} {
		if r := c.Get("/account"); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s after logout: status %d, want 303 to login (logout revokes all sessions)", name, r.StatusCode)
		}
	}

	admin, _ := app.AsUser(auth.RoleAdmin)
	victim, victimID := app.AsUser(auth.RoleEditor)
	second := app.Client() // a second browser of the same user
	email = func() string { u, _ := app.Store.UserByID(context.Background(), victimID); return u.Email }()
	second.Login(email, "correct horse battery editor")
	saved1, saved2 := replay(app, victim), replay(app, second)
	r := admin.PostForm("/admin/users/"+itoa(victimID)+"/disable", nil)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", r.StatusCode)
	}
	for i, c := range []*testutil.Client{victim, second, saved1, saved2} {
		if r := c.Get("/account"); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("session %d after disable: status %d, want 303", i, r.StatusCode)
		}
	}
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM sessions WHERE user_id = $1`, victimID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("sessions left after disable: %d (%v)", n, err)
	}
	// Disabled users cannot sign in again, and it looks like a wrong password.
	c := app.Client()
	if r := c.PostForm("/login", url.Values{"email": {email}, "password": {"correct horse battery editor"}}); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("disabled login: %d, want 401", r.StatusCode)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func withClock(c *testutil.Clock) testutil.Option { return func(d *server.Deps) { d.Now = c.Now } }

func TestSessionIdleAndAbsoluteExpiry(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	app := testutil.NewApp(t, withClock(clock))

	// Idle: activity within 2 h keeps the session; 2 h of silence ends it.
	c, _ := app.AsUser(auth.RoleAnalyst)
	clock.Advance(119 * time.Minute)
	if r := c.Get("/account"); r.StatusCode != http.StatusOK {
		t.Fatalf("after 1h59m idle: %d, want 200", r.StatusCode)
	}
	clock.Advance(119 * time.Minute)
	if r := c.Get("/account"); r.StatusCode != http.StatusOK {
		t.Fatalf("1h59m after the last request: %d, want 200 (activity extends the idle limit)", r.StatusCode)
	}
	clock.Advance(2*time.Hour + time.Second)
	if r := c.Get("/account"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("after 2h idle: %d, want 303 to login", r.StatusCode)
	}

	// Absolute: however active, a session ends 7 days after login.
	c2, _ := app.AsUser(auth.RoleFinance)
	start := clock.Now()
	for clock.Now().Sub(start) < 7*24*time.Hour-2*time.Hour {
		clock.Advance(90 * time.Minute)
		if r := c2.Get("/account"); r.StatusCode != http.StatusOK {
			t.Fatalf("active session at +%s: %d, want 200", clock.Now().Sub(start), r.StatusCode)
		}
	}
	clock.Advance(7*24*time.Hour - clock.Now().Sub(start) + time.Second)
	if r := c2.Get("/account"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("after 7 days: %d, want 303 to login", r.StatusCode)
	}
}

func TestSessionCookieFlags(t *testing.T) {
	t.Parallel()
	for _, tls := range []bool{false, true} {
		t.Run("tls="+strconv.FormatBool(tls), func(t *testing.T) {
			app := testutil.NewApp(t, func(d *server.Deps) { d.Config.TLS = tls })
			email, pw, _ := app.CreateUser(auth.RoleAnalyst)
			c := app.Client()
			r := c.PostForm("/login", url.Values{"email": {email}, "password": {pw}})
			if r.StatusCode != http.StatusSeeOther {
				t.Fatalf("login: %d", r.StatusCode)
			}
			var ses *http.Cookie
			for _, ck := range r.Cookies() {
				if strings.HasSuffix(ck.Name, "gq_session") {
					ses = ck
				}
			}
			if ses == nil {
				t.Fatal("no session cookie set")
			}
			wantName := "gq_session"
			if tls {
				wantName = "__Host-gq_session"
			}
			if ses.Name != wantName || !ses.HttpOnly || ses.SameSite != http.SameSiteLaxMode || ses.Secure != tls || ses.Path != "/" || ses.Domain != "" {
				t.Fatalf("cookie %+v: want name %s, HttpOnly, SameSite=Lax, Secure=%v, Path=/, no Domain", ses, wantName, tls)
			}
			if len(ses.Value) != 43 { // 32 random bytes, base64url
				t.Fatalf("token length %d, want 43 characters (256 bits)", len(ses.Value))
			}
			var stored []byte
			if err := app.Store.Pool().QueryRow(context.Background(), `SELECT token_hash FROM sessions`).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if string(stored) == ses.Value || string(stored) != string(auth.HashToken(ses.Value)) {
				t.Fatal("the database must hold only the SHA-256 of the token")
			}
		})
	}
}

func TestUnknownUserAndWrongPasswordLookIdentical(t *testing.T) {
	t.Parallel()
	hasher := auth.NewHasher(auth.DefaultArgon2, 2) // the real cost: timing matters here
	app := testutil.NewApp(t, func(d *server.Deps) { d.Hasher = hasher })
	email := "real-cost@example.test"
	hash, err := hasher.Hash(context.Background(), "the real password")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.CreateUser(context.Background(), user.SystemActor, user.NewAccount{
		Email: email, DisplayName: "Real", Role: "analyst", PasswordHash: hash}); err != nil {
		t.Fatal(err)
	}
	c := app.Client()
	c.Get("/login")
	// The same work is the same time: each answer costs exactly one
	// full-cost argon2id, counted rather than timed (a timed assertion
	// flakes on a shared machine).
	try := func(email string) (*testutil.Response, int64) {
		runs := hasher.Runs()
		r := c.PostForm("/login", url.Values{"email": {email}, "password": {"definitely wrong"}})
		return r, hasher.Runs() - runs
	}
	// Same typed email text for both so the re-rendered forms can be compared.
	unknownEmail := "zz" + email[2:]
	for i := 0; i < 4; i++ { // below the per-account limit of 5
		ru, nu := try(unknownEmail)
		rw, nw := try(email)
		if ru.StatusCode != rw.StatusCode || ru.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status unknown=%d wrong=%d, want both 401", ru.StatusCode, rw.StatusCode)
		}
		if strings.ReplaceAll(ru.Body, unknownEmail, email) != rw.Body {
			t.Fatal("bodies differ between unknown user and wrong password")
		}
		if nu != 1 || nw != 1 {
			t.Fatalf("argon2id runs: unknown=%d wrong=%d, want one each (same work, same time)", nu, nw)
		}
	}
}

func TestNonASCIIPasswordAccepted(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	pw := strings.Repeat("算力租用避坑指南", 8) // 64 characters, 192 bytes
	if n := len([]rune(pw)); n != 64 {
		t.Fatalf("test password has %d characters", n)
	}
	r := admin.PostForm("/admin/users", url.Values{"email": {"zh@example.test"}, "display_name": {"张三"}, "role": {"analyst"}, "password": {pw}})
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("create with 64-character Chinese password: %d", r.StatusCode)
	}
	c := app.Client()
	c.Login("zh@example.test", pw)
	if r := c.Get("/account"); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, "张三") {
		t.Fatalf("account page after login: %d", r.StatusCode)
	}
}

func TestSecurityHeadersOnEveryStatus(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c := app.Client()
	check := func(name string, r *testutil.Response, status int) {
		t.Helper()
		if r.StatusCode != status {
			t.Fatalf("%s: status %d, want %d", name, r.StatusCode, status)
		}
		h := r.Header
		csp := h.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: CSP %q", name, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") == "" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s: headers %v", name, h)
		}
		if h.Get("X-Request-Id") == "" {
			t.Errorf("%s: no request id", name)
		}
	}
	check("200", c.Get("/"), http.StatusOK)
	r404 := c.Get("/no/such/page")
	check("404", r404, http.StatusNotFound)
	if !strings.Contains(r404.Body, `data-testid="error-page"`) {
		t.Error("404 is not the styled error page")
	}
	// A broken database table makes session loading fail: a real 500.
	user, _ := app.AsUser(auth.RoleAnalyst)
	if _, err := app.Owner().Pool().Exec(context.Background(), `ALTER TABLE sessions RENAME TO sessions_gone`); err != nil {
		t.Fatal(err)
	}
	r500 := user.Get("/account")
	check("500", r500, http.StatusInternalServerError)
	if strings.Contains(r500.Body, "sessions") || strings.Contains(r500.Body, "SQLSTATE") || !strings.Contains(r500.Body, r500.Header.Get("X-Request-Id")) {
		t.Error("500 page must show the request id and no internals")
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c := app.Client()
	c.Get("/login")
	big := url.Values{"email": {strings.Repeat("a", 2<<20)}, "password": {"x"}}
	if r := c.PostForm("/login", big); r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("2 MiB body: %d, want 413", r.StatusCode)
	}
}

func TestRoleChangeEndsSessionsAndUnknownFieldsAreIgnored(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	email, pw, id := app.CreateUser(auth.RoleAnalyst)
	user := app.Client()
	user.Login(email, pw)
	before := user.Cookie("gq_session").Value

	// A form smuggling privileged fields changes nothing but what it is for.
	r := user.PostForm("/account/password", url.Values{"current": {pw}, "new": {"a brand new passphrase"},
		"confirm": {"a brand new passphrase"}, "role": {"admin"}, "owner_id": {"1"}, "disabled": {"true"}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("password change: %d", r.StatusCode)
	}
	u, _ := app.Store.UserByID(context.Background(), id)
	if u.Role != "analyst" || u.Disabled {
		t.Fatalf("smuggled fields applied: role %s disabled %v", u.Role, u.Disabled)
	}
	if r := user.Get("/admin/users"); r.StatusCode != http.StatusForbidden {
		t.Fatalf("analyst on admin page: %d", r.StatusCode)
	}

	// A role change ends the user's sessions; the next login gets a new token
	// carrying the new role.
	if r := admin.PostForm("/admin/users/"+itoa(id)+"/role", url.Values{"role": {"admin"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("role change: %d", r.StatusCode)
	}
	if r := user.Get("/account"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("old session after role change: %d, want 303 to login", r.StatusCode)
	}
	user.Login(email, "a brand new passphrase")
	if user.Cookie("gq_session").Value == before {
		t.Fatal("same token after role change")
	}
	if r := user.Get("/admin/users"); r.StatusCode != http.StatusOK {
		t.Fatalf("new admin on admin page: %d", r.StatusCode)
	}
	// Admins cannot demote or disable themselves.
	adminID := func() int64 {
		u, _, _ := app.Store.UserByEmail(context.Background(), "admin1@example.test")
		return u.ID
	}()
	if r := admin.PostForm("/admin/users/"+itoa(adminID)+"/role", url.Values{"role": {"analyst"}}); r.StatusCode != http.StatusForbidden {
		t.Fatalf("self-demotion: %d, want 403", r.StatusCode)
	}
}

func TestAuditPageFilters(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	for i := 0; i < 3; i++ {
		admin.PostForm("/admin/users", url.Values{"email": {"f" + strconv.Itoa(i) + "@example.test"}, "display_name": {"F"}, "role": {"editor"}})
	}
	r := admin.Get("/admin/audit?action=user.create")
	if r.StatusCode != http.StatusOK || strings.Count(r.Body, `data-testid="audit-`) != 4+1 { // 4 creations + table
		t.Fatalf("filter by action: %d, %d rows", r.StatusCode, strings.Count(r.Body, `data-testid="audit-`)-1)
	}
	if !strings.Contains(r.Body, "f2@example.test") || strings.Contains(r.Body, "password_hash") {
		t.Fatal("audit shows the created user without any password hash")
	}
	if r := admin.Get("/admin/audit?from=not-a-date"); r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-from"`) {
		t.Fatalf("bad date: %d", r.StatusCode)
	}
	if r := admin.Get("/admin/audit?actor=nobody-at-all"); !strings.Contains(r.Body, `data-testid="audit-empty"`) {
		t.Fatal("empty state missing")
	}
}

// TestClientAddressFromTrustedProxiesOnly: X-Forwarded-For is believed only
// from a configured proxy, so a client cannot dodge the per-address login
// limit or forge the audit log's address.
func TestClientAddressFromTrustedProxiesOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		trusted string
		want    string
	}{
		{"no proxies configured", "", "127.0.0.1"},
		{"loopback is the proxy", "127.0.0.1/32", "203.0.113.7"},
		{"another proxy", "10.0.0.0/8", "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := testutil.NewApp(t, func(d *server.Deps) {
				if tc.trusted != "" {
					d.Config.TrustedProxies = []netip.Prefix{netip.MustParsePrefix(tc.trusted)}
				}
			})
			c := app.Client()
			c.Header.Set("X-Forwarded-For", "203.0.113.7")
			c.PostForm("/login", url.Values{"email": {"x@example.test"}, "password": {"wrong password"}})
			recs, err := app.Store.AuditLog(context.Background(), store.AuditFilter{Action: store.ActionLoginFailed})
			if err != nil || len(recs) != 1 || recs[0].ClientIP != tc.want {
				t.Fatalf("audited address %+v (%v), want %s", recs, err, tc.want)
			}
		})
	}
}
