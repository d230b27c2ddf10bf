package server_test

import (
	"context"
	"encoding/hex"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

const (
	uaLinuxChromium  = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chromium/124.0.0.0 Chrome/124.0.0.0 Safari/537.36"
	uaWindowsFirefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:126.0) Gecko/20100101 Firefox/126.0"
	uaIPhoneWeChat   = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47"
)

// sessionRow finds the account page's session items: their public id and
// the text of each.
var sessionRow = regexp.MustCompile(`(?s)data-testid="session-([0-9a-f-]{36})".*?</li>`)

// signedInAs signs a new browser with user agent ua in as email.
func signedInAs(app *testutil.App, email, password, ua string) *testutil.Client {
	c := app.Client()
	c.Header.Set("User-Agent", ua)
	c.Login(email, password)
	return c
}

// sessionsOf maps the public ids listed on the account page to their text.
func sessionsOf(t *testing.T, c *testutil.Client) map[string]string {
	t.Helper()
	r := c.Get("/account")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("account page: %d", r.StatusCode)
	}
	out := map[string]string{}
	for _, m := range sessionRow.FindAllStringSubmatch(r.Body, -1) {
		out[m[1]] = m[0]
	}
	return out
}

// TestAccountListsSessions: the account page lists each live session of
// the user — device from the User-Agent, address, sign-in and last-seen
// times — marks this browser's, counts them with plural forms in both
// languages, and never shows a token or its hash.
func TestAccountListsSessions(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	email, pw, uid := app.CreateUser(auth.RoleAnalyst)
	here := signedInAs(app, email, pw, uaLinuxChromium)

	one := here.Get("/account")
	if !strings.Contains(one.Body, "你已在 1 个浏览器或设备上登录。") {
		t.Error("zh count for one session missing")
	}
	here.Header.Set("Accept-Language", "en")
	if en := here.Get("/account").Body; !strings.Contains(en, "You are signed in on 1 browser or device.") ||
		!strings.Contains(en, "Chromium on Linux") || !strings.Contains(en, "This browser") {
		t.Error("en: singular count, device or this-browser mark missing")
	}

	signedInAs(app, email, pw, uaWindowsFirefox)
	signedInAs(app, email, pw, uaIPhoneWeChat)
	// Another user's session is not listed.
	otherEmail, otherPW, _ := app.CreateUser(auth.RoleAnalyst)
	signedInAs(app, otherEmail, otherPW, "curl/8.5.0")

	page := here.Get("/account").Body
	if !strings.Contains(page, "You are signed in on 3 browsers or devices.") {
		t.Error("en plural count missing")
	}
	for _, want := range []string{"Chromium on Linux", "Firefox on Windows", "WeChat on iOS", "127.0.0.1"} {
		if !strings.Contains(page, want) {
			t.Errorf("%q not listed", want)
		}
	}
	if strings.Contains(page, "curl") {
		t.Error("another user's session is listed")
	}
	here.Header.Del("Accept-Language")
	zh := here.Get("/account").Body
	if !strings.Contains(zh, "你已在 3 个浏览器或设备上登录。") || !strings.Contains(zh, "Windows 上的 Firefox") ||
		!strings.Contains(zh, "本浏览器") {
		t.Error("zh: count, device or this-browser mark missing")
	}

	rows := sessionsOf(t, here)
	if len(rows) != 3 {
		t.Fatalf("%d sessions listed, want 3", len(rows))
	}
	current := 0
	for id, text := range rows {
		if strings.Contains(text, `data-testid="session-current"`) {
			current++
			if !strings.Contains(text, "Chromium") {
				t.Errorf("session %s marked as this browser: %s", id, text)
			}
		}
	}
	if current != 1 {
		t.Errorf("%d sessions marked as this browser, want 1", current)
	}
	// Neither a session token nor its hash is on the page.
	pgRows, err := app.Store.Pool().Query(ctx, `SELECT token_hash FROM sessions WHERE user_id = $1`, uid)
	if err != nil {
		t.Fatal(err)
	}
	defer pgRows.Close()
	for pgRows.Next() {
		var h []byte
		if err := pgRows.Scan(&h); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(zh), hex.EncodeToString(h)) {
			t.Error("a token hash is on the page")
		}
	}
	if ck := here.Cookie("gq_session"); ck == nil || strings.Contains(zh, ck.Value) {
		t.Error("the session token is on the page")
	}
}

// TestEndSession: ending another browser's session signs that browser out
// and audits it; ending this browser's own signs it out here and leaves the
// others; someone else's session, or a made-up id, is not found and
// changes nothing. Without JavaScript: plain forms, redirects and flashes.
func TestEndSession(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	email, pw, uid := app.CreateUser(auth.RoleEditor)
	here := signedInAs(app, email, pw, uaLinuxChromium)
	there := signedInAs(app, email, pw, uaWindowsFirefox)
	third := signedInAs(app, email, pw, uaIPhoneWeChat)

	var thereID, hereID string
	for id, text := range sessionsOf(t, here) {
		switch {
		case strings.Contains(text, "Firefox"):
			thereID = id
		case strings.Contains(text, `data-testid="session-current"`):
			hereID = id
		}
	}
	if thereID == "" || hereID == "" {
		t.Fatal("sessions not found on the page")
	}

	// Someone else cannot end it, whatever their role.
	admin, _ := app.AsUser(auth.RoleAdmin)
	if r := admin.PostForm("/account/sessions/"+thereID+"/end", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("another user's session: %d, want 404", r.StatusCode)
	}
	for _, bad := range []string{"nope", "00000000-0000-4000-8000-000000000000", "1"} {
		if r := here.PostForm("/account/sessions/"+bad+"/end", nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("id %q: %d, want 404", bad, r.StatusCode)
		}
	}
	// Without the CSRF token, nothing happens.
	if r := here.PostRaw("/account/sessions/"+thereID+"/end", url.Values{}); r.StatusCode != http.StatusForbidden {
		t.Errorf("without CSRF: %d, want 403", r.StatusCode)
	}
	if r := there.Get("/account"); r.StatusCode != http.StatusOK {
		t.Fatalf("the other browser was signed out too early: %d", r.StatusCode)
	}
	if recs, err := app.Store.AuditLog(ctx, store.AuditFilter{Action: store.ActionSessionEnd}); err != nil || len(recs) != 0 {
		t.Fatalf("refused attempts were audited: %v %v", recs, err)
	}

	// Ending the other browser's session.
	r := here.PostForm("/account/sessions/"+thereID+"/end", nil)
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/account#sessions" {
		t.Fatalf("end session: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	if page := here.Get("/account"); page.StatusCode != http.StatusOK || !strings.Contains(page.Body, `data-testid="flash"`) ||
		strings.Contains(page.Body, thereID) {
		t.Error("after ending: no flash, or the session is still listed")
	}
	if r := there.Get("/account"); r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
		t.Errorf("the ended browser is still signed in: %d", r.StatusCode)
	}
	recs, err := app.Store.AuditLog(ctx, store.AuditFilter{Action: store.ActionSessionEnd})
	if err != nil || len(recs) != 1 || recs[0].ActorID != uid || recs[0].EntityID != itoa(uid) ||
		!strings.Contains(string(recs[0].Before), thereID) || !strings.Contains(string(recs[0].Before), "Firefox") {
		t.Fatalf("audit: %+v %v", recs, err)
	}
	// Twice is not found.
	if r := here.PostForm("/account/sessions/"+thereID+"/end", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("ending twice: %d", r.StatusCode)
	}

	// Ending this browser's own session signs it out here; the third goes on.
	r = here.PostForm("/account/sessions/"+hereID+"/end", nil)
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/login" {
		t.Fatalf("end own session: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	if r := here.Get("/account"); r.StatusCode != http.StatusSeeOther {
		t.Errorf("still signed in after ending this browser's session: %d", r.StatusCode)
	}
	if r := third.Get("/account"); r.StatusCode != http.StatusOK {
		t.Errorf("the third browser was signed out: %d", r.StatusCode)
	}
	var left int
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM sessions WHERE user_id = $1`, uid).Scan(&left); err != nil || left != 1 {
		t.Errorf("%d sessions left, want 1 (%v)", left, err)
	}
	if recs, _ := app.Store.AuditLog(ctx, store.AuditFilter{Action: store.ActionSessionEnd}); len(recs) != 2 ||
		!strings.Contains(string(recs[0].After), `"this_browser": true`) {
		t.Errorf("ending this browser's session: audit %+v", recs)
	}
}

// TestAPITokenAsksForThePassword: creating a token asks for the current
// password again; a wrong or missing one gives 422 with a message on the
// password field and creates and audits nothing.
func TestAPITokenAsksForThePassword(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	c, uid := app.AsUser(auth.RoleAnalyst)
	if page := c.Get("/account").Body; !strings.Contains(page, `id="token_password"`) {
		t.Error("the token form has no password field")
	}
	for _, pw := range []string{"", "not my password", strings.ToUpper(testutil.Password(auth.RoleAnalyst))} {
		r := c.PostForm("/account/tokens", tokenForm("stolen session", pw))
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-token_password"`) ||
			strings.Contains(r.Body, `data-testid="api-token-secret"`) {
			t.Errorf("password %q: %d, field error shown %v", pw, r.StatusCode, strings.Contains(r.Body, `data-testid="error-token_password"`))
		}
	}
	if r := c.PostForm("/account/tokens", tokenForm("stolen session", "not my password")); !strings.Contains(r.Body, "当前密码不正确") {
		t.Error("the wrong password is not worded")
	}
	var tokens, audited int
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE user_id = $1`, uid).Scan(&tokens); err != nil {
		t.Fatal(err)
	}
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = $1`, store.ActionAPITokenCreate).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if tokens != 0 || audited != 0 {
		t.Fatalf("a refused request created %d tokens and %d audit rows", tokens, audited)
	}
	createToken(t, c, "with my password", testutil.Password(auth.RoleAnalyst))
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE action = $1 AND actor_id = $2`,
		store.ActionAPITokenCreate, uid).Scan(&audited); err != nil || audited != 1 {
		t.Errorf("creation audited %d times (%v)", audited, err)
	}
}

// TestPasswordPolicyOnEveryForm: the account's password change and the
// admin's user creation refuse the review's examples — the user's own
// email, eight a's, eight spaces, qwertyuiop — each with its own message.
func TestPasswordPolicyOnEveryForm(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleFinance)
	c := app.Client()
	c.Header.Set("Accept-Language", "en")
	c.Login(email, pw)
	// Four tries stay within the throttle of the current-password re-check.
	cases := map[string]string{
		strings.ToUpper(email): "be your email address",
		"aaaaaaaa":             "be one character, or a group of up to 3, repeated",
		"        ":             "be only spaces.",
		"qwertyuiop":           "be a keyboard or alphabet sequence",
	}
	for next, msg := range cases {
		r := c.PostForm("/account/password", url.Values{"current": {pw}, "new": {next}, "confirm": {next}})
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, msg) {
			t.Errorf("new password %q: %d, message %q shown: %v", next, r.StatusCode, msg, strings.Contains(r.Body, msg))
		}
	}
	admin, _ := app.AsUser(auth.RoleAdmin)
	admin.Header.Set("Accept-Language", "en")
	for next, msg := range map[string]string{
		"new.person@example.test": "be your email address",
		"new.person2026":          "be your email address", // the local part and digits
		"New Person":              "be your email address", // the display name
		"1234567890":              "be a keyboard or alphabet sequence",
		"sunshine":                "one of the most common passwords or a single dictionary word",
		"Elephant":                "one of the most common passwords or a single dictionary word",
	} {
		r := admin.PostForm("/admin/users", url.Values{"email": {"new.person@example.test"}, "display_name": {"New Person"},
			"role": {"analyst"}, "password": {next}})
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, msg) {
			t.Errorf("admin, password %q: %d, message shown: %v", next, r.StatusCode, strings.Contains(r.Body, msg))
		}
	}
	if n, err := app.Store.CountUsers(context.Background()); err != nil || n != 2 {
		t.Errorf("%d users, want 2 (%v)", n, err)
	}
}
