package server_test

import (
	"context"
	"io"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// TestBrowserPlatformFacts opens the compare page's facts section with the
// sample platforms' facts, a platform page and the fact form at a phone's and a
// desktop's width in both languages: nothing scrolls sideways
// (docs/RULES.md §18.3). GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserPlatformFacts(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := sample.LoadFacts(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	ids, pids, _ := publishSample4090s(t, app, "AutoDL 算力云", "晨涧云")
	chenjian := pids[1]
	q := "profile.hours_per_month=200&profile.months=1&profile.instances=1&report_currency=CNY&q=" + itoa(ids[0]) + "&q=" + itoa(ids[1])
	email, password, _ := app.CreateUser(auth.RoleEditor)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	pagesFit(t, b, app, "facts", []fitPage{
		// The compare page's facts section on its own page (docs/RULES.md
		// §20.4; TestBrowserCompareSectionsOnDemand opens it in place).
		{"compare", "/compare/facts?" + q, `[data-testid="compare-facts"]`, true},
		{"platform", "/platforms/" + itoa(chenjian), `[data-testid="platform-facts"]`, false},
		{"form", "/platforms/" + itoa(chenjian) + "/facts", `[data-testid="fact-form"]`, false},
	})
	// The SLA clauses and written confirmations above the facts wrap on a
	// phone rather than scroll inside their box (pagesFit left English on).
	if err := chromedp.Do(b, chromedp.EmulateViewport(390, 900), chromedp.Navigate(app.URL+"/platforms/"+itoa(chenjian)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] [data-testid="platform-facts"]`))); err != nil {
		t.Fatal(err)
	}
	scrolls, err := chromedp.Run(b, chromedp.Evaluate[int](`Array.from(document.querySelectorAll('[data-testid="platform-terms"] .table-wrap')).filter(w => w.scrollWidth > w.clientWidth + 1).length`))
	if err != nil {
		t.Fatal(err)
	}
	if scrolls != 0 {
		t.Errorf("%d of the platform's terms tables scroll sideways at 390 px", scrolls)
	}
}
