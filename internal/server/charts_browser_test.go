package server_test

import (
	"context"
	"io"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/sample"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// overlappingTexts is a script that lists, for every chart on the page,
// the texts whose boxes as the browser lays them out overlap another's or
// leave the view box.
const overlappingTexts = `(() => {
	const bad = [];
	document.querySelectorAll('svg.chart').forEach(svg => {
		const vb = svg.viewBox.baseVal;
		const boxes = Array.from(svg.querySelectorAll('text')).map(t => ({t: t.textContent, b: t.getBBox()}));
		boxes.forEach((a, i) => {
			if (a.b.x < vb.x - 0.5 || a.b.y < vb.y - 0.5 || a.b.x + a.b.width > vb.x + vb.width + 0.5 || a.b.y + a.b.height > vb.y + vb.height + 0.5) {
				bad.push(a.t + ' leaves the view box');
			}
			boxes.slice(i + 1).forEach(b => {
				if (a.b.x < b.b.x + b.b.width - 0.5 && b.b.x < a.b.x + a.b.width - 0.5 &&
					a.b.y < b.b.y + b.b.height - 0.5 && b.b.y < a.b.y + a.b.height - 0.5) {
					bad.push(a.t + ' overlaps ' + b.t);
				}
			});
		});
	});
	return bad.join(' | ');
})()`

// TestBrowserChartsOfFourR9700OffersDoNotOverlap ticks the sample
// market's four HOSTKEY R9700 offers on the compare page and opens the
// price history of that platform and GPU (three monthly offers in one
// chart): in every chart, as the browser lays the texts out, no two
// overlap and none leaves the chart.
func TestBrowserChartsOfFourR9700OffersDoNotOverlap(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	if err := sample.LoadMarket(context.Background(), app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var platform, gpu int64
	err := app.Store.ExportQuotes(context.Background(), store.QuoteFilter{Query: "HOSTKEY"}, func(q quote.Quote) error {
		ids = append(ids, q.ID)
		platform, gpu = q.PlatformID, q.GPUModelID
		return nil
	})
	if err != nil || len(ids) != 4 {
		t.Fatalf("sample HOSTKEY quotes: %d, %v", len(ids), err)
	}
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, compareTicking(app, email, pw, ids)...); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('tbody[data-testid^="row-"]').length === 4 && `+
		`document.querySelectorAll('[data-testid="chart-bars"] svg .chart-bar').length === 4`)); err != nil {
		t.Fatalf("the four quotes' charts never showed: %v", err)
	}
	bad, err := chromedp.Run(ctx, chromedp.Evaluate[string](overlappingTexts))
	if err != nil || bad != "" {
		t.Errorf("compare charts: %s (%v)", bad, err)
	}
	// Both charts name every quote in full, as the results table does
	// (a legend may wrap a long name over rows).
	missing, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const flat = (s) => s.replace(/\s+/g, '');
		const names = Array.from(document.querySelectorAll('tbody[data-testid^="row-"] [data-testid="quote-name"]')).map(a => a.title);
		const out = [];
		['chart-curves', 'chart-bars'].forEach(c => {
			const text = flat(Array.from(document.querySelectorAll('[data-testid="' + c + '"] svg text')).map(e => e.textContent).join(''));
			names.forEach(n => { if (!n || !text.includes(flat(n))) out.push(c + ': ' + n); });
		});
		return out.join(' | ');
	})()`))
	if err != nil || missing != "" {
		t.Errorf("names not given in full: %s (%v)", missing, err)
	}
	testutil.ViewportScreenshot(t, ctx, "charts-compare-curves", `[data-testid="chart-curves"]`)
	testutil.ViewportScreenshot(t, ctx, "charts-compare-bars", `[data-testid="chart-bars"]`)

	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/history?platform="+itoa(platform)+"&gpu="+itoa(gpu)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="history-charts-EUR"]`))); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="history-charts-EUR"] svg .chart-legend text').length`))
	if err != nil || n < 3 {
		t.Errorf("history legend entries: %d (%v)", n, err)
	}
	bad, err = chromedp.Run(ctx, chromedp.Evaluate[string](overlappingTexts))
	if err != nil || bad != "" {
		t.Errorf("history charts: %s (%v)", bad, err)
	}
	testutil.Screenshot(t, ctx, "charts-history")
}
