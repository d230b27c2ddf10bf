package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserFinanceChecksABill: a finance user opens an approved report
// in Chinese, checks November's bill (golden bill 1 of docs/RULES.md
// §23.7) line by line in the form, and sees the overcharged public IP, the
// egress charged though included and the data disk's hidden cost, each in
// words, with the totals first; opens the letter to the vendor; exports
// the check. The bill's page is looked at in both languages at 390 and
// 1280 px: the totals on screen first, nothing scrolling sideways, and
// axe-core finds no serious or critical violation on it, nor on the form
// and the letter.
func TestBrowserFinanceChecksABill(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	qid := goldenBillQuote(app, 1)
	rid, _, _ := approvedReport(t, app, qid, "EUR")
	email, password, _ := app.CreateUser(auth.RoleFinance)
	ctx := testutil.Browser(t)
	if err := testutil.InjectAxe(ctx); err != nil {
		t.Fatal(err)
	}
	axe := func(what string) {
		t.Helper()
		v, err := testutil.Axe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			t.Errorf("%s: %s", what, x)
		}
	}
	if err := chromedp.Do(ctx, signIn(app, email, password),
		chromedp.Navigate(app.URL+"/reports/"+itoa(rid)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-bills-empty"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="report-bill-check"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bill-form"]`)),
	); err != nil {
		t.Fatal(err)
	}
	axe("the bill form")
	testutil.Screenshot(t, ctx, "bill-form-zh-CN")
	// The month, then the four lines as the vendor's bill lists them.
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.SetValue(chromedp.ID("bill-month"), "2026-11"),
	}
	for i, l := range [][4]string{{"compute_hourly", "200", "94.20", "RTX 按量 200 小时"}, {"public_ip", "1", "3.50", "公网 IP"},
		{"egress", "120", "1.20", "出网流量 120 GB"}, {"data_disk", "100", "4.00", "数据盘 100 GB"}} {
		n := fmt.Sprint(i)
		steps = append(steps,
			chromedp.SetValue(chromedp.CSS(`[name="line-`+n+`-item"]`), l[0]),
			chromedp.SendKeys(chromedp.CSS(`[name="line-`+n+`-quantity"]`), l[1]),
			chromedp.SendKeys(chromedp.CSS(`[name="line-`+n+`-amount"]`), l[2]),
			chromedp.SendKeys(chromedp.CSS(`[name="line-`+n+`-description"]`), l[3]))
	}
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
	clickAndLoad(ctx, t, `[data-testid="bill-submit"]`)
	waitText(ctx, t, `[data-testid="bill-heading"]`, "2026-11 账单核对")
	waitText(ctx, t, `[data-testid="bill-total-overcharge"]`, "€1.70")
	waitText(ctx, t, `[data-testid="bill-total-billed"]`, "€102.90")
	waitText(ctx, t, `[data-testid="bill-total-expected"]`, "€97.20")
	waitText(ctx, t, `[data-testid="bill-total-unquoted"]`, "€4.00")
	verdicts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="bill-line-verdict"]')].map(e => e.textContent.trim())`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(verdicts, "|") != "与报价一致|多收|报价已含却仍收费|出现隐性费用" {
		t.Errorf("the verdicts read %q", verdicts)
	}
	waitText(ctx, t, `[data-testid="bill-lines"]`, "本可发现它的问题")
	waitText(ctx, t, `[data-testid="bill-budget-verdict"]`, "超出悲观预算")
	billURL, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}

	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(billURL),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="bill-totals"]`))); err != nil {
				t.Fatal(err)
			}
			got, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
				const o = document.querySelector('[data-testid="bill-total-overcharge"]').getBoundingClientRect();
				return [document.documentElement.scrollWidth - window.innerWidth, o.bottom];
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			if got[0] > 0 {
				t.Errorf("%s at %d px: the bill's page scrolls sideways by %v px", lang, width, got[0])
			}
			if got[1] > 900 {
				t.Errorf("%s at %d px: the overcharge is %v px down a 900 px screen", lang, width, got[1])
			}
			testutil.Screenshot(t, ctx, fmt.Sprintf("bill-%s-%d", lang, width))
			axe(fmt.Sprintf("%s at %d px, the bill", lang, width))
		}
	}
	useLanguage(t, ctx, "zh-CN")

	// The letter, in both languages whatever the reader's.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(billURL),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="bill-letter-link"]`))); err != nil {
		t.Fatal(err)
	}
	clickAndLoad(ctx, t, `[data-testid="bill-letter-link"]`)
	waitText(ctx, t, `[data-testid="bill-letter-text-zh-CN"]`, "合计多收 €1.70")
	waitText(ctx, t, `[data-testid="bill-letter-text-zh-CN"]`, "出网流量（出网流量 120 GB）：报价书面答复为“已包含”")
	waitText(ctx, t, `[data-testid="bill-letter-text-en"]`, "In all €1.70 overcharged")
	axe("the letter")
	testutil.Screenshot(t, ctx, "bill-letter")

	// The exports, fetched as the page's links do.
	files, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Promise.all(["/export.csv", "/focus.csv"].map(
		(p) => fetch("`+strings.TrimPrefix(billURL, app.URL)+`" + p).then((r) => r.ok ? r.text() : "status " + r.status)))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || !strings.Contains(files[0], "102.90") || !strings.Contains(files[0], "1.70") ||
		!strings.Contains(files[1], "charged_though_included") {
		t.Errorf("the exports: %.300q", files)
	}
}
