package server_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// compareCacheUse reads the comparison cache's figures from the app's
// metrics: entries kept, hits and misses.
func compareCacheUse(t *testing.T, app *testutil.App) (entries, hits, misses int) {
	t.Helper()
	w := httptest.NewRecorder()
	app.Server.MetricsHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	sc := bufio.NewScanner(w.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		n, _ := strconv.ParseFloat(value, 64)
		switch name {
		case "gpuquote_compare_cache_entries":
			entries = int(n)
		case "gpuquote_compare_cache_hits_total":
			hits = int(n)
		case "gpuquote_compare_cache_misses_total":
			misses = int(n)
		}
	}
	return entries, hits, misses
}

// TestCompareCacheSameBytesAndNeverStale: the compare page of a server
// keeping priced comparisons is byte for byte the page of a server on the
// same database keeping none, before and after each kind of input changes;
// each change is priced anew (a miss), the same state asked again is not
// (a hit), and the language is not part of what is kept
// (docs/RULES.md §20.1).
func TestCompareCacheSameBytesAndNeverStale(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	// Sessions outlive the clock's jump to another day.
	opts := func(d *server.Deps) {
		d.Now, d.Config.SessionIdle, d.Config.SessionMax = clock.Now, 200*24*time.Hour, 200*24*time.Hour
	}
	app := testutil.NewApp(t, opts, func(d *server.Deps) { d.Config.CompareCache = 16 })
	off := testutil.NewAppOn(t, app.Store, opts, func(d *server.Deps) { d.Config.CompareCache = 0 })
	ctx := context.Background()
	_, editor := app.AsUser(auth.RoleEditor)
	ed := user.Actor{UserID: editor}

	lines := testfactory.AllIncluded()
	lines[1] = quote.Line{Item: "egress", Status: "unconfirmed"}
	eur := publishQuote(app, "EUR", "0.5", "", lines)
	usd := publishQuote(app, "USD", "0.6", "", lines)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	rate := func(base, quote, r string, on time.Time) {
		t.Helper()
		if _, err := app.Store.CreateFXRate(ctx, ed, market.FXRate{Base: base, Quote: quote, Rate: decimal.RequireFromString(r),
			AsOf: on, Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	reference := func(price string, on time.Time) {
		t.Helper()
		if _, err := app.Store.CreateReferencePrice(ctx, ed, market.ReferencePrice{Item: "egress", Currency: "EUR", Unit: "per_gb",
			UnitPrice: decimal.RequireFromString(price), AsOf: on, Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	rate("USD", "EUR", "0.9", day(1))
	rate("CNY", "EUR", "0.13", day(1))
	reference("0.05", day(1))
	c, uid := app.AsUser(auth.RoleAnalyst)
	ownID := createOwn(app, uid, goldenOwnVersion(app, "box"), false)

	state := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"12"}, "profile.instances": {"1"},
		"profile.egress_gb_per_month": {"100"}, "profile.task": {"inference"}, "profile.params_billions": {"7"},
		"report_currency": {"EUR"}, "q": {itoa(eur), itoa(usd)}, "own": {itoa(ownID)}}
	var last string
	// page asks for the state on both servers and compares them; miss says
	// whether the keeping server must price it anew.
	page := func(step string, miss bool) string {
		t.Helper()
		_, hits, misses := compareCacheUse(t, app)
		path := "/compare?" + state.Encode()
		kept := c.Get(path)
		fresh := c.On(off).Get(path)
		if kept.StatusCode != http.StatusOK || !strings.Contains(kept.Body, `data-testid="row-`) {
			t.Fatalf("%s: status %d", step, kept.StatusCode)
		}
		if kept.Body != fresh.Body {
			t.Fatalf("%s: the page with the cache differs from the page without:\n%s", step, firstDifference(kept.Body, fresh.Body))
		}
		_, hits2, misses2 := compareCacheUse(t, app)
		if miss && (misses2 != misses+1 || hits2 != hits) || !miss && (hits2 != hits+1 || misses2 != misses) {
			t.Fatalf("%s: hits %d → %d, misses %d → %d (a miss: %v)", step, hits, hits2, misses, misses2, miss)
		}
		// Asked again, its charts (own hardware's lines among them) are
		// the ones kept with it: none is drawn (docs/RULES.md §20.4).
		drawn := chartsDrawn(t, app)
		if again := c.Get(path); again.Body != kept.Body {
			t.Fatalf("%s: asked again, the kept page differs", step)
		}
		if n := chartsDrawn(t, app) - drawn; n != 0 {
			t.Fatalf("%s: asked again, the charts were drawn %d times", step, n)
		}
		if _, hits3, _ := compareCacheUse(t, app); hits3 != hits2+1 {
			t.Fatalf("%s: the same state again was priced anew", step)
		}
		if miss && kept.Body == last {
			t.Errorf("%s: the change shows nothing: the step tests nothing", step)
		}
		last = kept.Body
		return kept.Body
	}

	page("first", true)

	rate("USD", "EUR", "0.95", day(15))
	page("a new exchange rate sample", true)

	reference("0.07", day(15))
	page("a new reference price sample", true)

	_, gid := marketRefs(app)
	g, err := app.Store.GPUModelByID(ctx, gid)
	if err != nil {
		t.Fatal(err)
	}
	g.VRAMGB = decimal.RequireFromString("8")
	if _, err := app.Store.UpdateGPUModel(ctx, ed, g); err != nil {
		t.Fatal(err)
	}
	page("a GPU model edited in place", true)

	draft, err := app.Store.NewQuoteVersion(ctx, ed, eur)
	if err != nil {
		t.Fatal(err)
	}
	draft.Hourly = decimal.NewNullDecimal(decimal.RequireFromString("0.45"))
	if draft, err = app.Store.UpdateQuoteDraft(ctx, ed, draft); err != nil {
		t.Fatal(err)
	}
	next, err := app.Store.PublishQuote(ctx, ed, draft.ID, draft.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	// The old link still shows the archived version, which is kept.
	page("the old version, now archived", false)
	state["q"] = []string{itoa(next.ID), itoa(usd)}
	page("the new published version", true)

	v := goldenOwnVersion(app, "box")
	v.PurchasePrice = decimal.RequireFromString("21000")
	o, err := app.Store.NewOwnOptionVersion(ctx, user.Actor{UserID: uid}, ownOptionOf(t, app, ownID), 1, v)
	if err != nil {
		t.Fatal(err)
	}
	state["own"] = []string{itoa(o.Current.ID)}
	page("an own option's new version", true)

	state.Set("profile.hours_per_month", "300")
	page("a profile field", true)

	state.Set("b.profile.months", "24")
	page("scenario B", true)

	state.Set("sort", "pessimistic")
	state.Set("dir", "desc")
	page("the sort order", true)

	state.Set("report_currency", "CNY")
	rate("USD", "CNY", "7.1", day(1))
	rate("EUR", "CNY", "7.8", day(1))
	page("the report currency", true)

	clock.Advance(100 * 24 * time.Hour)
	page("another day", true)

	c.Header.Set("Accept-Language", "en")
	en := page("the same state in English", false)
	if !strings.Contains(en, `lang="en"`) {
		t.Error("the English page is not in English")
	}
}

// ownOptionOf is the option id of own-hardware version id.
func ownOptionOf(t *testing.T, app *testutil.App, versionID int64) int64 {
	t.Helper()
	v, err := app.Store.OwnOptionVersionByID(context.Background(), versionID)
	if err != nil {
		t.Fatal(err)
	}
	return v.OptionID
}

// firstDifference shows where two pages first differ.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-120)
	return "with:    …" + a[from:min(len(a), i+120)] + "\nwithout: …" + b[from:min(len(b), i+120)]
}

// BenchmarkComparePage20Off is BenchmarkComparePage20 with no comparison
// kept: the engine prices every request (docs/RULES.md §20.1).
func BenchmarkComparePage20Off(b *testing.B) {
	h, req := setupComparePage20(b, func(d *server.Deps) { d.Config.CompareCache = 0 })
	measureComparePage(b, h, func(int) *http.Request { return req })
}

// BenchmarkComparePage20Miss keeps comparisons but asks for a new one each
// time (730 hours per month in turn, more than the cache holds): every
// request is priced, keyed and kept.
func BenchmarkComparePage20Miss(b *testing.B) {
	h, req := setupComparePage20(b)
	measureComparePage(b, h, func(i int) *http.Request {
		q := req.URL.Query()
		q.Set("profile.hours_per_month", strconv.Itoa(1+i%730))
		r := req.Clone(context.Background())
		r.URL.RawQuery = q.Encode()
		r.RequestURI = r.URL.RequestURI()
		return r
	})
}

// BenchmarkComparePage20Warm asks for the same comparison each time: after
// the first request its priced figures are kept.
func BenchmarkComparePage20Warm(b *testing.B) {
	h, req := setupComparePage20(b)
	measureComparePage(b, h, func(int) *http.Request { return req })
}
