package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/svgchart"
	"gpuquote/web"
)

const (
	stalePerPage = 50
	jumpsShown   = 50
)

// sourceURL returns source when it is an http(s) link worth linking to.
func sourceURL(source string) string {
	if u, err := url.Parse(source); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return source
	}
	return ""
}

// changeText words a price move from prev to cur in percent with one
// decimal and a sign ("+35.0 %"); a move from 0 has no percentage.
func changeText(c echo.Context, prev, cur decimal.NullDecimal) string {
	if !prev.Valid || !cur.Valid {
		return ""
	}
	if prev.Decimal.Sign() == 0 {
		return translator(c).T("history.change.from_zero")
	}
	// (cur − prev) ÷ prev × 100, rounded half away from zero once.
	pct := money.QuoRound([]decimal.Decimal{cur.Decimal.Sub(prev.Decimal), decimal.NewFromInt(100)}, []decimal.Decimal{prev.Decimal}, 1)
	s := money.Fixed(pct, 1)
	if pct.Sign() > 0 {
		s = "+" + s
	}
	return translator(c).T("history.change.pct", "Pct", s)
}

// priceHistory shows the dated samples of one platform × GPU model: two
// charts per currency and the table of every sample. Without both ids it
// shows the chooser.
func (s *Server) priceHistory(c echo.Context) error {
	ctx := c.Request().Context()
	lang := translator(c).Lang
	platforms, gpus, err := s.store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	v := web.HistoryView{Platforms: web.RefOptions(lang, platforms), GPUs: web.GPUOptions(gpus),
		Platform: c.QueryParam("platform"), GPU: c.QueryParam("gpu")}
	if v.Platform == "" || v.GPU == "" {
		v.Page = s.page(c, "history.title")
		return s.render(c, http.StatusOK, v.Page, web.History(v))
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
	points, err := s.store.PriceHistory(ctx, pid, gid)
	if err != nil {
		return err
	}
	stale := s.today().AddDate(0, 0, -staleAfterDays)
	var currencies []string
	byCurrency := map[string][]store.PricePoint{}
	for _, p := range points {
		if _, ok := byCurrency[p.Currency]; !ok {
			currencies = append(currencies, p.Currency)
		}
		byCurrency[p.Currency] = append(byCurrency[p.Currency], p)
	}
	v.Currencies = strings.Join(currencies, ", ")
	for _, cur := range currencies {
		v.Charts = append(v.Charts, s.historyCharts(c, v.PlatformName, v.GPUName, cur, byCurrency[cur]))
	}
	for i := len(points) - 1; i >= 0; i-- {
		p := points[i]
		r := web.HistoryRow{QuoteID: p.ID, Version: p.Version, State: p.State, AsOf: web.FormatDate(p.AsOf),
			Currency: p.Currency, Hourly: s.formatMoney(c, p.Hourly, p.Currency), Monthly: s.formatMoney(c, p.Monthly, p.Currency),
			Label: p.Label, GPUCount: p.GPUCount, Source: p.Source, SourceURL: sourceURL(p.Source),
			Stale: p.State == quote.Published && p.AsOf.Before(stale)}
		if p.HourlyJump {
			r.Changes = append(r.Changes, translator(c).T("history.change.hourly", "Change", changeText(c, p.PrevHourly, p.Hourly)))
		}
		if p.MonthlyJump {
			r.Changes = append(r.Changes, translator(c).T("history.change.monthly", "Change", changeText(c, p.PrevMonthly, p.Monthly)))
		}
		v.Rows = append(v.Rows, r)
	}
	v.Page = s.page(c, "history.title")
	v.Page.Title = translator(c).T("history.heading", "Platform", v.PlatformName, "GPU", v.GPUName)
	return s.render(c, http.StatusOK, v.Page, web.History(v))
}

// historyCharts draws the hourly and the monthly chart of one currency's
// samples, one line per offer (the versions of one quote series), on the
// same date axis.
func (s *Server) historyCharts(c echo.Context, platform, gpu, currency string, points []store.PricePoint) web.HistoryCharts {
	out := web.HistoryCharts{Currency: currency}
	from, to := points[0].AsOf, points[len(points)-1].AsOf
	draw := func(kind string, price func(store.PricePoint) decimal.NullDecimal) string {
		var offers []int64
		byOffer := map[int64][]svgchart.Point{}
		names := map[int64]string{}
		// points come oldest first, so the last valid one is the latest.
		var (
			n            int
			lo, hi, last decimal.Decimal
			fromAt, toAt time.Time
		)
		for _, p := range points {
			d := price(p)
			if !d.Valid {
				continue
			}
			if _, ok := byOffer[p.SeriesID]; !ok {
				offers = append(offers, p.SeriesID)
			}
			// The newest version's label names the offer.
			names[p.SeriesID] = translator(c).T("history.series.offer", "Label", p.Label, "Count", strconv.Itoa(p.GPUCount), "Series", strconv.FormatInt(p.SeriesID, 10))
			text := s.formatMoney(c, d, currency)
			byOffer[p.SeriesID] = append(byOffer[p.SeriesID], svgchart.Point{At: p.AsOf, Value: d.Decimal,
				Title: translator(c).T("history.chart.point", "Date", web.FormatDate(p.AsOf), "Version", strconv.Itoa(p.Version), "Price", text)})
			if n == 0 || d.Decimal.LessThan(lo) {
				lo = d.Decimal
			}
			if n == 0 || d.Decimal.GreaterThan(hi) {
				hi = d.Decimal
			}
			if n == 0 {
				fromAt = p.AsOf
			}
			last, toAt = d.Decimal, p.AsOf
			n++
		}
		if n == 0 {
			return ""
		}
		ch := svgchart.Chart{ID: "chart-" + kind + "-" + currency, From: from, To: to,
			YLabel: translator(c).T("history.chart."+kind, "Currency", currency)}
		ch.Title = translator(c).T("history.chart.title", "Price", ch.YLabel, "Platform", platform, "GPU", gpu)
		nd := func(d decimal.Decimal) string { return s.formatMoney(c, decimal.NewNullDecimal(d), currency) }
		ch.Desc = translator(c).T("history.chart.desc", "Count", strconv.Itoa(n), "From", web.FormatDate(fromAt), "To", web.FormatDate(toAt),
			"Min", nd(lo), "Max", nd(hi), "Last", nd(last))
		for _, k := range offers {
			ch.Series = append(ch.Series, svgchart.Series{Name: names[k], Points: byOffer[k]})
		}
		return svgchart.Render(ch)
	}
	out.Hourly = draw("hourly", func(p store.PricePoint) decimal.NullDecimal { return p.Hourly })
	out.Monthly = draw("monthly", func(p store.PricePoint) decimal.NullDecimal { return p.Monthly })
	return out
}

// dashboard shows editors what needs them: stale quotes (paginated,
// oldest first) and recent price jumps, with counts.
func (s *Server) dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	lang := translator(c).Lang
	today := s.today()
	staleBefore := today.AddDate(0, 0, -staleAfterDays)
	page := pageParam(c)
	counts, err := s.store.CountQuotes(ctx)
	if err != nil {
		return err
	}
	stale, staleTotal, err := s.store.StaleQuotes(ctx, staleBefore, (page-1)*stalePerPage, stalePerPage)
	if err != nil {
		return err
	}
	// Recent = dated within the same 90-day window as the re-check rule.
	jumps, jumpTotal, err := s.store.PriceJumps(ctx, staleBefore, store.JumpPercent, jumpsShown)
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
			r.Changes = append(r.Changes, translator(c).T("history.change.hourly", "Change", changeText(c, j.PrevHourly, j.Hourly)))
		}
		if j.MonthlyJump {
			r.Changes = append(r.Changes, translator(c).T("history.change.monthly", "Change", changeText(c, j.PrevMonthly, j.Monthly)))
		}
		v.Jumps = append(v.Jumps, r)
	}
	v.Page = s.page(c, "dashboard.title")
	return s.render(c, http.StatusOK, v.Page, web.Dashboard(v))
}
