package server_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBrowserTrialPasteOfAThrottledCard: an analyst starts a trial from a
// quote's page, pastes the nvidia-smi CSV of the guide's throttled RTX 3090
// (~40 W and 420 MHz under full load) and sees check 11 fail with the
// readings, the checks that passed, and the verdict.
func TestBrowserTrialPasteOfAThrottledCard(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	quote := trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/quotes/"+itoa(quote)),
		chromedp.Click(chromedp.CSS(`[data-testid="quote-trial-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="trial-form"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="trial-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="trial-verdict"][data-verdict="in_progress"]`)),
		chromedp.SetValue(chromedp.ID("nvsmi-output"), throttledRTX3090),
		chromedp.Click(chromedp.CSS(`[data-testid="nvsmi-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="check-11"][data-state="fail"]`)),
	); err != nil {
		t.Fatal(err)
	}
	zh := app.Catalog.Translator("zh-CN")
	waitText(ctx, t, `[data-testid="trial-verdict"]`, zh.T("trials.verdict.concerns"))
	waitText(ctx, t, `[data-testid="check-11-state"]`, zh.T("trials.state.fail"))
	waitText(ctx, t, `[data-testid="check-1-state"]`, zh.T("trials.state.pass"))
	waitText(ctx, t, `[data-testid="check-2-state"]`, zh.T("trials.state.pass"))
	waitText(ctx, t, `[data-testid="trial-concerns"]`, "第 11 项")
	waitText(ctx, t, `[data-testid="trial-concerns"]`, "40.12 W")
	waitText(ctx, t, `[data-testid="trial-concerns"]`, "420 MHz")
	waitText(ctx, t, `[data-testid="progress-days2_6"]`, "1 / 8")
	failed, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="trial-nvsmi"] tr[data-outcome="fail"]').length`))
	if err != nil || failed != 3 {
		t.Errorf("the paste shows %d failed readings (%v), want 3: power, SM clock, throttle reasons", failed, err)
	}
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="flash"]`)))
	if err != nil || !strings.Contains(flash, "1 项不通过") {
		t.Errorf("flash %q (%v)", flash, err)
	}
	testutil.Screenshot(t, ctx, "trial-throttled-rtx3090")
}
