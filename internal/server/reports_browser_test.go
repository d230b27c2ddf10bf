package server_test

import (
	"bytes"
	"context"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// browserLogin signs in through the login form.
func browserLogin(ctx context.Context, t *testing.T, app *testutil.App, email, password string) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(app.URL+"/login"),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="current-user"]`)),
	); err != nil {
		t.Fatalf("login %s: %v", email, err)
	}
}

// browserLogout signs out with the header's button.
func browserLogout(ctx context.Context, t *testing.T) {
	t.Helper()
	clickAndLoad(ctx, t, `[data-testid="logout"]`)
}

// clickAndLoad clicks what submits a form and waits for the page it leads to.
func clickAndLoad(ctx context.Context, t *testing.T, sel string) {
	t.Helper()
	if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}

// TestBrowserReportSubmitApprovePrint: an analyst saves a comparison as a
// report and submits it; a finance user finds it in the inbox and approves
// it with a comment; the analyst sees it approved. The approved report is
// then printed by Chromium to an A4 PDF (the print stylesheet: facts on
// top, page numbers in the page margin), kept beside the screenshots.
func TestBrowserReportSubmitApprovePrint(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analystEmail, analystPW, _ := app.CreateUser(auth.RoleAnalyst)
	financeEmail, financePW, _ := app.CreateUser(auth.RoleFinance)
	zh := app.Catalog.Translator("zh-CN")
	ctx := testutil.Browser(t)

	// The analyst compares, saves and submits.
	browserLogin(ctx, t, app, analystEmail, analystPW)
	q := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"profile.egress_gb_per_month": {"100"}, "profile.snapshot_gb": {"50"}, "report_currency": {"EUR"}, "q": {itoa(a), itoa(b)}}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(app.URL+"/compare?"+q.Encode()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-save-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="report-save-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-new-form"]`)),
		chromedp.SendKeys(chromedp.ID("report-title"), "LoRA 微调算力采购（12 月）"),
		chromedp.SendKeys(chromedp.ID("report-purpose"), "7B 模型 LoRA 微调，每月约 200 小时，需要 100 GB 出网流量。"),
	); err != nil {
		t.Fatal(err)
	}
	testutil.Screenshot(t, ctx, "report-new")
	clickAndLoad(ctx, t, `[data-testid="report-create"]`)
	waitText(ctx, t, `[data-testid="report-status"]`, zh.T("report.status.draft"))
	waitText(ctx, t, `[data-testid="report-summary-tco"]`, "72.00")
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	reportURL := regexp.MustCompile(`/reports/\d+$`).FindString(loc)
	if reportURL == "" {
		t.Fatalf("not on a report page: %s", loc)
	}
	clickAndLoad(ctx, t, `[data-testid="report-submit"]`)
	waitText(ctx, t, `[data-testid="report-status"]`, zh.T("report.status.submitted"))
	browserLogout(ctx, t)

	// Finance approves it from the inbox, with a comment.
	browserLogin(ctx, t, app, financeEmail, financePW)
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="nav-report-inbox"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="reports-table"]`)),
	); err != nil {
		t.Fatal(err)
	}
	testutil.Screenshot(t, ctx, "report-inbox")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="reports-table"] tbody a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-approve-form"]`)),
		chromedp.SendKeys(chromedp.ID("approve-comment"), "同意，按推荐方案采购。"),
	); err != nil {
		t.Fatal(err)
	}
	clickAndLoad(ctx, t, `[data-testid="report-approve"]`)
	waitText(ctx, t, `[data-testid="report-status"]`, zh.T("report.status.approved"))
	browserLogout(ctx, t)

	// The analyst sees it approved, by whom and with what comment.
	browserLogin(ctx, t, app, analystEmail, analystPW)
	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+reportURL),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-doc"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="report-status"]`, zh.T("report.status.approved"))
	waitText(ctx, t, `[data-testid="report-approver"]`, "Test finance")
	waitText(ctx, t, `[data-testid="report-decision"]`, "同意，按推荐方案采购。")
	waitText(ctx, t, `[data-testid="report-timeline"]`, zh.T("report.event.approved"))
	testutil.Screenshot(t, ctx, "report")

	// Print it as the browser's "Save as PDF" would: A4 from the stylesheet.
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF(func(p *page.PrintToPDFParams) {
		yes := true
		p.PreferCSSPageSize, p.PrintBackground = &yes, &yes
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("not a PDF (%d bytes)", len(pdf))
	}
	// A4 is 210 × 297 mm: 595.3 × 841.9 points, portrait.
	box := regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]`).FindSubmatch(pdf)
	if box == nil {
		t.Fatal("the PDF names no page size")
	}
	w, _ := strconv.ParseFloat(string(box[1]), 64)
	h, _ := strconv.ParseFloat(string(box[2]), 64)
	if math.Abs(w-595.3) > 1 || math.Abs(h-841.9) > 1 {
		t.Errorf("the PDF pages are %s × %s points, not A4 portrait", box[1], box[2])
	}
	if n := len(regexp.MustCompile(`/Type\s*/Page[^s]`).FindAll(pdf, -1)); n < 2 {
		t.Errorf("the report prints on %d pages; its table, charts, questions and timeline need more than one", n)
	}
	out := filepath.Join(t.TempDir(), "report-print.pdf")
	if err := os.WriteFile(out, pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("GPUQUOTE_SCREENSHOT_DIR"); dir != "" {
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, "report-print.pdf"), pdf, 0o644)
	}
	// Under print media, what is not the document (navigation, actions,
	// forms) is hidden and the report's facts stay.
	printMedia := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	})
	if err := chromedp.Do(ctx, printMedia); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`["site-header", "report-actions", "report-facts", "report-number"].map(
		(n) => getComputedStyle(document.querySelector('[data-testid="' + n + '"], .' + n)).display)`))
	if err != nil || len(shown) != 4 || shown[0] != "none" || shown[1] != "none" || shown[2] == "none" || shown[3] == "none" {
		t.Errorf("print media: header, actions, facts, number displayed as %v (%v)", shown, err)
	}
}
