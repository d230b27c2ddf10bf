package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// scrapeMetrics reads the exposition from app's metrics listener, where
// GPUQUOTE_METRICS_ADDR puts it, and fails the test unless it is a 200.
func scrapeMetrics(t *testing.T, app *testutil.App) string {
	t.Helper()
	ms := httptest.NewServer(app.Server.MetricsHandler())
	defer ms.Close()
	resp, err := http.Get(ms.URL + "/metrics") // the transport asks for gzip and unpacks it
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("metrics listener /metrics: %d %.200s", resp.StatusCode, body)
	}
	return string(body)
}

// TestMetricsReadableByScrapers: a scraper asking for gzip (as Go's client
// and Prometheus do) reads plain text after one decompression — the
// exposition is compressed once, not twice.
func TestMetricsReadableByScrapers(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	if body := scrapeMetrics(t, app); !strings.Contains(body, "\ngo_goroutines ") {
		t.Fatalf("/metrics: %d bytes without go_goroutines: %.80q", len(body), body)
	}
}

// TestMetricsOffThePublicPort: the site's own port answers /metrics with
// the 404 of an unknown path — to visitors, to an admin, to any bearer —
// while the metrics listener serves it (docs/RULES.md §16.6).
func TestMetricsOffThePublicPort(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	for name, c := range map[string]*testutil.Client{"anonymous": app.Client(), "admin": admin} {
		r := c.Get("/metrics")
		if r.StatusCode != http.StatusNotFound || strings.Contains(r.Body, "go_goroutines") {
			t.Errorf("%s: /metrics on the site's port: %d %.120q", name, r.StatusCode, r.Body)
		}
	}
	bearer := app.Client()
	bearer.Header.Set("Authorization", "Bearer ")
	if r := bearer.Get("/metrics"); r.StatusCode != http.StatusNotFound {
		t.Errorf("an empty bearer with no token configured: %d", r.StatusCode)
	}
	body := scrapeMetrics(t, app)
	if !strings.Contains(body, `gpuquote_http_requests_total{code="404",method="GET",route="/metrics"}`) {
		t.Errorf("the refused scrapes are not counted: %.300s", body)
	}
	// The listener serves nothing but /metrics.
	ms := httptest.NewServer(app.Server.MetricsHandler())
	defer ms.Close()
	for _, p := range []string{"/", "/login", "/admin/users"} {
		resp, err := http.Get(ms.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("metrics listener %s: %d", p, resp.StatusCode)
		}
	}
}

// TestMetricsTokenOnThePublicPort: with GPUQUOTE_METRICS_TOKEN set, the
// site's port serves /metrics to that bearer token only; a wrong or absent
// token, or a session, still gets 404.
func TestMetricsTokenOnThePublicPort(t *testing.T) {
	t.Parallel()
	const token = "0123456789abcdef0123456789abcdef-metrics"
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.MetricsToken = token })
	admin, _ := app.AsUser(auth.RoleAdmin)
	cases := []struct {
		name   string
		c      *testutil.Client
		header string
		want   int
	}{
		{"no token", app.Client(), "", http.StatusNotFound},
		{"admin session", admin, "", http.StatusNotFound},
		{"wrong token", app.Client(), "Bearer " + token[:len(token)-1] + "X", http.StatusNotFound},
		{"a prefix", app.Client(), "Bearer " + token[:32], http.StatusNotFound},
		{"basic", app.Client(), "Basic " + token, http.StatusNotFound},
		{"the token", app.Client(), "Bearer " + token, http.StatusOK},
		{"lower-case scheme", app.Client(), "bearer " + token, http.StatusOK},
	}
	for _, c := range cases {
		if c.header != "" {
			c.c.Header.Set("Authorization", c.header)
		}
		r := c.c.Get("/metrics")
		if r.StatusCode != c.want || (c.want == http.StatusOK) != strings.Contains(r.Body, "\ngo_goroutines ") {
			t.Errorf("%s: %d %.80q, want %d", c.name, r.StatusCode, r.Body, c.want)
		}
	}
}

// TestServeMetricsStopsWithItsContext: the metrics listener serves until
// the server's context ends, then returns without an error.
func TestServeMetricsStopsWithItsContext(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Server.ServeMetrics(ctx, ln) }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "gpuquote_db_pool_max_conns") {
		t.Fatalf("metrics listener: %d %.80q", resp.StatusCode, body)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("ServeMetrics: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeMetrics did not return after its context ended")
	}
}

// TestPprofOnlyOnTheMetricsListener: Go's runtime profiles (heap, goroutines,
// the command line the server was started with) are served by the metrics
// listener, where GPUQUOTE_METRICS_ADDR puts them, and the site's port
// answers /debug/pprof/ with the 404 of an unknown path even to an admin
// (docs/RULES.md §16.6).
func TestPprofOnlyOnTheMetricsListener(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	for _, p := range []string{"/debug/pprof/", "/debug/pprof/heap?debug=1", "/debug/pprof/cmdline"} {
		if r := admin.Get(p); r.StatusCode != http.StatusNotFound {
			t.Errorf("admin GET %s on the site's port: %d, want 404", p, r.StatusCode)
		}
	}
	ms := httptest.NewServer(app.Server.MetricsHandler())
	defer ms.Close()
	for p, want := range map[string]string{"/debug/pprof/": "goroutine", "/debug/pprof/heap?debug=1": "heap profile",
		"/debug/pprof/goroutine?debug=1": "goroutine profile"} {
		resp, err := http.Get(ms.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("metrics listener GET %s: %d %.120q", p, resp.StatusCode, body)
		}
	}
}
