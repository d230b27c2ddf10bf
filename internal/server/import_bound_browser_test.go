package server_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserImportProblemsFitTheScreen: the page of a refused file of 150
// wrong rows lists the first 100 and says how many there were; at 390 and
// 1280 px, in both languages, nothing scrolls the page sideways.
func TestBrowserImportProblemsFitTheScreen(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleEditor)
	bad := t.TempDir() + "/bad.csv"
	if err := os.WriteFile(bad, badLinesFile(150), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, pw)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(ctx,
				chromedp.EmulateViewport(width, 844),
				chromedp.Navigate(app.URL+"/quotes/import"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="import-form"]`)),
				chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{bad}),
				chromedp.Click(chromedp.CSS(`[data-testid="import-submit"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="more-errors"]`)),
				chromedp.Sleep(300*time.Millisecond),
			); err != nil {
				t.Fatalf("%s %d: %v", lang, width, err)
			}
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide {
				what, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const out = []; const W = window.innerWidth; document.querySelectorAll('body *').forEach(e => { const r = e.getBoundingClientRect(); if (r.right > W) out.push(e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(r.right)); }); return document.documentElement.scrollWidth + " " + W + "\n" + out.slice(0, 15).join('\n'); })()`))
				t.Errorf("%s, %d px: the page scrolls sideways:\n%s", lang, width, what)
			}
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("import-errors-top-%s-%d", lang, width), `[data-testid="import-errors"]`)
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("import-errors-more-%s-%d", lang, width), `[data-testid="more-errors"]`)
		}
	}
}
