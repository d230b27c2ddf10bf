package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"gpuquote/internal/testutil"
)

// waitText waits until the element's text contains want.
func waitText(ctx context.Context, t *testing.T, sel, want string) {
	t.Helper()
	js := `((document.querySelector(` + "`" + sel + "`" + `)||{}).innerText||"")`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js+`.includes(`+"`"+want+"`"+`)`)); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		t.Fatalf("%s never showed %q (shows %q): %v", sel, want, got, err)
	}
}

// TestBrowserCalculatorRecalculatesAsYouType edits the hours and the
// monthly price; htmx recalculates the result without a page load.
func TestBrowserCalculatorRecalculatesAsYouType(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/calculator"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="calc-tco"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="calc-tco"]`, "94.20")
	// Mark the page: a full reload would lose the mark.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__noReload = true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "730")); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="calc-tco"]`, "343.83")
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("f-quote-monthly"), "284")); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="calc-tco"]`, "284.00")
	waitText(ctx, t, `[data-testid="calc-break-even"]`, "602.97")
	if still, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__noReload === true`)); err != nil || !still {
		t.Fatal("the page reloaded instead of swapping the result")
	}
	// A bad value shows its problem in the result panel.
	if err := chromedp.Do(ctx, chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "999")); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="calc-errors"]`, "730")
	testutil.Screenshot(t, ctx, "calculator-error")
}

// TestBrowserCalculatorWithoutJavaScript turns scripts off: the form posts
// and the whole page comes back with the result.
func TestBrowserCalculatorWithoutJavaScript(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := testutil.Browser(t)
	noJS := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	if err := chromedp.Do(ctx, noJS, chromedp.Navigate(app.URL+"/calculator"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="calc-form"]`)),
		chromedp.SetValue(chromedp.ID("f-quote-monthly"), "70"),
		chromedp.Click(chromedp.CSS(`[data-testid="calc-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="calc-break-even"]`)),
	); err != nil {
		t.Fatal(err)
	}
	tco, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="calc-tco"]`)))
	if err != nil || !strings.Contains(tco, "70.00") {
		t.Fatalf("tco %q (%v), want 70.00 with monthly chosen", tco, err)
	}
	testutil.Screenshot(t, ctx, "calculator")
}
