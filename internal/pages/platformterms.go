package pages

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// platformTermsView is the platform page's section on its terms.
func (s *Handlers) platformTermsView(c echo.Context, platformID int64) (web.PlatformTermsView, error) {
	terms, err := s.Store.PlatformTerms(c.Request().Context(), platformID)
	if err != nil {
		return web.PlatformTermsView{}, err
	}
	return web.NewPlatformTermsView(platformID, terms, s.Can(c, http.MethodPost, "/platforms/:id/terms")), nil
}

// PlatformTermsEdit is GET /platforms/:id/terms/edit.
func (s *Handlers) PlatformTermsEdit(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p, err := s.Store.PlatformByID(ctx, id)
	if err != nil {
		return err
	}
	terms, err := s.Store.PlatformTerms(ctx, id)
	if err != nil {
		return err
	}
	f := web.NewPlatformTermsForm(id, web.PlatformName(ctx, p.NameZH, p.NameEN), terms)
	f.Page = s.Page(c, "terms.title")
	return s.Render(c, http.StatusOK, f.Page, web.PlatformTermsFormPage(f))
}

// PlatformTermsUpdate is POST /platforms/:id/terms: saves the eleven
// answers. Every problem is named beside its field (422, input kept); a
// save that lost to someone else's comes back (409) with the input and the
// current versions, so saving again is a deliberate overwrite.
func (s *Handlers) PlatformTermsUpdate(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	p, err := s.Store.PlatformByID(ctx, id)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	terms := market.ReadTerms(r, s.LatestDay())
	for i := range terms {
		lv, err := strconv.Atoi(values.Get(market.TermField(terms[i].Kind, terms[i].Key, "lock_version")))
		if err != nil || lv < 0 {
			return echo.NewHTTPError(http.StatusBadRequest)
		}
		terms[i].LockVersion = lv
	}
	// The form shows what was typed: the dates as typed, the rest as read.
	f := web.NewPlatformTermsForm(id, web.PlatformName(ctx, p.NameZH, p.NameEN), terms)
	f.KeepTypedDates(r.Raw)
	f.Errors = r.Errs
	status := http.StatusUnprocessableEntity
	if r.OK() {
		err := s.Store.SavePlatformTerms(ctx, s.Actor(c), id, terms)
		switch {
		case errors.Is(err, store.ErrConflict):
			cur, err := s.Store.PlatformTerms(ctx, id)
			if err != nil {
				return err
			}
			// Keep the input; take the current versions.
			f.TakeVersions(cur)
			f.Conflict, status = true, http.StatusConflict
		case err != nil:
			return err
		default:
			return s.RedirectWithFlash(c, "/platforms/"+strconv.FormatInt(id, 10)+"#terms", "ok", "terms.flash.saved")
		}
	}
	f.Page = s.Page(c, "terms.title")
	return s.Render(c, status, f.Page, web.PlatformTermsFormPage(f))
}
