package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// apiToken makes a new user with role and a live token of theirs holding
// scopes (every scope when none is named), expiring in 30 days; it returns
// the token and the user's id. Every answer the API gives the token through
// apiCall (or bearer) is validated against the OpenAPI description.
func apiToken(t testing.TB, app *testutil.App, role auth.Role, scopes ...string) (token string, uid int64) {
	t.Helper()
	email, _, uid := app.CreateUser(role)
	if len(scopes) == 0 {
		scopes = user.APIScopes
	}
	token = auth.NewAPIToken()
	expires := time.Now().Add(30 * 24 * time.Hour)
	if _, err := app.Store.CreateAPIToken(context.Background(), user.Actor{UserID: uid, Email: email},
		user.APIToken{Name: "test " + string(role), Scopes: scopes, ExpiresAt: &expires}, auth.HashToken(token), time.Now()); err != nil {
		t.Fatal(err)
	}
	return token, uid
}

// apiCall sends method path with the token (none when "") and a JSON body
// (none when ""), with extra header name/value pairs, and returns the
// answer, validated against the OpenAPI description by the client.
func apiCall(t testing.TB, app *testutil.App, method, path, token, body string, header ...string) *testutil.Response {
	t.Helper()
	req, err := http.NewRequest(method, app.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req, err = http.NewRequest(method, app.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return app.Client().Do(req)
}
