package pages

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/tco"
	"gpuquote/web"
)

const (
	stalePerPage = 50
	jumpsShown   = 50
)

// PriceHistory shows the dated samples of one platform × GPU model: two
// charts per currency and the table of every sample. Without both ids it
// shows the chooser.
func (s *Handlers) PriceHistory(c echo.Context) error {
	ctx := c.Request().Context()
	tr := server.Translator(c)
	platforms, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	v, pair, found := web.NewHistoryChoice(tr.Lang, platforms, gpus, c.QueryParam("platform"), c.QueryParam("gpu"))
	if v.Platform == "" || v.GPU == "" {
		v.Page = s.Page(c, "history.title")
		return s.Render(c, http.StatusOK, v.Page, web.History(v))
	}
	if !found {
		return echo.ErrNotFound
	}
	points, err := s.Store.PriceHistory(ctx, pair.PlatformID, pair.GPUModelID)
	if err != nil {
		return err
	}
	v = v.WithPoints(tr, points, s.Today())
	v.Page = s.Page(c, "history.title")
	v.Page.Title = tr.T("history.heading", "Platform", v.PlatformName, "GPU", v.GPUName)
	return s.Render(c, http.StatusOK, v.Page, web.History(v))
}

// Dashboard shows editors what needs them: stale quotes (paginated,
// oldest first) and recent price jumps, with counts.
func (s *Handlers) Dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	in := web.DashboardRecords{Today: s.Today(), Page: server.PageParam(c), PerPage: stalePerPage}
	staleBefore := tco.StaleBefore(in.Today)
	counts, err := s.Store.CountQuotes(ctx)
	if err != nil {
		return err
	}
	in.Published, in.Drafts = counts.Published, counts.Drafts
	if in.Stale, in.StaleTotal, err = s.Store.StaleQuotes(ctx, staleBefore, (in.Page-1)*stalePerPage, stalePerPage); err != nil {
		return err
	}
	// Recent = dated within the same 90-day window as the re-check rule.
	if in.Jumps, in.JumpTotal, err = s.Store.PriceJumps(ctx, staleBefore, market.JumpPercent, jumpsShown); err != nil {
		return err
	}
	v := web.NewDashboardView(server.Translator(c), in)
	v.Page = s.Page(c, "dashboard.title")
	return s.Render(c, http.StatusOK, v.Page, web.Dashboard(v))
}
