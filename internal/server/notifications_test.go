package server_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// notifyDoc reads a page as c in lang and parses it.
func notifyDoc(t *testing.T, c *testutil.Client, lang, path string) *goquery.Document {
	t.Helper()
	c.Header.Set("Accept-Language", lang)
	r := c.Get(path)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("[%s] %s: %d", lang, path, r.StatusCode)
	}
	d, err := goquery.NewDocumentFromReader(strings.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func squash(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

var notifyIDAttr = regexp.MustCompile(`^notify-(\d+)$`)

// TestNotificationsPages: finance sees the unread count in the navigation
// and the submitted reports on /notifications in both languages (plural
// forms); opening one marks it read and leads to the report; another
// user's id answers 404; the POSTs need the CSRF token (docs/RULES.md
// §18.4).
func TestNotificationsPages(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	author, _ := app.AsUser(auth.RoleAnalyst)
	fin, _ := app.AsUser(auth.RoleFinance)
	other, _ := app.AsUser(auth.RoleFinance)
	author.Header = http.Header{}
	fin.Header = http.Header{}
	other.Header = http.Header{}

	d := notifyDoc(t, fin, "zh-CN", "/notifications")
	if d.Find(`[data-testid="notify-empty"]`).Length() != 1 || d.Find(`[data-testid="nav-unread"]`).Length() != 0 {
		t.Errorf("no notice yet: want the empty state and no count")
	}

	q := publishedQuote(app)
	var reports []int64
	for _, title := range []string{"第一份", "第二份"} {
		id := saveReport(t, author, reportForm(title, "200", q))
		if r := author.PostForm("/reports/"+itoa(id)+"/submit", nil); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("submit: %d", r.StatusCode)
		}
		reports = append(reports, id)
	}

	d = notifyDoc(t, fin, "zh-CN", "/")
	if got := squash(d.Find(`[data-testid="nav-unread"] [aria-hidden]`)); got != "2" {
		t.Errorf("nav count %q, want 2", got)
	}
	d = notifyDoc(t, fin, "zh-CN", "/notifications")
	if got := squash(d.Find(`[data-testid="notify-count"]`)); got != "共 2 条通知，2 条未读" {
		t.Errorf("zh count %q", got)
	}
	items := d.Find(`[data-testid="notify-list"] > li`)
	if items.Length() != 2 || items.Find(`[data-testid="notify-unread"]`).Length() != 2 {
		t.Fatalf("want 2 unread items, got %d", items.Length())
	}
	first := squash(items.First().Find(".notify-text"))
	if !strings.Contains(first, "提交了报告") || !strings.Contains(first, "「第二份」") {
		t.Errorf("newest first, worded in Chinese: %q", first)
	}
	en := notifyDoc(t, fin, "en", "/notifications")
	if got := squash(en.Find(`[data-testid="notify-count"]`)); got != "2 notifications, 2 unread" {
		t.Errorf("en count %q", got)
	}
	if got := squash(en.Find(`[data-testid="notify-list"] > li .notify-text`).First()); !strings.Contains(got, "submitted report") || !strings.Contains(got, "for approval") {
		t.Errorf("en wording %q", got)
	}

	idAttr, _ := items.First().Attr("data-testid")
	m := notifyIDAttr.FindStringSubmatch(idAttr)
	if m == nil {
		t.Fatalf("item id %q", idAttr)
	}
	open := "/notifications/" + m[1] + "/open"
	if r := other.PostForm(open, nil); r.StatusCode != http.StatusNotFound {
		t.Errorf("another user opens it: %d, want 404", r.StatusCode)
	}
	if r := fin.PostRaw(open, url.Values{}); r.StatusCode != http.StatusForbidden {
		t.Errorf("open without the CSRF token: %d, want 403", r.StatusCode)
	}
	r := fin.PostForm(open, nil)
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/reports/"+itoa(reports[1]) {
		t.Fatalf("open: %d to %q, want 303 to /reports/%d", r.StatusCode, r.Header.Get("Location"), reports[1])
	}
	en = notifyDoc(t, fin, "en", "/notifications")
	if got := squash(en.Find(`[data-testid="notify-count"]`)); got != "2 notifications, 1 unread" {
		t.Errorf("after opening one: %q", got)
	}
	if got := squash(en.Find(`[data-testid="nav-unread"] .visually-hidden`)); got != "1 unread notification" {
		t.Errorf("nav count read aloud %q, want the singular", got)
	}

	if r := fin.PostRaw("/notifications/read-all", url.Values{}); r.StatusCode != http.StatusForbidden {
		t.Errorf("read-all without the CSRF token: %d, want 403", r.StatusCode)
	}
	if r := fin.PostForm("/notifications/read-all", nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("read-all: %d", r.StatusCode)
	}
	d = notifyDoc(t, fin, "zh-CN", "/notifications")
	if d.Find(`[data-testid="nav-unread"]`).Length() != 0 || d.Find(`[data-testid="notify-unread"]`).Length() != 0 ||
		squash(d.Find(`[data-testid="flash"]`)) != "所有通知已标为已读。" {
		t.Errorf("after read-all: unread marks left or no flash %q", squash(d.Find(`[data-testid="flash"]`)))
	}
	// The other finance user's notices are untouched.
	d = notifyDoc(t, other, "zh-CN", "/notifications")
	if got := squash(d.Find(`[data-testid="notify-count"]`)); got != "共 2 条通知，2 条未读" {
		t.Errorf("other's count after fin's read-all: %q", got)
	}
}
