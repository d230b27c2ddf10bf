package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// homeApp is an app whose clock stands on csvToday (2026-12-02): stale
// means dated before 2026-09-03.
func homeApp(t *testing.T) *testutil.App {
	t.Helper()
	return testutil.NewApp(t, withClock(testutil.NewClock(csvToday)))
}

// homeReport saves a report of author through the store, at hour h of
// csvToday's eve, and takes it to status: submitted, or returned by
// reviewer with comment.
func homeReport(t *testing.T, a *testutil.App, author int64, h int, title, status string, reviewer int64, comment string) int64 {
	t.Helper()
	ctx := context.Background()
	at := time.Date(2026, 12, 1, h, 0, 0, 0, time.UTC)
	r, err := a.Store.CreateReport(ctx, user.Actor{UserID: author}, at, report.NewReport{Title: title,
		Snapshot: []byte(`{"version":1}`), SnapshotVersion: 1, RulesVersion: "2026.1", FiguresDate: at, ReportCurrency: "EUR", QuoteCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	if status == report.Draft {
		return r.ID
	}
	if err := a.Store.SubmitReport(ctx, user.Actor{UserID: author}, at.Add(time.Minute), r.ID); err != nil {
		t.Fatal(err)
	}
	if status == report.Returned {
		if err := a.Store.ReturnReport(ctx, user.Actor{UserID: reviewer}, at.Add(2*time.Minute), r.ID, comment); err != nil {
			t.Fatal(err)
		}
	}
	return r.ID
}

// homePage fetches path as c and parses it.
func homePage(t *testing.T, c *testutil.Client, path string) *goquery.Document {
	t.Helper()
	r := c.Get(path)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d", path, r.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// testID is the whitespace-collapsed text of the elements with data-testid
// id (sel, when given, narrows it), and how many there are.
func testID(doc *goquery.Document, id string, sel ...string) (string, int) {
	s := doc.Find(`[data-testid="` + id + `"]`)
	for _, x := range sel {
		s = s.Find(x)
	}
	return strings.Join(strings.Fields(s.Text()), " "), s.Length()
}

// badge is the number a navigation entry's badge shows ("" when none).
func badge(doc *goquery.Document, entry, kind string) string {
	got, _ := testID(doc, entry, `[data-testid="badge-`+kind+`"] [aria-hidden="true"]`)
	return got
}

// TestHomeFinanceSeesTheInbox: finance's home page counts the reports
// waiting for them and names the oldest; the navigation's inbox entry
// carries the count on every page. Nobody else sees it.
func TestHomeFinanceSeesTheInbox(t *testing.T) {
	t.Parallel()
	app := homeApp(t)
	_, _, author := app.CreateUser(auth.RoleAnalyst)
	oldest := homeReport(t, app, author, 8, "A100 推理集群", report.Submitted, 0, "")
	homeReport(t, app, author, 9, "H200 训练", report.Submitted, 0, "")
	homeReport(t, app, author, 10, "还在写", report.Draft, 0, "")
	finance, _ := app.AsUser(auth.RoleFinance)
	finance.Header.Set("Accept-Language", "en")

	doc := homePage(t, finance, "/")
	if got, _ := testID(doc, "home-inbox-count"); got != "2 reports wait for approval" {
		t.Errorf("inbox count: %q", got)
	}
	if got, _ := testID(doc, "home-inbox-oldest"); !strings.Contains(got, "A100 推理集群") || !strings.Contains(got, "R-2026-0001") ||
		!strings.Contains(got, "submitted 2026-12-01 08:01 UTC") {
		t.Errorf("oldest waiting: %q", got)
	}
	if href, _ := doc.Find(`[data-testid="home-inbox-oldest"] a`).Attr("href"); href != "/reports/"+itoa(oldest) {
		t.Errorf("oldest links to %q", href)
	}
	if href, _ := doc.Find(`[data-testid="home-inbox-link"]`).Attr("href"); href != "/reports/inbox" {
		t.Errorf("inbox link %q", href)
	}
	for _, path := range []string{"/", "/reports"} {
		doc := homePage(t, finance, path)
		if got := badge(doc, "nav-report-inbox", "waiting"); got != "2" {
			t.Errorf("%s: the inbox entry's badge %q", path, got)
		}
		if got, _ := testID(doc, "nav-report-inbox", `.visually-hidden`); got != "2 reports wait for approval" {
			t.Errorf("%s: the badge reads %q", path, got)
		}
	}
	// In Chinese too.
	zh, _ := app.AsUser(auth.RoleFinance)
	if got, _ := testID(homePage(t, zh, "/"), "home-inbox-count"); got != "2 份报告等待审批" {
		t.Errorf("zh inbox count: %q", got)
	}
	// Editors and analysts may not open the inbox: no count anywhere.
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleEditor} {
		c, _ := app.AsUser(role)
		doc := homePage(t, c, "/")
		if _, n := testID(doc, "home-inbox"); n != 0 {
			t.Errorf("%s sees the inbox on the home page", role)
		}
		if _, n := testID(doc, "badge-waiting"); n != 0 {
			t.Errorf("%s sees the inbox count", role)
		}
	}
	// An error page never waits on the database: no counts on it.
	if r := finance.Get("/no-such-page"); r.StatusCode != http.StatusNotFound || strings.Contains(r.Body, "badge-waiting") ||
		!strings.Contains(r.Body, `data-testid="nav-report-inbox"`) {
		t.Errorf("404 page: %d, badges %v", r.StatusCode, strings.Contains(r.Body, "badge-waiting"))
	}
}

// TestHomeAnalystSeesDraftsAndReturned: an analyst's home page lists their
// drafts and their returned reports with finance's comment, newest first;
// the report list's entry counts the returned ones until they are revised.
func TestHomeAnalystSeesDraftsAndReturned(t *testing.T) {
	t.Parallel()
	app := homeApp(t)
	_, _, fin := app.CreateUser(auth.RoleFinance)
	_, _, other := app.CreateUser(auth.RoleAnalyst)
	analyst, me := app.AsUser(auth.RoleAnalyst)
	analyst.Header.Set("Accept-Language", "en")
	draft := homeReport(t, app, me, 8, "H200 草稿", report.Draft, 0, "")
	ret := homeReport(t, app, me, 9, "A100 推理", report.Returned, fin, "请补充出口流量的书面报价 <b>now</b>")
	homeReport(t, app, me, 10, "在审批中", report.Submitted, 0, "")
	theirs := homeReport(t, app, other, 11, "别人的", report.Returned, fin, "别人的意见")

	doc := homePage(t, analyst, "/")
	if _, n := testID(doc, "home-draft-"+itoa(draft)); n != 1 {
		t.Error("the draft is not listed")
	}
	if got, _ := testID(doc, "home-returned-"+itoa(ret)); !strings.Contains(got, "A100 推理") ||
		!strings.Contains(got, "Returned 2026-12-01 09:02 UTC by Test finance") {
		t.Errorf("returned report: %q", got)
	}
	if got, _ := testID(doc, "home-returned-comment-"+itoa(ret)); got != "请补充出口流量的书面报价 <b>now</b>" {
		t.Errorf("return comment (as text): %q", got)
	}
	if href, _ := doc.Find(`[data-testid="home-returned-` + itoa(ret) + `"] a`).Attr("href"); href != "/reports/"+itoa(ret) {
		t.Errorf("returned report links to %q", href)
	}
	if _, n := testID(doc, "home-returned-"+itoa(theirs)); n != 0 {
		t.Error("someone else's returned report is listed")
	}
	if href, _ := doc.Find(`[data-testid="home-compare-link"]`).Attr("href"); href != "/compare" {
		t.Errorf("compare entry %q", href)
	}
	if got := badge(doc, "nav-reports", "returned"); got != "1" {
		t.Errorf("the report list's badge: %q", got)
	}
	for _, id := range []string{"home-inbox", "home-market", "badge-waiting", "badge-stale", "badge-jumps"} {
		if _, n := testID(doc, id); n != 0 {
			t.Errorf("an analyst sees %s", id)
		}
	}
	// Revised: nothing left to act on, the new revision is a draft.
	rev, err := app.Store.CreateReport(context.Background(), user.Actor{UserID: me}, time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		report.NewReport{Title: "A100 推理（修订）", Snapshot: []byte(`{"version":1}`), SnapshotVersion: 1, RulesVersion: "2026.1",
			FiguresDate: csvToday, ReportCurrency: "EUR", QuoteCount: 1, PreviousRevisionID: ret})
	if err != nil {
		t.Fatal(err)
	}
	doc = homePage(t, analyst, "/")
	if got, _ := testID(doc, "home-returned-empty"); got != "Nothing returned." {
		t.Errorf("after the revision: %q", got)
	}
	if got := badge(doc, "nav-reports", "returned"); got != "" {
		t.Errorf("a badge for no returned report: %q", got)
	}
	drafts := doc.Find(`[data-testid^="home-draft-"]`)
	if first, _ := drafts.First().Attr("data-testid"); drafts.Length() != 2 || first != "home-draft-"+itoa(rev.ID) {
		t.Errorf("drafts, newest first: %d, first %q", drafts.Length(), first)
	}
	// A newcomer: plain empty states in both languages.
	fresh, _ := app.AsUser(auth.RoleAnalyst)
	doc = homePage(t, fresh, "/")
	if a, _ := testID(doc, "home-drafts-empty"); a != "没有草稿。" {
		t.Errorf("zh drafts empty: %q", a)
	}
	if b, _ := testID(doc, "home-returned-empty"); b != "没有被退回的报告。" {
		t.Errorf("zh returned empty: %q", b)
	}
	fresh.Header.Set("Accept-Language", "en")
	doc = homePage(t, fresh, "/")
	if a, _ := testID(doc, "home-drafts-empty"); a != "No drafts." {
		t.Errorf("en drafts empty: %q", a)
	}
}

// TestHomeEditorSeesStaleAndJumps: editors' home page and navigation count
// what their dashboard lists; analysts and finance see neither.
func TestHomeEditorSeesStaleAndJumps(t *testing.T) {
	t.Parallel()
	app := homeApp(t)
	zhOnly, _, gpu := csvRefs(t, app)
	base := quote.Quote{PlatformID: zhOnly, GPUModelID: gpu, GPUCount: 1, Sharing: "dedicated",
		Currency: "CNY", BillingGranularity: "second", PricesIncludeTax: true, TaxRate: decimal.Zero, Source: "x"}
	histPublish(t, app, quote.Quote{}, base, "2026-01-15", "2", "")
	histPublish(t, app, quote.Quote{}, base, "2026-09-03", "2", "") // exactly 90 days: not stale
	histPublish(t, app, quote.Quote{}, base, "2025-12-01", "2", "")
	a1 := histPublish(t, app, quote.Quote{}, base, "2026-10-01", "", "1000")
	histPublish(t, app, a1, base, "2026-11-01", "", "600") // −40 %

	editor, _ := app.AsUser(auth.RoleEditor)
	editor.Header.Set("Accept-Language", "en")
	doc := homePage(t, editor, "/")
	if got, _ := testID(doc, "home-stale"); got != "2 published quotes are over 90 days old" {
		t.Errorf("stale: %q", got)
	}
	if got, _ := testID(doc, "home-jumps"); got != "1 price moved more than 30 % in the last 90 days" {
		t.Errorf("jumps: %q", got)
	}
	if href, _ := doc.Find(`[data-testid="home-dashboard-link"]`).Attr("href"); href != "/dashboard" {
		t.Errorf("dashboard link %q", href)
	}
	dash := homePage(t, editor, "/dashboard")
	if s, j := badge(dash, "nav-dashboard", "stale"), badge(dash, "nav-dashboard", "jumps"); s != "2" || j != "1" {
		t.Errorf("the dashboard entry's badges: %q stale, %q jumps", s, j)
	}
	if s, _ := testID(dash, "count-stale"); s != "2" {
		t.Errorf("the dashboard says %q stale", s)
	}
	if got, _ := testID(dash, "nav-dashboard", `[data-testid="badge-jumps"] .visually-hidden`); got != "1 recent price jump" {
		t.Errorf("jumps badge reads %q", got)
	}
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleFinance} {
		c, _ := app.AsUser(role)
		doc := homePage(t, c, "/")
		for _, id := range []string{"home-market", "badge-stale", "badge-jumps"} {
			if _, n := testID(doc, id); n != 0 {
				t.Errorf("%s sees %s", role, id)
			}
		}
	}
}

// TestHomePartsByRole: each role's home page shows the parts whose pages it
// may open — admins all of them — and an anonymous visitor none.
func TestHomePartsByRole(t *testing.T) {
	t.Parallel()
	app := homeApp(t)
	parts := []string{"home-inbox", "home-market", "home-compare", "home-mine"}
	want := map[auth.Role][4]bool{
		auth.RoleAnalyst: {false, false, true, true},
		auth.RoleFinance: {true, false, true, true},
		auth.RoleEditor:  {false, true, true, true},
		auth.RoleAdmin:   {true, true, true, true},
	}
	for role, w := range want {
		c, _ := app.AsUser(role)
		doc := homePage(t, c, "/")
		for i, id := range parts {
			if _, n := testID(doc, id); (n == 1) != w[i] {
				t.Errorf("%s: %s shown %v, want %v", role, id, n == 1, w[i])
			}
		}
	}
	doc := homePage(t, app.Client(), "/")
	if doc.Find(`[data-testid^="home-"]`).Length() != 0 || doc.Find(`[data-testid^="badge-"]`).Length() != 0 {
		t.Error("an anonymous visitor sees someone's work")
	}
	if _, n := testID(doc, "tile-login"); n != 1 {
		t.Error("the anonymous home page lost its sign-in tile")
	}
}
