package server_test

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// histPublish publishes a new version of prev (or a new series when prev
// is zero) dated asOf with the given prices.
func histPublish(t *testing.T, a *testutil.App, prev quote.Quote, base quote.Quote, asOf, hourly, monthly string) quote.Quote {
	t.Helper()
	set := func(q *quote.Quote) {
		q.AsOf, _ = time.Parse(time.DateOnly, asOf)
		q.Hourly, q.Monthly = testfactory.ND(hourly), testfactory.ND(monthly)
	}
	if prev.ID == 0 {
		set(&base)
		return testfactory.Published(t, a.Store, base)
	}
	return testfactory.NextVersion(t, a.Store, prev.ID, set)
}

// svgs returns the inline charts of a page, each checked to be
// well-formed XML.
func svgs(t *testing.T, body string) []string {
	t.Helper()
	out := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(body, -1)
	for _, s := range out {
		dec := xml.NewDecoder(strings.NewReader(s))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("chart is not well-formed: %v\n%s", err, s)
			}
		}
	}
	return out
}

func TestPriceHistoryPage(t *testing.T) {
	t.Parallel()
	app := csvApp(t) // today 2026-12-02
	zhOnly, _, gpu := csvRefs(t, app)
	base := quote.Quote{PlatformID: zhOnly, GPUModelID: gpu, Label: "4090 单卡", GPUCount: 1, Sharing: "dedicated",
		Currency: "CNY", BillingGranularity: "second", PricesIncludeTax: true, TaxRate: decimal.Zero, Source: "https://example.test/p"}
	v1 := histPublish(t, app, quote.Quote{}, base, "2026-03-01", "2.00", "1000")
	v2 := histPublish(t, app, v1, base, "2026-05-01", "2.60", "1300") // exactly +30 %: no jump
	v3 := histPublish(t, app, v2, base, "2026-08-01", "3.50", "1300") // hourly +34.6 %: a jump; current and stale
	usd := base
	usd.Currency, usd.Source = "USD", "written answer"
	u1 := histPublish(t, app, quote.Quote{}, usd, "2026-11-30", "0.5", "")

	analyst, _ := app.AsUser(auth.RoleAnalyst)
	analyst.Header.Set("Accept-Language", "en")
	en := app.Catalog.Translator("en")
	path := "/history?platform=" + itoa(zhOnly) + "&gpu=" + itoa(gpu)
	res := analyst.Get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	for _, id := range []int64{v1.ID, v2.ID, v3.ID, u1.ID} {
		if !strings.Contains(res.Body, `data-testid="sample-`+itoa(id)+`"`) {
			t.Errorf("sample %d missing", id)
		}
	}
	// Newest first in the table.
	if strings.Index(res.Body, `sample-`+itoa(u1.ID)) > strings.Index(res.Body, `sample-`+itoa(v1.ID)) {
		t.Error("table is not newest first")
	}
	row := func(id int64) string {
		i := strings.Index(res.Body, `data-testid="sample-`+itoa(id)+`"`)
		j := strings.Index(res.Body[i:], "</tr>")
		return res.Body[i : i+j]
	}
	if r := row(v3.ID); !strings.Contains(r, `data-testid="jump"`) || !strings.Contains(r, `data-testid="stale"`) ||
		!strings.Contains(r, en.T("history.change.hourly", "Change", "+34.6 %")) {
		t.Errorf("v3 row: %s", r)
	}
	if r := row(v2.ID); strings.Contains(r, `data-testid="jump"`) || strings.Contains(r, `data-testid="stale"`) {
		t.Errorf("v2 (exactly 30 %%, archived) row: %s", r)
	}
	if r := row(u1.ID); strings.Contains(r, `data-testid="stale"`) || strings.Contains(r, "<a href=\"written") {
		t.Errorf("fresh USD row: %s", r)
	}
	if !strings.Contains(row(v1.ID), `href="https://example.test/p"`) {
		t.Error("source link missing")
	}
	// Two currencies: a note, and charts per currency, never converted.
	if !strings.Contains(res.Body, `data-testid="history-currencies"`) ||
		!strings.Contains(res.Body, `data-testid="history-charts-CNY"`) || !strings.Contains(res.Body, `data-testid="history-charts-USD"`) {
		t.Error("mixed currencies are not kept apart")
	}
	charts := svgs(t, res.Body)
	// CNY hourly, CNY monthly, USD hourly (USD has no monthly price).
	if len(charts) != 3 || !strings.Contains(res.Body, en.T("history.chart.no_monthly")) {
		t.Fatalf("%d charts", len(charts))
	}
	if !strings.Contains(charts[0], `<title id="chart-hourly-CNY-title">`) || strings.Count(charts[0], "<circle") != 3 ||
		strings.Count(charts[1], "<circle") != 3 || strings.Count(charts[2], "<circle") != 1 {
		t.Errorf("charts: %v", charts)
	}
	if strings.Contains(res.Body, " style=") || strings.Contains(res.Body, "<style") {
		t.Error("inline style on the page; the CSP forbids it")
	}

	// The chooser, the empty state and unknown ids.
	if res := analyst.Get("/history"); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, `data-testid="history-chooser"`) {
		t.Errorf("chooser: %d", res.StatusCode)
	}
	if res := analyst.Get("/history?platform=" + itoa(histPlatform(t, app)) + "&gpu=" + itoa(gpu)); res.StatusCode != http.StatusOK ||
		!strings.Contains(res.Body, `data-testid="history-empty"`) {
		t.Errorf("empty history: %d", res.StatusCode)
	}
	for _, p := range []string{"/history?platform=999999&gpu=" + itoa(gpu), "/history?platform=x&gpu=1"} {
		if res := analyst.Get(p); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, res.StatusCode)
		}
	}
}

// histPlatform adds a platform without quotes.
func histPlatform(t *testing.T, a *testutil.App) int64 {
	t.Helper()
	var id int64
	if err := a.Store.Pool().QueryRow(context.Background(), `INSERT INTO platforms (name_en, currency) VALUES ('Empty Host', 'USD') RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestDashboardListsStaleQuotesAndJumps(t *testing.T) {
	t.Parallel()
	app := csvApp(t) // today 2026-12-02: stale means dated before 2026-09-03
	zhOnly, _, gpu := csvRefs(t, app)
	base := quote.Quote{PlatformID: zhOnly, GPUModelID: gpu, GPUCount: 1, Sharing: "dedicated",
		Currency: "CNY", BillingGranularity: "second", PricesIncludeTax: true, TaxRate: decimal.Zero, Source: "x"}
	old := histPublish(t, app, quote.Quote{}, base, "2026-01-15", "2", "")
	edge := histPublish(t, app, quote.Quote{}, base, "2026-09-03", "2", "") // exactly 90 days: not stale
	older := histPublish(t, app, quote.Quote{}, base, "2025-12-01", "2", "")
	a1 := histPublish(t, app, quote.Quote{}, base, "2026-10-01", "", "1000")
	jump := histPublish(t, app, a1, base, "2026-11-01", "", "600") // −40 %

	editor, _ := app.AsUser(auth.RoleEditor)
	res := editor.Get("/dashboard")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if !strings.Contains(res.Body, `data-testid="count-stale">2<`) || !strings.Contains(res.Body, `data-testid="count-jumps">1<`) ||
		!strings.Contains(res.Body, `data-testid="count-published">4<`) {
		t.Errorf("counts: %s", res.Body[strings.Index(res.Body, "dashboard-counts"):][:600])
	}
	iOlder, iOld := strings.Index(res.Body, `data-testid="stale-`+itoa(older.ID)+`"`), strings.Index(res.Body, `data-testid="stale-`+itoa(old.ID)+`"`)
	if iOlder < 0 || iOld < 0 || iOlder > iOld || strings.Contains(res.Body, `data-testid="stale-`+itoa(edge.ID)+`"`) {
		t.Errorf("stale list: oldest first, without the 90-day edge (%d, %d)", iOlder, iOld)
	}
	i := strings.Index(res.Body, `data-testid="jump-`+itoa(jump.ID)+`"`)
	if i < 0 {
		t.Fatal("jump missing")
	}
	r := res.Body[i : i+strings.Index(res.Body[i:], "</tr>")]
	zh := app.Catalog.Translator("zh-CN")
	if !strings.Contains(r, `href="/quotes/`+itoa(jump.ID)+`"`) || !strings.Contains(r, `href="/quotes/`+itoa(a1.ID)+`"`) ||
		!strings.Contains(r, `/history?platform=`+itoa(zhOnly)+`&amp;gpu=`+itoa(gpu)) || !strings.Contains(r, zh.T("history.change.monthly", "Change", "-40.0%")) {
		t.Errorf("jump row: %s", r)
	}
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	if res := analyst.Get("/dashboard"); res.StatusCode != http.StatusForbidden {
		t.Errorf("analyst: %d", res.StatusCode)
	}
}
