package server_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBrowserWatchThisOffer, in Chinese: an analyst opens a quote's page,
// chooses "关注这个报价", saves the filled form without changing it; an
// editor publishes a lower price; the analyst sees the match in the
// navigation's count and on the notifications page (docs/RULES.md §24).
func TestBrowserWatchThisOffer(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p := testfactory.Platform(t, app.Store, market.Platform{})
	g := testfactory.GPUModel(t, app.Store, market.GPUModel{})
	q := testfactory.Published(t, app.Store, testfactory.Quote(quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, GPUCount: 2,
		Hourly: testfactory.ND("4.00"), Currency: "CNY"}))
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, password),
		chromedp.Navigate(app.URL+"/quotes/"+itoa(q.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="quote-watch"]`)),
	); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="quote-watch"]`, "关注这个报价")
	clickAndLoad(ctx, t, `[data-testid="quote-watch"]`)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="watch-form"]`))); err != nil {
		t.Fatal(err)
	}
	target, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("watch-target").value`))
	if err != nil {
		t.Fatal(err)
	}
	if target != "1.9" {
		t.Fatalf("target %q, want 1.9 (5 %% under 2.00 per GPU-hour)", target)
	}
	clickAndLoad(ctx, t, `[data-testid="watch-save"]`)
	waitText(ctx, t, `[data-testid="watches-mine"]`, "每 GPU 小时价格（含税）不高于 1.90 CNY")
	testutil.Screenshot(t, ctx, "watches-zh-CN")

	testfactory.NextVersion(t, app.Store, q.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("3.60") })
	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/watches"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav-unread"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="nav-unread"]`, "1")
	waitText(ctx, t, `[data-testid="watch-match"]`, "1.80")
	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/notifications")); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `main`, "关注命中")
}
