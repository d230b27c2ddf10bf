package server_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBrowserCompareOwnHardware: a rental and an own option ticked on the
// compare page; the crossing is worded (month 59 at 200 h × 12 months) and
// follows the monthly hours as they change, with the chart's mark of the
// hours; in both languages at 390 and 1280 px the own option's figures
// stay on screen without sideways scrolling (docs/RULES.md §8.6).
func TestBrowserCompareOwnHardware(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	rental := publishQuote(app, "CNY", "1.98", "", testfactory.AllIncluded())
	email, pw, uid := app.CreateUser(auth.RoleAnalyst)
	vid := createOwn(app, uid, goldenOwnVersion(app, "RTX 4090 工作站"), false)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/compare"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-form"]`)),
		chromedp.SetValue(chromedp.ID("f-report_currency"), "CNY"),
		chromedp.Clear(chromedp.ID("f-profile-months")),
		chromedp.SendKeys(chromedp.ID("f-profile-months"), "12"),
		chromedp.Click(chromedp.ID("cand-q-"+itoa(rental))),
		chromedp.Click(chromedp.ID("cand-own-"+itoa(vid))),
	); err != nil {
		t.Fatal(err)
	}
	crossing := `[data-testid="own-crossing-` + itoa(rental) + `"]`
	waitText(ctx, t, crossing, "从第 59 个月起自购更省")
	waitText(ctx, t, crossing, "每月使用 325 小时起自购更省")
	mark := `document.querySelector('[data-testid="chart-your-hours"]')?.getAttribute("data-hours")`
	if h, err := chromedp.Run(ctx, chromedp.Evaluate[string](mark)); err != nil || h != "200" {
		t.Fatalf("chart marks %q h (%v)", h, err)
	}
	before, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="chart-curves"] svg').outerHTML`))
	if err != nil {
		t.Fatal(err)
	}
	// 400 h a month: owning is cheaper within the 12 months already.
	if err := chromedp.Do(ctx,
		chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "400"),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](mark+` === "400"`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the chart did not follow the hours: %v", err)
	}
	waitText(ctx, t, crossing, "每月 400 小时")
	month, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+crossing+`').getAttribute("data-month")`))
	if err != nil || month == "59" || month == "0" {
		t.Fatalf("crossing month at 400 h: %q (%v)", month, err)
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="chart-curves"] svg').outerHTML`))
	if err != nil || after == before {
		t.Fatalf("the chart did not change (%v)", err)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(ctx,
				chromedp.EmulateViewport(width, 900),
				chromedp.Navigate(loc),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-own"]`)),
			); err != nil {
				t.Fatalf("%s %d: %v", lang, width, err)
			}
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide {
				t.Errorf("%s, %d px: the page scrolls sideways", lang, width)
			}
			outside, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const W = window.innerWidth; const out = [];
				document.querySelectorAll('[data-testid="compare-own"] td, [data-testid="compare-own"] li, [data-testid="compare-own"] p').forEach(e => {
					const r = e.getBoundingClientRect(); if (r.right > W + 0.5 || r.left < -0.5) out.push(e.textContent); });
				return out.join(" | "); })()`))
			if err != nil {
				t.Fatal(err)
			}
			if outside != "" {
				t.Errorf("%s, %d px: figures off screen: %s", lang, width, outside)
			}
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("compare-own-%s-%d", lang, width), `[data-testid="compare-own"]`)
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("compare-own-chart-%s-%d", lang, width), `[data-testid="chart-curves"]`)
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("compare-own-pick-%s-%d", lang, width), `[data-testid="compare-own-candidates"]`)
		}
	}
}
