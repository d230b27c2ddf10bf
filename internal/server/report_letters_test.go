package server_test

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestReportMergesIdenticalLetters: two quotes whose questions are word
// for word the same (B and C, both all included, hourly in USD) share one
// letter naming both; A's differ and keep their own. The letters are
// closed by default (so they stay out of the print until opened).
func TestReportMergesIdenticalLetters(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	c := publishQuote(app, "USD", "0.45", "", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	res := analyst.Get("/reports/" + itoa(saveReport(t, analyst, marketForm("GPU 租用 12 月", a, b, c))))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("report page: %d", res.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.Body))
	if err != nil {
		t.Fatal(err)
	}
	letters := doc.Find(`[data-testid="report-letters"]`)
	if letters.Length() != 1 || letters.Is("[open]") {
		t.Fatalf("letters: %d, open %v; want one closed switch", letters.Length(), letters.Is("[open]"))
	}
	each := letters.Find(`details.questions`)
	if each.Length() != 2 {
		t.Fatalf("%d letters for three quotes, want 2 (B and C share one)", each.Length())
	}
	// The letters follow the report's order (B and C, cheaper, first).
	merged, own := each.Eq(0), each.Eq(1)
	if merged.AttrOr("data-quotes", "") != "2" || own.AttrOr("data-testid", "") != "report-questions-"+itoa(a) || own.AttrOr("data-quotes", "") != "1" {
		t.Errorf("letters %s for %s quotes and %s for %s, want B's and C's, then A's alone", merged.AttrOr("data-testid", ""),
			merged.AttrOr("data-quotes", ""), own.AttrOr("data-testid", ""), own.AttrOr("data-quotes", ""))
	}
	sep := app.Catalog.Translator("zh-CN").T("list.separator")
	if name := merged.Find("summary").Text(); strings.Count(name, sep) != 1 {
		t.Errorf("merged letter named %q, want two names", name)
	}
	// The text names both quotes (their version lines) once each on top,
	// then asks each question once.
	text := merged.Find("pre").Text()
	head, body, _ := strings.Cut(text, "\n\n")
	if lines := strings.Split(head, "\n"); len(lines) != 2 || lines[0] == lines[1] {
		t.Errorf("merged letter heads %q, want the two quotes", lines)
	}
	if strings.Count(text, "\n1. ") != 1 || body == "" || strings.HasSuffix(own.Find("pre").Text(), "\n\n"+body) {
		t.Errorf("merged letter body %q", body)
	}
}

// TestBrowserReportLettersPrintOnlyWhenOpened prints a report with its
// letters closed (the default) and opened: closed, they are hidden in
// print and a line says so, and the PDF has fewer pages; opened, they
// print.
func TestBrowserReportLettersPrintOnlyWhenOpened(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	c := publishQuote(app, "EUR", "0.5", "80", testfactory.AllIncluded())
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	analyst := app.Client()
	analyst.Login(email, pw)
	id := saveReport(t, analyst, marketForm("GPU 租用 12 月", a, b, c))
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, pw), chromedp.Navigate(app.URL+"/reports/"+itoa(id)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-letters-toggle"]`))); err != nil {
		t.Fatal(err)
	}
	pages := func() int {
		pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF(func(p *page.PrintToPDFParams) {
			yes := true
			p.PreferCSSPageSize = &yes
		}))
		if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("print: %v", err)
		}
		return len(regexp.MustCompile(`/Type\s*/Page[^s]`).FindAll(pdf, -1))
	}
	shown := func() []string {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`["report-letters", "report-letters-left-out"].map(
			(n) => getComputedStyle(document.querySelector('[data-testid="' + n + '"]')).display)`))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	closedPages := pages()
	media := func(m string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m})
			return err
		})
	}
	if err := chromedp.Do(ctx, media("print")); err != nil {
		t.Fatal(err)
	}
	if got := shown(); got[0] != "none" || got[1] == "none" {
		t.Errorf("closed letters in print: letters %s, left-out line %s; want hidden and shown", got[0], got[1])
	}
	if err := chromedp.Do(ctx, media(""), chromedp.Click(chromedp.CSS(`[data-testid="report-letters-toggle"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-questions-`+itoa(a)+`"] pre`)), media("print")); err != nil {
		t.Fatal(err)
	}
	if got := shown(); got[0] == "none" || got[1] != "none" {
		t.Errorf("opened letters in print: letters %s, left-out line %s; want shown and hidden", got[0], got[1])
	}
	if openPages := pages(); openPages <= closedPages {
		t.Errorf("the report prints on %d pages with its letters and %d without", openPages, closedPages)
	}
	if err := chromedp.Do(ctx, media("")); err != nil {
		t.Fatal(err)
	}
	testutil.ViewportScreenshot(t, ctx, "report-letters-open", `[data-testid="report-questions"]`)
}
