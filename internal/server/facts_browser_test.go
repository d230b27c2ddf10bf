package server_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestBrowserPlatformFacts opens the compare page with the sample
// platforms' facts, a platform page and the fact form at a phone's and a
// desktop's width in both languages: nothing scrolls sideways
// (docs/RULES.md §18.3). GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserPlatformFacts(t *testing.T) {
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := sample.LoadFacts(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	var gpu, chenjian int64
	if err := app.Store.Pool().QueryRow(ctx, `SELECT id FROM gpu_models WHERE name = 'GeForce RTX 4090'`).Scan(&gpu); err != nil {
		t.Fatal(err)
	}
	q := "profile.hours_per_month=200&profile.months=1&profile.instances=1&report_currency=CNY"
	for _, name := range []string{"AutoDL 算力云", "晨涧云"} {
		var pid int64
		if err := app.Store.Pool().QueryRow(ctx, `SELECT id FROM platforms WHERE name_zh = $1`, name).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		chenjian = pid
		d, err := app.Store.CreateQuoteDraft(ctx, user.SystemActor, testutil.FullQuote(pid, gpu, time.Now().UTC()))
		if err != nil {
			t.Fatal(err)
		}
		p, err := app.Store.PublishQuote(ctx, user.SystemActor, d.ID, d.LockVersion)
		if err != nil {
			t.Fatal(err)
		}
		q += "&q=" + itoa(p.ID)
	}
	email, password, _ := app.CreateUser(auth.RoleEditor)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ name, path, ready string }{
		{"compare", "/compare?" + q, `[data-testid="compare-facts"]`},
		{"platform", "/platforms/" + itoa(chenjian), `[data-testid="platform-facts"]`},
		{"form", "/platforms/" + itoa(chenjian) + "/facts", `[data-testid="fact-form"]`},
	}
	for _, lang := range []string{"zh", "en"} {
		htmlLang := map[string]string{"zh": "zh-CN", "en": "en"}[lang]
		if err := chromedp.Do(b, chromedp.Navigate(app.URL+pages[1].path), chromedp.WaitVisible(chromedp.CSS(pages[1].ready)),
			chromedp.Click(chromedp.CSS(`[data-testid="lang-`+lang+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="`+htmlLang+`"] `+pages[1].ready))); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int64{390, 1280} {
			for _, p := range pages {
				if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+p.path),
					chromedp.WaitVisible(chromedp.CSS(p.ready))); err != nil {
					t.Fatalf("%s %s at %d: %v", lang, p.name, width, err)
				}
				// The facts' own blocks stay inside the screen (the platform
				// page's older details list is not this test's).
				js := `Array.from(document.querySelectorAll('` + p.ready + `, ` + p.ready + ` *')).some(e => e.getBoundingClientRect().right > window.innerWidth + 1)`
				if p.name != "platform" {
					js += ` || document.documentElement.scrollWidth > window.innerWidth`
				}
				wide, err := chromedp.Run(b, chromedp.Evaluate[bool](js))
				if err != nil {
					t.Fatal(err)
				}
				if wide {
					t.Errorf("%s %s at %d px scrolls sideways", lang, p.name, width)
				}
				if p.name == "compare" {
					testutil.ViewportScreenshot(t, b, fmt.Sprintf("facts-%s-%s-%d", p.name, lang, width), p.ready)
				} else {
					testutil.Screenshot(t, b, fmt.Sprintf("facts-%s-%s-%d", p.name, lang, width))
				}
			}
		}
	}
}
