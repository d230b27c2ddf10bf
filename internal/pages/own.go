package pages

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/own"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
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
	tr := server.Translator(c)
	uid, role := server.Viewer(c)
	v := web.OwnListView{Scope: c.QueryParam("scope"), Archived: c.QueryParam("archived") == "1",
		Scopes: []web.Option{{Value: store.OwnScopeAll, LabelID: "own.scope.all"}, {Value: store.OwnScopeMine, LabelID: "own.scope.mine"},
			{Value: store.OwnScopeShared, LabelID: "own.scope.shared"}}}
	if v.Scope != store.OwnScopeMine && v.Scope != store.OwnScopeShared {
		v.Scope = store.OwnScopeAll
	}
	gpu, _ := strconv.ParseInt(c.QueryParam("gpu"), 10, 64)
	if gpu > 0 {
		v.GPU = strconv.FormatInt(gpu, 10)
	}
	page := server.PageParam(c)
	rows, total, err := s.Store.OwnOptions(ctx, store.OwnOptionFilter{ViewerID: uid, ViewerRole: role, Scope: v.Scope,
		GPUModelID: gpu, Archived: v.Archived, Offset: (page - 1) * ownPerPage, Limit: ownPerPage})
	if err != nil {
		return err
	}
	_, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	v.GPUs = web.GPUOptions(gpus)
	v.Filtered = gpu > 0 || v.Scope != "" || v.Archived || total > 0
	archived := ""
	if v.Archived {
		archived = "1"
	}
	v.Pager = web.Pager{Page: page, PerPage: ownPerPage, Total: total,
		Base: server.ListURL("/own-hardware", url.Values{"gpu": {v.GPU}, "scope": {v.Scope}, "archived": {archived}})}
	for _, o := range rows {
		v.Rows = append(v.Rows, web.NewOwnRow(tr, o))
	}
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
	series, err := s.Store.ElectricitySeriesList(ctx)
	if err != nil {
		return err
	}
	f.GPUs = web.GPUOptions(gpus)
	currencies := slices.Clone(pricesCurrencySuggestions)
	seen := map[string]bool{}
	for _, sr := range series {
		currencies = append(currencies, sr.Currency)
		if !seen[sr.Region] {
			seen[sr.Region] = true
			f.Regions = append(f.Regions, web.Option{Value: sr.Region, Label: sr.Region})
		}
	}
	slices.Sort(currencies)
	f.Currencies = slices.Compact(currencies)
	if f.Errors == nil {
		f.Errors = web.Errors{}
	}
	_, role := server.Viewer(c)
	f.CanShare = own.MayShare(role)
	titleID := "own.form.new"
	if !f.IsNew {
		titleID = "own.form.edit_title"
	}
	f.Page = s.Page(c, titleID)
	return s.Render(c, status, f.Page, web.OwnFormPage(f))
}

// OwnNew is GET /own-hardware/new: the form with its defaults.
func (s *Handlers) OwnNew(c echo.Context) error {
	series, err := s.Store.ElectricitySeriesList(c.Request().Context())
	if err != nil {
		return err
	}
	values := map[string]string{"gpu_count": "1", "life_months": strconv.Itoa(own.DefaultLifeMonths), "pue": "1",
		"residual_pct": "0", "power_idle_w": "0", "prices_include_tax": "true",
		"purchase_as_of": s.Today().Format(time.DateOnly), "electricity": own.ElectricityOwn}
	if len(series) > 0 {
		values["electricity"] = own.ElectricityRegion
	}
	if g := c.QueryParam("gpu_model"); g != "" {
		values["gpu_model"] = g
	}
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

// typed keeps the posted values of the option form for showing it again.
func typed(values url.Values) map[string]string {
	out := map[string]string{}
	for k := range values {
		out[k] = values.Get(k)
	}
	return out
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
	f := web.OwnFormView{IsNew: true, Action: "/own-hardware", Values: typed(values), Errors: errs, Shared: shared}
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
	tr := server.Translator(c)
	o, err := s.loadOwn(c)
	if err != nil {
		return err
	}
	shown := o.Current
	// A version number is a 32-bit integer; anything else names none.
	if n, err := strconv.ParseInt(c.QueryParam("version"), 10, 32); err == nil && int(n) != o.LatestVersion {
		if shown, err = s.Store.OwnOptionVersion(ctx, o.ID, int(n)); err != nil {
			return err
		}
	}
	versions, err := s.Store.OwnOptionVersions(ctx, o.ID)
	if err != nil {
		return err
	}
	uid, role := server.Viewer(c)
	v := web.OwnView{ID: o.ID, Name: shown.Name, GPU: shown.GPU(), Shared: o.Shared, Archived: o.Archived(),
		Author: o.CreatedByName, Version: shown.Version, Latest: o.LatestVersion, IsCurrent: shown.Version == o.LatestVersion,
		CanWrite: own.MayWrite(o, uid, role), Groups: web.OwnFacts(tr, shown)}
	today := s.Today()
	e, err := s.Store.ResolveElectricity(ctx, shown, today)
	switch {
	case errors.Is(err, store.ErrNoElectricitySample):
		v.Today, v.TodayMissing = tr.T("own.today.missing", "Region", shown.ElectricityRegion, "Currency", shown.Currency,
			"Date", today.Format(time.DateOnly)), true
	case err != nil:
		return err
	case e.SampleID != 0:
		v.Today = tr.T("own.today.sample", "Price", web.FormatMoney(tr.Lang, decimal.NewNullDecimal(e.KWhPrice), shown.Currency),
			"Region", e.Region, "AsOf", e.AsOf.Format(time.DateOnly), "Source", e.Source)
	default:
		v.Today = tr.T("own.today.own", "Price", web.FormatMoney(tr.Lang, decimal.NewNullDecimal(e.KWhPrice), shown.Currency))
	}
	for _, ver := range versions {
		v.Versions = append(v.Versions, web.OwnVersionRow{Version: ver.Version,
			CreatedAt: ver.CreatedAt.UTC().Format("2006-01-02 15:04"), Author: ver.CreatedByName,
			Purchase:    web.FormatMoney(tr.Lang, decimal.NewNullDecimal(ver.PurchasePrice), ver.Currency),
			Electricity: web.OwnElectricityText(tr, ver), Current: ver.Version == o.LatestVersion, Shown: ver.Version == shown.Version})
	}
	v.Page = s.Page(c, "own.detail.title")
	v.Page.Title = shown.Name
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
	f := web.OwnFormView{ID: o.ID, Action: target, BasedOn: basedOn, Values: typed(values), Errors: errs, Shared: o.Shared}
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
	today := s.Today()
	staleBefore := tco.StaleBefore(today)
	v := web.ElectricityView{Today: today.Format(time.DateOnly), Region: own.NormalizeRegion(c.QueryParam("region")),
		Currency: web.PricesCurrency(c.QueryParam("currency")), Form: web.ElectricityForm{Errors: web.Errors{}}}
	if !own.ValidRegion(v.Region) {
		v.Region = ""
	}
	if !money.IsCurrency(v.Currency) {
		v.Currency = ""
	}
	row := func(p own.ElectricityPrice) web.ElectricityRow {
		return web.ElectricityRow{ID: p.ID, Region: p.Region, Currency: p.Currency, KWhPrice: p.KWhPrice, AsOf: p.AsOf,
			Source: p.Source, Stale: p.AsOf.Before(staleBefore)}
	}
	current, err := s.Store.CurrentElectricityPrices(ctx, today)
	if err != nil {
		return v, err
	}
	for _, p := range current {
		v.Current = append(v.Current, row(p))
	}
	page := server.PageParam(c)
	hist, total, err := s.Store.ElectricityPrices(ctx, store.ElectricityFilter{Region: v.Region, Currency: v.Currency,
		Offset: (page - 1) * electricityPerPage, Limit: electricityPerPage})
	if err != nil {
		return v, err
	}
	for _, p := range hist {
		v.History = append(v.History, row(p))
	}
	v.Pager = web.Pager{Page: page, PerPage: electricityPerPage, Total: total,
		Base: server.ListURL("/electricity", url.Values{"region": {v.Region}, "currency": {v.Currency}})}
	series, err := s.Store.ElectricitySeriesList(ctx)
	if err != nil {
		return v, err
	}
	currencies := slices.Clone(pricesCurrencySuggestions)
	for _, sr := range series {
		v.Regions = append(v.Regions, sr.Region)
		currencies = append(currencies, sr.Currency)
	}
	v.Regions = slices.Compact(v.Regions)
	slices.Sort(currencies)
	v.Currencies = slices.Compact(currencies)
	return v, nil
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
