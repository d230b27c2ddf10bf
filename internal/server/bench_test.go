package server_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// seedVolume fills the app's database with 50 platforms, 30 GPU models and
// n published quotes across three currencies, dated over two years.
func seedVolume(b *testing.B, app *testutil.App, n int) {
	b.Helper()
	ctx := context.Background()
	_, err := app.Store.Pool().Exec(ctx, `
		INSERT INTO platforms (name_zh, name_en, currency)
		SELECT '平台' || i, 'Platform ' || i, (ARRAY['CNY','EUR','USD'])[1 + i % 3] FROM generate_series(1, 50) i;
		INSERT INTO gpu_models (vendor, name, vram_gb)
		SELECT 'NVIDIA', 'GPU ' || i, 16 + (i % 6) * 16 FROM generate_series(1, 30) i`)
	if err != nil {
		b.Fatal(err)
	}
	_, err = app.Store.Pool().Exec(ctx, `
		INSERT INTO quotes (series_id, version, state, platform_id, gpu_model_id, label, gpu_count, currency,
		                    hourly, monthly, billing_granularity, as_of, source, published_at)
		SELECT i, 1, 'published', (SELECT min(id) FROM platforms) + i % 50, (SELECT min(id) FROM gpu_models) + i % 30,
		       'tier ' || i, 1 + i % 8, (ARRAY['CNY','EUR','USD'])[1 + i % 3],
		       round((0.3 + (i % 1000) / 100.0)::numeric, 3), round((200 + i % 5000)::numeric, 2), 'second',
		       date '2026-12-01' - (i % 730), 'volume test', now()
		FROM generate_series(1, $1) i`, n)
	if err != nil {
		b.Fatal(err)
	}
	// ANALYZE as the tables' owner: the serving role does not own them,
	// so PostgreSQL would skip them, and without statistics the planner
	// sorts instead of walking the list's index (what autovacuum's
	// statistics give a production database).
	if _, err := app.Owner().Pool().Exec(ctx, `ANALYZE`); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkQuoteList measures the quote list over 100,000 quotes through the
// real handler and database: the first page, a filtered page and a deep page.
func BenchmarkQuoteList(b *testing.B) {
	app := testutil.NewApp(b)
	seedVolume(b, app, 100_000)
	c, _ := app.AsUser(auth.RoleAnalyst)
	gpu := ""
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT min(id)::text FROM gpu_models`).Scan(&gpu); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, path string }{
		{"first-page", "/quotes"},
		{"filtered-gpu-currency", "/quotes?gpu=" + gpu + "&currency=EUR"},
		{"search", "/quotes?q=Platform%2042"},
		{"page-500", "/quotes?page=500"},
		{"stale", "/quotes?stale=1"},
		// The two list targets of cmd/gpuquote-bench: a filtered page with
		// rows (this seed gives the first GPU model's quotes in CNY) and a
		// label search.
		{"filtered-page-3", "/quotes?gpu=" + gpu + "&currency=CNY&page=3"},
		{"search-label", "/quotes?q=tier+4242"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if r := c.Get(bc.path); r.StatusCode != http.StatusOK {
					b.Fatalf("status %d", r.StatusCode)
				}
			}
		})
	}
}

// BenchmarkComparePage20 measures the comparison of 20 quotes (all twelve
// lines answered, three currencies, dated rates and reference prices)
// through the real handler and database, calling the handler directly so
// the time and allocations are the server's alone.
func BenchmarkComparePage20(b *testing.B) {
	h, req := setupComparePage20(b)
	measureComparePage(b, h, func(int) *http.Request { return req })
}

// setupComparePage20 seeds BenchmarkComparePage20's database and returns
// the server's handler and the signed-in request of its comparison.
func setupComparePage20(b *testing.B, opts ...testutil.Option) (http.Handler, *http.Request) {
	app := testutil.NewApp(b, opts...)
	seedVolume(b, app, 1000)
	ctx := context.Background()
	_, err := app.Store.Pool().Exec(ctx, `
		INSERT INTO fx_rates (base_currency, quote_currency, rate, as_of, source) VALUES
		  ('EUR', 'CNY', 7.8, '2026-11-01', 'bench'), ('USD', 'CNY', 7.1, '2026-11-01', 'bench');
		INSERT INTO reference_prices (item, currency, unit, unit_price, as_of, source) VALUES
		  ('egress', 'CNY', 'per_gb', 0.8, '2026-11-01', 'bench'), ('snapshot', 'CNY', 'per_month', 0.1, '2026-11-01', 'bench')`)
	if err != nil {
		b.Fatal(err)
	}
	// Twenty published quotes with every line answered.
	var ids []string
	rows, err := app.Store.Pool().Query(ctx, `SELECT id FROM quotes ORDER BY id LIMIT 20`)
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, itoa(id))
	}
	rows.Close()
	// Lines may only be added to drafts: give these quotes theirs through
	// fresh drafts published in their place.
	var newIDs []string
	for _, idText := range ids {
		var id int64
		_ = app.Store.Pool().QueryRow(ctx, `SELECT $1::bigint`, idText).Scan(&id)
		src, err := app.Store.QuoteByID(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		src.Lines = testfactory.AllIncluded()
		src.Lines[1] = quote.Line{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: decimal.NewNullDecimal(decimal.RequireFromString("0.5")), InWriting: true}
		src.Lines[8] = quote.Line{Item: "snapshot", Status: "unconfirmed"}
		d, err := app.Store.CreateQuoteDraft(ctx, user.SystemActor, src)
		if err != nil {
			b.Fatal(err)
		}
		p, err := app.Store.PublishQuote(ctx, user.SystemActor, d.ID, d.LockVersion)
		if err != nil {
			b.Fatal(err)
		}
		newIDs = append(newIDs, itoa(p.ID))
	}
	c, _ := app.AsUser(auth.RoleAnalyst)
	q := url.Values{"profile.hours_per_month": {"300"}, "profile.months": {"12"}, "profile.instances": {"2"},
		"profile.egress_gb_per_month": {"500"}, "profile.snapshot_gb": {"100"}, "report_currency": {"CNY"}, "q": newIDs}
	req := httptest.NewRequest(http.MethodGet, "/compare?"+q.Encode(), nil)
	req.AddCookie(c.Cookie("gq_session"))
	return app.Server.Handler(), req
}

// measureComparePage serves the i-th request of next until the benchmark
// has its measure, and reports its page's size (as sent and gzipped),
// p50 and p99.
func measureComparePage(b *testing.B, h http.Handler, next func(i int) *http.Request) {
	var durations []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req := next(i)
		start := time.Now()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		durations = append(durations, time.Since(start))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `data-testid="row-`) {
			b.Fatalf("status %d", w.Code)
		}
	}
	b.StopTimer()
	{
		w := httptest.NewRecorder()
		h.ServeHTTP(w, next(0))
		b.ReportMetric(float64(w.Body.Len()), "page-bytes")
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, 2) // the server's level
		_, _ = zw.Write(w.Body.Bytes())
		_ = zw.Close()
		b.ReportMetric(float64(z.Len()), "page-gzip-bytes")
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(durations[len(durations)*99/100].Microseconds()), "p99-µs")
}
