package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestAuditFilterByReportAction: ?action=report.approve lists the
// approval only (it used to list every row, unfiltered), the filter offers
// every action and object with its words, and no raw key is shown.
func TestAuditFilterByReportAction(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	admin, _ := app.AsUser(auth.RoleAdmin)
	id := saveReport(t, analyst, reportForm("审批测试", "200", q))
	p := "/reports/" + itoa(id)
	if got := postStatus(analyst, p+"/submit", nil); got != http.StatusSeeOther {
		t.Fatalf("submit: %d", got)
	}
	if got := postStatus(admin, p+"/approve", nil); got != http.StatusSeeOther {
		t.Fatalf("approve: %d", got)
	}
	rows := func(body string) int { return strings.Count(body, `<tr data-testid="audit-`) }
	for _, lang := range []string{"zh-CN", "en"} {
		admin.Header.Set("Accept-Language", lang)
		all := admin.Get("/admin/audit")
		r := admin.Get("/admin/audit?action=report.approve")
		if r.StatusCode != http.StatusOK || rows(r.Body) != 1 || rows(all.Body) <= 1 {
			t.Fatalf("[%s] filter by report.approve: %d, %d rows of %d", lang, r.StatusCode, rows(r.Body), rows(all.Body))
		}
		tr := app.Catalog.Translator(i18n.Lang(lang))
		if !strings.Contains(r.Body, "<td>"+tr.T("audit.action.report.approve")+"</td>") ||
			!strings.Contains(r.Body, tr.T("entity.report")+" "+itoa(id)) {
			t.Errorf("[%s] the approval row is not in words", lang)
		}
		for _, page := range []string{r.Body, all.Body} {
			if strings.Contains(page, "[audit.") || strings.Contains(page, "[entity.") {
				t.Errorf("[%s] the page shows a raw key", lang)
			}
		}
		for _, a := range store.AuditActions {
			if !strings.Contains(all.Body, `<option value="`+a+`"`) {
				t.Errorf("[%s] the filter does not offer %s", lang, a)
			}
		}
		for _, e := range store.AuditEntities {
			if !strings.Contains(all.Body, `<option value="`+e+`"`) {
				t.Errorf("[%s] the object filter does not offer %s", lang, e)
			}
		}
		if r := admin.Get("/admin/audit?entity=report&action=report.submit"); rows(r.Body) != 1 {
			t.Errorf("[%s] filter by object and action: %d rows", lang, rows(r.Body))
		}
	}
	// An action the log cannot hold is an error, not an unfiltered list.
	r := admin.Get("/admin/audit?action=report.nope")
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-action"`) || rows(r.Body) != 0 {
		t.Fatalf("unknown action: %d, %d rows", r.StatusCode, rows(r.Body))
	}
}

// TestBrowserAuditLogInWords: the admin's audit log, with report and
// trial-era actions in it, reads in words in both languages.
func TestBrowserAuditLogInWords(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	approver, _ := app.AsUser(auth.RoleAdmin)
	id := saveReport(t, analyst, reportForm("审批测试", "200", q))
	postStatus(analyst, "/reports/"+itoa(id)+"/submit", nil)
	if got := postStatus(approver, "/reports/"+itoa(id)+"/approve", nil); got != http.StatusSeeOther {
		t.Fatalf("approve: %d", got)
	}
	email, pw, _ := app.CreateUser(auth.RoleAdmin)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, pw)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh", "en"} {
		if lang == "en" {
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="lang-en"]`)),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="en"]`))); err != nil {
				t.Fatal(err)
			}
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/admin/audit"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="audit-table"]`))); err != nil {
			t.Fatal(err)
		}
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text, "[audit.") || strings.Contains(text, "[entity.") {
			t.Errorf("[%s] the audit log shows raw keys", lang)
		}
		testutil.Screenshot(t, ctx, "audit-"+lang)
	}
}
