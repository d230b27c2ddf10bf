package server_test

import (
	"context"
	"net/http"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
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
		SELECT 'NVIDIA', 'GPU ' || i, 16 + (i % 6) * 16 FROM generate_series(1, 30) i;
		ANALYZE`)
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
	if _, err := app.Store.Pool().Exec(ctx, `ANALYZE`); err != nil {
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
