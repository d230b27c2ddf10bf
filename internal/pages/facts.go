package pages

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/facts"
	"gpuquote/internal/form"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Platform environment, support and data-safety facts (docs/RULES.md
// §18.3): every signed-in user reads them on the platform page and the
// compare page; editors and admins add dated records.

// platformFactsView is the platform page's facts section: every record,
// the facts in force today.
func (s *Handlers) platformFactsView(c echo.Context, platformID int64) (web.PlatformFactsView, error) {
	records, err := s.Store.PlatformFacts(c.Request().Context(), platformID)
	if err != nil {
		return web.PlatformFactsView{}, err
	}
	return web.NewPlatformFactsView(platformID, records, s.Today(), s.Can(c, http.MethodPost, "/platforms/:id/facts")), nil
}

// FactFormPage is GET /platforms/:id/facts: the form of a new dated fact,
// dated today and for the kind the query names, if any.
func (s *Handlers) FactFormPage(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	f, err := s.factForm(c, id)
	if err != nil {
		return err
	}
	if k := facts.Kind(c.QueryParam("kind")); k.Valid() {
		f.Kind = string(k)
	}
	f.AsOf = s.Today().Format("2006-01-02")
	return s.Render(c, http.StatusOK, f.Page, web.FactFormPage(f))
}

// factForm is the form of platform id, blank.
func (s *Handlers) factForm(c echo.Context, id int64) (web.FactForm, error) {
	ctx := c.Request().Context()
	p, err := s.Store.PlatformByID(ctx, id)
	if err != nil {
		return web.FactForm{}, err
	}
	f := web.FactForm{PlatformID: id, PlatformName: web.PlatformName(ctx, p.NameZH, p.NameEN), Errors: web.Errors{}}
	f.Page = s.Page(c, "facts.form.title")
	return f, nil
}

// FactCreate is POST /platforms/:id/facts: every bad field is named beside
// its input (422, every value kept, nothing saved); a stored fact
// redirects to the platform's facts.
func (s *Handlers) FactCreate(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	f, err := s.factForm(c, id)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	fact := facts.Read(r, s.LatestDay())
	fact.PlatformID = id
	f.KeepTyped(r.Raw, values.Get("note"))
	status := http.StatusUnprocessableEntity
	if r.OK() {
		_, err := s.Store.CreatePlatformFact(c.Request().Context(), s.Actor(c), fact, s.LatestDay())
		switch {
		case errors.Is(err, store.ErrTrialPlatform):
			r.Fail("trial_id", facts.MsgTrialPlatform)
		case errors.Is(err, store.ErrNotAllowed):
			// The role changed since the request was checked.
			return echo.ErrForbidden
		case err != nil:
			return err
		default:
			return s.RedirectWithFlash(c, "/platforms/"+strconv.FormatInt(id, 10)+"#facts", "ok", "facts.created")
		}
	}
	f.Errors = r.Errs
	return s.Render(c, status, f.Page, web.FactFormPage(f))
}
