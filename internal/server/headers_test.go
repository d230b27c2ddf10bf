package server_test

import (
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// TestClientRequestIDsAreCheckedAndHSTSFollowsTLS: a request id the client
// sends is kept only when it is 1–64 letters, digits, dots, underscores or
// hyphens, else replaced by the server's (nothing else reaches the logs or
// the audit log); a site on HTTPS sends HSTS, one without TLS does not.
func TestClientRequestIDsAreCheckedAndHSTSFollowsTLS(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	get := func(app *testutil.App, id string) *testutil.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, app.URL+"/calculator", nil)
		if err != nil {
			t.Fatal(err)
		}
		if id != "" {
			req.Header.Set("X-Request-Id", id)
		}
		return app.Client().Do(req)
	}
	for id, kept := range map[string]bool{
		"abc-123_x.y":               true,
		strings.Repeat("a", 64):     true,
		strings.Repeat("a", 65):     false,
		"<script>alert(1)</script>": false,
		"a b":                       false,
		"ünïcode":                   false,
	} {
		got := get(app, id).Header.Get("X-Request-Id")
		if kept && got != id || !kept && (got == id || !clientIDForm(got)) {
			t.Errorf("sent %q: the server uses %q", id, got)
		}
	}
	if got := get(app, "").Header.Get("X-Request-Id"); !clientIDForm(got) {
		t.Errorf("no id sent: %q", got)
	}
	if h := get(app, "").Header.Get("Strict-Transport-Security"); h != "" {
		t.Errorf("HSTS without TLS: %q", h)
	}
	tls := testutil.NewApp(t, func(d *server.Deps) { d.Config.TLS = true })
	if h := get(tls, "").Header.Get("Strict-Transport-Security"); !strings.HasPrefix(h, "max-age=") {
		t.Errorf("no HSTS with TLS: %q", h)
	}
}

func clientIDForm(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
