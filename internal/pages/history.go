package pages

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
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
	lang := server.Translator(c).Lang
	platforms, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	v := web.HistoryView{Platforms: web.RefOptions(lang, platforms), GPUs: web.GPUOptions(gpus),
		Platform: c.QueryParam("platform"), GPU: c.QueryParam("gpu")}
	if v.Platform == "" || v.GPU == "" {
		v.Page = s.Page(c, "history.title")
		return s.Render(c, http.StatusOK, v.Page, web.History(v))
	}
	pid, err1 := strconv.ParseInt(v.Platform, 10, 64)
	gid, err2 := strconv.ParseInt(v.GPU, 10, 64)
	if err1 != nil || err2 != nil {
		return echo.ErrNotFound
	}
	for _, p := range platforms {
		if p.ID == pid {
			v.PlatformName = web.DisplayName(lang, p.Names[0], p.Names[1])
		}
	}
	for _, g := range gpus {
		if g.ID == gid {
			v.GPUName = g.Names[0]
		}
	}
	if v.PlatformName == "" || v.GPUName == "" {
		return echo.ErrNotFound
	}
	v.Selected = true
	points, err := s.Store.PriceHistory(ctx, pid, gid)
	if err != nil {
		return err
	}
	stale := tco.StaleBefore(s.Today())
	var currencies []string
	byCurrency := map[string][]market.PricePoint{}
	for _, p := range points {
		if _, ok := byCurrency[p.Currency]; !ok {
			currencies = append(currencies, p.Currency)
		}
		byCurrency[p.Currency] = append(byCurrency[p.Currency], p)
	}
	v.Currencies = strings.Join(currencies, ", ")
	for _, cur := range currencies {
		v.Charts = append(v.Charts, web.NewHistoryCharts(server.Translator(c), v.PlatformName, v.GPUName, cur, byCurrency[cur]))
	}
	for i := len(points) - 1; i >= 0; i-- {
		p := points[i]
		r := web.HistoryRow{QuoteID: p.ID, Version: p.Version, State: p.State, AsOf: web.FormatDate(p.AsOf),
			Currency: p.Currency, Hourly: s.formatMoney(c, p.Hourly, p.Currency), Monthly: s.formatMoney(c, p.Monthly, p.Currency),
			Label: p.Label, GPUCount: p.GPUCount, Source: p.Source, SourceURL: web.SourceURL(p.Source),
			Stale: p.State == quote.Published && p.AsOf.Before(stale)}
		if p.HourlyJump {
			r.Changes = append(r.Changes, server.Translator(c).T("history.change.hourly", "Change", web.ChangeText(server.Translator(c), p.PrevHourly, p.Hourly)))
		}
		if p.MonthlyJump {
			r.Changes = append(r.Changes, server.Translator(c).T("history.change.monthly", "Change", web.ChangeText(server.Translator(c), p.PrevMonthly, p.Monthly)))
		}
		v.Rows = append(v.Rows, r)
	}
	v.Page = s.Page(c, "history.title")
	v.Page.Title = server.Translator(c).T("history.heading", "Platform", v.PlatformName, "GPU", v.GPUName)
	return s.Render(c, http.StatusOK, v.Page, web.History(v))
}

// Dashboard shows editors what needs them: stale quotes (paginated,
// oldest first) and recent price jumps, with counts.
func (s *Handlers) Dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	lang := server.Translator(c).Lang
	today := s.Today()
	staleBefore := tco.StaleBefore(today)
	page := server.PageParam(c)
	counts, err := s.Store.CountQuotes(ctx)
	if err != nil {
		return err
	}
	stale, staleTotal, err := s.Store.StaleQuotes(ctx, staleBefore, (page-1)*stalePerPage, stalePerPage)
	if err != nil {
		return err
	}
	// Recent = dated within the same 90-day window as the re-check rule.
	jumps, jumpTotal, err := s.Store.PriceJumps(ctx, staleBefore, market.JumpPercent, jumpsShown)
	if err != nil {
		return err
	}
	v := web.DashboardView{Published: counts.Published, Drafts: counts.Drafts, StaleTotal: staleTotal, JumpTotal: jumpTotal,
		StalePager: web.Pager{Page: page, PerPage: stalePerPage, Total: staleTotal, Base: "/dashboard"}}
	for _, q := range stale {
		v.Stale = append(v.Stale, web.DashboardQuote{QuoteID: q.ID, PlatformID: q.PlatformID, GPUModelID: q.GPUModelID,
			Platform: web.DisplayName(lang, q.PlatformNameZH, q.PlatformNameEN), GPU: q.GPUVendor + " " + q.GPUName,
			GPUCount: q.GPUCount, Label: q.Label, Currency: q.Currency, AsOf: web.FormatDate(q.AsOf), AgeDays: s.ageDays(q.AsOf),
			Hourly: s.formatMoney(c, q.Hourly, q.Currency), Monthly: s.formatMoney(c, q.Monthly, q.Currency)})
	}
	for _, j := range jumps {
		r := web.DashboardJump{DashboardQuote: web.DashboardQuote{QuoteID: j.QuoteID, PlatformID: j.PlatformID, GPUModelID: j.GPUModelID,
			Platform: web.DisplayName(lang, j.PlatformNameZH, j.PlatformNameEN), GPU: j.GPUVendor + " " + j.GPUName,
			GPUCount: j.GPUCount, Label: j.Label, Currency: j.Currency, AsOf: web.FormatDate(j.AsOf), AgeDays: s.ageDays(j.AsOf),
			Hourly: s.formatMoney(c, j.Hourly, j.Currency), Monthly: s.formatMoney(c, j.Monthly, j.Currency)},
			PrevID: j.PrevID, PrevAsOf: web.FormatDate(j.PrevAsOf),
			PrevHourly: s.formatMoney(c, j.PrevHourly, j.Currency), PrevMonthly: s.formatMoney(c, j.PrevMonthly, j.Currency)}
		if j.HourlyJump {
			r.Changes = append(r.Changes, server.Translator(c).T("history.change.hourly", "Change", web.ChangeText(server.Translator(c), j.PrevHourly, j.Hourly)))
		}
		if j.MonthlyJump {
			r.Changes = append(r.Changes, server.Translator(c).T("history.change.monthly", "Change", web.ChangeText(server.Translator(c), j.PrevMonthly, j.Monthly)))
		}
		v.Jumps = append(v.Jumps, r)
	}
	v.Page = s.Page(c, "dashboard.title")
	return s.Render(c, http.StatusOK, v.Page, web.Dashboard(v))
}
