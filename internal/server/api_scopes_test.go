package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// apiAccess is who may call a data API route with a token: the scope the
// token must hold and the roles whose users may (admins always may).
type apiAccess struct {
	scope string
	roles []auth.Role // nil: every signed-in user
}

// apiMatrix states, independently of the route table, what every token
// route of the data API needs (docs/RULES.md §19.2).
var apiMatrix = map[string]apiAccess{
	"GET /api/v1/platforms":                                    {scope: user.ScopeRead},
	"GET /api/v1/platforms/:id":                                {scope: user.ScopeRead},
	"GET /api/v1/gpus":                                         {scope: user.ScopeRead},
	"GET /api/v1/gpus/:id":                                     {scope: user.ScopeRead},
	"GET /api/v1/quotes":                                       {scope: user.ScopeRead},
	"GET /api/v1/quotes/:id":                                   {scope: user.ScopeRead},
	"GET /api/v1/quotes/:id/versions":                          {scope: user.ScopeRead},
	"GET /api/v1/reference-prices":                             {scope: user.ScopeRead},
	"GET /api/v1/fx-rates":                                     {scope: user.ScopeRead},
	"GET /api/v1/availability":                                 {scope: user.ScopeRead},
	"GET /api/v1/reports":                                      {scope: user.ScopeRead},
	"GET /api/v1/reports/:id":                                  {scope: user.ScopeRead},
	"GET /api/v1/quotes/export.csv":                            {scope: user.ScopeRead},
	"GET /api/v1/reports/:id/export.csv":                       {scope: user.ScopeRead},
	"GET /api/v1/reports/:id/export.xlsx":                      {scope: user.ScopeRead},
	"GET /api/v1/own-hardware":                                 {scope: user.ScopeRead},
	"GET /api/v1/trials":                                       {scope: user.ScopeRead},
	"POST /api/v1/compare":                                     {scope: user.ScopeRead},
	"POST /api/v1/quotes/extract":                              {scope: user.ScopeRead},
	"POST /api/v1/quotes":                                      {scope: user.ScopeQuotesWrite, roles: []auth.Role{auth.RoleEditor}},
	"POST /api/v1/quotes/:id/versions":                         {scope: user.ScopeQuotesWrite, roles: []auth.Role{auth.RoleEditor}},
	"POST /api/v1/proposals":                                   {scope: user.ScopeQuotesWrite},
	"POST /api/v1/reference-prices":                            {scope: user.ScopeQuotesWrite, roles: []auth.Role{auth.RoleEditor}},
	"POST /api/v1/fx-rates":                                    {scope: user.ScopeQuotesWrite, roles: []auth.Role{auth.RoleEditor}},
	"POST /api/v1/reports":                                     {scope: user.ScopeReportsWrite},
	"POST /api/v1/reports/:id/submit":                          {scope: user.ScopeReportsWrite},
	"POST /api/v1/reports/:id/approve":                         {scope: user.ScopeReportsWrite, roles: []auth.Role{auth.RoleFinance}},
	"POST /api/v1/reports/:id/return":                          {scope: user.ScopeReportsWrite, roles: []auth.Role{auth.RoleFinance}},
	"POST /api/v1/trials/:id/checks":                           {scope: user.ScopeTrialsWrite},
	"POST /api/v1/verify/nvidia-smi":                           {scope: user.ScopeTrialsWrite},
	"POST /api/v1/availability":                                {scope: user.ScopeTrialsWrite},
	"GET /api/v1/audit":                                        {scope: user.ScopeAdmin, roles: []auth.Role{auth.RoleAdmin}},
	"GET /api/v1/watches":                                      {scope: user.ScopeRead},
	"GET /api/v1/watches/:id":                                  {scope: user.ScopeRead},
	"POST /api/v1/watches":                                     {scope: user.ScopeWatchesWrite},
	"PUT /api/v1/watches/:id":                                  {scope: user.ScopeWatchesWrite},
	"DELETE /api/v1/watches/:id":                               {scope: user.ScopeWatchesWrite},
	"POST /api/v1/watches/:id/pause":                           {scope: user.ScopeWatchesWrite},
	"POST /api/v1/watches/:id/resume":                          {scope: user.ScopeWatchesWrite},
	"POST /api/v1/feed-token":                                  {scope: user.ScopeWatchesWrite},
	"DELETE /api/v1/feed-token":                                {scope: user.ScopeWatchesWrite},
	"GET /api/v1/webhooks":                                     {scope: user.ScopeRead, roles: []auth.Role{auth.RoleEditor}},
	"GET /api/v1/webhooks/:id":                                 {scope: user.ScopeRead, roles: []auth.Role{auth.RoleEditor}},
	"GET /api/v1/webhooks/:id/deliveries":                      {scope: user.ScopeRead, roles: []auth.Role{auth.RoleEditor}},
	"POST /api/v1/webhooks":                                    {scope: user.ScopeWatchesWrite, roles: []auth.Role{auth.RoleEditor}},
	"PUT /api/v1/webhooks/:id":                                 {scope: user.ScopeWatchesWrite, roles: []auth.Role{auth.RoleEditor}},
	"DELETE /api/v1/webhooks/:id":                              {scope: user.ScopeWatchesWrite, roles: []auth.Role{auth.RoleEditor}},
	"POST /api/v1/webhooks/:id/deliveries/:delivery/redeliver": {scope: user.ScopeWatchesWrite, roles: []auth.Role{auth.RoleEditor}},
}

// TestAPIScopeMatrix calls every token route of the data API as each role
// with a token of each scope, an expired token, a made-up token and none,
// and checks who gets through: the route's scope (or admin) and the role
// both, else 403 naming which (insufficient_scope or forbidden); 401 for an
// expired, unknown or missing token. A route under /api/ that admits
// tokens but is missing from apiMatrix fails, and so does a public route
// there that is not the description, its page, the public engine or the
// bill check.
func TestAPIScopeMatrix(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	roles := []auth.Role{auth.RoleAnalyst, auth.RoleFinance, auth.RoleEditor, auth.RoleAdmin}
	type tok struct {
		scope string
		token string
	}
	tokens := map[auth.Role][]tok{}
	expired := map[auth.Role]string{}
	for _, role := range roles {
		email, _, uid := app.CreateUser(role)
		for _, sc := range user.APIScopes {
			tokens[role] = append(tokens[role], tok{sc, newToken(t, app, uid, email, []string{sc}, time.Now().Add(time.Hour))})
		}
		expired[role] = newToken(t, app, uid, email, user.APIScopes, time.Now().Add(-time.Minute))
	}

	seen := 0
	for _, r := range app.Server.Routes() {
		if !strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		key := r.Method + " " + r.Path
		if r.Policy.Public {
			if !r.Policy.Token && (key == "GET /api/v1/openapi.json" || key == "GET /api/docs" || strings.HasPrefix(r.Path, "/api/v1/tco/") ||
				key == "POST /api/v1/bills/check") {
				continue
			}
			t.Errorf("%s: a public route under /api/ that is not the description, its page, the public engine or the bill check", key)
			continue
		}
		want, ok := apiMatrix[key]
		if !ok {
			t.Errorf("%s: missing from apiMatrix", key)
			continue
		}
		if !r.Policy.Token {
			t.Errorf("%s: does not admit tokens", key)
			continue
		}
		seen++
		path := strings.NewReplacer(":id", "999999", ":delivery", "999999").Replace(r.Path)
		call := func(token string) (int, string) {
			t.Helper()
			res := apiCall(t, app, r.Method, path, token, "")
			var body struct {
				Errors []struct{ Code string } `json:"errors"`
			}
			_ = json.Unmarshal([]byte(res.Body), &body)
			code := ""
			if len(body.Errors) > 0 {
				code = body.Errors[0].Code
			}
			return res.StatusCode, code
		}
		if st, _ := call(""); st != http.StatusUnauthorized {
			t.Errorf("%s without a token: %d, want 401", key, st)
		}
		if st, _ := call(auth.NewAPIToken()); st != http.StatusUnauthorized {
			t.Errorf("%s with an unknown token: %d, want 401", key, st)
		}
		for _, role := range roles {
			roleOK := want.roles == nil || role == auth.RoleAdmin || slices.Contains(want.roles, role)
			if st, _ := call(expired[role]); st != http.StatusUnauthorized {
				t.Errorf("%s as %s with an expired token: %d, want 401", key, role, st)
			}
			for _, tk := range tokens[role] {
				scopeOK := tk.scope == want.scope || tk.scope == user.ScopeAdmin
				st, code := call(tk.token)
				switch {
				case !scopeOK:
					if st != http.StatusForbidden || code != "insufficient_scope" {
						t.Errorf("%s as %s with scope %s: %d %q, want 403 insufficient_scope", key, role, tk.scope, st, code)
					}
				case !roleOK:
					if st != http.StatusForbidden || code != "forbidden" {
						t.Errorf("%s as %s with scope %s: %d %q, want 403 forbidden", key, role, tk.scope, st, code)
					}
				default:
					if st == http.StatusUnauthorized || st == http.StatusForbidden {
						t.Errorf("%s as %s with scope %s: %d %q, want it let through", key, role, tk.scope, st, code)
					}
				}
			}
		}
	}
	if seen != len(apiMatrix) {
		t.Errorf("%d token routes under /api/, apiMatrix names %d", seen, len(apiMatrix))
	}
}

// newToken stores a token of user uid with scopes, expiring at expires.
func newToken(t *testing.T, app *testutil.App, uid int64, email string, scopes []string, expires time.Time) string {
	t.Helper()
	token := auth.NewAPIToken()
	created := expires.Add(-24 * time.Hour)
	if _, err := app.Store.CreateAPIToken(context.Background(), user.Actor{UserID: uid, Email: email},
		user.APIToken{Name: "matrix", Scopes: scopes, ExpiresAt: &expires}, auth.HashToken(token), created); err != nil {
		t.Fatal(err)
	}
	return token
}
