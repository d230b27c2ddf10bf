package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// printedNotes measures the printed twelve-line table: the font size of its
// cells and the largest of its reference notes, in CSS pixels.
type printedNotes struct {
	Cell float64 `json:"cell"`
	Note float64 `json:"note"`
}

const measurePrintedNotes = `(() => {
	const px = e => parseFloat(getComputedStyle(e).fontSize);
	const cell = document.querySelector('[data-testid="report-lines"] td');
	const notes = Array.from(document.querySelectorAll('[data-testid="report-lines"] td .hint'));
	return {cell: cell ? px(cell) : 0, note: notes.reduce((m, e) => Math.max(m, px(e)), 0)};
})()`

// TestBrowserPrintedLineNotes: an unconfirmed egress line priced by the
// editors' €0.05 per GB reference says it is the amount at that unit price
// (it read "参考价 €15.00", as if the reference price were the amount),
// and printed on A4 its notes are no larger than the table they sit in
// (they printed at twice its size, two or three characters a line).
func TestBrowserPrintedLineNotes(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	id := publishQuote(app, "EUR", "0.471", "", nil) // all twelve lines unconfirmed
	if _, err := app.Store.CreateReferencePrice(context.Background(), user.SystemActor, market.ReferencePrice{Item: "egress",
		Currency: "EUR", Unit: "per_gb", UnitPrice: decimal.RequireFromString("0.05"),
		AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	analyst := app.Client()
	analyst.Login(email, pw)
	form := reportForm("出网参考价", "200", id)
	form.Set("profile.egress_gb_per_month", "300")
	path := "/reports/" + itoa(saveReport(t, analyst, form))
	tr := app.Catalog.Translator(i18n.ZH)
	egress, _ := catalog.LookupItem(catalog.ItemEgress)
	note := `[data-testid="report-lines"] [data-testid="line-egress"] [data-testid="line-reference"]`
	got := strings.TrimSpace(document(t, analyst.Get(path).Body).Find(note).Text())
	if want := tr.T("compare.line.reference_at", "Amount", "€15.00", "UnitPrice", "€0.05 "+tr.T(egress.UnitLabelID(catalog.UnitPerGB))); got != want {
		t.Errorf("the egress line's note says %q, want %q", got, want)
	}

	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, pw),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
			return err
		}),
		chromedp.EmulateViewport(703, 1000), chromedp.Navigate(app.URL+path),
		chromedp.WaitReady(chromedp.CSS(`[data-testid="report-lines"] td .hint`))); err != nil {
		t.Fatal(err)
	}
	m, err := chromedp.Run(b, chromedp.Evaluate[printedNotes](measurePrintedNotes))
	if err != nil {
		t.Fatal(err)
	}
	if m.Cell == 0 || m.Note == 0 || m.Note > m.Cell {
		t.Errorf("printed, the twelve-line table's cells are %.1f px and its notes up to %.1f px", m.Cell, m.Note)
	}
	// Every printed page's foot names the report: a fixed element, which
	// Chromium repeats on each page (pages after the first named nothing).
	foot, err := chromedp.Run(b, chromedp.Evaluate[string](`(() => {
		const f = document.querySelector('[data-testid="report-print-footer"]');
		if (!f) return "";
		const cs = getComputedStyle(f);
		return cs.display + " " + cs.position + " " + f.innerText.trim();
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	number := strings.TrimSpace(document(t, analyst.Get(path).Body).Find(`[data-testid="report-number"]`).Text())
	if want := "block fixed " + number + " · 出网参考价"; foot != want {
		t.Errorf("printed, the page foot is %q, want %q", foot, want)
	}
}
