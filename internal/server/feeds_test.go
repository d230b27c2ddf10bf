package server_test

import (
	"context"
	"crypto/sha256"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"

	"gpuquote/internal/auth"
	"gpuquote/internal/feed"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

var (
	feedQuotesURL = regexp.MustCompile(`data-testid="feed-url-quotes">([^<]+)<`)
	feedWatchURL  = regexp.MustCompile(`data-testid="feed-url-watch">([^<]+)<`)
)

// createFeedToken makes the signed-in user a feed token on the account
// page and returns the paths (within the app) of their two feeds.
func createFeedToken(t *testing.T, app *testutil.App, c *testutil.Client) (quotes, watch string) {
	t.Helper()
	r := c.PostForm("/account/feed-token", nil)
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("make a feed token: %d\n%s", r.StatusCode, r.Body)
	}
	q, w := feedQuotesURL.FindStringSubmatch(r.Body), feedWatchURL.FindStringSubmatch(r.Body)
	if q == nil || w == nil {
		t.Fatalf("no feed addresses shown:\n%s", r.Body)
	}
	quotes, watch = html.UnescapeString(q[1]), html.UnescapeString(w[1])
	if !strings.HasPrefix(quotes, app.URL+"/feeds/quotes.atom?token="+auth.FeedTokenPrefix) ||
		!strings.HasPrefix(watch, app.URL+"/feeds/watch/"+auth.FeedTokenPrefix) || !strings.HasSuffix(watch, ".atom") {
		t.Fatalf("feed addresses %s, %s", quotes, watch)
	}
	return strings.TrimPrefix(quotes, app.URL), strings.TrimPrefix(watch, app.URL)
}

// getFeed fetches path as a feed reader does: no cookie, with header.
func getFeed(app *testutil.App, path string, header ...string) *testutil.Response {
	app.T.Helper()
	req, err := http.NewRequest(http.MethodGet, app.URL+path, nil)
	if err != nil {
		app.T.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return app.Client().Do(req)
}

// parseAtom reads an Atom feed with gofeed's Atom parser (and checks the
// universal parser takes it for Atom) and checks what RFC 4287 asks of it:
// the feed's id, updated, title, author and self link; each entry's id,
// updated and alternate link.
func parseAtom(t *testing.T, r *testutil.Response, self string) *atom.Feed {
	t.Helper()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("feed: %d\n%s", r.StatusCode, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != feed.ContentType {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := r.Header.Get("Cache-Control"); !strings.HasPrefix(cc, "private") {
		t.Errorf("Cache-Control %q", cc)
	}
	if r.Header.Get("ETag") == "" || r.Header.Get("Last-Modified") == "" || r.Header.Get("Set-Cookie") != "" {
		t.Errorf("headers: %v", r.Header)
	}
	if u, err := gofeed.NewParser().ParseString(r.Body); err != nil || u.FeedType != "atom" {
		t.Fatalf("gofeed: %v %+v", err, u)
	}
	f, err := (&atom.Parser{}).Parse(strings.NewReader(r.Body))
	if err != nil {
		t.Fatalf("atom: %v\n%s", err, r.Body)
	}
	if !strings.HasPrefix(f.ID, "tag:127.0.0.1,2026:") || f.UpdatedParsed == nil || f.Title == "" || len(f.Authors) != 1 {
		t.Errorf("feed head: %+v", f)
	}
	links := map[string]string{}
	for _, l := range f.Links {
		links[l.Rel] = l.Href
	}
	if links["self"] != self || !strings.HasPrefix(links["alternate"], "http://127.0.0.1:") {
		t.Errorf("feed links %v, want self %s", links, self)
	}
	for _, e := range f.Entries {
		alt := ""
		for _, l := range e.Links {
			if l.Rel == "alternate" {
				alt = l.Href
			}
		}
		if e.ID == "" || e.UpdatedParsed == nil || e.PublishedParsed == nil || alt == "" || e.Title == "" {
			t.Errorf("entry %+v (alternate %q)", e, alt)
		}
		if e.UpdatedParsed != nil && e.UpdatedParsed.After(*f.UpdatedParsed) {
			t.Errorf("entry %s updated after its feed", e.ID)
		}
	}
	return f
}

// TestQuotesFeed: a feed reader reads the newest published versions with
// the user's feed token alone; each entry links its version and words
// its price change; the same data gives the same bytes (ETag, 304); a new
// version appears first (docs/RULES.md §24.5).
func TestQuotesFeed(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	p := testfactory.Platform(t, app.Store, market.Platform{NameZH: "算力云", NameEN: "ComputeCloud"})
	g := testfactory.GPUModel(t, app.Store, market.GPUModel{})
	v1 := testfactory.Published(t, app.Store, quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, Currency: "CNY", Hourly: testfactory.ND("1.98"), Label: "按量"})
	testfactory.Draft(t, app.Store, quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, Hourly: testfactory.ND("9"), Label: "draft"})
	path, _ := createFeedToken(t, app, c)

	first := getFeed(app, path)
	f := parseAtom(t, first, app.URL+path)
	if len(f.Entries) != 1 || f.Entries[0].ID != "tag:127.0.0.1,2026:quote-version/"+itoa(v1.ID) || f.Title != "gpuquote 报价更新" {
		t.Fatalf("entries %+v", f.Entries)
	}
	e := f.Entries[0]
	if e.Links[0].Href != app.URL+"/quotes/"+itoa(v1.ID) || !strings.Contains(e.Title, "算力云") || !strings.Contains(e.Title, "按量 · 第 1 版") ||
		e.Summary != "首个版本：¥1.98/小时" || !e.UpdatedParsed.Equal(*f.UpdatedParsed) {
		t.Errorf("entry %+v", e)
	}
	// Same data, same bytes; the tag and the time answer 304.
	again := getFeed(app, path)
	if again.Body != first.Body || again.Header.Get("ETag") != first.Header.Get("ETag") {
		t.Error("two readings of the same feed differ")
	}
	if r := getFeed(app, path, "If-None-Match", first.Header.Get("ETag")); r.StatusCode != http.StatusNotModified || r.Body != "" {
		t.Errorf("If-None-Match: %d", r.StatusCode)
	}
	if r := getFeed(app, path, "If-Modified-Since", first.Header.Get("Last-Modified")); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-Modified-Since: %d", r.StatusCode)
	}

	// A new version comes first, with its change from the previous one.
	v2 := testfactory.NextVersion(t, app.Store, v1.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.78") })
	next := getFeed(app, path, "If-None-Match", first.Header.Get("ETag"))
	f = parseAtom(t, next, app.URL+path)
	if len(f.Entries) != 2 || f.Entries[0].ID != "tag:127.0.0.1,2026:quote-version/"+itoa(v2.ID) ||
		f.Entries[0].Summary != "¥1.98/小时 → ¥1.78/小时，-10.1%" || !strings.Contains(f.Entries[0].Title, "第 2 版") ||
		f.Entries[1].ID != e.ID || !f.UpdatedParsed.Equal(*f.Entries[0].UpdatedParsed) {
		t.Errorf("after a new version: %+v %+v", f.Entries[0], f)
	}
	// In English: by ?lang= or by Accept-Language.
	en := parseAtom(t, getFeed(app, path+"&lang=en"), app.URL+path+"&lang=en")
	byHeader := parseAtom(t, getFeed(app, path, "Accept-Language", "en-US,en;q=0.9"), app.URL+path)
	for _, f := range []*atom.Feed{en, byHeader} {
		if f.Title != "gpuquote quote updates" || f.Entries[0].Summary != "CN¥1.98/h → CN¥1.78/h, -10.1 %" ||
			!strings.Contains(f.Entries[0].Title, "ComputeCloud") || !strings.HasSuffix(f.Entries[0].Title, "· v2") {
			t.Errorf("English feed: %+v", f.Entries[0])
		}
	}
	if r := getFeed(app, path, "Accept-Language", "en"); r.Header.Get("ETag") == next.Header.Get("ETag") {
		t.Error("the English feed has the Chinese one's tag")
	}
}

// TestFeedTokens: the account page makes, replaces and revokes the feed
// token, audited, with CSRF; a revoked, replaced, unknown or malformed
// token, and a disabled user's, is 404; the token is no session and no
// API token (docs/RULES.md §24.6).
func TestFeedTokens(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	c, uid := app.AsUser(auth.RoleAnalyst)
	if r := c.Get("/account"); r.StatusCode != 200 || !strings.Contains(r.Body, `data-testid="feed-none"`) {
		t.Fatalf("account page without a feed token: %d", r.StatusCode)
	}
	// No CSRF token, no token.
	if r := c.PostRaw("/account/feed-token", nil); r.StatusCode != http.StatusForbidden {
		t.Errorf("without CSRF: %d", r.StatusCode)
	}
	quotes, watch := createFeedToken(t, app, c)
	token := strings.TrimPrefix(quotes, "/feeds/quotes.atom?token=")
	if !auth.LooksLikeFeedToken(token) || watch != "/feeds/watch/"+token+".atom" {
		t.Fatalf("token %q, watch %q", token, watch)
	}
	// Only the hash is kept; the page shows the token no more.
	var hash []byte
	if err := app.Store.Pool().QueryRow(ctx, `SELECT token_hash FROM feed_tokens WHERE user_id = $1`, uid).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(token)); string(hash) != string(sum[:]) {
		t.Errorf("stored hash %x", hash)
	}
	if r := c.Get("/account"); strings.Contains(r.Body, token) || !strings.Contains(r.Body, `data-testid="feed-active"`) {
		t.Errorf("account page after: token shown or not active")
	}
	if r := getFeed(app, quotes); r.StatusCode != http.StatusOK {
		t.Fatalf("feed: %d", r.StatusCode)
	}
	if r := c.Get("/account"); !strings.Contains(r.Body, "最近使用") {
		t.Error("the use is not shown")
	}
	// Not a session, not an API token.
	if r := bearer(t, app, http.MethodGet, "/api/v1/quotes", token, "", ""); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("the feed token as an API token: %d", r.StatusCode)
	}
	if r := getFeed(app, "/quotes?token="+token); r.StatusCode == http.StatusOK {
		t.Errorf("the feed token opened /quotes")
	}

	// Unknown, malformed, missing: 404.
	for _, p := range []string{"/feeds/quotes.atom?token=" + auth.NewFeedToken(), "/feeds/quotes.atom?token=x", "/feeds/quotes.atom",
		"/feeds/watch/" + auth.NewFeedToken() + ".atom", "/feeds/watch/" + token, "/feeds/watch/" + token + ".xml"} {
		if r := getFeed(app, p); r.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", p, r.StatusCode)
		}
	}

	// A new token ends the old one.
	quotes2, watch2 := createFeedToken(t, app, c)
	for _, p := range []string{quotes, watch} {
		if r := getFeed(app, p); r.StatusCode != http.StatusNotFound {
			t.Errorf("replaced %s: %d", p, r.StatusCode)
		}
	}
	if r := getFeed(app, watch2); r.StatusCode != http.StatusOK {
		t.Errorf("new watch feed: %d", r.StatusCode)
	}
	// Revoking ends it; revoking none is 404.
	if r := c.PostForm("/account/feed-token/revoke", nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d", r.StatusCode)
	}
	if r := getFeed(app, quotes2); r.StatusCode != http.StatusNotFound {
		t.Errorf("revoked: %d", r.StatusCode)
	}
	if r := c.PostForm("/account/feed-token/revoke", nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("revoke none: %d", r.StatusCode)
	}
	var audited int
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE actor_id = $1 AND action IN ($2, $3)`,
		uid, store.ActionFeedTokenCreate, store.ActionFeedTokenRevoke).Scan(&audited); err != nil || audited != 3 {
		t.Errorf("%d feed token audits (%v), want 3", audited, err)
	}
	var leaks int
	if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE coalesce(after::text, '') || coalesce(before::text, '') LIKE '%gqf_%'`).Scan(&leaks); err != nil || leaks != 0 {
		t.Errorf("%d audit rows hold a token (%v)", leaks, err)
	}

	// A disabled user's token: 404.
	quotes3, _ := createFeedToken(t, app, c)
	if _, err := app.Store.SetUserDisabled(ctx, user.SystemActor, uid, true); err != nil {
		t.Fatal(err)
	}
	if r := getFeed(app, quotes3); r.StatusCode != http.StatusNotFound {
		t.Errorf("a disabled user's feed: %d", r.StatusCode)
	}
}

// TestWatchFeed: the watch feed is a valid Atom feed of the user's watch
// events, empty until the watches are wired in (docs/RULES.md §24.5).
func TestWatchFeed(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, uid := app.AsUser(auth.RoleFinance)
	_, watch := createFeedToken(t, app, c)
	r := getFeed(app, watch)
	f := parseAtom(t, r, app.URL+watch)
	if f.ID != "tag:127.0.0.1,2026:watch/"+itoa(uid) || len(f.Entries) != 0 || f.Title != "gpuquote 我的关注" {
		t.Errorf("watch feed %+v", f)
	}
	if again := getFeed(app, watch); again.Body != r.Body {
		t.Error("two readings differ")
	}
	if en := parseAtom(t, getFeed(app, watch+"?lang=en"), app.URL+watch+"?lang=en"); en.Title != "gpuquote: my watches" {
		t.Errorf("English title %q", en.Title)
	}
}
