package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Own-hardware options and electricity prices (docs/RULES.md §17.4): the
// routes check who may see an option (others get 404) and who may change
// it (403 with a page saying who may), and the store checks again in the
// transaction that writes.

const (
	ownPerPage         = 25
	electricityPerPage = 25
)

// OwnList is GET /own-hardware: the options the reader may see, filtered
// by GPU model and scope, current or archived.
func (s *Handlers) OwnList(c echo.Context) error {
	ctx := c.Request().Context()
	uid, role := server.Viewer(c)
	in := web.OwnListRecords{Scope: c.QueryParam("scope"), Archived: c.QueryParam("archived") == "1", Page: server.PageParam(c), PerPage: ownPerPage}
	if in.Scope != store.OwnScopeMine && in.Scope != store.OwnScopeShared {
		in.Scope = store.OwnScopeAll
	}
	in.GPU, _ = strconv.ParseInt(c.QueryParam("gpu"), 10, 64)
	var err error
	if in.Options, in.Total, err = s.Store.OwnOptions(ctx, store.OwnOptionFilter{ViewerID: uid, ViewerRole: role, Scope: in.Scope,
		GPUModelID: in.GPU, Archived: in.Archived, Offset: (in.Page - 1) * ownPerPage, Limit: ownPerPage}); err != nil {
		return err
	}
	if _, in.GPUs, err = s.Store.QuoteRefNames(ctx); err != nil {
		return err
	}
	v := web.NewOwnListView(server.Translator(c), in)
	v.Page = s.Page(c, "own.list.title")
	return s.Render(c, http.StatusOK, v.Page, web.OwnList(v))
}

// renderOwnForm shows the option form with what was typed and its problems.
func (s *Handlers) renderOwnForm(c echo.Context, status int, f web.OwnFormView) error {
	ctx := c.Request().Context()
	_, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	series, err := s.electricitySeries(ctx)
	if err != nil {
		return err
	}
	_, role := server.Viewer(c)
	f = f.WithChoices(gpus, series, own.MayShare(role))
	f.Page = s.Page(c, f.TitleID())
	return s.Render(c, status, f.Page, web.OwnFormPage(f))
}

// electricitySeries lists the region × currency series of electricity
// prices.
func (s *Handlers) electricitySeries(ctx context.Context) ([]own.ElectricitySeries, error) {
	series, err := s.Store.ElectricitySeriesList(ctx)
	return series, err
}

// OwnNew is GET /own-hardware/new: the form with its defaults.
func (s *Handlers) OwnNew(c echo.Context) error {
	series, err := s.Store.ElectricitySeriesList(c.Request().Context())
	if err != nil {
		return err
	}
	values := web.OwnFormDefaults(s.Today(), len(series) > 0, c.QueryParam("gpu_model"))
	return s.renderOwnForm(c, http.StatusOK, web.OwnFormView{IsNew: true, Action: "/own-hardware", Values: values})
}

// readOwnForm reads a posted option form: the version, the typed values
// (kept for the form) and every problem.
func (s *Handlers) readOwnForm(c echo.Context) (own.Version, url.Values, form.Errors, error) {
	values, err := server.FormValues(c)
	if err != nil {
		return own.Version{}, nil, nil, err
	}
	_, gpus, err := s.Store.QuoteRefNames(c.Request().Context())
	if err != nil {
		return own.Version{}, nil, nil, err
	}
	known := func(id int64) bool {
		return slices.ContainsFunc(gpus, func(g market.RefName) bool { return g.ID == id })
	}
	v, errs := own.Read(values.Get, known, s.LatestDay())
	return v, values, errs, nil
}

// ownStoreError turns a refusal of the store into field problems; ok is
// false when err is none of them.
func ownStoreError(err error, v own.Version, errs form.Errors) bool {
	switch {
	case errors.Is(err, store.ErrNoElectricitySeries):
		errs.Set("electricity_region", own.MsgNoSeries, "Region", v.ElectricityRegion, "Currency", v.Currency)
	default:
		return false
	}
	return true
}

// OwnCreate is POST /own-hardware: a new option (version 1). Only editors
// and admins may share one; an analyst's option is private.
func (s *Handlers) OwnCreate(c echo.Context) error {
	v, values, errs, err := s.readOwnForm(c)
	if err != nil {
		return err
	}
	shared := values.Get("shared") == "true"
	if _, role := server.Viewer(c); shared && !own.MayShare(role) {
		errs.Set("shared", own.MsgShareNeeds)
	}
	f := web.OwnFormView{IsNew: true, Action: "/own-hardware", Values: web.OwnFormTyped(values), Errors: errs, Shared: shared}
	if len(errs) > 0 {
		return s.renderOwnForm(c, http.StatusUnprocessableEntity, f)
	}
	o, err := s.Store.CreateOwnOption(c.Request().Context(), s.Actor(c), v, shared)
	switch {
	case ownStoreError(err, v, errs):
		return s.renderOwnForm(c, http.StatusUnprocessableEntity, f)
	case errors.Is(err, store.ErrNotAllowed):
		// The role changed since the request was checked.
		errs.Set("shared", own.MsgShareNeeds)
		return s.renderOwnForm(c, http.StatusForbidden, f)
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, "/own-hardware/"+strconv.FormatInt(o.ID, 10), "ok", "own.flash.created")
}

// loadOwn reads the option of the path; one the reader may not see is a
// page that does not exist (404).
func (s *Handlers) loadOwn(c echo.Context) (own.Option, error) {
	id, err := server.PathID(c)
	if err != nil {
		return own.Option{}, err
	}
	o, err := s.Store.OwnOptionByID(c.Request().Context(), id)
	if err != nil {
		return own.Option{}, err
	}
	if uid, role := server.Viewer(c); !own.MayRead(o, uid, role) {
		return own.Option{}, echo.ErrNotFound
	}
	return o, nil
}

// ownForWrite reads the option of the path for a change by the reader: ok
// is false when the change must not go on (err is then the 404, or the 403
// page has been written).
func (s *Handlers) ownForWrite(c echo.Context) (o own.Option, ok bool, err error) {
	if o, err = s.loadOwn(c); err != nil {
		return o, false, err
	}
	if uid, role := server.Viewer(c); !own.MayWrite(o, uid, role) {
		return o, false, s.ownForbidden(c, o)
	}
	return o, true, nil
}

// ownForbidden is the 403 page of a change by someone who may only read
// the option: it says who may change it.
func (s *Handlers) ownForbidden(c echo.Context, o own.Option) error {
	tr := server.Translator(c)
	msg := tr.T("own.forbidden.private")
	if o.Shared {
		msg = tr.T("own.forbidden.shared")
	}
	p := s.Page(c, "error.403.title")
	return s.Render(c, http.StatusForbidden, p, web.ErrorPage(web.ErrorView{Page: p, Status: http.StatusForbidden,
		Message: msg, RequestID: c.Response().Header().Get(echo.HeaderXRequestID)}))
}

// OwnShow is GET /own-hardware/:id: the newest version, or ?version=n.
func (s *Handlers) OwnShow(c echo.Context) error {
	ctx := c.Request().Context()
	o, err := s.loadOwn(c)
	if err != nil {
		return err
	}
	uid, role := server.Viewer(c)
	in := web.OwnRecords{Option: o, Shown: o.Current, Today: s.Today(), CanWrite: own.MayWrite(o, uid, role)}
	// A version number is a 32-bit integer; anything else names none.
	if n, err := strconv.ParseInt(c.QueryParam("version"), 10, 32); err == nil && int(n) != o.LatestVersion {
		if in.Shown, err = s.Store.OwnOptionVersion(ctx, o.ID, int(n)); err != nil {
			return err
		}
	}
	if in.Versions, err = s.Store.OwnOptionVersions(ctx, o.ID); err != nil {
		return err
	}
	in.Electricity, err = s.Store.ResolveElectricity(ctx, in.Shown, in.Today)
	if in.NoSample = errors.Is(err, store.ErrNoElectricitySample); err != nil && !in.NoSample {
		return err
	}
	v := web.NewOwnView(server.Translator(c), in)
	v.Page = s.Page(c, "own.detail.title")
	v.Page.Title = in.Shown.Name
	return s.Render(c, http.StatusOK, v.Page, web.Own(v))
}

// OwnEditForm is GET /own-hardware/:id/edit: the newest version's inputs,
// to be saved as the next version.
func (s *Handlers) OwnEditForm(c echo.Context) error {
	o, ok, err := s.ownForWrite(c)
	if !ok {
		return err
	}
	target := "/own-hardware/" + strconv.FormatInt(o.ID, 10)
	if o.Archived() {
		return s.RedirectWithFlash(c, target, "error", "own.flash.archived")
	}
	return s.renderOwnForm(c, http.StatusOK, web.OwnFormView{ID: o.ID, Action: target, BasedOn: o.LatestVersion,
		Values: own.Values(o.Current), Shared: o.Shared})
}

// OwnUpdate is POST /own-hardware/:id: stores the next version. A version
// stored by someone else since the form was opened is a conflict (409):
// the form comes back with this input, and saving again stores it on top.
func (s *Handlers) OwnUpdate(c echo.Context) error {
	o, ok, err := s.ownForWrite(c)
	if !ok {
		return err
	}
	target := "/own-hardware/" + strconv.FormatInt(o.ID, 10)
	if o.Archived() {
		return s.RedirectWithFlash(c, target, "error", "own.flash.archived")
	}
	v, values, errs, err := s.readOwnForm(c)
	if err != nil {
		return err
	}
	basedOn, _ := strconv.Atoi(values.Get("based_on"))
	f := web.OwnFormView{ID: o.ID, Action: target, BasedOn: basedOn, Values: web.OwnFormTyped(values), Errors: errs, Shared: o.Shared}
	if len(errs) > 0 {
		return s.renderOwnForm(c, http.StatusUnprocessableEntity, f)
	}
	_, err = s.Store.NewOwnOptionVersion(c.Request().Context(), s.Actor(c), o.ID, basedOn, v)
	switch {
	case ownStoreError(err, v, errs):
		return s.renderOwnForm(c, http.StatusUnprocessableEntity, f)
	case errors.Is(err, store.ErrConflict):
		f.Conflict, f.BasedOn = true, o.LatestVersion
		return s.renderOwnForm(c, http.StatusConflict, f)
	case errors.Is(err, store.ErrOwnArchived):
		return s.RedirectWithFlash(c, target, "error", "own.flash.archived")
	case errors.Is(err, store.ErrNotAllowed):
		return s.ownForbidden(c, o)
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, target, "ok", "own.flash.saved")
}

// OwnArchive is POST /own-hardware/:id/archive.
func (s *Handlers) OwnArchive(c echo.Context) error {
	o, ok, err := s.ownForWrite(c)
	if !ok {
		return err
	}
	target := "/own-hardware/" + strconv.FormatInt(o.ID, 10)
	err = s.Store.ArchiveOwnOption(c.Request().Context(), s.Actor(c), o.ID)
	switch {
	case errors.Is(err, store.ErrOwnArchived):
		return s.RedirectWithFlash(c, target, "error", "own.flash.archived")
	case errors.Is(err, store.ErrNotAllowed):
		return s.ownForbidden(c, o)
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, target, "ok", "own.flash.archived_now")
}

// electricityView loads the electricity page for the list filters in the
// query, with an empty add form.
func (s *Handlers) electricityView(c echo.Context) (web.ElectricityView, error) {
	ctx := c.Request().Context()
	in := web.ElectricityRecords{Today: s.Today(), Page: server.PageParam(c), PerPage: electricityPerPage}
	in.Region, in.Currency = web.ElectricityQuery(c.QueryParam("region"), c.QueryParam("currency"))
	var err error
	if in.Current, err = s.Store.CurrentElectricityPrices(ctx, in.Today); err != nil {
		return web.ElectricityView{}, err
	}
	if in.History, in.Total, err = s.Store.ElectricityPrices(ctx, store.ElectricityFilter{Region: in.Region, Currency: in.Currency,
		Offset: (in.Page - 1) * electricityPerPage, Limit: electricityPerPage}); err != nil {
		return web.ElectricityView{}, err
	}
	if in.Series, err = s.electricitySeries(ctx); err != nil {
		return web.ElectricityView{}, err
	}
	return web.NewElectricityView(in), nil
}

// ElectricityPage is GET /electricity (editors).
func (s *Handlers) ElectricityPage(c echo.Context) error {
	v, err := s.electricityView(c)
	if err != nil {
		return err
	}
	v.Page = s.Page(c, "own.electricity.title")
	return s.Render(c, http.StatusOK, v.Page, web.Electricity(v))
}

// CreateElectricityPrice is POST /electricity: every bad field is named
// beside its input (422, input kept, nothing saved); a stored sample
// redirects back to the page.
func (s *Handlers) CreateElectricityPrice(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	p := own.ReadElectricityPrice(r, s.LatestDay())
	f := web.ElectricityForm{Region: r.Raw("region"), Currency: r.Raw("currency"), KWhPrice: r.Raw("kwh_price"),
		AsOf: r.Raw("as_of"), Source: r.Raw("source"), Errors: r.Errs}
	if r.OK() {
		_, err := s.Store.CreateElectricityPrice(c.Request().Context(), s.Actor(c), p)
		switch {
		case errors.Is(err, store.ErrElectricityPriceExists):
			r.Fail("as_of", own.MsgSampleExist)
		case err != nil:
			return err
		default:
			return s.RedirectWithFlash(c, "/electricity", "ok", "own.electricity.created")
		}
	}
	v, err := s.electricityView(c)
	if err != nil {
		return err
	}
	v.Form = f
	v.Page = s.Page(c, "own.electricity.title")
	return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.Electricity(v))
}
