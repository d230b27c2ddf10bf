package server_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// someonesProfile saves a usage profile owned by a fresh analyst.
func someonesProfile(a *testutil.App) int64 {
	a.T.Helper()
	_, _, uid := a.CreateUser(auth.RoleAnalyst)
	return testfactory.UsageProfile(a.T, a.Store, uid, "profile "+itoa(uid),
		map[string]string{"profile.hours_per_month": "100", "profile.months": "1", "profile.instances": "1"})
}

// publishQuote publishes a one-GPU quote on the HOSTKEY fixture.
func publishQuote(a *testutil.App, currency, hourly, monthly string, lines []quote.Line) int64 {
	a.T.Helper()
	pid, gid := marketRefs(a)
	return testfactory.Published(a.T, a.Store, quote.Quote{PlatformID: pid, GPUModelID: gid, Currency: currency,
		Hourly: testfactory.ND(hourly), Monthly: testfactory.ND(monthly), Lines: lines, Label: currency + " " + hourly + "/" + monthly}).ID
}

func compareURL(hours string, ids ...int64) string {
	q := url.Values{"profile.hours_per_month": {hours}, "profile.months": {"1"}, "profile.instances": {"1"}, "report_currency": {"EUR"}}
	for _, id := range ids {
		q.Add("q", itoa(id))
	}
	return "/compare?" + q.Encode()
}

func TestCompareNoCandidatesAndOneCandidate(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	r := c.Get("/compare")
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="candidates-empty"`) || !strings.Contains(r.Body, `data-testid="compare-empty"`) {
		t.Fatalf("empty market: %d", r.StatusCode)
	}
	id := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	r = c.Get(compareURL("200", id))
	if r.StatusCode != http.StatusOK {
		t.Fatalf("one candidate: %d", r.StatusCode)
	}
	if !strings.Contains(r.Body, `data-testid="cand-`+itoa(id)+`"`) {
		t.Error("the quote is not a candidate")
	}
	if got := figure(t, r.Body, id, "tco"); got != "€70.00" { // monthly beats 200 h × 0.471
		t.Errorf("tco %q", got)
	}
	if got := figure(t, r.Body, id, "break-even"); got == "" {
		t.Error("no break-even hours")
	}
	if !resultRow(t, r.Body, id).Find(`[data-testid="tco"]`).HasClass("best") {
		t.Error("the only quote is the cheapest")
	}
}

func TestCompareMixedCurrenciesWithoutARate(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	eur := publishQuote(app, "EUR", "0.471", "", testfactory.AllIncluded())
	usd := publishQuote(app, "USD", "0.40", "", testfactory.AllIncluded())
	r := c.Get(compareURL("200", eur, usd))
	if r.StatusCode != http.StatusOK {
		t.Fatalf("status %d", r.StatusCode)
	}
	row := rowText(t, r.Body, usd)
	if !strings.Contains(row, "USD") || !strings.Contains(row, "EUR") || figure(t, r.Body, usd, "tco") != "" {
		t.Fatalf("USD quote without a rate must say so and show no converted figure: %s", row)
	}
	if figure(t, r.Body, eur, "tco") != "€94.20" {
		t.Fatal("the EUR quote is still priced")
	}
	// With a dated USD → EUR rate the USD quote is converted and the rate named.
	if _, err := app.Store.CreateFXRate(context.Background(), user.SystemActor, market.FXRate{Base: "USD", Quote: "EUR",
		Rate: decimal.RequireFromString("0.9"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	r = c.Get(compareURL("200", eur, usd))
	if figure(t, r.Body, usd, "tco") != "€72.00" || !strings.Contains(r.Body, "1 USD = 0.9 EUR") {
		t.Fatalf("converted: 0.40 × 200 × 0.9 = 72.00 expected with the rate named")
	}
}

func TestCompareAllUnconfirmedQuote(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleFinance)
	id := publishQuote(app, "EUR", "0.471", "", nil) // no line answered: all twelve unconfirmed
	if _, err := app.Store.CreateReferencePrice(context.Background(), user.SystemActor, market.ReferencePrice{Item: "egress",
		Currency: "EUR", Unit: "per_gb", UnitPrice: decimal.RequireFromString("0.05"), AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	u := compareURL("200", id) + "&profile.egress_gb_per_month=100"
	r := c.Get(u)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("status %d", r.StatusCode)
	}
	// Confirmed 94.20; pessimistic adds egress 100 GB × 0.05 = 5.00.
	if figure(t, r.Body, id, "tco") != "€94.20" || figure(t, r.Body, id, "tco-pessimistic") != "€99.20" {
		t.Fatal("confirmed / pessimistic TCO")
	}
	// The matrix is its own section, loaded when opened (docs/RULES.md §20.4).
	lines := between(sectionOf(t, c, r.Body, "lines"), `data-testid="compare-lines"`, "</table>")
	if strings.Count(lines, "status-unconfirmed") != 12 {
		t.Fatalf("want all twelve lines shown unconfirmed, got %d", strings.Count(lines, "status-unconfirmed"))
	}
	if !strings.Contains(r.Body, app.Catalog.Translator("zh-CN").T("flag.unconfirmed_lines")) {
		t.Fatal("the unconfirmed-lines risk is worded")
	}
}

func TestCompareProfileErrorsAndSavedProfiles(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	id := publishQuote(app, "EUR", "0.471", "", testfactory.AllIncluded())
	r := c.Get("/compare?profile.hours_per_month=999&profile.months=1&profile.instances=1&q=" + itoa(id))
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="compare-errors"`) || !strings.Contains(r.Body, `value="999"`) {
		t.Fatalf("bad hours: %d", r.StatusCode)
	}
	r = c.PostForm("/compare/profiles", url.Values{"name": {"试用 50 小时"}, "profile.hours_per_month": {"50"}, "profile.months": {"1"}, "profile.instances": {"1"}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", r.StatusCode)
	}
	page := c.Get(r.Header.Get("Location") + "&q=" + itoa(id))
	if !strings.Contains(page.Body, "试用 50 小时") || figure(t, page.Body, id, "tco") != "€23.55" {
		t.Fatal("the saved profile reloads and prices 50 h")
	}
	// Presets fill the profile.
	if r := c.Get("/compare?preset=training"); !strings.Contains(r.Body, `data-testid="vram-floor"`) {
		t.Fatal("the training preset names a VRAM floor")
	}
}

func TestCompareQuestionsPerQuote(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	id := publishQuote(app, "EUR", "0.471", "", nil) // nothing answered
	page := c.Get(compareURL("200", id) + "&profile.egress_gb_per_month=1500")
	link := between(page.Body, `data-testid="questions-`+itoa(id)+`"`, "</details>")
	href := between(link, `href="`, `"`)
	if href == "" {
		t.Fatal("no link to the questions")
	}
	r := c.Get(strings.ReplaceAll(href, "&amp;", "&"))
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="questions-text"`) || !strings.Contains(r.Body, "1,500") {
		t.Fatalf("questions page: %d (want the team's 1,500 GB egress in the questions)", r.StatusCode)
	}
	// htmx loads just the fragment.
	c.Header.Set("HX-Request", "true")
	if r := c.Get(strings.ReplaceAll(href, "&amp;", "&")); strings.Contains(r.Body, "<html") || !strings.Contains(r.Body, `class="qbody"`) {
		t.Fatal("htmx fragment")
	}
}

// TestLanguageSwitchKeepsTheComparison: the language switch returns to the
// page with its query, so a comparison (or a filtered list) is still on
// screen, now in the other language.
func TestLanguageSwitchKeepsTheComparison(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	a := publishQuote(app, "EUR", "0.471", "", testfactory.AllIncluded())
	b := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	c, _ := app.AsUser(auth.RoleAnalyst)
	page := compareURL("200", a, b)
	r := c.Get(page)
	next := regexp.MustCompile(`name="next" value="([^"]*)"`).FindStringSubmatch(r.Body)
	if next == nil || html.UnescapeString(next[1]) != page {
		t.Fatalf("the switch returns to %v, want %s", next, page)
	}
	sw := c.PostForm("/lang", url.Values{"lang": {"en"}, "next": {html.UnescapeString(next[1])}})
	if sw.StatusCode != http.StatusSeeOther || sw.Header.Get("Location") != page {
		t.Fatalf("switch: %d to %q", sw.StatusCode, sw.Header.Get("Location"))
	}
	back := c.Get(sw.Header.Get("Location"))
	if !strings.Contains(back.Body, `<html lang="en">`) || resultRow(t, back.Body, a).Length() != 1 ||
		resultRow(t, back.Body, b).Length() != 1 {
		t.Error("the comparison is not on screen in English after the switch")
	}
	// A filtered list too.
	if r := c.Get("/quotes?currency=EUR&q=4090"); !strings.Contains(r.Body, `value="/quotes?currency=EUR&amp;q=4090"`) {
		t.Error("the quote list's switch drops its filters")
	}
}

// TestCompareFreshnessBeyondDates: a freshness filter of more days than
// PostgreSQL's dates span filters nothing instead of failing the page.
func TestCompareFreshnessBeyondDates(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	for _, days := range []string{"36500", "36501", "2147483647", "2147483648"} {
		if r := c.Get("/compare?fresh=" + days); r.StatusCode != http.StatusOK {
			t.Errorf("fresh=%s: %d", days, r.StatusCode)
		}
	}
}
