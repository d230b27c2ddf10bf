package server_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// TestBrowserOwnHardwarePages opens the own-hardware pages and the
// electricity page on the sample data, at a phone's and a desktop's width
// in both languages: every figure is on screen without scrolling sideways.
// The new-option form is sent empty with the keyboard (no script) and
// comes back with its messages. GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserOwnHardwarePages(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := sample.LoadOwn(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	var optionID int64
	if err := app.Store.Pool().QueryRow(ctx, `SELECT min(id) FROM own_options`).Scan(&optionID); err != nil {
		t.Fatal(err)
	}
	email, password, _ := app.CreateUser(auth.RoleEditor)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ name, path, ready string }{
		{"list", "/own-hardware", `[data-testid="own-table"]`},
		{"show", "/own-hardware/" + itoa(optionID), `[data-testid="own-versions"]`},
		{"new", "/own-hardware/new", `[data-testid="own-form"]`},
		{"electricity", "/electricity", `[data-testid="electricity-current"]`},
	}
	for _, lang := range []string{"zh", "en"} {
		// Wait for the page in the new language, not the old page's table:
		// navigating away while the switch is still loading aborts it.
		htmlLang := map[string]string{"zh": "zh-CN", "en": "en"}[lang]
		// The page already in the language waits for the switch's own
		// answer too: its old table would let the next navigation abort it.
		if err := chromedp.Do(b, chromedp.Navigate(app.URL+"/own-hardware"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="own-table"]`))); err != nil {
			t.Fatal(err)
		}
		clickAndLoad(b, t, `[data-testid="lang-`+lang+`"]`)
		if err := chromedp.Do(b, chromedp.WaitVisible(chromedp.CSS(`html[lang="`+htmlLang+`"] [data-testid="own-table"]`))); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int64{390, 1280} {
			for _, p := range pages {
				if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+p.path),
					chromedp.WaitVisible(chromedp.CSS(p.ready))); err != nil {
					t.Fatalf("%s %s at %d: %v", lang, p.name, width, err)
				}
				wide, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
				if err != nil {
					t.Fatal(err)
				}
				if wide {
					t.Errorf("%s %s at %d px scrolls sideways", lang, p.name, width)
				}
				testutil.Screenshot(t, b, fmt.Sprintf("own-%s-%s-%d", p.name, lang, width))
			}
		}
	}
	// Keyboard only: focus the submit button, press Enter; the form comes
	// back with its messages and the focusable summary.
	if err := chromedp.Do(b, chromedp.EmulateViewport(390, 900), chromedp.Navigate(app.URL+"/own-hardware/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="own-form"]`)),
		chromedp.SetValue(chromedp.CSS(`#f-purchase_price`), "1,5"),
		chromedp.Focus(chromedp.CSS(`[data-testid="own-submit"]`)), chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="form-errors"]`))); err != nil {
		t.Fatal(err)
	}
	body, err := chromedp.Run(b, chromedp.Text(chromedp.CSS(`[data-testid="own-form"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "Leave out thousands separators") && !strings.Contains(body, "dot") {
		t.Errorf("no message for the purchase price: %.300s", body)
	}
	testutil.Screenshot(t, b, "own-errors-en-390")
}
