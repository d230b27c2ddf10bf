package web

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/i18n"
	"gpuquote/internal/report"
)

// homeReports are an analyst's reports as the store lists them.
func homeReports(n int, status string) []report.Report {
	var out []report.Report
	for i := range n {
		at := time.Date(2026, 12, 1, 9, 30-i, 0, 0, time.UTC)
		r := report.Report{ID: int64(10*len(status) + i), Number: "R-2026-000" + string(rune('1'+i)), Revision: 1,
			Title: "H200 训练集群 " + string(rune('A'+i)), Status: status, AuthorName: "李雷", CreatedAt: at}
		if status == report.Returned {
			r.Revision = 2
			r.DecidedAt, r.DecidedByName = &at, "韩梅梅"
			r.DecisionComment = "请补充出口流量的书面报价。\nEgress is unconfirmed."
		}
		out = append(out, r)
	}
	return out
}

// TestHomeShowsWhatWaitsForTheReader: the signed-in home page names what
// waits, by what the reader may open, in both languages, with plural-right
// English and plain empty states.
func TestHomeShowsWhatWaitsForTheReader(t *testing.T) {
	tr := testCatalog.Translator(i18n.EN)
	submitted := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	oldest := report.Report{ID: 77, Number: "R-2026-0042", Revision: 1, Title: "A100 推理", AuthorName: "王芳",
		Status: report.Submitted, SubmittedAt: &submitted}
	view := func(tr *i18n.Translator) HomeView { // times are written in the reader's language
		return HomeView{Page: Page{Title: "x", Path: "/", User: &User{ID: 5, Name: "Ada", Role: "admin"}}, Compare: true,
			Inbox:  NewHomeInbox(tr, 3, &oldest),
			Market: &HomeMarket{Stale: 1, Jumps: 2, Days: 90, Percent: "30"},
			Mine:   NewHomeMine(tr, 5, homeReports(2, report.Draft), homeReports(1, report.Returned), 7, 1)}
	}
	want := map[i18n.Lang][]string{
		i18n.EN: {"3 reports wait for approval", "1 published quote is over 90 days old", "2 prices moved more than 30 % in the last 90 days",
			"5 more in the report list", "Returned 2026-12-01 09:30 UTC by 韩梅梅", "By 王芳, submitted 2026-11-28 08:00 UTC"},
		i18n.ZH: {"3 份报告等待审批", "1 条已发布报价超过 90 天", "近 90 天有 2 条价格变动超过 30%", "报告列表中还有 5 份",
			"韩梅梅 于 2026-12-01 09:30（UTC） 退回", "王芳 提交于 2026-11-28 08:00（UTC）"},
	}
	for lang, texts := range want {
		full := view(testCatalog.Translator(lang))
		doc := render(t, lang, Home(full))
		body := text(doc.Find("main, body").First())
		for _, w := range texts {
			if !strings.Contains(body, w) {
				t.Errorf("%s: %q missing", lang, w)
			}
		}
		if got := text(byID(t, doc, "home-inbox-count")); got != texts[0] {
			t.Errorf("%s inbox: %q", lang, got)
		}
		if href, _ := byID(t, doc, "home-inbox-oldest").Find("a").Attr("href"); href != "/reports/77" {
			t.Errorf("%s: the oldest waiting report links to %q", lang, href)
		}
		ret := byID(t, doc, "home-returned-"+itoa64(full.Mine.Returned[0].ID))
		if got := text(ret.Find("a")); !strings.Contains(got, "R-2026-0001") || !strings.Contains(got, "H200 训练集群 A") {
			t.Errorf("%s returned report link: %q", lang, got)
		}
		if c := byID(t, doc, "home-returned-comment-"+itoa64(full.Mine.Returned[0].ID)); !strings.Contains(c.Text(), "请补充出口流量的书面报价。\nEgress") {
			t.Errorf("%s: the return comment, line breaks kept: %q", lang, c.Text())
		}
		if n := doc.Find(`[data-testid^="home-draft-"]`).Length(); n != 2 {
			t.Errorf("%s: %d drafts listed", lang, n)
		}
		if href, _ := byID(t, doc, "home-drafts-more").Attr("href"); href != "/reports?author=5&status=draft" {
			t.Errorf("%s: more drafts at %q", lang, href)
		}
		if doc.Find(`[data-testid="home-returned-more"]`).Length() != 0 {
			t.Errorf("%s: a link to more returned reports when all are listed", lang)
		}
		for _, id := range []string{"home-compare-link", "home-inbox-link", "home-dashboard-link", "home"} {
			byID(t, doc, id)
		}
	}
	// One of each in English is singular; none are plain sentences.
	one := HomeView{Page: Page{User: &User{ID: 6, Name: "Bob", Role: "finance"}},
		Inbox: NewHomeInbox(tr, 1, &oldest), Market: &HomeMarket{Stale: 0, Jumps: 1, Days: 90, Percent: "30"},
		Mine: NewHomeMine(tr, 6, nil, nil, 0, 0)}
	doc := render(t, i18n.EN, Home(one))
	for id, want := range map[string]string{
		"home-inbox-count":    "1 report waits for approval",
		"home-stale":          "No published quote is over 90 days old.",
		"home-jumps":          "1 price moved more than 30 % in the last 90 days",
		"home-drafts-empty":   "No drafts.",
		"home-returned-empty": "Nothing returned.",
	} {
		if got := text(byID(t, doc, id)); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if doc.Find(`[data-testid="home-compare"]`).Length() != 0 {
		t.Error("the comparison is offered to a reader who may not open it")
	}
	doc = render(t, i18n.ZH, Home(one))
	if got := text(byID(t, doc, "home-drafts-empty")); got != "没有草稿。" {
		t.Errorf("zh drafts empty: %q", got)
	}
	if got := text(byID(t, doc, "home-returned-empty")); got != "没有被退回的报告。" {
		t.Errorf("zh returned empty: %q", got)
	}
	// Nothing waits in the inbox: a plain sentence and no report named.
	none := NewHomeInbox(tr, 2, nil) // decided in between: the list is the truth
	doc = render(t, i18n.EN, Home(HomeView{Page: Page{User: &User{ID: 6, Name: "Bob", Role: "finance"}}, Inbox: none}))
	if got := text(byID(t, doc, "home-inbox-count")); got != "No report is waiting for approval." ||
		doc.Find(`[data-testid="home-inbox-oldest"]`).Length() != 0 {
		t.Errorf("empty inbox: %q", got)
	}
}

// TestHomeForAnonymousVisitors: the introduction and the sign-in tile,
// nothing of anyone's work.
func TestHomeForAnonymousVisitors(t *testing.T) {
	doc := render(t, i18n.ZH, Home(HomeView{Page: Page{Path: "/"}}))
	if got := text(doc.Find("h1")); !strings.Contains(got, "总成本") {
		t.Errorf("h1 %q", got)
	}
	byID(t, doc, "tile-login")
	if doc.Find(`[data-testid^="home-"]`).Length() != 0 {
		t.Error("an anonymous visitor sees someone's work")
	}
}

// TestNavigationBadges: the counts sit beside the entries they belong to,
// read aloud as a sentence; zero draws nothing, and the shared entry list
// is never changed.
func TestNavigationBadges(t *testing.T) {
	nav := []NavItem{NavItems[0], NavItems[7], NavItems[8], NavItems[10]}
	c := Counts{Mine: true, Returned: 1, Inbox: true, Waiting: 4, Market: true, Stale: 12, Jumps: 0}
	p := Page{Title: "x", Path: "/", User: &User{ID: 1, Name: "Ada"}, Nav: NavBadges(nav, c), Counts: &c}
	for _, it := range NavItems {
		if len(it.Badges) != 0 {
			t.Fatalf("NavItems changed: %+v", it)
		}
	}
	for lang, want := range map[i18n.Lang]map[string]string{
		i18n.EN: {"badge-waiting": "4 reports wait for approval", "badge-stale": "12 quotes are due for a re-check",
			"badge-returned": "1 of your reports was returned"},
		i18n.ZH: {"badge-waiting": "4 份报告等待审批", "badge-stale": "12 条报价该重新核实了", "badge-returned": "你有 1 份报告被退回"},
	} {
		doc := render(t, lang, Layout(p))
		for id, sentence := range want {
			b := byID(t, doc, id)
			if got := text(b.Find(".visually-hidden")); got != sentence {
				t.Errorf("%s %s: %q, want %q", lang, id, got, sentence)
			}
			if title, _ := b.Attr("title"); title != sentence {
				t.Errorf("%s %s title %q", lang, id, title)
			}
		}
		if got := text(doc.Find(`[data-testid="nav-report-inbox"] [data-testid="badge-waiting"] [aria-hidden="true"]`)); got != "4" {
			t.Errorf("%s: the inbox entry shows %q", lang, got)
		}
		if doc.Find(`[data-testid="nav-dashboard"] [data-testid="badge-stale"]`).Length() != 1 {
			t.Errorf("%s: the stale count is not on the dashboard entry", lang)
		}
		if doc.Find(`[data-testid="badge-jumps"]`).Length() != 0 {
			t.Errorf("%s: a zero count is drawn", lang)
		}
		if doc.Find(`[data-testid="nav-reports"] [data-testid="badge-returned"]`).Length() != 1 {
			t.Errorf("%s: the returned count is not on the report list's entry", lang)
		}
	}
	// What the reader may not open is not counted, so draws nothing.
	nav = NavBadges([]NavItem{NavItems[7]}, Counts{Returned: 3})
	if len(nav[0].Badges) != 0 {
		t.Errorf("a count not asked for drawn: %+v", nav[0].Badges)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }
