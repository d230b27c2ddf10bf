package server_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// benchReport saves a report comparing 20 quotes in three currencies, each
// with all twelve hidden-cost lines answered (several charged, one
// unconfirmed with a reference price), and returns the app, a signed-in
// client and the report id.
func benchReport(b *testing.B) (*testutil.App, *testutil.Client, int64) {
	b.Helper()
	app := testutil.NewApp(b)
	seedVolume(b, app, 20)
	ctx := context.Background()
	if _, err := app.Store.Pool().Exec(ctx, `
		INSERT INTO fx_rates (base_currency, quote_currency, rate, as_of, source) VALUES
		  ('EUR', 'CNY', 7.8, '2026-11-01', 'bench'), ('USD', 'CNY', 7.1, '2026-11-01', 'bench');
		INSERT INTO reference_prices (item, currency, unit, unit_price, as_of, source) VALUES
		  ('snapshot', 'CNY', 'per_month', 0.1, '2026-11-01', 'bench'), ('snapshot', 'EUR', 'per_month', 0.02, '2026-11-01', 'bench'),
		  ('snapshot', 'USD', 'per_month', 0.02, '2026-11-01', 'bench')`); err != nil {
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
	price := func(s string) decimal.NullDecimal { return decimal.NewNullDecimal(decimal.RequireFromString(s)) }
	q := url.Values{"title": {"20 家报价对比"}, "purpose": {"基准测试"}, "profile.hours_per_month": {"300"}, "profile.months": {"12"},
		"profile.instances": {"2"}, "profile.egress_gb_per_month": {"500"}, "profile.snapshot_gb": {"100"},
		"profile.data_disk_gb": {"500"}, "profile.public_ips": {"1"}, "profile.migration_gb": {"200"}, "report_currency": {"CNY"}}
	for _, id := range ids {
		src, err := app.Store.QuoteByID(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		src.Lines = testfactory.AllIncluded()
		src.Lines[1] = quote.Line{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: price("0.5"), InWriting: true}
		src.Lines[2] = quote.Line{Item: "data_migration", Status: "charged", Unit: "per_gb", UnitPrice: price("0.3"), InWriting: true}
		src.Lines[3] = quote.Line{Item: "public_ip", Status: "charged", Unit: "per_month", UnitPrice: price("15"), InWriting: true}
		src.Lines[5] = quote.Line{Item: "data_disk", Status: "charged", Unit: "per_month", UnitPrice: price("0.35"), InWriting: true}
		src.Lines[8] = quote.Line{Item: "snapshot", Status: "unconfirmed"}
		d, err := app.Store.CreateQuoteDraft(ctx, user.SystemActor, src)
		if err != nil {
			b.Fatal(err)
		}
		p, err := app.Store.PublishQuote(ctx, user.SystemActor, d.ID, d.LockVersion)
		if err != nil {
			b.Fatal(err)
		}
		q.Add("q", strconv.FormatInt(p.ID, 10))
	}
	c, _ := app.AsUser(auth.RoleAnalyst)
	r := c.PostForm("/reports", q)
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		b.Fatalf("save report: %d", r.StatusCode)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return app, c, id
}

// BenchmarkReportExport measures exporting a report of 20 quotes × 12
// lines: the CSV and XLSX downloads through the real handler (session,
// database read of the snapshot, layout, file), and the file generation
// alone from a decoded snapshot.
func BenchmarkReportExport(b *testing.B) {
	app, c, id := benchReport(b)
	raw, err := app.Store.ReportSnapshot(context.Background(), id)
	if err != nil {
		b.Fatal(err)
	}
	var snap report.Snapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		b.Fatal(err)
	}
	if len(snap.Rows) != 20 || len(snap.Rows[0].Result.Lines) != 12 {
		b.Fatalf("want 20 priced quotes of 12 lines, got %d", len(snap.Rows))
	}
	tr := app.Catalog.Translator("zh-CN")
	name := func(row report.Row) string {
		return row.Quote.PlatformNameZH + " · " + row.GPU.Vendor + " " + row.GPU.Name + " × " + strconv.Itoa(row.Quote.GPUCount)
	}
	h := app.Server.Handler()
	for _, bc := range []struct {
		name, path string
		write      func(io.Writer, report.Document) error
	}{
		{"csv", "/export.csv", report.WriteCSV},
		{"xlsx", "/export.xlsx", report.WriteXLSX},
	} {
		b.Run(bc.name+"/generate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				doc := report.BuildDocument(snap, nil, tr.TMap, name)
				if err := bc.write(io.Discard, doc); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(raw)), "snapshot-bytes")
		})
		b.Run(bc.name+"/handler", func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, "/reports/"+itoa(id)+bc.path, nil)
			req.AddCookie(c.Cookie("gq_session"))
			serveLoop(b, h, req, "file-bytes")
		})
	}
}

// BenchmarkReportView measures a saved 20-quote report's page through the
// server's handler, compressed as a browser asks for it: what a reader
// opening the report costs the server once its parts are kept.
func BenchmarkReportView(b *testing.B) {
	app, c, id := benchReport(b)
	h := app.Server.Handler()
	req := httptest.NewRequest(http.MethodGet, "/reports/"+itoa(id), nil)
	req.AddCookie(c.Cookie("gq_session"))
	req.Header.Set("Accept-Encoding", "gzip")
	serveLoop(b, h, req, "gzip-bytes")
}

// serveLoop serves req through h for the benchmark's loop, each answer
// 200, and reports the last answer's size as the metric named.
func serveLoop(b *testing.B, h http.Handler, req *http.Request, metric string) {
	b.ReportAllocs()
	var size int
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d", w.Code)
		}
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size), metric)
}
