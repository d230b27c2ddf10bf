package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBrowserCompareFlipsModeAtBreakEven: three quotes compared; moving the
// hours from 100 to 300 flips the first quote from hourly to monthly, as its
// break-even (70 ÷ 0.471 = 148.62 h) says it must; the chart is drawn.
func TestBrowserCompareFlipsModeAtBreakEven(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	a := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded()) // break-even 148.62 h
	b := publishQuote(app, "EUR", "0.5", "184", testfactory.AllIncluded())  // break-even 368 h: stays hourly
	c := publishQuote(app, "EUR", "0.9", "", testfactory.AllIncluded())     // hourly only
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/compare"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-form"]`)),
		chromedp.SetValue(chromedp.ID("f-report_currency"), "EUR"),
		chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "100"),
		chromedp.Click(chromedp.ID("cand-q-"+itoa(a))),
		chromedp.Click(chromedp.ID("cand-q-"+itoa(b))),
		chromedp.Click(chromedp.ID("cand-q-"+itoa(c))),
	); err != nil {
		t.Fatal(err)
	}
	// Ticking already refreshes the results in place (htmx); the submit
	// button loads the whole page. Mark this document and wait for the new
	// one, so nothing below reads a page that is being replaced.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__beforeSubmit = true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="compare-submit"]`))); err != nil {
		t.Fatal(err)
	}
	// (Asked again on an error: a question asked while the old page goes
	// away fails with "target navigated".)
	for i := 0; ; i++ {
		done, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__beforeSubmit === undefined && document.readyState === "complete"`))
		if err == nil && done {
			break
		}
		if i == 200 {
			t.Fatalf("the compare page did not load after the submit within 10 s (%v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`[data-testid="row-`+itoa(a)+`"]`))); err != nil {
		t.Fatal(err)
	}
	chosen := `[data-testid="row-` + itoa(a) + `"] [data-testid="chosen"]`
	waitText(ctx, t, chosen, app.Catalog.Translator("zh-CN").T("mode.hourly"))
	waitText(ctx, t, `[data-testid="row-`+itoa(a)+`"] [data-testid="tco"]`, "47.10")
	// The results came first: "change" opens the form in place.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="compare-summary"] summary`)),
		chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "300"),
	); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, chosen, app.Catalog.Translator("zh-CN").T("mode.monthly"))
	// The summary line follows what the form now asks.
	waitText(ctx, t, `#compare-summary-text`, "每月 300 小时")
	waitText(ctx, t, `[data-testid="row-`+itoa(a)+`"] [data-testid="tco"]`, "70.00")
	// B's break-even is 368 h: still hourly at 300 h (0.5 × 300 = 150.00).
	waitText(ctx, t, `[data-testid="row-`+itoa(b)+`"] [data-testid="chosen"]`, app.Catalog.Translator("zh-CN").T("mode.hourly"))
	// The URL carries the profile and the selection, so the page can be shared.
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || !strings.Contains(loc, "profile.hours_per_month=300") || !strings.Contains(loc, "q="+itoa(c)) {
		t.Fatalf("URL %q does not encode the comparison (%v)", loc, err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="chart-curves"] svg').length`))
	if err != nil || n != 1 {
		t.Fatalf("cost curve chart: %d (%v)", n, err)
	}
	testutil.Screenshot(t, ctx, "compare")
}
