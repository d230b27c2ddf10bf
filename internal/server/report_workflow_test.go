package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/report"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestReportDecisionNoticeUntilOpened: when finance returns (or approves)
// an analyst's report, the next page the analyst opens, whichever it is,
// names it with finance's comment; nobody else sees it; it stays until the
// analyst opens that report, and is gone from that page on
// (docs/RULES.md §11.3).
func TestReportDecisionNoticeUntilOpened(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	finance, _ := app.AsUser(auth.RoleFinance)
	admin, _ := app.AsUser(auth.RoleAdmin)

	id := saveReport(t, analyst, reportForm("试用一个月", "200", q))
	p := "/reports/" + itoa(id)
	number := reportRow(t, app, id).Number
	if got := postStatus(analyst, p+"/submit", nil); got != http.StatusSeeOther {
		t.Fatalf("submit: %d", got)
	}
	if body := analyst.Get("/").Body; strings.Contains(body, `data-testid="report-notices"`) {
		t.Fatal("a notice before any decision")
	}
	const comment = "请改用 12 个月的用量重算"
	if got := postStatus(finance, p+"/return", url.Values{"comment": {comment}}); got != http.StatusSeeOther {
		t.Fatalf("return: %d", got)
	}
	notice := `data-testid="report-notice-` + itoa(id) + `"`
	// Whatever page the author opens next shows it, again and again.
	// (The absence checks below look for the list's test id: it is there
	// now, so they cannot pass for a renamed one.)
	for _, path := range []string{"/gpus", "/", "/reports"} {
		body := analyst.Get(path).Body
		if !strings.Contains(body, `data-testid="report-notices"`) {
			t.Errorf("%s: no notice list", path)
		}
		n := between(body, notice, "</div>")
		if n == "" || !strings.Contains(n, number) || !strings.Contains(n, comment) || !strings.Contains(n, "退回") ||
			!strings.Contains(n, `href="`+p+`"`) {
			t.Errorf("%s: the author is not told of the return: %q", path, n)
		}
	}
	// Nobody else is told, and someone else opening it clears nothing.
	if body := finance.Get("/").Body; strings.Contains(body, notice) {
		t.Error("finance sees the author's notice")
	}
	admin.Get(p)
	// Opening the report clears it, on that very page and after.
	if body := analyst.Get(p).Body; strings.Contains(body, notice) {
		t.Error("the report's own page still shows its notice")
	}
	if body := analyst.Get("/gpus").Body; strings.Contains(body, `data-testid="report-notices"`) {
		t.Error("the notice outlives opening the report")
	}

	// An approval is news too, with its optional comment.
	id2 := saveReport(t, analyst, reportForm("试用两个月", "300", q))
	postStatus(analyst, "/reports/"+itoa(id2)+"/submit", nil)
	if got := postStatus(finance, "/reports/"+itoa(id2)+"/approve", url.Values{"comment": {"同意采购"}}); got != http.StatusSeeOther {
		t.Fatalf("approve: %d", got)
	}
	n := between(analyst.Get("/gpus").Body, `data-testid="report-notice-`+itoa(id2)+`"`, "</div>")
	if !strings.Contains(n, "批准") || !strings.Contains(n, "同意采购") {
		t.Errorf("the author is not told of the approval: %q", n)
	}
	analyst.Get("/reports/" + itoa(id2))
	if body := analyst.Get("/").Body; strings.Contains(body, `data-testid="report-notices"`) {
		t.Error("the approval's notice outlives opening the report")
	}
}

// TestReportRevisionShowsEarlierReturn: revision 2's page lists revision
// 1's timeline too, oldest first, each entry marked with its revision, so
// finance's return comment is there; a revision the reader may not see (a
// draft of someone else) adds nothing to their view (docs/RULES.md §11.3).
func TestReportRevisionShowsEarlierReturn(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	finance, _ := app.AsUser(auth.RoleFinance)

	id := saveReport(t, analyst, reportForm("试用一个月", "200", q))
	p := "/reports/" + itoa(id)
	postStatus(analyst, p+"/submit", nil)
	const comment = "请按 12 个月计算"
	if got := postStatus(finance, p+"/return", url.Values{"comment": {comment}}); got != http.StatusSeeOther {
		t.Fatalf("return: %d", got)
	}
	r := analyst.PostForm(p+"/revise", url.Values{"title": {"试用一个月"}, "data": {"same"}})
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("revise: %d", r.StatusCode)
	}
	rev, _ := strconv.ParseInt(m[1], 10, 64)
	rp := "/reports/" + m[1]

	timeline := between(analyst.Get(rp).Body, `data-testid="report-timeline"`, "</section>")
	entries := strings.Split(timeline, `data-testid="report-event"`)[1:]
	var got []string
	for _, e := range entries {
		rv := between(e, `data-revision="`, `"`)
		got = append(got, rv)
		if strings.Contains(e, comment) && rv != "1" {
			t.Errorf("the return comment is marked revision %s", rv)
		}
	}
	// Revision 1: created, submitted, returned; revision 2: created (in
	// the same transaction as revision 1's "revised", just before it).
	if strings.Join(got, " ") != "1 1 1 2 1" || !strings.Contains(timeline, comment) || !strings.Contains(timeline, "第 1 版") {
		t.Errorf("revision 2's timeline, by revision %q:\n%s", got, timeline)
	}
	// Finance, on revision 1, does not see the author's draft revision's steps.
	if strings.Contains(between(finance.Get(p).Body, `data-testid="report-timeline"`, "</section>"), `data-revision="2"`) {
		t.Error("finance sees the steps of a draft revision")
	}
	// Once submitted, revision 2's steps are on revision 1's page as well.
	postStatus(analyst, rp+"/submit", nil)
	if reportRow(t, app, rev).Status != report.Submitted ||
		strings.Count(between(finance.Get(p).Body, `data-testid="report-timeline"`, "</section>"), `data-revision="2"`) != 2 {
		t.Error("revision 1's page lacks the submitted revision's steps")
	}
}

// TestReportRecomputeTwiceRecordsOnce: pressing "recompute" twice on
// someone else's report, with nothing changed in between, makes one draft
// and records one event on the original; once the data changed (the
// next day's figures), a press makes a new draft and one more event
// (docs/RULES.md §11.5).
func TestReportRecomputeTwiceRecordsOnce(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	ctx := context.Background()
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	author, _ := app.AsUser(auth.RoleAnalyst)
	reader, _ := app.AsUser(auth.RoleAnalyst)
	other, _ := app.AsUser(auth.RoleAnalyst)

	id := saveReport(t, author, reportForm("试用一个月", "200", q))
	p := "/reports/" + itoa(id)
	postStatus(author, p+"/submit", nil)

	recomputed := func(c *testutil.Client) (string, int) {
		t.Helper()
		r := c.PostForm(p+"/recompute", url.Values{})
		if r.StatusCode != http.StatusSeeOther || reportPath.FindStringSubmatch(r.Header.Get("Location")) == nil {
			t.Fatalf("recompute: %d %q", r.StatusCode, r.Header.Get("Location"))
		}
		events, err := app.Store.ReportEvents(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range events {
			if e.Action == report.EventRecomputed {
				n++
			}
		}
		return r.Header.Get("Location"), n
	}
	first, n1 := recomputed(reader)
	second, n2 := recomputed(reader)
	if n1 != 1 || n2 != 1 || second != first {
		t.Errorf("two presses: events %d then %d, drafts %s and %s; want one event and one draft", n1, n2, first, second)
	}
	if body := reader.Get(second).Body; !strings.Contains(body, `data-testid="flash"`) {
		t.Error("the second press says nothing")
	}
	if into, err := app.Store.ReportsRecomputedFrom(ctx, id); err != nil || len(into) != 1 {
		t.Errorf("reports recomputed from the original: %d (%v)", len(into), err)
	}
	// Another reader's press is their own draft and event.
	if loc, n := recomputed(other); loc == first || n != 2 {
		t.Errorf("another reader's press: %s, %d events", loc, n)
	}
	// The next day's figures are new data: a new draft, one more event.
	clock.Advance(24 * time.Hour)
	if loc, n := recomputed(reader); loc == first || n != 3 {
		t.Errorf("a press the next day: %s, %d events", loc, n)
	}
}
