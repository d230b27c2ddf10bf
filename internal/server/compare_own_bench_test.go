package server_test

import (
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
	"gpuquote/internal/own"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/user"

	"gpuquote/internal/testutil"
)

// BenchmarkComparePageOwn measures the comparison of 20 quotes (all twelve
// lines answered, three currencies, dated rates and reference prices) and
// 3 own-hardware options (one in EUR) through the real handler and
// database: every option priced, crossed with every rental and moved five
// ways (docs/RULES.md §8.6). It reports the server's p50 and mean time per
// request and the allocations.
func BenchmarkComparePageOwn(b *testing.B) {
	app := testutil.NewApp(b)
	seedVolume(b, app, 1000)
	ctx := context.Background()
	if _, err := app.Store.Pool().Exec(ctx, `
		INSERT INTO fx_rates (base_currency, quote_currency, rate, as_of, source) VALUES
		  ('EUR', 'CNY', 7.8, '2026-11-01', 'bench'), ('USD', 'CNY', 7.1, '2026-11-01', 'bench');
		INSERT INTO reference_prices (item, currency, unit, unit_price, as_of, source) VALUES
		  ('egress', 'CNY', 'per_gb', 0.8, '2026-11-01', 'bench'), ('snapshot', 'CNY', 'per_month', 0.1, '2026-11-01', 'bench')`); err != nil {
		b.Fatal(err)
	}
	rows, err := app.Store.Pool().Query(ctx, `SELECT id FROM quotes ORDER BY id LIMIT 20`)
	if err != nil {
		b.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	var newIDs []string
	for _, id := range ids {
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
	c, uid := app.AsUser(auth.RoleAnalyst)
	golden := goldenOwnVersion(app, "golden")
	onAll := goldenOwnVersion(app, "always on")
	onAll.AlwaysOn, onAll.PowerIdleW, onAll.HostingMonthly = true, decimal.RequireFromString("80"), decimal.RequireFromString("300")
	eur := goldenOwnVersion(app, "EUR box")
	eur.Currency, eur.PurchasePrice = "EUR", decimal.RequireFromString("3200")
	eur.KWhPrice = decimal.NewNullDecimal(decimal.RequireFromString("0.25"))
	var owns []string
	for _, v := range []struct {
		v      own.Version
		shared bool
	}{{golden, false}, {onAll, false}, {eur, false}} {
		owns = append(owns, itoa(createOwn(app, uid, v.v, v.shared)))
	}
	q := url.Values{"profile.hours_per_month": {"300"}, "profile.months": {"12"}, "profile.instances": {"2"},
		"profile.egress_gb_per_month": {"500"}, "profile.snapshot_gb": {"100"}, "report_currency": {"CNY"}, "q": newIDs, "own": owns}
	req := httptest.NewRequest(http.MethodGet, "/compare?"+q.Encode(), nil)
	req.AddCookie(c.Cookie("gq_session"))
	h := app.Server.Handler()
	var durations []time.Duration
	var total time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		d := time.Since(start)
		durations = append(durations, d)
		total += d
		if w.Code != http.StatusOK || strings.Count(w.Body.String(), `data-testid="own-row-`) != 3 {
			b.Fatalf("status %d", w.Code)
		}
	}
	b.StopTimer()
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	b.ReportMetric(float64(durations[len(durations)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(total.Microseconds())/float64(len(durations)), "mean-µs")
}
