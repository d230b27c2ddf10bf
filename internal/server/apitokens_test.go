package server_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// someonesAPIToken is a live token of a fresh user, for callers who must
// not be able to touch it.
func someonesAPIToken(a *testutil.App) int64 {
	a.T.Helper()
	_, _, uid := a.CreateUser(auth.RoleAnalyst)
	t, err := a.Store.CreateAPIToken(context.Background(), user.Actor{UserID: uid, Email: "owner@example.test"},
		user.APIToken{Name: "someone's", Scopes: []string{user.ScopeRead}}, auth.HashToken(auth.NewAPIToken()), time.Now())
	if err != nil {
		a.T.Fatal(err)
	}
	return t.ID
}

var tokenSecret = regexp.MustCompile(`data-testid="api-token-secret">([^<]+)<`)

// tokenForm is the account page's create-token form: name, the user's
// password, scopes ticked (when none is named, every scope any role may
// give, which is all but admin: user.ScopesFor) and the default lifetime.
func tokenForm(name, password string, scopes ...string) url.Values {
	if len(scopes) == 0 {
		scopes = user.ScopesFor(string(auth.RoleAnalyst))
	}
	return url.Values{"name": {name}, "password": {password}, "scope": scopes, "expires_days": {"90"}}
}

// createToken creates a token through the account page, giving the
// user's password and ticking every scope but admin, and returns it.
func createToken(t *testing.T, c *testutil.Client, name, password string) string {
	t.Helper()
	r := c.PostForm("/account/tokens", tokenForm(name, password))
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("create token: status %d\n%s", r.StatusCode, r.Body)
	}
	m := tokenSecret.FindStringSubmatch(r.Body)
	if m == nil {
		t.Fatalf("no token shown:\n%s", r.Body)
	}
	return m[1]
}

// bearer sends method path with an Authorization header and no cookies.
func bearer(t *testing.T, app *testutil.App, method, path, token, contentType, body string) *testutil.Response {
	t.Helper()
	req, err := http.NewRequest(method, app.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return app.Client().Do(req)
}

func TestAPITokenLifecycle(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	c, uid := app.AsUser(auth.RoleAnalyst)
	if r := c.Get("/account"); r.StatusCode != 200 || !strings.Contains(r.Body, `data-testid="api-tokens-empty"`) {
		t.Fatalf("account page without tokens: %d", r.StatusCode)
	}

	token := createToken(t, c, "trial box 3", testutil.Password(auth.RoleAnalyst))
	if !strings.HasPrefix(token, auth.APITokenPrefix) || len(token) != len(auth.APITokenPrefix)+43 {
		t.Errorf("token %q", token)
	}
	// Only the hash is stored, and the audit log never holds the token.
	var (
		hash    []byte
		created time.Time
		used    *time.Time
	)
	if err := app.Store.Pool().QueryRow(ctx, `SELECT token_hash, created_at, last_used_at FROM api_tokens WHERE user_id = $1`, uid).
		Scan(&hash, &created, &used); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(token)); string(hash) != string(sum[:]) || used != nil {
		t.Errorf("stored hash %x, last used %v", hash, used)
	}
	var leaks int
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE coalesce(after::text, '') LIKE '%' || $1 || '%'`, token).Scan(&leaks); err != nil {
		t.Fatal(err)
	}
	if leaks != 0 {
		t.Error("the token is in the audit log")
	}
	// Listed by name, never shown again.
	page := c.Get("/account")
	if !strings.Contains(page.Body, "trial box 3") || strings.Contains(page.Body, token) || !strings.Contains(page.Body, "从未使用") {
		t.Error("the account page must list the token by name and never show it again")
	}

	// The token authenticates the verify API as its user and is marked used.
	r := bearer(t, app, http.MethodPost, "/api/v1/verify/nvidia-smi?gpu_model="+itoa(testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID), token, "text/plain",
		"name, memory.total [MiB]\nNVIDIA Test GPU, 24564 MiB\n")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("bearer verify: %d %s", r.StatusCode, r.Body)
	}
	if err := app.Store.Pool().QueryRow(ctx, `SELECT last_used_at FROM api_tokens WHERE user_id = $1`, uid).Scan(&used); err != nil || used == nil {
		t.Errorf("last_used_at not recorded (%v)", err)
	}
	if strings.Contains(c.Get("/account").Body, "从未使用") {
		t.Error("last use not shown")
	}

	// Revoking: a flash, gone from the list, the token stops working.
	tokens, err := app.Store.APITokens(ctx, uid)
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens %v %v", tokens, err)
	}
	rv := c.PostForm("/account/tokens/"+itoa(tokens[0].ID)+"/revoke", nil)
	if rv.StatusCode != http.StatusSeeOther || rv.Header.Get("Location") != "/account" {
		t.Fatalf("revoke: %d %s", rv.StatusCode, rv.Header.Get("Location"))
	}
	after := c.Get("/account")
	if !strings.Contains(after.Body, `data-testid="flash"`) || !strings.Contains(after.Body, `data-testid="api-tokens-empty"`) {
		t.Error("after revoking: no flash, or the token is still listed")
	}
	if r := bearer(t, app, http.MethodPost, "/api/v1/verify/nvidia-smi?gpu_model=1", token, "text/plain", "x"); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("revoked token: %d", r.StatusCode)
	}
	// Revoking twice is not found.
	if r := c.PostForm("/account/tokens/"+itoa(tokens[0].ID)+"/revoke", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("second revoke: %d", r.StatusCode)
	}

	// Both writes are audited with their actor.
	for _, action := range []string{store.ActionAPITokenCreate, store.ActionAPITokenRevoke} {
		recs, err := app.Store.AuditLog(ctx, store.AuditFilter{Action: action})
		if err != nil || len(recs) != 1 || recs[0].ActorID != uid || recs[0].EntityID != itoa(tokens[0].ID) {
			t.Errorf("%s audit: %+v %v", action, recs, err)
		}
	}
}

func TestAPITokenForm(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, uid := app.AsUser(auth.RoleFinance)
	cases := []struct {
		name, value string
		status      int
	}{
		{"empty", "   ", http.StatusUnprocessableEntity},
		{"too long", strings.Repeat("名", 101), http.StatusUnprocessableEntity},
		{"at the limit", strings.Repeat("名", 100), http.StatusCreated},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.PostForm("/account/tokens", tokenForm(tc.value, testutil.Password(auth.RoleFinance)))
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", r.StatusCode, tc.status)
			}
			if tc.status == http.StatusUnprocessableEntity && !strings.Contains(r.Body, `data-testid="error-token_name"`) {
				t.Error("no field error shown")
			}
		})
	}
	// A user holds at most MaxAPITokens live tokens.
	for i := 1; i < store.MaxAPITokens; i++ {
		if _, err := app.Store.CreateAPIToken(context.Background(), user.Actor{UserID: uid}, user.APIToken{Name: fmt.Sprint("t", i), Scopes: []string{user.ScopeRead}},
			auth.HashToken(auth.NewAPIToken()), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	r := c.PostForm("/account/tokens", tokenForm("one too many", testutil.Password(auth.RoleFinance)))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-token_name"`) {
		t.Errorf("over the limit: %d", r.StatusCode)
	}
}

func TestAPITokenRevokeOnlyYourOwn(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	owner, _ := app.AsUser(auth.RoleAnalyst)
	token := createToken(t, owner, "mine", testutil.Password(auth.RoleAnalyst))
	var id int64
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT id FROM api_tokens`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleAdmin} {
		other, _ := app.AsUser(role)
		if r := other.PostForm("/account/tokens/"+itoa(id)+"/revoke", nil); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s revoking another user's token: %d", role, r.StatusCode)
		}
	}
	if r := owner.PostForm("/account/tokens/nope/revoke", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("bad id: %d", r.StatusCode)
	}
	if r := bearer(t, app, http.MethodPost, "/api/v1/verify/nvidia-smi", token, "text/plain", ""); r.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("the token must still work (422 for the missing model): %d", r.StatusCode)
	}
}

// TestBearerTokenOnlyOnTokenRoutes: on a route whose policy does not admit
// tokens, the header authenticates nobody and skips nothing.
func TestBearerTokenOnlyOnTokenRoutes(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAdmin)
	token := createToken(t, c, "admin script", testutil.Password(auth.RoleAdmin))

	if r := bearer(t, app, http.MethodGet, "/account", token, "", ""); r.StatusCode != http.StatusSeeOther ||
		!strings.HasPrefix(r.Header.Get("Location"), "/login") {
		t.Errorf("GET /account with a bearer token: %d %s, want the login redirect", r.StatusCode, r.Header.Get("Location"))
	}
	if r := bearer(t, app, http.MethodGet, "/admin/users", token, "", ""); r.StatusCode != http.StatusSeeOther {
		t.Errorf("GET /admin/users with a bearer token: %d", r.StatusCode)
	}
	users := countRows(t, app, "users")
	form := url.Values{"email": {"via-token@example.test"}, "display_name": {"X"}, "role": {"analyst"}}.Encode()
	if r := bearer(t, app, http.MethodPost, "/admin/users", token, "application/x-www-form-urlencoded", form); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /admin/users with a bearer token: %d", r.StatusCode)
	}
	if r := bearer(t, app, http.MethodPost, "/account/tokens", token, "application/x-www-form-urlencoded", "name=x"); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("tokens cannot make tokens: %d", r.StatusCode)
	}
	if countRows(t, app, "users") != users {
		t.Error("a bearer token created a user")
	}

	// A signed-in analyst adding an admin's token to a non-token route
	// stays the analyst.
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	analyst.Header.Set("Authorization", "Bearer "+token)
	if r := analyst.Get("/admin/users"); r.StatusCode != http.StatusForbidden {
		t.Errorf("analyst with an admin's token on /admin/users: %d", r.StatusCode)
	}
}

func TestBearerTokenRejected(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, uid := app.AsUser(auth.RoleEditor)
	token := createToken(t, c, "ci", testutil.Password(auth.RoleEditor))
	path := "/api/v1/verify/nvidia-smi?gpu_model=" + itoa(testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID)
	body := "name, memory.total [MiB]\nNVIDIA Test GPU, 24564 MiB\n"
	sessionCookie := c.Cookie("gq_session").Value

	for name, tok := range map[string]string{
		"unknown":              auth.NewAPIToken(),
		"a session cookie":     sessionCookie,
		"empty":                " ",
		"too long":             strings.Repeat("a", 500),
		"token with a typo":    token[:len(token)-1] + "x",
		"the token's own hash": fmt.Sprintf("%x", sha256.Sum256([]byte(token))),
	} {
		t.Run(name, func(t *testing.T) {
			r := bearer(t, app, http.MethodPost, path, tok, "text/plain", body)
			if r.StatusCode != http.StatusUnauthorized || !strings.Contains(r.Header.Get("WWW-Authenticate"), "invalid_token") {
				t.Errorf("status %d, WWW-Authenticate %q", r.StatusCode, r.Header.Get("WWW-Authenticate"))
			}
		})
	}
	// A bad token is refused even next to a good session cookie: no fall-back.
	req, _ := http.NewRequest(http.MethodPost, app.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+auth.NewAPIToken())
	req.Header.Set("X-CSRF-Token", c.CSRF)
	if r := c.Do(req); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("bad token with a good cookie: %d", r.StatusCode)
	}
	// A disabled user's token stops working, and stays revoked once the
	// account is enabled again (TestAPITokensEndWithThePasswordRoleAndAccount).
	if _, err := app.Store.SetUserDisabled(context.Background(), user.SystemActor, uid, true); err != nil {
		t.Fatal(err)
	}
	if r := bearer(t, app, http.MethodPost, path, token, "text/plain", body); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("disabled user's token: %d", r.StatusCode)
	}
	if _, err := app.Store.SetUserDisabled(context.Background(), user.SystemActor, uid, false); err != nil {
		t.Fatal(err)
	}
	if r := bearer(t, app, http.MethodPost, path, token, "text/plain", body); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("re-enabled user's old token: %d", r.StatusCode)
	}
}

// TestAPITokensEndWithThePasswordRoleAndAccount: a personal API token stops
// working when its user's password changes, when an admin changes their
// role, and when the account is disabled — re-enabling it revives none.
func TestAPITokensEndWithThePasswordRoleAndAccount(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, uid := app.CreateUser(auth.RoleAnalyst)
	c := app.Client()
	c.Login(email, pw)
	admin, _ := app.AsUser(auth.RoleAdmin)
	works := func(token string) bool {
		t.Helper()
		r := bearer(t, app, http.MethodPost, "/api/v1/verify/nvidia-smi?gpu_model="+itoa(testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID), token, "text/plain",
			"name, memory.total [MiB]\nNVIDIA Test GPU, 24564 MiB\n")
		return r.StatusCode == http.StatusOK
	}
	token := createToken(t, c, "before the password", pw)
	if !works(token) {
		t.Fatal("a new token does not work")
	}
	newPW := "a much longer passphrase 2026"
	if r := c.PostForm("/account/password", url.Values{"current": {pw}, "new": {newPW}, "confirm": {newPW}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("change password: %d", r.StatusCode)
	}
	if works(token) {
		t.Error("the token outlived the password change")
	}
	token = createToken(t, c, "before the role", newPW)
	if r := admin.PostForm("/admin/users/"+itoa(uid)+"/role", url.Values{"role": {string(auth.RoleEditor)}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("set role: %d", r.StatusCode)
	}
	if works(token) {
		t.Error("the token outlived the role change")
	}
	c.Login(email, newPW) // the role change ended the session too
	token = createToken(t, c, "before disabling", newPW)
	for _, step := range []string{"disable", "enable"} {
		if r := admin.PostForm("/admin/users/"+itoa(uid)+"/"+step, nil); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", step, r.StatusCode)
		}
	}
	if works(token) {
		t.Error("the token came back with the re-enabled account")
	}
}

// TestAPITokenScopesFollowTheRole: the create-token form offers each role
// only the scopes it can use — admin only to admins — and a scope the role
// cannot use, posted anyway, is refused under the scopes with nothing
// created (docs/RULES.md §19.2).
func TestAPITokenScopesFollowTheRole(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	offered := func(c *testutil.Client) []string {
		var out []string
		document(t, c.Get("/account").Body).Find(`[data-testid="api-token-scopes-field"] input[name="scope"]`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.AttrOr("value", ""))
		})
		return out
	}
	noAdmin := []string{user.ScopeRead, user.ScopeQuotesWrite, user.ScopeReportsWrite, user.ScopeTrialsWrite, user.ScopeWatchesWrite}
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleFinance, auth.RoleEditor} {
		c, _ := app.AsUser(role)
		if got := offered(c); !slices.Equal(got, noAdmin) {
			t.Errorf("%s is offered %v, want %v", role, got, noAdmin)
		}
		tokens := countRows(t, app, "api_tokens")
		r := c.PostForm("/account/tokens", tokenForm("too wide", testutil.Password(role), user.ScopeRead, user.ScopeAdmin))
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-token_scope"`) {
			t.Errorf("%s asking for the admin scope: %d", role, r.StatusCode)
		}
		if countRows(t, app, "api_tokens") != tokens {
			t.Errorf("%s asking for the admin scope got a token", role)
		}
	}
	admin, _ := app.AsUser(auth.RoleAdmin)
	if got := offered(admin); !slices.Equal(got, user.APIScopes) {
		t.Errorf("an admin is offered %v, want %v", got, user.APIScopes)
	}
	if r := admin.PostForm("/account/tokens", tokenForm("audit", testutil.Password(auth.RoleAdmin), user.ScopeAdmin)); r.StatusCode != http.StatusCreated {
		t.Errorf("an admin asking for the admin scope: %d", r.StatusCode)
	}
}
