package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserImportHelpAndAliasClash: the import page shows its format
// help with the example, and the GPU form refuses an alias another model
// has, with the message next to the field.
func TestBrowserImportHelpAndAliasClash(t *testing.T) {
	t.Parallel()
	app := csvApp(t)
	aliasRefs(t, app, "NVIDIA RTX 4090")
	var other int64
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT id FROM gpu_models WHERE name = 'GeForce RTX 3090'`).Scan(&other); err != nil {
		t.Fatal(err)
	}
	email, pw, _ := app.CreateUser(auth.RoleEditor)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/quotes/import"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="csv-example"]`)),
	); err != nil {
		t.Fatal(err)
	}
	example, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="csv-example"]`)))
	if err != nil || !strings.Contains(example, "NVIDIA RTX 4090") {
		t.Fatalf("example %q (%v)", example, err)
	}
	testutil.ViewportScreenshot(t, ctx, "import-format-help", `[data-testid="csv-values"]`)
	testutil.ViewportScreenshot(t, ctx, "import-example", `[data-testid="csv-example"]`)

	if err := chromedp.Do(ctx,
		chromedp.Navigate(app.URL+"/gpus/"+itoa(other)+"/edit"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="aliases"]`)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="aliases"]`), "nvidia rtx 4090"),
		chromedp.Click(chromedp.CSS(`[data-testid="gpu-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="error-aliases"]`)),
	); err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="error-aliases"]`)))
	if err != nil || !strings.Contains(msg, "nvidia rtx 4090") {
		t.Fatalf("alias error %q (%v)", msg, err)
	}
	testutil.ViewportScreenshot(t, ctx, "gpu-alias-clash", `[data-testid="aliases"]`)
}
