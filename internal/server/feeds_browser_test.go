package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/feed"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBrowserFeedToken: on a 390 px phone, in both languages, a user makes
// a feed token on the account page and sees its two addresses without the
// page scrolling sideways, axe-core finding no serious or critical
// violation; Chromium opens the quotes feed the address names and shows
// it, its title and the published quote in it (docs/RULES.md §24.5, §24.6).
func TestBrowserFeedToken(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p := testfactory.Platform(t, app.Store, market.Platform{NameZH: "浏览器云", NameEN: "BrowserCloud"})
	g := testfactory.GPUModel(t, app.Store, market.GPUModel{})
	testfactory.Published(t, app.Store, quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, Currency: "CNY", Hourly: testfactory.ND("1.98")})
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	if err := testutil.InjectAxe(ctx); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ lang, title, platform string }{
		{"zh-CN", "gpuquote 报价更新", "浏览器云"}, {"en", "gpuquote quote updates", "BrowserCloud"}} {
		useLanguage(t, ctx, c.lang)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 900), chromedp.Navigate(app.URL+"/account#feeds"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="feeds"]`))); err != nil {
			t.Fatal(err)
		}
		// A second token replaces the first: the button asks first.
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.confirm = () => true; true`)); err != nil {
			t.Fatal(err)
		}
		clickAndLoad(ctx, t, `[data-testid="feed-create"]`)
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="feed-created"]`))); err != nil {
			t.Fatal(err)
		}
		url, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="feed-url-quotes"]`)))
		if err != nil {
			t.Fatal(err)
		}
		sideways, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if sideways > 0 {
			t.Errorf("%s at 390 px: the account page scrolls sideways by %v px", c.lang, sideways)
		}
		testutil.Screenshot(t, ctx, "account-feeds-"+c.lang+"-390")
		v, err := testutil.Axe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			t.Errorf("%s, the account page with feed addresses: %s", c.lang, x)
		}

		url = strings.TrimSpace(url)
		if want := fmt.Sprintf("%s/feeds/quotes.atom?token=%s", app.URL, auth.FeedTokenPrefix); !strings.HasPrefix(url, want) {
			t.Fatalf("feed address %q", url)
		}
		res, err := chromedp.RunResponse(ctx, chromedp.Navigate(url))
		if err != nil {
			t.Fatal(err)
		}
		// Chromium shows a feed as text (its MimeType says text/plain)
		// whatever the server sent, which was Atom.
		if ct := fmt.Sprint(res.Headers["Content-Type"]); res.Status != 200 || ct != feed.ContentType {
			t.Errorf("%s: the feed is %d %s", c.lang, res.Status, ct)
		}
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, c.title) || !strings.Contains(text, c.platform) {
			t.Errorf("%s: Chromium shows no feed title %q or platform %q:\n%s", c.lang, c.title, c.platform, text)
		}
	}
}
