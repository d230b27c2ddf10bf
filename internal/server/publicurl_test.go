package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestAbsoluteLinksComeFromTheConfiguredAddress: a comparison's share link
// and the API token's example are built from GPUQUOTE_PUBLIC_URL, never
// from the Host header a client chooses.
func TestAbsoluteLinksComeFromTheConfiguredAddress(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicURL = "https://gpuquote.example.test" })
	c, _ := app.AsUser(auth.RoleAnalyst)
	id := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	req, err := http.NewRequest(http.MethodGet, app.URL+compareURL("200", id), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "attacker.example"
	// The session's cookies, sent by hand: a cookie jar files them under
	// the Host asked for.
	for _, ck := range c.HTTP.Jar.Cookies(req.URL) {
		req.AddCookie(ck)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("compare page: %d %v", resp.StatusCode, err)
	}
	body := string(raw)
	share, _ := document(t, body).Find(`#compare-share-url`).Attr("value")
	if !strings.HasPrefix(share, "https://gpuquote.example.test/compare?") || strings.Contains(body, "attacker.example") {
		t.Fatalf("share link %q (the page names the client's Host: %v)", share, strings.Contains(body, "attacker.example"))
	}

	// The API token's example names the same address.
	r := c.PostForm("/account/tokens", tokenForm("ci", testutil.Password(auth.RoleAnalyst)))
	if r.StatusCode != http.StatusCreated || !strings.Contains(r.Body, "https://gpuquote.example.test/api/v1/verify/nvidia-smi") {
		t.Errorf("token example: %d, configured address named: %v", r.StatusCode, strings.Contains(r.Body, "https://gpuquote.example.test/api/"))
	}
}
