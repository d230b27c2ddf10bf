package server_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/testutil"
)

// TestBrowserCalculatorRentOrBuy: the calculator's rent-or-buy mode at
// 390 and 1280 px in both languages shows the two totals, the upfront
// cash and both crossing points without scrolling sideways, and with
// JavaScript on it recalculates as the reader types.
func TestBrowserCalculatorRentOrBuy(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/")); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(ctx,
				chromedp.EmulateViewport(width, 844),
				chromedp.Navigate(app.URL+"/calculator?mode=buy"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="rentbuy"]`)),
			); err != nil {
				t.Fatalf("%s %d: %v", lang, width, err)
			}
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide {
				what, _ := chromedp.Run(ctx, chromedp.Evaluate[string](wideJS))
				t.Errorf("%s, %d px: the page scrolls sideways:\n%s", lang, width, what)
			}
			// Every figure of the comparison lies within the screen's width.
			outside, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const W = window.innerWidth; const out = [];
				document.querySelectorAll('[data-testid="rentbuy"] td, [data-testid="rentbuy"] li, [data-testid="rentbuy-lines"] td').forEach(e => {
					const r = e.getBoundingClientRect(); if (r.right > W + 0.5 || r.left < -0.5) out.push(e.textContent); });
				return out.join(" | "); })()`))
			if err != nil {
				t.Fatal(err)
			}
			if outside != "" {
				t.Errorf("%s, %d px: figures off screen: %s", lang, width, outside)
			}
			text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="rentbuy"]').innerText`))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{"7,314.67", "4,752.00", "25,000.00", "59", "325"} {
				if !strings.Contains(text, w) {
					t.Errorf("%s, %d px: %q missing from %q", lang, width, w, text)
				}
			}
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("rentbuy-result-%s-%d", lang, width), `[data-testid="rentbuy"]`)
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("rentbuy-lines-%s-%d", lang, width), `[data-testid="rentbuy-lines"]`)
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("rentbuy-form-%s-%d", lang, width), `#f-own-purchase_price`)
		}
	}
	// With JavaScript the result follows the typing: 730 hours a month.
	if err := chromedp.Do(ctx,
		chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "730"),
	); err != nil {
		t.Fatalf("typing: %v", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector('[data-testid="rentbuy-own-tco"]').textContent.includes("9,031.87")`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("recalculation: %v", err)
	}
}

// wideJS names what reaches past the right edge of the screen, outside
// the tables' own scroll boxes.
const wideJS = `(() => {
	const W = window.innerWidth, out = [];
	document.querySelectorAll('body *').forEach(e => {
		const r = e.getBoundingClientRect();
		if (r.right > W && !e.closest('.table-wrap')) out.push(e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(r.right));
	});
	return document.documentElement.scrollWidth + " " + W + "\n" + out.slice(0, 25).join("\n");
})()`
