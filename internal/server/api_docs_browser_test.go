package server_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserAPIDocs opens /api/docs and the account page's token and mail
// sections at a phone's and a desktop's width in both languages: nothing scrolls
// sideways, not even with every operation unfolded, where long paths and
// schema names must wrap (docs/RULES.md §19.6). GPUQUOTE_SCREENSHOT_DIR
// keeps the images, and then also takes, at both widths, the page's top
// unfolded, an operation and a schema's table, to read in each language.
func TestBrowserAPIDocs(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, password, _ := app.CreateUser(auth.RoleAdmin)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	pagesFit(t, b, app, "apidocs", []fitPage{
		{"docs", "/api/docs", `[data-testid="apidoc-schemas"]`, false},
		{"tokens", "/account#api-tokens", `[data-testid="api-token-form"]`, true},
		{"mail", "/account#mail", `[data-testid="mail-choice"]`, true},
	})
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, b, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+"/api/docs"),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="apidoc-schemas"]`))); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.querySelectorAll("details").forEach(d => d.open = true), true`)); err != nil {
				t.Fatal(err)
			}
			wide, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide {
				t.Errorf("%s /api/docs unfolded at %d px scrolls sideways", lang, width)
			}
			if width == 390 {
				// Nor does any table of parameters, responses or
				// properties scroll in its box, hiding its descriptions.
				boxes, err := chromedp.Run(b, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".table-wrap")]
					.filter(w => w.scrollWidth > w.clientWidth + 1).map(w => w.getAttribute("aria-label"))`))
				if err != nil {
					t.Fatal(err)
				}
				if len(boxes) > 0 {
					t.Errorf("%s /api/docs at 390 px: %d tables scroll sideways in their box, e.g. %q", lang, len(boxes), boxes[0])
				}
			}
			if width == 390 {
				testutil.Screenshot(t, b, "apidocs-unfolded-"+lang+"-390")
			}
			if os.Getenv("GPUQUOTE_SCREENSHOT_DIR") != "" {
				// Only for a person to read: the top at 1280 px too, an
				// operation, a schema's table.
				name := fmt.Sprintf("apidocs-%s-%d", lang, width)
				if width != 390 {
					testutil.Screenshot(t, b, "apidocs-unfolded-"+lang+"-1280")
				}
				testutil.ViewportScreenshot(t, b, name+"-operation", `#op-publishQuote`)
				testutil.ViewportScreenshot(t, b, name+"-schema", `#schema-QuoteInput`)
			}
		}
	}
}
