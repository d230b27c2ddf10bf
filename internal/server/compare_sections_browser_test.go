package server_test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/avail"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// sectionsFit is what the compare page measures of itself with its
// sections open: how wide it is against the viewport, what sticks out,
// and whether each matrix scrolls inside its own box.
type sectionsFit struct {
	ScrollWidth int      `json:"scrollWidth"`
	Viewport    int      `json:"viewport"`
	Wide        []string `json:"wide"`
	Boxes       int      `json:"boxes"`
	Scrolling   int      `json:"scrolling"`
}

const measureSections = `(() => {
	const vw = document.documentElement.clientWidth;
	const wide = [];
	for (const e of document.querySelectorAll('body *')) {
		const box = e.parentElement && e.parentElement.closest('.matrix-wrap, .results-wrap, .table-wrap, figure.chart');
		if (wide.length >= 5 || (box && getComputedStyle(box).overflowX === 'auto')) continue;
		const r = e.getBoundingClientRect();
		if (r.right > vw + 0.5 && r.width > 0) wide.push(e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(r.right));
	}
	const boxes = document.querySelectorAll('details.compare-section .matrix-wrap');
	return {scrollWidth: document.documentElement.scrollWidth, viewport: vw, wide: wide, boxes: boxes.length,
		scrolling: Array.from(boxes).filter(b => getComputedStyle(b).overflowX === 'auto').length};
})()`

// TestBrowserCompareSectionsOnDemand opens the compare page of two sample
// RTX 4090 offers (facts and attempts recorded) at a phone's and a
// desktop's width in both languages and opens its three sections: each
// body arrives in place (htmx), the page does not scroll sideways and the
// matrices scroll inside their boxes. With scripts off a section still
// opens, and its link leads to the section's own page with a link back
// (docs/RULES.md §20.4). GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserCompareSectionsOnDemand(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := sample.LoadFacts(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	ids, pids, gpu := publishSample4090s(t, app, "AutoDL 算力云", "晨涧云")
	for i, ok := range []bool{true, false, true} {
		if _, err := app.Store.CreateAvailabilityRecord(ctx, user.SystemActor, avail.Input{PlatformID: pids[0], GPUModelID: gpu,
			AttemptedAt: time.Now().UTC().AddDate(0, 0, -1-i), GPUCount: 1, Obtained: ok, WaitMinutes: 5 * (i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	state := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"report_currency": {"EUR"}, "q": {itoa(ids[0]), itoa(ids[1])}}
	page := "/compare?" + state.Encode()
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, b, lang)
		for _, width := range []int64{390, 1280} {
			where := fmt.Sprintf("%s at %d px", lang, width)
			if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+page),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] details[data-testid="section-lines"] summary`))); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			for _, s := range compareSections {
				if err := chromedp.Do(b, chromedp.Click(chromedp.CSS(`details[data-testid="section-`+s.key+`"] summary`)),
					chromedp.WaitVisible(chromedp.CSS(`details[data-testid="section-`+s.key+`"][open] .sbody `+s.body))); err != nil {
					t.Fatalf("%s: the %s section never arrived: %v", where, s.key, err)
				}
			}
			m, err := chromedp.Run(b, chromedp.Evaluate[sectionsFit](measureSections))
			if err != nil {
				t.Fatal(err)
			}
			if m.ScrollWidth > m.Viewport {
				t.Errorf("%s: the page is %d px wide in %d: it scrolls sideways (%s)", where, m.ScrollWidth, m.Viewport, strings.Join(m.Wide, "; "))
			}
			if m.Boxes != 2 || m.Scrolling != 2 {
				t.Errorf("%s: %d matrices, %d scrolling inside their box", where, m.Boxes, m.Scrolling)
			}
			name := fmt.Sprintf("compare-sections-%s-%d", lang, width)
			testutil.ViewportScreenshot(t, b, name+"-lines", `details[data-testid="section-lines"]`)
			testutil.ViewportScreenshot(t, b, name+"-facts", `details[data-testid="section-facts"]`)
			testutil.ViewportScreenshot(t, b, name+"-availability", `details[data-testid="section-availability"]`)
		}
	}

	// Scripts off: the section opens on its link, which leads to its page.
	noJS := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	open := `details[data-testid="section-lines"] .sbody a[data-testid="section-open"]`
	if err := chromedp.Do(b, noJS, chromedp.EmulateViewport(390, 900), chromedp.Navigate(app.URL+page),
		chromedp.WaitVisible(chromedp.CSS(`details[data-testid="section-lines"] summary`)),
		chromedp.Click(chromedp.CSS(`details[data-testid="section-lines"] summary`)),
		chromedp.WaitVisible(chromedp.CSS(open))); err != nil {
		t.Fatalf("without scripts the section does not open on its link: %v", err)
	}
	// Nothing came in its place: scripts are off.
	time.Sleep(300 * time.Millisecond)
	if n, err := chromedp.Run(b, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="compare-lines"]').length`)); err != nil || n != 0 {
		t.Fatalf("without scripts the matrix came in place (%d, %v)", n, err)
	}
	testutil.ViewportScreenshot(t, b, "compare-sections-nojs-open", `details[data-testid="section-lines"]`)
	if err := chromedp.Do(b, chromedp.Click(chromedp.CSS(open)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="section-body-lines"] [data-testid="compare-lines"]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[data-testid="section-back"]`))); err != nil {
		t.Fatalf("the link does not lead to the section's page: %v", err)
	}
	loc, err := chromedp.Run(b, chromedp.Location())
	if err != nil || !strings.Contains(loc, "/compare/lines?") || !strings.Contains(loc, "q="+itoa(ids[1])) {
		t.Fatalf("the section's page is at %q (%v)", loc, err)
	}
	wide, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if err != nil || wide {
		t.Errorf("the section's page scrolls sideways at 390 px (%v)", err)
	}
	testutil.Screenshot(t, b, "compare-sections-nojs-page")
	if err := chromedp.Do(b, chromedp.Click(chromedp.CSS(`a[data-testid="section-back"]`)),
		chromedp.WaitVisible(chromedp.CSS(`details[data-testid="section-lines"] summary`))); err != nil {
		t.Fatalf("the link back does not lead to the comparison: %v", err)
	}
}
