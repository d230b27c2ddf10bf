package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/avail"
	"gpuquote/internal/market"
	proposalpkg "gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// mktPage is a list answer of the data API, items left raw.
type mktPage struct {
	Items      []json.RawMessage `json:"items"`
	NextCursor string            `json:"next_cursor"`
}

// mktErrors is the error shape.
type mktErrors struct {
	Errors []struct{ Field, Code, Message string } `json:"errors"`
}

// mktGet sends GET path with the token and wants status; it returns the
// answer (validated against the description by apiCall).
func mktGet(t *testing.T, app *testutil.App, path, token string, status int, header ...string) *testutil.Response {
	t.Helper()
	r := apiCall(t, app, http.MethodGet, path, token, "", header...)
	if r.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %.400s", path, r.StatusCode, status, r.Body)
	}
	return r
}

func mktDecode[T any](t *testing.T, r *testutil.Response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.Body), &v); err != nil {
		t.Fatalf("decode %.200s: %v", r.Body, err)
	}
	return v
}

// mktIDs are the ids of a page's items.
func mktIDs(t *testing.T, p mktPage) []int64 {
	t.Helper()
	out := make([]int64, 0, len(p.Items))
	for _, it := range p.Items {
		var v struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(it, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v.ID)
	}
	return out
}

// mktWalk follows next_cursor from path (which has a query already) and
// returns every id and the number of pages.
func mktWalk(t *testing.T, app *testutil.App, path, token string) (ids []int64, pages int) {
	t.Helper()
	cursor := ""
	for {
		p := path
		if cursor != "" {
			p += "&cursor=" + url.QueryEscape(cursor)
		}
		page := mktDecode[mktPage](t, mktGet(t, app, p, token, http.StatusOK))
		pages++
		ids = append(ids, mktIDs(t, page)...)
		if page.NextCursor == "" {
			return ids, pages
		}
		cursor = page.NextCursor
		if pages > 1000 {
			t.Fatal("the cursor never ends")
		}
	}
}

// mktWantError checks an error answer names field and code, and returns
// its message.
func mktWantError(t *testing.T, r *testutil.Response, field, code string) string {
	t.Helper()
	e := mktDecode[mktErrors](t, r)
	if len(e.Errors) != 1 || e.Errors[0].Field != field || e.Errors[0].Code != code || e.Errors[0].Message == "" {
		t.Fatalf("errors %+v, want field %q code %q", e.Errors, field, code)
	}
	return e.Errors[0].Message
}

// TestAPIMarketPlatformsAndGPUs: the platform and GPU lists page by cursor
// in the pages' name order, each record reads by id, an unknown id is 404
// in the request's language, and bad filters, limits and cursors are 400.
func TestAPIMarketPlatformsAndGPUs(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	var platforms, gpus []int64
	for range 5 {
		platforms = append(platforms, testfactory.Platform(app.T, app.Store, market.Platform{}).ID)
		gpus = append(gpus, testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID)
	}
	ctx := context.Background()
	allP, err := app.Store.AllPlatforms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	allG, err := app.Store.AllGPUModels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var wantP, wantG []int64
	for _, p := range allP {
		wantP = append(wantP, p.ID)
	}
	for _, g := range allG {
		wantG = append(wantG, g.ID)
	}
	ids, pages := mktWalk(t, app, "/api/v1/platforms?limit=2", token)
	if !slices.Equal(ids, wantP) || pages != (len(wantP)+1)/2 {
		t.Errorf("platforms by cursor %v in %d pages, want %v", ids, pages, wantP)
	}
	ids, _ = mktWalk(t, app, "/api/v1/gpus?limit=3", token)
	if !slices.Equal(ids, wantG) {
		t.Errorf("gpus by cursor %v, want %v", ids, wantG)
	}
	// A search narrows the list.
	p0, err := app.Store.PlatformByID(ctx, platforms[0])
	if err != nil {
		t.Fatal(err)
	}
	ids, _ = mktWalk(t, app, "/api/v1/platforms?q="+url.QueryEscape(p0.NameEN), token)
	if !slices.Contains(ids, platforms[0]) || len(ids) >= len(wantP) {
		t.Errorf("search %q: %v", p0.NameEN, ids)
	}

	got := mktDecode[map[string]any](t, mktGet(t, app, fmt.Sprintf("/api/v1/platforms/%d", platforms[0]), token, http.StatusOK))
	if got["name_en"] != p0.NameEN || got["currency"] != "CNY" {
		t.Errorf("platform: %v", got)
	}
	if _, leaked := got["lock_version"]; leaked {
		t.Error("the platform shows its lock version")
	}
	g := mktDecode[map[string]any](t, mktGet(t, app, fmt.Sprintf("/api/v1/gpus/%d", gpus[0]), token, http.StatusOK))
	if g["vram_gb"] != "24" || len(g["perf"].([]any)) != 1 || g["perf"].([]any)[0].(map[string]any)["nominal_tflops"] != "82.6" {
		t.Errorf("gpu: %v", g)
	}

	// 404 in the error shape, in the request's language.
	zh := mktWantError(t, mktGet(t, app, "/api/v1/platforms/999999", token, http.StatusNotFound), "", "not_found")
	en := mktWantError(t, mktGet(t, app, "/api/v1/gpus/999999", token, http.StatusNotFound, "Accept-Language", "en"), "", "not_found")
	if zh == en {
		t.Errorf("the same message in both languages: %q", zh)
	}
	// Limits, filters and cursors.
	first := mktDecode[mktPage](t, mktGet(t, app, "/api/v1/platforms?limit=2", token, http.StatusOK))
	for _, bad := range []struct{ path, field, code string }{
		{"/api/v1/platforms?limit=0", "limit", "api.error.limit"},
		{"/api/v1/gpus?limit=201", "limit", "api.error.limit"},
		{"/api/v1/platforms?qual=bogus", "qual", "api.market.error.choice"},
		{"/api/v1/gpus?interconnect=bogus", "interconnect", "api.market.error.choice"},
		{"/api/v1/platforms?cursor=not-a-cursor", "cursor", "api.error.cursor"},
		{"/api/v1/platforms?q=Test&cursor=" + first.NextCursor, "cursor", "api.error.cursor"},
		{"/api/v1/gpus?cursor=" + first.NextCursor, "cursor", "api.error.cursor"},
	} {
		mktWantError(t, mktGet(t, app, bad.path, token, http.StatusBadRequest), bad.field, bad.code)
	}
	en = mktWantError(t, mktGet(t, app, "/api/v1/platforms?limit=x", token, http.StatusBadRequest, "Accept-Language", "en"), "limit", "api.error.limit")
	if !strings.Contains(en, "200") || strings.ContainsAny(en, "整数") {
		t.Errorf("english limit message %q", en)
	}
}

// TestAPIMarketQuoteReading: one quote version reads with its twelve
// lines in the table's order as quote.MayRead allows (drafts editors only,
// a proposal its author and editors), else 404; its versions list the
// price history the reader may read, oldest first, paged by cursor.
func TestAPIMarketQuoteReading(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	analyst, analystID := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	other, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	editor, _ := apiToken(t, app, auth.RoleEditor, user.ScopeRead)
	lines := testfactory.AllIncluded()
	slices.Reverse(lines)
	v1 := publishQuote(app, "EUR", "0.471", "284", lines)
	d2, err := app.Store.NewQuoteVersion(ctx, user.SystemActor, v1)
	if err != nil {
		t.Fatal(err)
	}
	v2, err := app.Store.PublishQuote(ctx, user.SystemActor, d2.ID, d2.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	d3, err := app.Store.NewQuoteVersion(ctx, user.SystemActor, v2.ID)
	if err != nil {
		t.Fatal(err)
	}
	pid, gid := marketRefs(app)
	proposal, err := app.Store.CreateProposal(ctx, user.Actor{UserID: analystID, Email: "a@example.test"}, quote.Quote{
		PlatformID: pid, GPUModelID: gid, GPUCount: 1, Sharing: "dedicated", Currency: "EUR",
		Monthly: decimal.NewNullDecimal(decimal.RequireFromString("300")), PricesIncludeTax: true,
		AsOf: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), Source: "vendor mail"}, "please list us", nil, proposalpkg.Quota{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	q := mktDecode[map[string]any](t, mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d", v1), analyst, http.StatusOK))
	if q["state"] != "archived" || q["hourly"] != "0.471" || q["as_of"] != "2026-11-20" || q["version"] != 1.0 {
		t.Errorf("v1: %v", q)
	}
	var items []string
	for _, l := range q["lines"].([]any) {
		items = append(items, l.(map[string]any)["item"].(string))
	}
	if len(items) != 12 || items[0] != "bandwidth" || items[11] != "start_stop_schedule" {
		t.Errorf("lines not in the table's order: %v", items)
	}
	for _, k := range []string{"lock_version", "created_by", "updated_by"} {
		if _, leaked := q[k]; leaked {
			t.Errorf("the quote shows %s", k)
		}
	}
	mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d", d3.ID), analyst, http.StatusNotFound)
	mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d", d3.ID), editor, http.StatusOK)
	mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d", proposal.ID), analyst, http.StatusOK)
	mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d", proposal.ID), other, http.StatusNotFound)
	mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d", proposal.ID), editor, http.StatusOK)
	zh := mktWantError(t, mktGet(t, app, "/api/v1/quotes/999999", analyst, http.StatusNotFound), "", "not_found")
	en := mktWantError(t, mktGet(t, app, "/api/v1/quotes/999999", analyst, http.StatusNotFound, "Accept-Language", "en"), "", "not_found")
	if zh == en {
		t.Errorf("the same message in both languages: %q", zh)
	}

	// The price history: what each reader may read, oldest first.
	ids, _ := mktWalk(t, app, fmt.Sprintf("/api/v1/quotes/%d/versions?limit=1", v2.ID), analyst)
	if !slices.Equal(ids, []int64{v1, v2.ID}) {
		t.Errorf("analyst's versions %v, want %v", ids, []int64{v1, v2.ID})
	}
	ids, pages := mktWalk(t, app, fmt.Sprintf("/api/v1/quotes/%d/versions?limit=2", v1), editor)
	if !slices.Equal(ids, []int64{v1, v2.ID, d3.ID}) || pages != 2 {
		t.Errorf("editor's versions %v in %d pages", ids, pages)
	}
	mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d/versions", d3.ID), analyst, http.StatusNotFound)
	page := mktDecode[mktPage](t, mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d/versions?limit=1", v1), analyst, http.StatusOK))
	mktWantError(t, mktGet(t, app, fmt.Sprintf("/api/v1/quotes/%d/versions?cursor=%s", proposal.ID, page.NextCursor), analyst,
		http.StatusBadRequest), "cursor", "api.error.cursor")
}

// TestAPIMarketQuoteFilters: the list's filters are the page's, drafts
// are for editors only, and a cursor is bound to the filters it was made
// with.
func TestAPIMarketQuoteFilters(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	analyst, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	editor, _ := apiToken(t, app, auth.RoleEditor, user.ScopeRead)
	eur := []int64{publishQuote(app, "EUR", "0.4", "", nil), publishQuote(app, "EUR", "0.5", "", nil), publishQuote(app, "EUR", "0.6", "", nil)}
	usd := publishQuote(app, "USD", "0.7", "", nil)
	draft := draftQuote(app)
	other := testfactory.Platform(app.T, app.Store, market.Platform{})
	ids, _ := mktWalk(t, app, "/api/v1/quotes?currency=eur&limit=2", analyst)
	slices.Reverse(eur) // same as_of: newest id first
	if !slices.Equal(ids, eur) {
		t.Errorf("EUR quotes %v, want %v", ids, eur)
	}
	ids, _ = mktWalk(t, app, "/api/v1/quotes?state=draft", analyst)
	if slices.Contains(ids, draft.ID) || !slices.Contains(ids, usd) {
		t.Errorf("an analyst's state=draft listed %v", ids)
	}
	ids, _ = mktWalk(t, app, "/api/v1/quotes?state=draft", editor)
	if !slices.Equal(ids, []int64{draft.ID}) {
		t.Errorf("an editor's drafts %v", ids)
	}
	ids, _ = mktWalk(t, app, fmt.Sprintf("/api/v1/quotes?platform=%d", other.ID), analyst)
	if len(ids) != 0 {
		t.Errorf("quotes of a platform without any: %v", ids)
	}
	first := mktDecode[mktPage](t, mktGet(t, app, "/api/v1/quotes?currency=EUR&limit=1", analyst, http.StatusOK))
	if first.NextCursor == "" {
		t.Fatal("no next cursor")
	}
	s := mktDecode[map[string]any](t, &testutil.Response{Body: string(first.Items[0])})
	for _, k := range []string{"billing_granularity", "published_at", "platform_name_en", "gpu_name", "source"} {
		if s[k] == nil || s[k] == "" {
			t.Errorf("summary without %s: %v", k, s)
		}
	}
	mktGet(t, app, "/api/v1/quotes?currency=EUR&limit=1&cursor="+first.NextCursor, analyst, http.StatusOK)
	for _, bad := range []struct{ path, field, code string }{
		{"/api/v1/quotes?currency=USD&cursor=" + first.NextCursor, "cursor", "api.error.cursor"},
		{"/api/v1/quotes?cursor=" + first.NextCursor, "cursor", "api.error.cursor"},
		{"/api/v1/quotes?cursor=eyJhIjoiMjAyNi0xMS0yMCIsImkiOjEsImYiOiJ4In0", "cursor", "api.error.cursor"},
		{"/api/v1/quotes?platform=abc", "platform", "api.market.error.id"},
		{"/api/v1/quotes?currency=EURO", "currency", "api.market.error.currency"},
		{"/api/v1/quotes?limit=500", "limit", "api.error.limit"},
	} {
		mktWantError(t, mktGet(t, app, bad.path, analyst, http.StatusBadRequest), bad.field, bad.code)
	}
	en := mktWantError(t, mktGet(t, app, "/api/v1/quotes?currency=EURO", analyst, http.StatusBadRequest, "Accept-Language", "en"),
		"currency", "api.market.error.currency")
	zh := mktWantError(t, mktGet(t, app, "/api/v1/quotes?currency=EURO", analyst, http.StatusBadRequest), "currency", "api.market.error.currency")
	if en == zh || !strings.Contains(en, "three letters") {
		t.Errorf("messages en %q zh %q", en, zh)
	}
}

// TestAPIMarketPagesThroughThousandQuotes: 1,000 published quotes page by
// cursor in the list page's order, each exactly once in ten pages; an
// unchanged page is 304, and a newly published quote changes the first
// page's ETag.
func TestAPIMarketPagesThroughThousandQuotes(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	pid, gid := marketRefs(app)
	// Three or four quotes share each day, so the id breaks ties.
	if _, err := app.Store.Pool().Exec(ctx, `
		INSERT INTO quotes (series_id, version, state, platform_id, gpu_model_id, label, gpu_count, currency,
		                    hourly, billing_granularity, as_of, source, published_at)
		SELECT 1000000 + i, 1, 'published', $1, $2, 'tier ' || i, 1 + i % 8, 'EUR',
		       round((0.3 + (i % 100) / 100.0)::numeric, 3), 'second', date '2026-11-19' - (i % 300), 'volume', now()
		FROM generate_series(1, 1000) i`, pid, gid); err != nil {
		t.Fatal(err)
	}
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	// The list page's own order, read through the page's store call.
	var want []int64
	for page := range 10 {
		rows, _, err := app.Store.Quotes(ctx, store.QuoteFilter{Offset: page * 100, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range rows {
			want = append(want, q.ID)
		}
	}
	var (
		got     []int64
		cursors []string
		etags   []string
		cursor  string
	)
	for {
		path := "/api/v1/quotes?limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := mktGet(t, app, path, token, http.StatusOK)
		cursors, etags = append(cursors, cursor), append(etags, r.Header.Get("ETag"))
		p := mktDecode[mktPage](t, r)
		if len(p.Items) != 100 {
			t.Fatalf("page %d has %d items", len(cursors), len(p.Items))
		}
		got = append(got, mktIDs(t, p)...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
		if len(cursors) > 10 {
			t.Fatal("more than ten pages")
		}
	}
	if len(cursors) != 10 {
		t.Errorf("%d pages, want 10", len(cursors))
	}
	if !slices.Equal(got, want) {
		t.Errorf("the pages' ids are not the list page's order (%d ids, %d wanted)", len(got), len(want))
	}
	seen := map[int64]bool{}
	for _, id := range got {
		if seen[id] {
			t.Errorf("quote %d twice", id)
		}
		seen[id] = true
	}
	// Nothing changed: 304 with no body, for the first page and a deep one.
	for _, i := range []int{0, 7} {
		path := "/api/v1/quotes?limit=100"
		if cursors[i] != "" {
			path += "&cursor=" + cursors[i]
		}
		r := mktGet(t, app, path, token, http.StatusNotModified, "If-None-Match", etags[i])
		if r.Body != "" || r.Header.Get("ETag") != etags[i] {
			t.Errorf("304 of page %d: body %q, etag %q", i, r.Body, r.Header.Get("ETag"))
		}
	}
	// One more quote, the newest sample: the first page changes.
	newest := publishQuote(app, "EUR", "0.2", "", nil)
	r := mktGet(t, app, "/api/v1/quotes?limit=100", token, http.StatusOK, "If-None-Match", etags[0])
	if r.Header.Get("ETag") == etags[0] {
		t.Error("the first page's ETag did not change")
	}
	if ids := mktIDs(t, mktDecode[mktPage](t, r)); ids[0] != newest {
		t.Errorf("first item %d, want the new quote %d", ids[0], newest)
	}
}

// TestAPIMarketReferencePricesAndRates: the samples in force on a day
// (default today), filtered, for every signed-in reader; bad dates, items
// and currencies are 400.
func TestAPIMarketReferencePricesAndRates(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	for _, r := range []market.ReferencePrice{
		{Item: "egress", Currency: "JPY", Unit: "per_gb", UnitPrice: decimal.RequireFromString("12.5"), AsOf: day("2026-01-01"), Source: "old"},
		{Item: "egress", Currency: "JPY", Unit: "per_gb", UnitPrice: decimal.RequireFromString("11.25"), AsOf: day("2026-06-01"), Source: "new"},
		{Item: "public_ip", Currency: "JPY", Unit: "per_month", UnitPrice: decimal.RequireFromString("500"), AsOf: day("2026-02-01"), Source: "ip"},
	} {
		if _, err := app.Store.CreateReferencePrice(ctx, user.SystemActor, r); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []market.FXRate{
		{Base: "JPY", Quote: "KRW", Rate: decimal.RequireFromString("9.1"), AsOf: day("2026-01-01"), Source: "old"},
		{Base: "JPY", Quote: "KRW", Rate: decimal.RequireFromString("9.25"), AsOf: day("2026-06-01"), Source: "new"},
		{Base: "KRW", Quote: "JPY", Rate: decimal.RequireFromString("0.108"), AsOf: day("2026-01-01"), Source: "back"},
	} {
		if _, err := app.Store.CreateFXRate(ctx, user.SystemActor, r); err != nil {
			t.Fatal(err)
		}
	}
	type price struct {
		Item, Unit, UnitPrice, AsOf, Source string
	}
	prices := func(path string) []price {
		var out []price
		for _, it := range mktDecode[mktPage](t, mktGet(t, app, path, token, http.StatusOK)).Items {
			var p struct {
				Item      string `json:"item"`
				Unit      string `json:"unit"`
				UnitPrice string `json:"unit_price"`
				AsOf      string `json:"as_of"`
				Source    string `json:"source"`
			}
			if err := json.Unmarshal(it, &p); err != nil {
				t.Fatal(err)
			}
			out = append(out, price{p.Item, p.Unit, p.UnitPrice, p.AsOf, p.Source})
		}
		return out
	}
	if got := prices("/api/v1/reference-prices?currency=JPY&date=2026-03-01"); !slices.Equal(got, []price{
		{"egress", "per_gb", "12.5", "2026-01-01", "old"}, {"public_ip", "per_month", "500", "2026-02-01", "ip"}}) {
		t.Errorf("in force on 2026-03-01: %v", got)
	}
	if got := prices("/api/v1/reference-prices?currency=jpy&item=egress"); !slices.Equal(got, []price{
		{"egress", "per_gb", "11.25", "2026-06-01", "new"}}) {
		t.Errorf("egress today: %v", got)
	}
	if got := prices("/api/v1/reference-prices?currency=JPY&date=2025-12-31"); len(got) != 0 {
		t.Errorf("before any sample: %v", got)
	}
	ids, pages := mktWalk(t, app, "/api/v1/reference-prices?currency=JPY&limit=1", token)
	if len(ids) != 2 || pages != 2 {
		t.Errorf("paged: %v in %d pages", ids, pages)
	}
	rates := mktDecode[mktPage](t, mktGet(t, app, "/api/v1/fx-rates?base=JPY&date=2026-07-01", token, http.StatusOK))
	if len(rates.Items) != 1 || !strings.Contains(string(rates.Items[0]), `"rate":"9.25"`) ||
		!strings.Contains(string(rates.Items[0]), `"quote_currency":"KRW"`) {
		t.Errorf("JPY rates: %s", rates.Items)
	}
	rates = mktDecode[mktPage](t, mktGet(t, app, "/api/v1/fx-rates?quote=JPY", token, http.StatusOK))
	if len(rates.Items) != 1 || !strings.Contains(string(rates.Items[0]), `"rate":"0.108"`) {
		t.Errorf("rates into JPY: %s", rates.Items)
	}
	first := mktDecode[mktPage](t, mktGet(t, app, "/api/v1/fx-rates?limit=1", token, http.StatusOK))
	for _, bad := range []struct{ path, field, code string }{
		{"/api/v1/reference-prices?date=2026-13-01", "date", "api.market.error.date"},
		{"/api/v1/reference-prices?item=coffee", "item", "api.market.error.item"},
		{"/api/v1/reference-prices?currency=yen!", "currency", "api.market.error.currency"},
		{"/api/v1/fx-rates?base=1", "base", "api.market.error.currency"},
		{"/api/v1/fx-rates?limit=-1", "limit", "api.error.limit"},
		{"/api/v1/fx-rates?limit=1&date=2026-01-01&cursor=" + first.NextCursor, "cursor", "api.error.cursor"},
		{"/api/v1/reference-prices?cursor=" + first.NextCursor, "cursor", "api.error.cursor"},
	} {
		mktWantError(t, mktGet(t, app, bad.path, token, http.StatusBadRequest), bad.field, bad.code)
	}
	en := mktWantError(t, mktGet(t, app, "/api/v1/fx-rates?date=soon", token, http.StatusBadRequest, "Accept-Language", "en"), "date", "api.market.error.date")
	zh := mktWantError(t, mktGet(t, app, "/api/v1/fx-rates?date=soon", token, http.StatusBadRequest), "date", "api.market.error.date")
	if en == zh {
		t.Errorf("the same message in both languages: %q", en)
	}
}

// TestAPIMarketAvailability: one pair's records, latest attempt first,
// paged by cursor, with the compare page's 30- and 90-day statistics; the
// pair is required and must exist.
func TestAPIMarketAvailability(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	token, uid := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	pid, gid := marketRefs(app)
	now := time.Now().UTC().Truncate(time.Second)
	var want []int64
	for i, r := range []struct {
		ago      time.Duration
		obtained bool
		wait     int
	}{{60 * 24 * time.Hour, true, 10}, {2 * time.Hour, true, 4}, {26 * time.Hour, false, 30}, {3 * time.Hour, true, 7}} {
		rec, err := app.Store.CreateAvailabilityRecord(ctx, user.Actor{UserID: uid, Email: "x@example.test"}, avail.Input{
			PlatformID: pid, GPUModelID: gid, AttemptedAt: now.Add(-r.ago), GPUCount: 1 + i, Obtained: r.obtained,
			WaitMinutes: r.wait, Note: fmt.Sprintf("attempt %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, rec.ID)
	}
	want = []int64{want[1], want[3], want[2], want[0]} // latest attempt first
	path := fmt.Sprintf("/api/v1/availability?platform=%d&gpu=%d", pid, gid)
	ids, pages := mktWalk(t, app, path+"&limit=3", token)
	if !slices.Equal(ids, want) || pages != 2 {
		t.Errorf("records %v in %d pages, want %v", ids, pages, want)
	}
	type stats struct {
		Days       int              `json:"days"`
		Attempts   int              `json:"attempts"`
		Obtained   int              `json:"obtained"`
		RatePct    *decimal.Decimal `json:"rate_pct"`
		MedianWait *decimal.Decimal `json:"median_wait_minutes"`
	}
	p := mktDecode[struct {
		Stats []stats `json:"stats"`
		Items []struct {
			RecordedBy string `json:"recorded_by"`
		} `json:"items"`
	}](t, mktGet(t, app, path, token, http.StatusOK))
	if len(p.Stats) != 2 || p.Stats[0].Days != 30 || p.Stats[1].Days != 90 {
		t.Fatalf("stats %+v", p.Stats)
	}
	// 30 days: the three recent attempts, two obtained, the median of 4
	// and 7 minutes; 90 days: all four, the median of 4, 7 and 10.
	if s := p.Stats[0]; s.Attempts != 3 || s.Obtained != 2 || s.RatePct.String() != "66.7" || s.MedianWait.String() != "5.5" {
		t.Errorf("30-day stats %+v (rate %v, median %v)", s, s.RatePct, s.MedianWait)
	}
	if s := p.Stats[1]; s.Attempts != 4 || s.Obtained != 3 || s.RatePct.String() != "75" || s.MedianWait.String() != "7" {
		t.Errorf("90-day stats %+v (rate %v, median %v)", s, s.RatePct, s.MedianWait)
	}
	if len(p.Items) == 0 || !strings.HasPrefix(p.Items[0].RecordedBy, "Test analyst") {
		t.Errorf("recorded by %+v", p.Items)
	}
	mktWantError(t, mktGet(t, app, fmt.Sprintf("/api/v1/availability?platform=%d", pid), token, http.StatusBadRequest), "gpu", "api.market.error.id")
	mktGet(t, app, fmt.Sprintf("/api/v1/availability?platform=%d&gpu=999999", pid), token, http.StatusNotFound)
	en := mktWantError(t, mktGet(t, app, fmt.Sprintf("/api/v1/availability?platform=999999&gpu=%d", gid), token, http.StatusNotFound,
		"Accept-Language", "en"), "", "not_found")
	zh := mktWantError(t, mktGet(t, app, fmt.Sprintf("/api/v1/availability?platform=999999&gpu=%d", gid), token, http.StatusNotFound), "", "not_found")
	if en == zh {
		t.Errorf("the same message in both languages: %q", en)
	}
	other := testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	first := mktDecode[mktPage](t, mktGet(t, app, path+"&limit=1", token, http.StatusOK))
	mktWantError(t, mktGet(t, app, fmt.Sprintf("/api/v1/availability?platform=%d&gpu=%d&cursor=%s", pid, other.ID, first.NextCursor),
		token, http.StatusBadRequest), "cursor", "api.error.cursor")
}

// TestQuoteListRefusesBadStateAndStale: a state or stale filter that is
// none of the list's values is 400 naming it, as every other bad filter
// is; the values the list takes still answer (docs/RULES.md §19.3).
func TestQuoteListRefusesBadStateAndStale(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	editor, _ := apiToken(t, app, auth.RoleEditor)
	analyst, _ := apiToken(t, app, auth.RoleAnalyst)
	for _, token := range []string{editor, analyst} {
		for _, q := range []string{"state=drafts", "state=1", "stale=yes", "stale=2", "stale=true"} {
			r := apiCall(t, app, http.MethodGet, "/api/v1/quotes?"+q, token, "")
			field, _, _ := strings.Cut(q, "=")
			if r.StatusCode != http.StatusBadRequest || !hasFieldError(apiErrorsOf(t, r), field, "") {
				t.Errorf("%s: %d %s, want 400 naming %s", q, r.StatusCode, r.Body, field)
			}
		}
		for _, q := range []string{"state=draft", "state=published", "state=archived", "state=all", "stale=1", "stale=0", "stale="} {
			if r := apiCall(t, app, http.MethodGet, "/api/v1/quotes?"+q, token, ""); r.StatusCode != http.StatusOK {
				t.Errorf("%s: %d %s", q, r.StatusCode, r.Body)
			}
		}
	}
}
