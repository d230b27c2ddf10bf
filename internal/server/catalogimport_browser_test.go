package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserCatalogImport is an editor, in Chinese, importing RunPod's
// catalog through the page (htmx uploads it), reading the drafts it made,
// publishing them with the one button, and finding them on the quote list.
func TestBrowserCatalogImport(t *testing.T) {
	t.Parallel()
	w := newCatalogWorld(t)
	app := w.app
	email, pw, _ := app.CreateUser(auth.RoleEditor)
	file, err := filepath.Abs(filepath.Join("..", "skycatalog", "testdata", "skypilot", "runpod", "vms.csv"))
	if err != nil {
		t.Fatal(err)
	}
	zh := app.Catalog.Translator("zh-CN")
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/quotes/import/skypilot"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="catalog-form"]`)),
		chromedp.SetValue(chromedp.ID("catalog-platform"), itoa(w.platform.ID)),
		chromedp.SetUploadFiles(chromedp.ID("catalog-file"), []string{file}),
	); err != nil {
		t.Fatal(err)
	}
	testutil.Screenshot(t, ctx, "catalog-import-form")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="catalog-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="catalog-drafts-table"]`)),
	); err != nil {
		t.Fatal(err)
	}
	testutil.Screenshot(t, ctx, "catalog-import-drafts")
	body, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{zh.T("catalog.flash.imported.other", "Count", "20"), zh.T("catalog.summary.new.other", "Count", 20),
		zh.T("catalog.summary.rows.other", "Count", 1175), "1x_H100-SXM_SECURE", zh.T("catalog.badge.new")} {
		if !strings.Contains(body, want) {
			t.Errorf("the import's page does not say %q", want)
		}
	}
	ticked, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('input[name="quote"]:checked').length`))
	if err != nil || ticked != 20 {
		t.Errorf("%d drafts ticked (%v), want 20", ticked, err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="catalog-publish"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="catalog-drafts-table"] tr[data-state="published"]`)),
	); err != nil {
		t.Fatal(err)
	}
	body, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
	if err != nil || !strings.Contains(body, zh.T("catalog.flash.published.other", "Count", "20")) {
		t.Errorf("no word of the publication (%v)", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(app.URL+"/quotes?platform="+itoa(w.platform.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="quotes-table"]`)),
	); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="quotes-table"] tbody tr').length`))
	if err != nil || rows != 20 {
		t.Errorf("%d quotes listed (%v), want 20", rows, err)
	}
	list, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="quotes-table"]`)))
	if err != nil || !strings.Contains(list, "8x_H200-SXM_SECURE") || !strings.Contains(list, zh.T("quote.state.published")) {
		t.Errorf("the quote list does not show the published catalog (%v)", err)
	}

	// The next catalog with two prices changed: two drafts, old → new.
	changed := filepath.Join(t.TempDir(), "vms.csv")
	if err := os.WriteFile(changed, withPrices(t, catalogFile(t, "runpod"), map[string]string{"1x_H100-SXM_SECURE": "2.79",
		"8x_H200-SXM_SECURE": "33.52"}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(app.URL+"/quotes/import/skypilot"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="catalog-form"]`)),
		chromedp.SetValue(chromedp.ID("catalog-platform"), itoa(w.platform.ID)),
		chromedp.SetUploadFiles(chromedp.ID("catalog-file"), []string{changed}),
		chromedp.Click(chromedp.CSS(`[data-testid="catalog-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="catalog-drafts-table"]`)),
	); err != nil {
		t.Fatal(err)
	}
	testutil.Screenshot(t, ctx, "catalog-import-changes")
	table, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="catalog-drafts-table"]`)))
	if err != nil || !strings.Contains(table, "→") || !strings.Contains(table, "2.79") || !strings.Contains(table, "33.52") {
		t.Errorf("the second import's drafts: %q (%v)", table, err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="catalog-drafts-table"] tbody tr').length`))
	if err != nil || n != 2 {
		t.Errorf("%d drafts (%v), want 2", n, err)
	}
}
