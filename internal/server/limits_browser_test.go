package server_test

import (
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBrowserOversizedPasteIsRefusedAndKept: with JavaScript, a paste over
// the trial form's limit is not sent; the form says why and the text stays
// in the field. Without the script's check the server's 413 page is
// translated and shows the signed-in user.
func TestBrowserOversizedPasteIsRefusedAndKept(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, analystID := app.CreateUser(auth.RoleAnalyst)
	id := openTrialBy(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID), analystID).ID // the analyst's own trial
	ctx := testutil.Browser(t)
	const n = 1<<20 + 1 // verify.MaxInputBytes + 1
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/trials/"+itoa(id)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nvsmi-limit"]`)),
		chromedp.Evaluate[chromedp.Void](`void (document.getElementById("nvsmi-output").value = "x".repeat(`+itoa(n)+`))`),
		chromedp.Click(chromedp.CSS(`[data-testid="nvsmi-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nvsmi-too-large"]`)),
	); err != nil {
		t.Fatal(err)
	}
	zh := app.Catalog.Translator(i18n.ZH)
	waitText(ctx, t, `[data-testid="nvsmi-too-large"]`, zh.T("limits.refused", "Size", "1 MiB"))
	kept, err := chromedp.Run(ctx, chromedp.Evaluate[int](`location.pathname === "/trials/`+itoa(id)+`" ? document.getElementById("nvsmi-output").value.length : -1`))
	if err != nil || kept != n {
		t.Fatalf("after the refusal the field holds %d characters (%v), want the %d pasted, on the same page", kept, err, n)
	}
	testutil.ViewportScreenshot(t, ctx, "trial-paste-too-large", `[data-testid="nvsmi-form"]`)

	// The server's own refusal, as a browser without the script meets it.
	if err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById("nvsmi-output").removeAttribute("data-max-bytes"); void (document.getElementById("nvsmi-output").value = "x".repeat(4 << 20))`),
		chromedp.Click(chromedp.CSS(`[data-testid="nvsmi-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-page"]`)),
	); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="error-page"]`, zh.T("error.413.title"))
	waitText(ctx, t, `[data-testid="current-user"]`, "Test analyst")
	testutil.Screenshot(t, ctx, "error-413")
}
