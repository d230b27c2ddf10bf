package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// home explains the product and links to the sections; a signed-in reader
// first sees what waits for them, each part only when they may open the
// page behind it (the same counts as the navigation's badges).
func (s *Server) home(c echo.Context) error {
	p := s.page(c, "home.title")
	cur := auth.CurrentUser(c)
	if cur == nil {
		return s.render(c, http.StatusOK, p, web.Home(web.HomeView{Page: p}))
	}
	counts := p.Counts
	if counts == nil { // not counted for the layout (an htmx swap): count for the body
		var err error
		if counts, err = s.readerCounts(c); err != nil {
			return err
		}
	}
	var mine int64
	if counts.Mine {
		mine = cur.UserID
	}
	lists, err := s.store.HomeReports(c.Request().Context(), mine, counts.Inbox, web.HomeListed)
	if err != nil {
		return err
	}
	tr := translator(c)
	v := web.HomeView{Page: p, Compare: s.can(c, http.MethodGet, "/compare")}
	if counts.Mine {
		v.Mine = web.NewHomeMine(tr, cur.UserID, lists.Drafts, lists.Returned, counts.Drafts, counts.Returned)
	}
	if counts.Inbox {
		v.Inbox = web.NewHomeInbox(tr, counts.Waiting, lists.OldestWaiting)
	}
	if counts.Market {
		v.Market = &web.HomeMarket{Stale: counts.Stale, Jumps: counts.Jumps, Days: staleAfterDays, Percent: market.JumpPercent.String()}
	}
	return s.render(c, http.StatusOK, p, web.Home(v))
}

// readerCounts counts what waits for the signed-in reader, only what they
// may see: their own reports when they may open the report list, the
// inbox when they may open it, the dashboard's counts when they may open
// the dashboard (over the dashboard's window). Nil for anonymous visitors.
func (s *Server) readerCounts(c echo.Context) (*web.Counts, error) {
	cur := auth.CurrentUser(c)
	if cur == nil {
		return nil, nil
	}
	ask := store.HomeAsk{Inbox: s.can(c, http.MethodGet, "/reports/inbox"), Market: s.can(c, http.MethodGet, "/dashboard")}
	if s.can(c, http.MethodGet, "/notifications") {
		ask.Reader = cur.UserID
	}
	if s.can(c, http.MethodGet, "/reports") {
		ask.UserID = cur.UserID
	}
	if ask.Market {
		// Stale = dated before today − 90 days; recent jumps = dated
		// within the same window, as on the dashboard.
		ask.StaleBefore = s.today().AddDate(0, 0, -staleAfterDays)
		ask.JumpsSince = ask.StaleBefore
	}
	n, err := s.store.HomeCounts(c.Request().Context(), ask)
	if err != nil {
		return nil, err
	}
	return &web.Counts{Mine: ask.UserID != 0, Drafts: n.Drafts, Returned: n.Returned, Notices: n.Notices, Inbox: ask.Inbox,
		Waiting: n.Waiting, Market: ask.Market, Stale: n.Stale, Jumps: n.Jumps, Notified: ask.Reader != 0, Unread: n.Unread}, nil
}

// navCounts puts the reader's counts on the page and beside its navigation
// entries. It asks only for a signed-in reader, only when the layout is
// drawn (not for the part of a page htmx swaps) and only under the
// request's deadline: the error page renders without one, after a failure
// that may be the database's, so it never waits on it and shows no counts.
// A failed count is logged and leaves the navigation without badges.
func (s *Server) navCounts(c echo.Context, p *web.Page) {
	r := c.Request()
	if p.User == nil || (r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-Boosted") != "true") {
		return
	}
	if _, ok := r.Context().Deadline(); !ok {
		return
	}
	counts, err := s.readerCounts(c)
	if err != nil {
		s.log.WarnContext(r.Context(), "navigation counts", "path", r.URL.Path, "err", err.Error())
		return
	}
	p.Counts = counts
	p.Nav = web.NavBadges(p.Nav, *counts)
	if counts.Mine && counts.Notices > 0 {
		// Decisions on the reader's reports, on every page until they open
		// the report (docs/RULES.md §11.3).
		rs, err := s.store.ReportNotices(r.Context(), p.User.ID, web.NoticesShown)
		if err != nil {
			s.log.WarnContext(r.Context(), "report notices", "path", r.URL.Path, "err", err.Error())
			return
		}
		p.Notices = web.NewReportNotices(rs)
		p.NoticesMore = max(counts.Notices-len(rs), 0)
	}
}

// setLang remembers the chosen language in a cookie and returns to the page.
func (s *Server) setLang(c echo.Context) error {
	lang := i18n.Lang(c.FormValue("lang"))
	if !lang.Valid() {
		lang = i18n.ZH
	}
	c.SetCookie(i18n.LangCookie(lang, s.cfg.TLS))
	return c.Redirect(http.StatusSeeOther, localPath(c.FormValue("next"), "/"))
}
