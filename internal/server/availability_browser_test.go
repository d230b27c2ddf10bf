package server_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/avail"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestBrowserAvailability opens the compare page with the availability of
// each row (AutoDL's RTX 4090 with records, another platform without), a
// quote page's availability box and the records page at a phone's and a
// desktop's width in both languages: nothing scrolls sideways
// (docs/RULES.md §18.2). GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserAvailability(t *testing.T) {
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := sample.LoadAvailability(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	var gpu, autodl int64
	if err := app.Store.Pool().QueryRow(ctx, `SELECT id FROM gpu_models WHERE name = 'GeForce RTX 4090'`).Scan(&gpu); err != nil {
		t.Fatal(err)
	}
	q := "profile.hours_per_month=200&profile.months=1&profile.instances=1&report_currency=EUR"
	var first int64
	for _, name := range []string{"AutoDL 算力云", "晨涧云"} {
		var pid int64
		if err := app.Store.Pool().QueryRow(ctx, `SELECT id FROM platforms WHERE name_zh = $1`, name).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		d, err := app.Store.CreateQuoteDraft(ctx, user.SystemActor, testutil.FullQuote(pid, gpu, time.Now().UTC()))
		if err != nil {
			t.Fatal(err)
		}
		p, err := app.Store.PublishQuote(ctx, user.SystemActor, d.ID, d.LockVersion)
		if err != nil {
			t.Fatal(err)
		}
		if first == 0 {
			first, autodl = p.ID, pid
		}
		q += "&q=" + itoa(p.ID)
	}
	// Attempts of the last days, whatever day the test runs on.
	for i, ok := range []bool{true, false, true} {
		if _, err := app.Store.CreateAvailabilityRecord(ctx, user.SystemActor, avail.Input{PlatformID: autodl, GPUModelID: gpu,
			AttemptedAt: time.Now().UTC().AddDate(0, 0, -1-i), GPUCount: 1, Obtained: ok, WaitMinutes: 5 * (i + 1),
			Note: "晚高峰 evening peak"}); err != nil {
			t.Fatal(err)
		}
	}
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ name, path, ready string }{
		{"compare", "/compare?" + q, `[data-testid="compare-availability"]`},
		{"quote", "/quotes/" + itoa(first), `[data-testid="availability-panel"]`},
		{"records", "/availability?platform=" + itoa(autodl) + "&gpu=" + itoa(gpu), `[data-testid="availability-table"]`},
	}
	for _, lang := range []string{"zh", "en"} {
		htmlLang := map[string]string{"zh": "zh-CN", "en": "en"}[lang]
		if err := chromedp.Do(b, chromedp.Navigate(app.URL+pages[2].path), chromedp.WaitVisible(chromedp.CSS(pages[2].ready)),
			chromedp.Click(chromedp.CSS(`[data-testid="lang-`+lang+`"]`)),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="`+htmlLang+`"] `+pages[2].ready))); err != nil {
			t.Fatal(err)
		}
		for _, width := range []int64{390, 1280} {
			for _, p := range pages {
				if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+p.path),
					chromedp.WaitVisible(chromedp.CSS(p.ready))); err != nil {
					t.Fatalf("%s %s at %d: %v", lang, p.name, width, err)
				}
				// The availability blocks stay inside the screen, and so does the
				// whole page (the quote page's older sections are not this test's).
				js := `Array.from(document.querySelectorAll('` + p.ready + `, ` + p.ready + ` *')).some(e => e.getBoundingClientRect().right > window.innerWidth + 1)`
				if p.name != "quote" {
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
					testutil.ViewportScreenshot(t, b, fmt.Sprintf("availability-%s-%s-%d", p.name, lang, width), p.ready)
				} else {
					testutil.Screenshot(t, b, fmt.Sprintf("availability-%s-%s-%d", p.name, lang, width))
				}
			}
		}
	}
}
