package server_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// TestBrowserProposedQuoteFromEmailToComparison follows a vendor's quote
// from an analyst's inbox into a comparison (docs/RULES.md §18.1, §18.4):
// the analyst enters it with the twelve-line form, pastes the vendor's
// email and attaches the vendor's PDF; an editor finds it in the review
// queue, corrects the label and publishes it; the analyst sees one unread
// notification, opens it (which lands on the published quote) and compares
// that quote. Two browsers, one per person, both in Chinese first.
func TestBrowserProposedQuoteFromEmailToComparison(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	pid, gid := marketRefs(app)
	aEmail, aPassword, _ := app.CreateUser(auth.RoleAnalyst)
	eEmail, ePassword, _ := app.CreateUser(auth.RoleEditor)
	pdf := filepath.Join(t.TempDir(), "HOSTKEY 报价单.pdf")
	if err := os.WriteFile(pdf, proposalPDF, 0o644); err != nil {
		t.Fatal(err)
	}

	// The analyst proposes.
	analyst := testutil.Browser(t)
	if err := chromedp.Do(analyst, signIn(app, aEmail, aPassword)); err != nil {
		t.Fatal(err)
	}
	fields := map[string]string{
		"platform": itoa(pid), "gpu_model": itoa(gid), "label": "R9700 按月 · 邮件报价", "gpu_count": "1",
		"sharing": "dedicated", "currency": "EUR", "hourly": "0.471", "monthly": "284", "billing_granularity": "second",
		"as_of": "2026-11-20", "source": "销售邮件 2026-11-20",
		"vendor_message":   "您好，R9700 单卡按量 €0.471/小时，包月 €284，含 1 Gbps 带宽与公网 IP。\n— HOSTKEY sales",
		"bandwidth.status": "included", "public_ip.status": "included", "egress.status": "included",
	}
	setFields := `(function(f, vals) {
		for (const [name, v] of Object.entries(vals)) {
			const el = f.elements[name];
			if (!el) { return "missing " + name; }
			el.value = v;
		}
		return "";
	})(document.querySelector('[data-testid="proposal-form"]'), ` + jsObject(fields) + `)`
	if err := chromedp.Do(analyst, chromedp.Navigate(app.URL+"/quotes/new"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="proposal-form"]`))); err != nil {
		t.Fatal(err)
	}
	if missing, err := chromedp.Run(analyst, chromedp.Evaluate[string](setFields)); err != nil || missing != "" {
		t.Fatalf("fill the proposal form: %q %v", missing, err)
	}
	if err := chromedp.Do(analyst, chromedp.SetUploadFiles(chromedp.CSS(`#f-vendor_file`), []string{pdf}),
		chromedp.Click(chromedp.CSS(`[data-testid="proposal-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="not-reviewed"]`))); err != nil {
		t.Fatal(err)
	}
	proposalURL, err := chromedp.Run(analyst, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	proposalPath := strings.TrimPrefix(proposalURL, app.URL)
	panel, err := chromedp.Run(analyst, chromedp.Text(chromedp.CSS(`[data-testid="proposal-panel"]`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"— HOSTKEY sales", "HOSTKEY 报价单.pdf"} {
		if !strings.Contains(panel, want) {
			t.Errorf("the proposal's page does not show %q: %.400s", want, panel)
		}
	}

	// The editor reviews it from the queue, corrects the label, publishes.
	editor := testutil.Browser(t)
	if err := chromedp.Do(editor, signIn(app, eEmail, ePassword),
		chromedp.Click(chromedp.CSS(`[data-testid="nav-notifications"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="notify-list"]`))); err != nil {
		t.Fatal(err)
	}
	told, err := chromedp.Run(editor, chromedp.Text(chromedp.CSS(`[data-testid="notify-list"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(told, "Test analyst") || !strings.Contains(told, "HOSTKEY · AMD Radeon AI PRO R9700") {
		t.Errorf("the editor is not told of the proposal: %.300s", told)
	}
	if err := chromedp.Do(editor, chromedp.Navigate(app.URL+"/quotes/review"),
		chromedp.Click(chromedp.CSS(`a[href="`+proposalPath+`/review"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="review-publish-form"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="review-publish-form"] [name="label"]`), "R9700 包月 · HOSTKEY 邮件报价"),
		chromedp.Click(chromedp.CSS(`[data-testid="review-publish"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="review-publish-form"]`))); err != nil {
		t.Fatal(err)
	}

	// The analyst is told, opens the notice, and compares the quote.
	if err := chromedp.Do(analyst, chromedp.Navigate(app.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav-unread"]`))); err != nil {
		t.Fatal(err)
	}
	if n, err := chromedp.Run(analyst, chromedp.Text(chromedp.CSS(`[data-testid="nav-unread"] [aria-hidden="true"]`))); err != nil || strings.TrimSpace(n) != "1" {
		t.Errorf("unread count in the navigation: %q %v", n, err)
	}
	if err := chromedp.Do(analyst, chromedp.Click(chromedp.CSS(`[data-testid="nav-notifications"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="notify-open"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="notify-open"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="attachment-link"]`))); err != nil {
		t.Fatal(err)
	}
	publishedURL, err := chromedp.Run(analyst, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	publishedID := strings.TrimPrefix(strings.TrimPrefix(publishedURL, app.URL), "/quotes/")
	if publishedURL == proposalURL || strings.Contains(publishedID, "/") {
		t.Fatalf("the notice opened %s, not the published version of %s", publishedURL, proposalURL)
	}
	if n, _ := chromedp.Run(analyst, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="nav-unread"]').length`)); n != 0 {
		t.Errorf("the notice is still unread after opening it")
	}
	if err := chromedp.Do(analyst, chromedp.Navigate(app.URL+"/compare?profile.hours_per_month=200&profile.months=3&profile.instances=1&q="+publishedID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-results"]`))); err != nil {
		t.Fatal(err)
	}
	results, err := chromedp.Run(analyst, chromedp.Text(chromedp.CSS(`[data-testid="compare-results"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(results, "R9700 包月 · HOSTKEY 邮件报价") {
		t.Errorf("the comparison does not price the published quote under the editor's label: %.400s", results)
	}
	if n, _ := chromedp.Run(analyst, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="row-not-reviewed"]').length`)); n != 0 {
		t.Errorf("the published quote is marked not yet reviewed")
	}
	// It is among the candidates, ticked, like any published quote.
	if on, err := chromedp.Run(analyst, chromedp.Evaluate[bool](`!!(document.getElementById("cand-q-`+publishedID+`") || {}).checked`)); err != nil || !on {
		t.Errorf("the published quote is not a ticked candidate: %v", err)
	}
	testutil.Screenshot(t, analyst, "proposal-flow-compare-zh-1280")
}

// jsObject writes m as a JavaScript object literal (JSON is one).
func jsObject(m map[string]string) string {
	b, _ := json.Marshal(m)
	return string(b)
}
