package server_test

import (
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// apiToken makes a new user with role and a live token of theirs holding
// scopes (every scope when none is named), expiring in 30 days; it returns
// the token and the user's id. Every answer the API gives the token through
// apiCall (or bearer) is validated against the OpenAPI description.
func apiToken(t testing.TB, app *testutil.App, role auth.Role, scopes ...string) (token string, uid int64) {
	t.Helper()
	email, _, uid := app.CreateUser(role)
	return testfactory.APIToken(t, app.Store, uid, email, "test "+string(role), scopes...), uid
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
