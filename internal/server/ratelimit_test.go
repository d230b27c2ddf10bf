package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// TestPublicRateLimitWithoutItsTable: when the database cannot answer the
// limiter, a limited route is neither a server error nor unlimited: this
// process counts the requests itself, at the same rate and burst
// (docs/RULES.md §20.3).
func TestPublicRateLimitWithoutItsTable(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.PublicRateLimit = 1 })
	// The serving role loses its table: every limiter statement fails.
	if _, err := app.Owner().Pool().Exec(t.Context(), `ALTER TABLE rate_limits RENAME TO rate_limits_gone`); err != nil {
		t.Fatal(err)
	}
	statuses := map[int]int{}
	for range 12 { // burst is 3: 12 quick requests must hit the limit
		req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/tco/evaluate", strings.NewReader(golden("", "200")))
		statuses[app.Client().Do(req).StatusCode]++
	}
	if statuses[http.StatusOK] == 0 || statuses[http.StatusTooManyRequests] == 0 || len(statuses) != 2 {
		t.Fatalf("answers %v: want 200 within the burst and 429 past it, nothing else", statuses)
	}
}

// BenchmarkPublicRateLimit is the evaluation API with the limit off and
// with its PostgreSQL bucket (a rate no request reaches): the difference is
// what the shared limit costs a limited request.
func BenchmarkPublicRateLimit(b *testing.B) {
	for _, c := range []struct {
		name string
		rate int
	}{{"off", 0}, {"postgres", 1 << 20}} {
		b.Run(c.name, func(b *testing.B) {
			app := testutil.NewApp(b, func(d *server.Deps) { d.Config.PublicRateLimit = c.rate })
			body := golden("", "200")
			for b.Loop() {
				r, err := http.Post(app.URL+"/api/v1/tco/evaluate", "application/json", strings.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, r.Body)
				r.Body.Close()
				if r.StatusCode != http.StatusOK {
					b.Fatalf("status %d", r.StatusCode)
				}
			}
		})
	}
}
