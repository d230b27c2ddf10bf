package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/avail"
	"gpuquote/internal/compare"
	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Availability records (docs/RULES.md §18.2): any signed-in user records an
// attempt to get GPUs, from a quote's page, a trial's page, the records
// page of a platform × GPU model or the JSON API; everyone signed in reads
// them. Nobody changes or withdraws a record.

const availPerPage = 25

// availBodyLimit bounds the API's request body: a record is a few hundred
// bytes, its note at most 2000 characters.
const availBodyLimit = 64 << 10

// availabilityPanel is the availability box of a quote or trial page for
// pair, with the form naming where the attempt came from.
func (s *Server) availabilityPanel(c echo.Context, pair market.PlatformGPU, quoteID, trialID int64) (*web.AvailabilityPanel, error) {
	today := s.today()
	stats, err := s.store.AvailabilityStats(c.Request().Context(), []market.PlatformGPU{pair}, today)
	if err != nil {
		return nil, err
	}
	f := web.NewAvailabilityForm(auth.CSRFToken(c), s.now())
	f.QuoteID, f.TrialID = quoteID, trialID
	if trialID != 0 {
		f.QuoteID = 0 // the trial names its quote
	}
	return &web.AvailabilityPanel{ListURL: web.AvailabilityURL(pair.PlatformID, pair.GPUModelID), Day: today.Format(time.DateOnly),
		Stats: web.AvailabilityStats(stats[pair]), Form: f}, nil
}

// availabilityPairParam reads the platform × GPU model a records page is
// asked for (?platform=&gpu=), both known, or 404.
func (s *Server) availabilityPairParam(c echo.Context) (market.PlatformGPU, market.Platform, market.GPUModel, error) {
	var pair market.PlatformGPU
	pair.PlatformID, _ = strconv.ParseInt(c.QueryParam("platform"), 10, 64)
	pair.GPUModelID, _ = strconv.ParseInt(c.QueryParam("gpu"), 10, 64)
	return s.availabilityPair(c, pair)
}

func (s *Server) availabilityPair(c echo.Context, pair market.PlatformGPU) (market.PlatformGPU, market.Platform, market.GPUModel, error) {
	if pair.PlatformID <= 0 || pair.GPUModelID <= 0 {
		return pair, market.Platform{}, market.GPUModel{}, echo.ErrNotFound
	}
	ctx := c.Request().Context()
	p, err := s.store.PlatformByID(ctx, pair.PlatformID)
	if err != nil {
		return pair, p, market.GPUModel{}, err
	}
	g, err := s.store.GPUModelByID(ctx, pair.GPUModelID)
	return pair, p, g, err
}

// availabilityPage is GET /availability?platform=&gpu=: the pair's
// statistics, its records newest attempt first, and the form.
func (s *Server) availabilityPage(c echo.Context) error {
	pair, p, g, err := s.availabilityPairParam(c)
	if err != nil {
		return err
	}
	f := web.NewAvailabilityForm("", s.now())
	f.PlatformID, f.GPUModelID = pair.PlatformID, pair.GPUModelID
	return s.renderAvailabilityPage(c, http.StatusOK, pair, p, g, f)
}

func (s *Server) renderAvailabilityPage(c echo.Context, status int, pair market.PlatformGPU, p market.Platform, g market.GPUModel,
	f web.AvailabilityForm) error {
	ctx := c.Request().Context()
	tr := translator(c)
	today := s.today()
	page := pageParam(c)
	rows, total, err := s.store.AvailabilityRecords(ctx, pair, (page-1)*availPerPage, availPerPage)
	if err != nil {
		return err
	}
	stats, err := s.store.AvailabilityStats(ctx, []market.PlatformGPU{pair}, today)
	if err != nil {
		return err
	}
	v := web.AvailabilityPageView{Platform: web.DisplayName(tr.Lang, p.NameZH, p.NameEN), GPU: g.Vendor + " " + g.Name,
		Day: today.Format(time.DateOnly), Stats: web.AvailabilityStats(stats[pair]), Form: f,
		Pager: web.Pager{Page: page, PerPage: availPerPage, Total: total, Base: web.AvailabilityURL(pair.PlatformID, pair.GPUModelID)}}
	for _, r := range rows {
		v.Rows = append(v.Rows, web.NewAvailabilityRow(tr, r))
	}
	v.Page = s.page(c, "availability.page_title")
	v.Form.CSRF = v.Page.CSRF
	if v.Form.Errors == nil {
		v.Form.Errors = web.Errors{}
	}
	v.Page.Title = tr.T("availability.title", "Platform", v.Platform, "GPU", v.GPU)
	return s.render(c, status, v.Page, web.AvailabilityPage(v))
}

// readAvailability reads a record from fields and checks where it came
// from; the store then resolves and checks the references.
func (s *Server) readAvailability(get func(string) string) (avail.Input, form.Errors) {
	in, errs := avail.Read(get, s.latestDay())
	avail.Require(in, errs)
	return in, errs
}

// createAvailability stores in for the signed-in user; a reference the
// store refuses becomes a field problem in errs (ok false, err nil).
func (s *Server) createAvailability(c echo.Context, in avail.Input, errs form.Errors) (avail.Record, bool, error) {
	r, err := s.store.CreateAvailabilityRecord(c.Request().Context(), s.actor(c), in)
	var re *avail.RefError
	if errors.As(err, &re) {
		errs.Set(re.Field, re.MessageID)
		return r, false, nil
	}
	return r, err == nil, err
}

// availabilityCreate is POST /availability, the form of the quote, trial
// and records pages: 303 back to the page it came from with a notice, or
// the records page with the form as typed and every problem (422).
func (s *Server) availabilityCreate(c echo.Context) error {
	values, err := formValues(c)
	if err != nil {
		return err
	}
	in, errs := s.readAvailability(values.Get)
	var rec avail.Record
	if len(errs) == 0 {
		var ok bool
		if rec, ok, err = s.createAvailability(c, in, errs); err != nil {
			return err
		} else if ok {
			back := web.AvailabilityURL(rec.PlatformID, rec.GPUModelID)
			switch {
			case rec.TrialID != 0 && in.TrialID != 0:
				back = "/trials/" + strconv.FormatInt(rec.TrialID, 10)
			case rec.QuoteID != 0:
				back = "/quotes/" + strconv.FormatInt(rec.QuoteID, 10)
			}
			return s.redirectWithFlash(c, back+"#availability", "ok", "availability.saved")
		}
	}
	// Show the form again on the records page of the pair it names.
	pair, err := s.availabilityPairOf(c, in)
	if err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity)
	}
	pair, p, g, err := s.availabilityPair(c, pair)
	if err != nil {
		return echo.NewHTTPError(http.StatusUnprocessableEntity)
	}
	f := web.AvailabilityForm{QuoteID: in.QuoteID, TrialID: in.TrialID, PlatformID: pair.PlatformID, GPUModelID: pair.GPUModelID,
		Values: map[string]string{}, Errors: errs}
	for _, k := range []string{"attempted_at", "gpu_count", "obtained", "wait_minutes", "note"} {
		f.Values[k] = values.Get(k)
	}
	return s.renderAvailabilityPage(c, http.StatusUnprocessableEntity, pair, p, g, f)
}

// availabilityPairOf is the platform × GPU model a posted record names:
// its trial's, its quote's, or the one named.
func (s *Server) availabilityPairOf(c echo.Context, in avail.Input) (market.PlatformGPU, error) {
	ctx := c.Request().Context()
	switch {
	case in.TrialID != 0:
		t, err := s.store.TrialByID(ctx, in.TrialID)
		return market.PlatformGPU{PlatformID: t.PlatformID, GPUModelID: t.GPUModelID}, err
	case in.QuoteID != 0:
		uid, role := viewer(c)
		q, err := s.store.QuoteFor(ctx, in.QuoteID, uid, role)
		return market.PlatformGPU{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID}, err
	}
	return market.PlatformGPU{PlatformID: in.PlatformID, GPUModelID: in.GPUModelID}, nil
}

// availAPIError is one problem of an API request, in the evaluate API's
// shape.
type availAPIError struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// availabilityAPI is POST /api/v1/availability: a JSON object with the
// form's fields (numbers, strings or booleans); 201 with the stored record,
// or 422 naming every problem in the request's language.
func (s *Server) availabilityAPI(c echo.Context) error {
	tr := translator(c)
	c.Response().Header().Set("Cache-Control", "no-store")
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err // the body limit's 413, or a broken connection
	}
	fields, ok := availJSONFields(body)
	if !ok {
		return c.JSON(http.StatusUnprocessableEntity, map[string][]availAPIError{"errors": {{Field: "", Code: "availability.error.json",
			Message: tr.T("availability.error.json")}}})
	}
	in, errs := s.readAvailability(fields.Get)
	if len(errs) == 0 {
		rec, ok, err := s.createAvailability(c, in, errs)
		if err != nil {
			return err
		}
		if ok {
			return c.JSON(http.StatusCreated, rec)
		}
	}
	out := []availAPIError{}
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		m := errs[k]
		out = append(out, availAPIError{Field: k, Code: m.ID, Message: tr.T(m.ID, m.Args...)})
	}
	return c.JSON(http.StatusUnprocessableEntity, map[string][]availAPIError{"errors": out})
}

// availJSONFields reads a JSON object's members as form values: a string
// as it is, a number as written, a boolean as "true" or "false"; null and
// anything else (arrays, objects) as text no field accepts.
func availJSONFields(body []byte) (url.Values, bool) {
	var raw map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw == nil || dec.More() {
		return nil, false
	}
	out := url.Values{}
	for k, v := range raw {
		var str string
		var num json.Number
		var b bool
		switch {
		case bytes.Equal(bytes.TrimSpace(v), []byte("null")):
		case json.Unmarshal(v, &str) == nil:
			out.Set(k, str)
		case json.Unmarshal(v, &num) == nil:
			out.Set(k, num.String())
		case json.Unmarshal(v, &b) == nil:
			out.Set(k, strconv.FormatBool(b))
		default:
			out.Set(k, "\x00")
		}
	}
	return out, true
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

// compareAvailability puts each priced row's availability on the compare
// page (docs/RULES.md §18.2).
func compareAvailability(c echo.Context, v *web.CompareView, cmp *compare.Comparison) {
	if cmp.Availability == nil {
		return
	}
	tr := translator(c)
	v.AvailabilityDay = cmp.In.Today.Format(time.DateOnly)
	for _, r := range cmp.Rows {
		if !r.Priced {
			continue
		}
		v.Availability = append(v.Availability, web.CompareAvailabilityRow{QuoteID: r.Quote.ID, Name: web.QuoteName(tr, r.Quote),
			URL: web.AvailabilityURL(r.Quote.PlatformID, r.Quote.GPUModelID), Stats: web.AvailabilityStats(cmp.AvailabilityOf(r))})
	}
}

// quoteAvailability is the availability box of a quote page: only
// published and archived versions take records.
func (s *Server) quoteAvailability(c echo.Context, q quote.Quote) (*web.AvailabilityPanel, error) {
	if !quote.InMarket(q.State) {
		return nil, nil
	}
	return s.availabilityPanel(c, market.PlatformGPU{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID}, q.ID, 0)
}
