package server_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserEditorEntersAQuoteLineByLine: one invalid line, the error
// beside it and everything else kept, fixed, published, break-even shown.
func TestBrowserEditorEntersAQuoteLineByLine(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	pid, gid := marketRefs(app)
	email, pw, _ := app.CreateUser(auth.RoleEditor)
	ctx := testutil.Browser(t)
	sel := func(id, v string) chromedp.Action[chromedp.Void] { return chromedp.SetValue(chromedp.ID(id), v) }
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/quotes/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="quote-form"]`)),
		sel("f-platform", itoa(pid)), sel("f-gpu_model", itoa(gid)),
		chromedp.SendKeys(chromedp.ID("f-label"), "R9700 按小时档"),
		sel("f-currency", "EUR"),
		chromedp.SendKeys(chromedp.ID("f-hourly"), "0.471"),
		chromedp.SendKeys(chromedp.ID("f-monthly"), "284"),
		sel("f-billing_granularity", "second"),
		chromedp.SendKeys(chromedp.ID("f-source"), "https://hostkey.example/gpu"),
		// Line by line: bandwidth included in writing, egress charged per GB
		// but with a price that has too many decimals (the invalid line).
		sel("f-bandwidth-status", "included"),
		chromedp.Click(chromedp.ID("f-bandwidth-in_writing")),
		sel("f-egress-status", "charged"),
		sel("f-egress-unit", "per_gb"),
		chromedp.SendKeys(chromedp.ID("f-egress-unit_price"), "0.0100001"),
		sel("f-public_ip-status", "not_applicable"),
		chromedp.Click(chromedp.CSS(`[data-testid="quote-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-egress.unit_price"]`)),
	); err != nil {
		t.Fatal(err)
	}
	// Everything else is still there.
	for id, want := range map[string]string{"f-label": "R9700 按小时档", "f-hourly": "0.471", "f-monthly": "284",
		"f-bandwidth-status": "included", "f-egress-unit_price": "0.0100001", "f-public_ip-status": "not_applicable"} {
		got, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID(id)))
		if err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q kept", id, got, err, want)
		}
	}
	n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="line-egress"] .error').length`))
	if n != 1 {
		t.Errorf("the egress row shows %d errors, want 1 beside the price", n)
	}
	testutil.Screenshot(t, ctx, "quote-form-error")
	if err := chromedp.Do(ctx,
		chromedp.Clear(chromedp.ID("f-egress-unit_price")),
		chromedp.SendKeys(chromedp.ID("f-egress-unit_price"), "0.01"),
		chromedp.Click(chromedp.CSS(`[data-testid="quote-save"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="quote-publish"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="quote-publish"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="quote-new-version"]`)),
	); err != nil {
		t.Fatal(err)
	}
	be, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="break-even-hours"]`)))
	if err != nil || !strings.Contains(be, "602.97") {
		t.Fatalf("break-even %q (%v), want 602.97 (284 ÷ 0.471)", be, err)
	}
	testutil.Screenshot(t, ctx, "quote-detail")
}
