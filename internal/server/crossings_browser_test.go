package server_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/sample"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// TestBrowserCompareCrossingsOfTheSampleMarket loads the sample market as
// a first start does, ticks the guide's four HOSTKEY R9700 quotes (the
// €0.471/h tier and the €70, €118 and €284 monthly packages) and finds
// each package's break-even against the tier, in the section and as a dot
// on the cost curves, with the guide's caution.
func TestBrowserCompareCrossingsOfTheSampleMarket(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	if err := sample.LoadMarket(context.Background(), app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	var hourly decimal.Decimal
	var ids []int64
	var monthly []decimal.Decimal
	err := app.Store.ExportQuotes(context.Background(), store.QuoteFilter{Query: "HOSTKEY"}, func(q quote.Quote) error {
		ids = append(ids, q.ID)
		switch {
		case q.Hourly.Valid && !q.Monthly.Valid:
			hourly = q.Hourly.Decimal
		case q.Monthly.Valid && !q.Hourly.Valid:
			monthly = append(monthly, q.Monthly.Decimal)
		}
		return nil
	})
	if err != nil || len(ids) != 4 || len(monthly) != 3 || hourly.Sign() <= 0 {
		t.Fatalf("sample HOSTKEY quotes: %d (%d monthly, hourly %s), %v", len(ids), len(monthly), hourly, err)
	}
	// The guide's figures, and what the sample's own prices give.
	want := []string{"148.62", "250.53", "602.97"}
	for i, m := range monthly {
		if got := money.Fixed(money.QuoRound([]decimal.Decimal{m}, []decimal.Decimal{hourly}, 2), 2); got != want[i] {
			t.Fatalf("sample package %d: %s ÷ %s = %s, want %s", i, m, hourly, got, want[i])
		}
	}

	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, compareTicking(app, email, pw, ids)...); err != nil {
		t.Fatal(err)
	}
	// Ticking refreshes the results in place; wait for the fourth quote.
	count := func(sel string) string {
		return `document.querySelectorAll('` + sel + `').length`
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](count(`tbody[data-testid^="row-"]`)+` === 4 && `+
		count(`[data-testid="crossing-hours"]`)+` === 3`)); err != nil {
		got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="compare-results"]').innerText`))
		t.Fatalf("the four quotes' crossings never showed: %v\n%s", err, got)
	}
	hours, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`Array.from(document.querySelectorAll('[data-testid="crossing-hours"]')).map(e => e.innerText).join(" | ")`))
	if err != nil {
		t.Fatal(err)
	}
	cells := strings.Split(hours, " | ")
	for i, w := range want {
		if i >= len(cells) || !strings.Contains(cells[i], w) {
			t.Errorf("crossing-hours cells %q, want %s in cell %d", cells, w, i+1)
		}
	}
	caution, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="crossings-caution"]`)))
	if err != nil || !strings.Contains(caution, app.Catalog.Translator("zh-CN").T("compare.crossings.caution")) {
		t.Errorf("caution %q (%v)", caution, err)
	}

	// The chart: one dot per crossing, each titled with the pair and its
	// hours, inside the plot.
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](count(`[data-testid="chart-curves"] svg [data-testid="chart-crossing"]`)))
	if err != nil || n != 3 {
		t.Fatalf("chart crossings: %d (%v)", n, err)
	}
	titles, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		`Array.from(document.querySelectorAll('[data-testid="chart-crossing"] > title')).map(e => e.textContent).join(" | ")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(titles, w) {
			t.Errorf("chart titles %q lack %s", titles, w)
		}
	}
	inside, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const svg = document.querySelector('[data-testid="chart-curves"] svg');
		const plot = svg.querySelector('.chart-axis').getBBox();
		return Array.from(svg.querySelectorAll('[data-testid="chart-crossing"] circle')).every(c => {
			const x = c.cx.baseVal.value;
			return x > plot.x && x <= plot.x + plot.width;
		});
	})()`))
	if err != nil || !inside {
		t.Errorf("a crossing dot lies outside the hours axis (%v)", err)
	}

	testutil.Screenshot(t, ctx, "compare-crossings")
	testutil.ViewportScreenshot(t, ctx, "compare-crossings-section", `[data-testid="compare-crossings"]`)
	testutil.ViewportScreenshot(t, ctx, "compare-crossings-chart", `[data-testid="chart-curves"]`)
}
