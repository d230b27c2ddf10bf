package pages

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/avail"
	"gpuquote/internal/compare"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Availability records (docs/RULES.md §18.2): any signed-in user records an
// attempt to get GPUs, from a quote's page, a trial's page, the records
// page of a platform × GPU model or the JSON API; everyone signed in reads
// them. Nobody changes or withdraws a record.

const availPerPage = 25

// availabilityPanel is the availability box of a quote or trial page for
// pair, with the form naming where the attempt came from.
func (s *Handlers) availabilityPanel(c echo.Context, pair market.PlatformGPU, quoteID, trialID int64) (*web.AvailabilityPanel, error) {
	today := s.Today()
	stats, err := s.Store.AvailabilityStats(c.Request().Context(), []market.PlatformGPU{pair}, today)
	if err != nil {
		return nil, err
	}
	f := web.NewAvailabilityForm(auth.CSRFToken(c), s.Now())
	f.QuoteID, f.TrialID = quoteID, trialID
	if trialID != 0 {
		f.QuoteID = 0 // the trial names its quote
	}
	return web.NewAvailabilityPanel(pair, today, stats[pair], f), nil
}

// availabilityPairParam reads the platform × GPU model a records page is
// asked for (?platform=&gpu=), both known, or 404.
func (s *Handlers) availabilityPairParam(c echo.Context) (market.PlatformGPU, market.Platform, market.GPUModel, error) {
	var pair market.PlatformGPU
	pair.PlatformID, _ = strconv.ParseInt(c.QueryParam("platform"), 10, 64)
	pair.GPUModelID, _ = strconv.ParseInt(c.QueryParam("gpu"), 10, 64)
	return s.AvailabilityPair(c, pair)
}

// AvailabilityPage is GET /availability?platform=&gpu=: the pair's
// statistics, its records newest attempt first, and the form.
func (s *Handlers) AvailabilityPage(c echo.Context) error {
	pair, p, g, err := s.availabilityPairParam(c)
	if err != nil {
		return err
	}
	f := web.NewAvailabilityForm("", s.Now())
	f.PlatformID, f.GPUModelID = pair.PlatformID, pair.GPUModelID
	return s.renderAvailabilityPage(c, http.StatusOK, pair, p, g, f)
}

func (s *Handlers) renderAvailabilityPage(c echo.Context, status int, pair market.PlatformGPU, p market.Platform, g market.GPUModel,
	f web.AvailabilityForm) error {
	ctx := c.Request().Context()
	tr := server.Translator(c)
	in := web.AvailabilityRecords{Pair: pair, Platform: p, GPU: g, Today: s.Today(), Page: server.PageParam(c), PerPage: availPerPage, Form: f}
	var err error
	if in.Records, in.Total, err = s.Store.AvailabilityRecords(ctx, pair, (in.Page-1)*availPerPage, availPerPage); err != nil {
		return err
	}
	stats, err := s.Store.AvailabilityStats(ctx, []market.PlatformGPU{pair}, in.Today)
	if err != nil {
		return err
	}
	in.Stats = stats[pair]
	page := s.Page(c, "availability.page_title")
	v := web.NewAvailabilityPageView(tr, in, page.CSRF)
	v.Page = page
	v.Page.Title = tr.T("availability.title", "Platform", v.Platform, "GPU", v.GPU)
	return s.Render(c, status, v.Page, web.AvailabilityPage(v))
}

// AvailabilityCreate is POST /availability, the form of the quote, trial
// and records pages: 303 back to the page it came from with a notice, or
// the records page with the form as typed and every problem (422).
func (s *Handlers) AvailabilityCreate(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	in, errs := s.ReadAvailability(values.Get)
	var rec avail.Record
	if len(errs) == 0 {
		var ok bool
		if rec, ok, err = s.CreateAvailability(c, in, errs); err != nil {
			return err
		} else if ok {
			back := web.AvailabilityURL(rec.PlatformID, rec.GPUModelID)
			switch {
			case rec.TrialID != 0 && in.TrialID != 0:
				back = "/trials/" + strconv.FormatInt(rec.TrialID, 10)
			case rec.QuoteID != 0:
				back = "/quotes/" + strconv.FormatInt(rec.QuoteID, 10)
			}
			return s.RedirectWithFlash(c, back+"#availability", "ok", "availability.saved")
		}
	}
	// Show the form again on the records page of the pair it names.
	pair, err := s.availabilityPairOf(c, in)
	if err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity)
	}
	pair, p, g, err := s.AvailabilityPair(c, pair)
	if err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity)
	}
	return s.renderAvailabilityPage(c, http.StatusUnprocessableEntity, pair, p, g, web.TypedAvailabilityForm(in, pair, values, errs))
}

// availabilityPairOf is the platform × GPU model a posted record names:
// its trial's, its quote's, or the one named.
func (s *Handlers) availabilityPairOf(c echo.Context, in avail.Input) (market.PlatformGPU, error) {
	ctx := c.Request().Context()
	switch {
	case in.TrialID != 0:
		t, err := s.Store.TrialByID(ctx, in.TrialID)
		return market.PlatformGPU{PlatformID: t.PlatformID, GPUModelID: t.GPUModelID}, err
	case in.QuoteID != 0:
		uid, role := server.Viewer(c)
		q, err := s.Store.QuoteFor(ctx, in.QuoteID, uid, role)
		return market.PlatformGPU{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID}, err
	}
	return market.PlatformGPU{PlatformID: in.PlatformID, GPUModelID: in.GPUModelID}, nil
}

// availabilityFilter is the compare page's candidate filter on the 90
// days' success rate (nil when not asked for).
func availabilityFilter(values url.Values, today time.Time) *store.AvailabilityFilter {
	pct := compare.AvailFilterPct(values.Get(compare.AvailParam))
	if pct == 0 {
		return nil
	}
	return &store.AvailabilityFilter{MinPct: pct, Day: today, Days: avail.FilterWindow}
}

// quoteAvailability is the availability box of a quote page: only
// published and archived versions take records.
func (s *Handlers) quoteAvailability(c echo.Context, q quote.Quote) (*web.AvailabilityPanel, error) {
	if !quote.InMarket(q.State) {
		return nil, nil
	}
	return s.availabilityPanel(c, market.PlatformGPU{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID}, q.ID, 0)
}
