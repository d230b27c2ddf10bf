package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserRecomputedReportChangesFit: a recomputed report's list of
// changes (long offer names, old → new figures) fits a phone's and a
// desktop's width in both languages: neither the page nor the table's own
// box scrolls sideways; on a phone each offer is a card.
func TestBrowserRecomputedReportChangesFit(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	analyst := app.Client()
	analyst.Login(email, password)
	id := saveReport(t, analyst, marketForm("Recomputed on a phone", a, b))
	r := analyst.PostForm("/reports/"+itoa(id)+"/recompute", url.Values{})
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("recompute: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	const overflow = `[document.documentElement, ...document.querySelectorAll('[data-testid="report-changes"] .table-wrap')]
		.filter(e => e.scrollWidth > e.clientWidth + 1).length`
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+"/reports/"+m[1]),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="report-changes"]`))); err != nil {
				t.Fatal(err)
			}
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](overflow))
			if err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				t.Errorf("%s at %d px: %d boxes scroll sideways", lang, width, n)
			}
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("report-changes-%s-%d", lang, width), `[data-testid="report-changes"]`)
		}
	}
}
