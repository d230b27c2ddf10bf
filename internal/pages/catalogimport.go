package pages

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/form"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/skycatalog"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Importing a SkyPilot price catalog (docs/RULES.md §7.7): the editors'
// form, the import that makes drafts, the import's page that lists them,
// and the one step that publishes them.

// recentCatalogImports is how many imports the form lists.
const recentCatalogImports = 10

// CatalogImportForm is GET /quotes/import/skypilot: the blank form.
func (s *Handlers) CatalogImportForm(c echo.Context) error {
	v, err := s.catalogFormView(c)
	if err != nil {
		return err
	}
	return s.Render(c, http.StatusOK, v.Page, web.CatalogForm(v))
}

// catalogFormView is the blank form with the platforms and recent imports.
func (s *Handlers) catalogFormView(c echo.Context) (web.CatalogFormView, error) {
	ctx := c.Request().Context()
	tr := server.Translator(c)
	platforms, _, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return web.CatalogFormView{}, err
	}
	v := web.NewCatalogFormView(web.RefOptions(tr.Lang, platforms), s.Today())
	recent, err := s.Store.RecentCatalogImports(ctx, recentCatalogImports)
	if err != nil {
		return web.CatalogFormView{}, err
	}
	for _, r := range recent {
		v.Recent = append(v.Recent, web.CatalogImportRow{ID: r.ID, Platform: web.DisplayName(tr.Lang, r.PlatformNameZH, r.PlatformNameEN),
			AsOf: web.FormatDate(r.AsOf), At: r.CreatedAt.UTC().Format("2006-01-02 15:04"), By: r.CreatedByName,
			New: r.Summary.New, Changed: r.Summary.Changed, Waiting: r.Waiting})
	}
	v.Page = s.Page(c, "catalog.title")
	return v, nil
}

// CatalogImport is POST /quotes/import/skypilot: the form's settings and
// the uploaded file (read as it arrived by the route's Upload) are
// checked; any problem shows the form again (422) with every value kept
// and nothing written; otherwise the import makes its drafts in one
// transaction (store.ImportCatalog) and its page follows (303).
func (s *Handlers) CatalogImport(c echo.Context) error {
	ctx := c.Request().Context()
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	// A multipart form passes no input guard of its own (docs/RULES.md
	// §16.4): its values are checked here, as the guard checks others.
	for k, vs := range values {
		for _, x := range append([]string{k}, vs...) {
			if !server.StorableText(x) {
				return echo.NewHTTPError(http.StatusBadRequest).SetInternal(server.ErrUnstorableText)
			}
		}
	}
	v, err := s.catalogFormView(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	settings := skycatalog.ReadSettings(r, func(id int64) ([]string, bool) {
		p, err := s.Store.PlatformByID(ctx, id)
		return p.BillingGranularities, err == nil
	}, s.LatestDay())
	v.Platform, v.AsOf, v.Source = values.Get(skycatalog.FieldPlatform), values.Get(skycatalog.FieldAsOf), values.Get(skycatalog.FieldSource)
	v.Sharing, v.Granularity = values.Get(skycatalog.FieldSharing), values.Get(skycatalog.FieldGranularity)
	v.Errors = r.Errs
	tr := server.Translator(c)
	up := server.UploadFile(c)
	var fileProblem *form.Message
	switch {
	case up == nil || !up.Present:
		fileProblem = &form.Message{ID: "catalog.error.no_file"}
	case up.Malformed:
		fileProblem = &form.Message{ID: "catalog.error.file_name"}
	case up.TooLarge:
		fileProblem = &form.Message{ID: "catalog.error.file_too_large", Args: []any{"Max", strconv.Itoa(skycatalog.MaxBytes >> 20)}}
	}
	if fileProblem != nil {
		v.Problems = web.NewImportView().WithProblems(tr, quote.CSVProblems{File: []form.Message{*fileProblem}})
	}
	if fileProblem != nil || !r.OK() {
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.CatalogForm(v))
	}
	cat, problems := skycatalog.Read(bytes.NewReader(up.Data))
	if problems.Any() {
		v.Problems = web.NewImportView().WithProblems(tr, problems)
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.CatalogForm(v))
	}
	refs, err := s.QuoteRefs(ctx)
	if err != nil {
		return err
	}
	id, plan, err := s.Store.ImportCatalog(ctx, s.Actor(c), store.CatalogImportInput{Settings: settings,
		FileName: fileName(up.Name), Catalog: cat, Refs: refs, Today: s.LatestDay()})
	switch {
	case errors.Is(err, store.ErrNotFound):
		// The platform was removed after the form was read.
		v.Errors.Set(skycatalog.FieldPlatform, skycatalog.MsgUnknownPlatform)
		return s.Render(c, http.StatusUnprocessableEntity, v.Page, web.CatalogForm(v))
	case errors.Is(err, store.ErrConflict):
		v.Conflict = true
		return s.Render(c, http.StatusConflict, v.Page, web.CatalogForm(v))
	case err != nil:
		return err
	}
	n := len(plan.New) + len(plan.Changed)
	done := "catalog.flash.imported.other"
	if n == 1 {
		done = "catalog.flash.imported.one"
	}
	return s.RedirectWithFlash(c, web.CatalogImportPath(id), "ok", done, "Count", strconv.Itoa(n))
}

// fileName is the uploaded file's name as kept: its last path element, at
// most 255 characters, one line.
func fileName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if !form.OneLine(name) {
		return ""
	}
	if r := []rune(name); len(r) > 255 {
		name = string(r[:255])
	}
	return name
}

// CatalogImportShow is GET /quotes/import/skypilot/:id: what the import
// read and did, and its drafts with the prices they replace, each ticked
// for the one publish button.
func (s *Handlers) CatalogImportShow(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	imp, err := s.Store.CatalogImportByID(ctx, id)
	if err != nil {
		return err
	}
	rows, err := s.Store.CatalogImportQuotes(ctx, id)
	if err != nil {
		return err
	}
	drafts := make([]web.CatalogDraft, len(rows))
	for i, q := range rows {
		drafts[i] = web.CatalogDraft{ID: q.ID, SeriesID: q.SeriesID, Version: q.Version, LockVersion: q.LockVersion, State: q.State,
			Label: q.Label, GPU: strings.TrimSpace(q.GPUVendor + " " + q.GPUName), GPUCount: q.GPUCount, Currency: q.Currency,
			Region: q.Region, Hourly: q.Hourly, SpotHourly: q.SpotHourly, PrevID: q.PrevID, PrevCurrency: q.PrevCurr,
			PrevHourly: q.PrevHourly, PrevSpotHourly: q.PrevSpot}
	}
	tr := server.Translator(c)
	v := web.NewCatalogImportView(tr, imp.ID, web.DisplayName(tr.Lang, imp.PlatformNameZH, imp.PlatformNameEN), imp.AsOf,
		imp.Source, imp.FileName, imp.CreatedByName, imp.CreatedAt, imp.Summary, drafts)
	v.Page = s.Page(c, "catalog.title")
	v.Page.Title = tr.T("catalog.review.title", "Platform", v.Platform, "Date", v.AsOf)
	return s.Render(c, http.StatusOK, v.Page, web.CatalogImportPage(v))
}

// CatalogImportPublish is POST /quotes/import/skypilot/:id/publish: the
// ticked drafts ("quote", each with its "lock.<id>" as shown) are
// published in one transaction (store.PublishCatalogImport); those
// published already are passed over, so a second press publishes nothing.
func (s *Handlers) CatalogImportPublish(c echo.Context) error {
	id, values, err := pathForm(c)
	if err != nil {
		return err
	}
	picks, ok := readPicks(values)
	if !ok {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	back := web.CatalogImportPath(id)
	if len(picks) == 0 {
		if _, err := s.Store.CatalogImportByID(c.Request().Context(), id); err != nil {
			return err
		}
		return s.RedirectWithFlash(c, back, "error", "catalog.flash.none_picked")
	}
	published, err := s.Store.PublishCatalogImport(c.Request().Context(), s.Actor(c), id, picks)
	switch {
	case errors.Is(err, store.ErrConflict):
		return s.RedirectWithFlash(c, back, "error", "catalog.flash.conflict")
	case err != nil:
		return err
	case len(published) == 0:
		return s.RedirectWithFlash(c, back, "ok", "catalog.flash.nothing")
	}
	done := "catalog.flash.published.other"
	if len(published) == 1 {
		done = "catalog.flash.published.one"
	}
	return s.RedirectWithFlash(c, back, "ok", done, "Count", strconv.Itoa(len(published)))
}

// maxPicks bounds the drafts one publication names (an import of the
// largest file makes fewer offers than rows).
const maxPicks = skycatalog.MaxRows

// readPicks reads the ticked quote ids and the lock version shown for
// each; ok is false for an id or a lock version that is no number.
func readPicks(values url.Values) (map[int64]int, bool) {
	ids := values["quote"]
	if len(ids) > maxPicks {
		return nil, false
	}
	picks := make(map[int64]int, len(ids))
	for _, raw := range ids {
		qid, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || qid <= 0 {
			return nil, false
		}
		lock, err := strconv.Atoi(values.Get("lock." + raw))
		if err != nil {
			return nil, false
		}
		picks[qid] = lock
	}
	return picks, true
}
