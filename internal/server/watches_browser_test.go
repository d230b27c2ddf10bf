package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/watch"
)

// TestBrowserWatchThisOffer, in Chinese: an analyst opens a quote's page,
// chooses "关注这个报价", saves the filled form without changing it; an
// editor publishes a lower price through the data API with their token;
// the analyst sees the match in the navigation's count and on the
// notifications page (docs/RULES.md §24). Then the watch pages, with a
// TCO watch of a saved profile beside it, fit 390 and 1280 px in both
// languages.
func TestBrowserWatchThisOffer(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p := testfactory.Platform(t, app.Store, market.Platform{})
	g := testfactory.GPUModel(t, app.Store, market.GPUModel{})
	q := testfactory.Published(t, app.Store, testfactory.Quote(quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, GPUCount: 2,
		Hourly: testfactory.ND("4.00"), Currency: "CNY"}))
	email, password, uid := app.CreateUser(auth.RoleAnalyst)
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

	token, _ := apiToken(t, app, auth.RoleEditor)
	body := map[string]any{"platform": p.NameEN, "gpu_model_id": g.ID, "label": "双卡", "gpu_count": 2, "sharing": "dedicated",
		"currency": "CNY", "hourly": "3.60", "billing_granularity": "second", "prices_include_tax": true,
		"as_of": testfactory.Day.Format("2006-01-02"), "source": "https://example.test/pricing"}
	v2 := qwCreated(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes/"+itoa(q.ID)+"/versions", token, qwJSON(t, body)))
	if v2.State != "published" {
		t.Fatalf("the editor's version is %s", v2.State)
	}
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

	profile := testfactory.UsageProfile(t, app.Store, uid, "长期推理（单卡 600 小时 × 12 个月）",
		map[string]string{"profile.hours_per_month": "600", "profile.months": "12", "profile.instances": "1"})
	if _, err := app.Store.CreateWatch(context.Background(), user.Actor{UserID: uid}, false, testfactory.Day, watch.Watch{OwnerID: uid,
		PlatformID: p.ID, GPUModelID: g.ID, GPUCount: 2, Kind: watch.PriceBelow, Basis: watch.TCO, ProfileID: profile,
		Currency: "CNY", Target: testfactory.D("25000"), CooldownHours: 24}); err != nil {
		t.Fatal(err)
	}
	pagesFit(t, ctx, app, "watch", []fitPage{
		{name: "list", path: "/watches", ready: `[data-testid="watches-mine"]`},
		{name: "new", path: "/watches/new?kind=price_below&basis=tco&profile=" + itoa(profile), ready: `[data-testid="watch-form"]`},
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/watches"), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] [data-testid="watches-mine"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="watches-mine"]`, "TCO for profile «长期推理")
	waitText(ctx, t, `[data-testid="watch-waiting"]`, "Told you")
}
