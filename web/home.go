package web

import (
	"context"
	"net/url"
	"strconv"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
)

// HomeView is the home page's view model: the introduction for everyone,
// and above it, for a signed-in reader, what waits for them — each part
// only when they may open the page behind it.
type HomeView struct {
	Page Page
	// Compare offers the comparison (the reader may open /compare).
	Compare bool
	// Inbox is finance's queue (the reader may open /reports/inbox).
	Inbox *HomeInbox
	// Market is the editors' work (the reader may open /dashboard).
	Market *HomeMarket
	// Mine are the reader's own reports (they may open /reports).
	Mine *HomeMine
}

// HomeInbox is how many reports wait for finance, and the one that has
// waited longest.
type HomeInbox struct {
	Waiting int
	Oldest  *HomeReport
}

// HomeMarket is what the editors' dashboard lists: published quotes past
// the re-check age, and current prices that jumped within that window.
type HomeMarket struct {
	Stale int
	Jumps int
	// Days is the re-check age (and the window of recent jumps); Percent
	// the price move that counts as a jump.
	Days    int
	Percent string
}

// HomeMine are the reader's newest drafts and returned reports (those not
// yet revised), with how many there are in all.
type HomeMine struct {
	Drafts        []HomeReport
	DraftTotal    int
	Returned      []HomeReport
	ReturnedTotal int
	// DraftsURL and ReturnedURL are the report list filtered to them.
	DraftsURL   string
	ReturnedURL string
}

// DraftsMore and ReturnedMore are how many are not listed.
func (m HomeMine) DraftsMore() int   { return max(m.DraftTotal-len(m.Drafts), 0) }
func (m HomeMine) ReturnedMore() int { return max(m.ReturnedTotal-len(m.Returned), 0) }

// HomeReport is a report as the home page names it.
type HomeReport struct {
	ID       int64
	Number   string
	Revision int
	Title    string
	URL      string
	Author   string
	// When is when it was saved (a draft), returned, or submitted (the
	// inbox's oldest).
	When string
	// By and Comment are who returned it and why.
	By      string
	Comment string
}

// ReportNotice tells an author on every page that their report was
// approved or returned, until they open it (docs/RULES.md §11.3).
type ReportNotice struct {
	ID       int64
	Number   string
	Revision int
	URL      string
	// Returned: sent back (else approved); By and Comment are who decided
	// and what they said.
	Returned bool
	By       string
	Comment  string
}

// text is what the notice says after the report's number.
func (n ReportNotice) text(ctx context.Context) string {
	id := "report.notice.approved"
	if n.Returned {
		id = "report.notice.returned"
	}
	s := T(ctx, id, "Name", n.By)
	if n.Comment != "" {
		s += T(ctx, "report.notice.comment", "Comment", n.Comment)
	}
	return s
}

// NoticesShown is how many notices a page shows at most.
const NoticesShown = 3

// NewReportNotices names the decided reports of the reader's notices.
func NewReportNotices(rs []report.Report) []ReportNotice {
	out := make([]ReportNotice, 0, len(rs))
	for _, r := range rs {
		out = append(out, ReportNotice{ID: r.ID, Number: r.Number, Revision: r.Revision, URL: ReportURL(r.ID),
			Returned: r.Status == report.Returned, By: r.DecidedByName, Comment: r.DecisionComment})
	}
	return out
}

// HomeListed is how many reports of each kind the home page lists.
const HomeListed = 5

// homeReport names r, dated at.
func homeReport(r report.Report, at string) HomeReport {
	return HomeReport{ID: r.ID, Number: r.Number, Revision: r.Revision, Title: r.Title, URL: ReportURL(r.ID),
		Author: r.AuthorName, When: at, By: r.DecidedByName, Comment: r.DecisionComment}
}

// NewHomeMine lists a reader's drafts (dated when saved) and returned
// reports (dated when returned, with finance's comment); the totals are
// the counts, never fewer than those listed.
func NewHomeMine(tr *i18n.Translator, userID int64, drafts, returned []report.Report, draftTotal, returnedTotal int) *HomeMine {
	m := &HomeMine{DraftTotal: max(draftTotal, len(drafts)), ReturnedTotal: max(returnedTotal, len(returned))}
	for _, r := range drafts {
		m.Drafts = append(m.Drafts, homeReport(r, ReportTime(tr, r.CreatedAt)))
	}
	for _, r := range returned {
		at := r.UpdatedAt
		if r.DecidedAt != nil {
			at = *r.DecidedAt
		}
		m.Returned = append(m.Returned, homeReport(r, ReportTime(tr, at)))
	}
	list := func(status string) string {
		return "/reports?" + url.Values{"author": {strconv.FormatInt(userID, 10)}, "status": {status}}.Encode()
	}
	m.DraftsURL, m.ReturnedURL = list(report.Draft), list(report.Returned)
	return m
}

// NewHomeInbox is finance's queue: waiting reports and the oldest one
// (dated when submitted). The count and the report are read apart, so a
// report decided or submitted in between cannot make them disagree.
func NewHomeInbox(tr *i18n.Translator, waiting int, oldest *report.Report) *HomeInbox {
	if oldest == nil {
		return &HomeInbox{}
	}
	at := oldest.CreatedAt
	if oldest.SubmittedAt != nil {
		at = *oldest.SubmittedAt
	}
	r := homeReport(*oldest, ReportTime(tr, at))
	return &HomeInbox{Waiting: max(waiting, 1), Oldest: &r}
}

// NavBadges returns the navigation with the reader's counts beside the
// entries they belong to: the inbox its waiting reports, the dashboard its
// stale quotes and price jumps, the report list the reader's returned
// reports. A count of zero draws nothing. nav is a copy the caller owns.
func NavBadges(nav []NavItem, c Counts) []NavItem {
	for i := range nav {
		var b []NavBadge
		add := func(ok bool, n int, msg, kind string) {
			if ok && n > 0 {
				b = append(b, NavBadge{Count: n, Message: msg, Kind: kind, TestID: "badge-" + kind})
			}
		}
		switch nav[i].Href {
		case "/reports/inbox":
			add(c.Inbox, c.Waiting, "nav.badge.waiting", "waiting")
		case "/dashboard":
			add(c.Market, c.Stale, "nav.badge.stale", "stale")
			add(c.Market, c.Jumps, "nav.badge.jumps", "jumps")
		case "/reports":
			add(c.Mine, c.Returned, "nav.badge.returned", "returned")
		}
		nav[i].Badges = b
	}
	return nav
}

// Plural renders the message family id for the count n: id+".one" when n
// is 1, id+".other" otherwise (Chinese says both alike), with {{.Count}}
// and the name/value pairs in args.
func Plural(ctx context.Context, id string, n int, args ...any) string {
	return i18n.FromContext(ctx).Plural(id, n, args...)
}

// HomeLists are the reports the home page lists: the reader's newest
// drafts and returned reports not yet revised, and the report that has
// waited longest in finance's inbox (nil when none).
type HomeLists struct {
	Drafts        []report.Report
	Returned      []report.Report
	OldestWaiting *report.Report
}

// NewHomeView builds the home page of a signed-in reader (userID) from
// what waits for them (counts): each part only when they may open the
// page behind it; compare says they may open the comparison.
func NewHomeView(tr *i18n.Translator, userID int64, counts Counts, lists HomeLists, compare bool) HomeView {
	v := HomeView{Compare: compare}
	if counts.Mine {
		v.Mine = NewHomeMine(tr, userID, lists.Drafts, lists.Returned, counts.Drafts, counts.Returned)
	}
	if counts.Inbox {
		v.Inbox = NewHomeInbox(tr, counts.Waiting, lists.OldestWaiting)
	}
	if counts.Market {
		v.Market = &HomeMarket{Stale: counts.Stale, Jumps: counts.Jumps, Days: tco.StaleAfterDays, Percent: market.JumpPercent.String()}
	}
	return v
}
