package server_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/compare"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// layoutCheck is what the page measures of itself: how many quotes' TCO
// cells there are, the figures (chosen mode, TCOs, hidden share, cost per
// GPU-hour, break-even) not wholly inside the viewport, and how wide the
// page is against the viewport (wider means it scrolls sideways).
type layoutCheck struct {
	Cells       int      `json:"cells"`
	Outside     []string `json:"outside"`
	ScrollWidth int      `json:"scrollWidth"`
	Viewport    int      `json:"viewport"`
	Matrix      bool     `json:"matrix"`
	Wide        []string `json:"wide"`
}

const measureLayout = `(() => {
	const vw = document.documentElement.clientWidth;
	const out = [];
	const cells = document.querySelectorAll('tbody[data-testid^="row-"] [data-testid="tco"]');
	const figures = document.querySelectorAll('tbody[data-testid^="row-"] :is([data-testid="chosen"], [data-testid="tco"], ' +
		'[data-testid="tco-pessimistic"], [data-testid="hidden-share"], [data-testid="effective"], [data-testid="break-even"])');
	for (const c of figures) {
		const r = c.getBoundingClientRect();
		if (r.width === 0 || r.left < 0 || r.right > vw + 0.5) {
			out.push(c.closest('tbody').dataset.testid + ' ' + c.dataset.testid + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
		}
	}
	const wide = [];
	for (const e of document.querySelectorAll('body *')) {
		const box = e.parentElement && e.parentElement.closest('.matrix-wrap, .results-wrap, .table-wrap, figure.chart');
		if (wide.length >= 5 || (box && getComputedStyle(box).overflowX === 'auto')) continue;
		const r = e.getBoundingClientRect();
		if (r.right > vw + 0.5 && r.width > 0) wide.push(e.tagName.toLowerCase() + '.' + e.className + '#' + e.id + ' ' + Math.round(r.right));
	}
	const m = document.querySelector('.matrix-wrap');
	return {cells: cells.length, outside: out, wide: wide, scrollWidth: document.documentElement.scrollWidth, viewport: vw,
		matrix: !!m && getComputedStyle(m).overflowX === 'auto'};
})()`

// TestBrowserResultsFitEveryWidth opens a comparison of the most quotes a
// comparison takes (20, with long offer names, unconfirmed lines, several
// currencies and a second scenario) and the report saved from it at phone, laptop and
// desktop widths in both languages: every quote's TCO lies inside the
// viewport and the page never scrolls sideways (only the twelve-line
// matrix does, inside its own box, on the compare page once its section
// is opened).
func TestBrowserResultsFitEveryWidth(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	var ids []int64
	for i := range compare.MaxSelected {
		lines := testfactory.AllIncluded()
		if i%3 == 0 {
			lines = nil // all twelve unconfirmed: the pessimistic figure names what it leaves out
		}
		id := publishQuote(app, []string{"EUR", "EUR", "EUR", "USD"}[i%4], fmt.Sprintf("0.%d", 300+i*7), fmt.Sprintf("%d", 90+i*11), lines)
		ids = append(ids, id)
	}
	// A long offer name, as vendors write them (the first quote's next version).
	long, err := app.Store.NewQuoteVersion(t.Context(), user.SystemActor, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	long.Label = "R9700 按小时档 · 32 GB 显存 · 16 vCPU · 64 GB 内存 · 1 TB NVMe · 1 Gbit/s 不限流量 / hourly tier with a very long marketing name"
	if long, err = app.Store.UpdateQuoteDraft(t.Context(), user.SystemActor, long); err != nil {
		t.Fatal(err)
	}
	published, err := app.Store.PublishQuote(t.Context(), user.SystemActor, long.ID, long.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	ids[0] = published.ID
	if _, err := app.Store.CreateFXRate(t.Context(), user.SystemActor, market.FXRate{Base: "USD", Quote: "EUR",
		Rate: decimal.RequireFromString("0.9"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	api := app.Client()
	api.Login(email, pw)
	form := reportForm("20 家报价", "200", ids...)
	form.Set("profile.egress_gb_per_month", "300")
	form.Set("profile.data_disk_gb", "500")
	form.Set("b.profile.hours_per_month", "600") // scenario B beside A: its rows must fit too
	reportID := saveReport(t, api, form)
	q := url.Values{}
	for k, vs := range form {
		if k != "title" && k != "purpose" {
			q[k] = vs
		}
	}
	pages := map[string]string{"compare": "/compare?" + q.Encode(), "report": "/reports/" + itoa(reportID)}

	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
	); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280, 1920} {
			for _, name := range []string{"compare", "report"} {
				height := int64(844)
				if width > 390 {
					height = width * 9 / 16
				}
				if err := chromedp.Do(ctx,
					chromedp.EmulateViewport(width, height),
					chromedp.Navigate(app.URL+pages[name]),
					chromedp.WaitVisible(chromedp.CSS(`tbody[data-testid^="row-"]`)),
				); err != nil {
					t.Fatalf("%s %s %d: %v", name, lang, width, err)
				}
				// The compare page's matrix is a section opened on demand
				// (docs/RULES.md §20.4): opened, it must fit too.
				if name == "compare" {
					if err := chromedp.Do(ctx,
						chromedp.Click(chromedp.CSS(`details[data-testid="section-lines"] summary`)),
						chromedp.WaitVisible(chromedp.CSS(`details[data-testid="section-lines"] [data-testid="compare-lines"]`)),
					); err != nil {
						t.Fatalf("%s %s %d: the matrix does not open: %v", name, lang, width, err)
					}
				}
				m, err := chromedp.Run(ctx, chromedp.Evaluate[layoutCheck](measureLayout))
				if err != nil {
					t.Fatal(err)
				}
				where := fmt.Sprintf("%s, %s, %d px", name, lang, width)
				if m.Cells != compare.MaxSelected {
					t.Errorf("%s: %d TCO cells, want %d", where, m.Cells, compare.MaxSelected)
				}
				if len(m.Outside) > 0 {
					t.Errorf("%s: figures outside the viewport: %s", where, strings.Join(m.Outside, "; "))
				}
				if m.ScrollWidth > m.Viewport {
					t.Errorf("%s: the page is %d px wide in a %d px viewport: it scrolls sideways (%s)", where, m.ScrollWidth, m.Viewport,
						strings.Join(m.Wide, "; "))
				}
				if !m.Matrix {
					t.Errorf("%s: the twelve-line matrix does not scroll inside its own box", where)
				}
				if name == "compare" {
					testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("layout-compare-lines-%s-%d", lang, width), `details[data-testid="section-lines"]`)
				}
				testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("layout-%s-%s-%d", name, lang, width), `tbody[data-testid^="row-"]`)
			}
		}
	}

	// Printed on A4 (186 mm between the stylesheet's margins: 703 CSS
	// pixels), the report's results keep every TCO on the page.
	if err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
			return err
		}),
		chromedp.EmulateViewport(703, 1000),
		chromedp.Navigate(app.URL+pages["report"]),
		chromedp.WaitReady(chromedp.CSS(`tbody[data-testid^="row-"]`)),
	); err != nil {
		t.Fatal(err)
	}
	m, err := chromedp.Run(ctx, chromedp.Evaluate[layoutCheck](measureLayout))
	if err != nil {
		t.Fatal(err)
	}
	if m.Cells != compare.MaxSelected || len(m.Outside) > 0 || m.ScrollWidth > m.Viewport {
		t.Errorf("printed report: %d TCO cells, outside %v, %d px wide in %d (%s)", m.Cells, m.Outside, m.ScrollWidth, m.Viewport,
			strings.Join(m.Wide, "; "))
	}
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF(func(p *page.PrintToPDFParams) {
		yes := true
		p.PreferCSSPageSize, p.PrintBackground = &yes, &yes
	}))
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("GPUQUOTE_SCREENSHOT_DIR"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "layout-report-print.pdf"), pdf, 0o644)
	}
}
