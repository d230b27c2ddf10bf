package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/web"
)

const quotesPerPage = 50

// formatMoney writes an amount for the reader (web.FormatMoney).
func (s *Handlers) formatMoney(c echo.Context, d decimal.NullDecimal, currency string) string {
	return web.FormatMoney(server.Translator(c).Lang, d, currency)
}

// ageDays is the number of whole days from asOf to today.
func (s *Handlers) ageDays(asOf time.Time) int { return int(s.Today().Sub(asOf).Hours() / 24) }

func (s *Handlers) QuoteList(c echo.Context) error {
	ctx := c.Request().Context()
	f, filter := s.QuoteFilter(c)
	f.Limit = quotesPerPage
	editor := s.IsEditor(c)
	page := server.PageParam(c)
	f.Offset = (page - 1) * quotesPerPage
	quotes, total, err := s.Store.Quotes(ctx, f)
	if err != nil {
		return err
	}
	platforms, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	lang := server.Translator(c).Lang
	pager := web.Pager{Page: page, PerPage: quotesPerPage, Total: total, Base: "/quotes?" + filter.Encode()}
	if total > store.QuoteCountCap {
		pager.Total, pager.Capped = store.QuoteCountCap, true
	}
	v := web.QuoteListView{Platforms: web.RefOptions(lang, platforms), GPUs: web.GPUOptions(gpus), Filter: filter, IsEditor: editor,
		Pager:     pager,
		ExportURL: "/quotes/export.csv?" + filter.Encode(),
		States: []web.Option{{Value: "", LabelID: "quote.state.published"}, {Value: "draft", LabelID: "quote.state.draft"},
			{Value: "archived", LabelID: "quote.state.archived"}, {Value: "all", LabelID: "filter.all"}}}
	stale := tco.StaleBefore(s.Today())
	for _, qt := range quotes {
		v.Rows = append(v.Rows, web.QuoteRow{ID: qt.ID, Platform: web.DisplayName(lang, qt.PlatformNameZH, qt.PlatformNameEN),
			GPU: qt.GPUVendor + " " + qt.GPUName, GPUCount: qt.GPUCount, Label: qt.Label, Region: qt.Region,
			Currency: qt.Currency, Hourly: s.formatMoney(c, qt.Hourly, qt.Currency), Monthly: s.formatMoney(c, qt.Monthly, qt.Currency),
			AsOf: web.FormatDate(qt.AsOf), Stale: qt.State == quote.Published && qt.AsOf.Before(stale),
			State: qt.State, Version: qt.Version})
	}
	v.Page = s.Page(c, "quote.list.title")
	return s.Render(c, http.StatusOK, v.Page, web.QuoteList(v))
}

// renderQuoteForm shows the entry form with values and translated errors.
func (s *Handlers) renderQuoteForm(c echo.Context, status int, v web.QuoteFormView, values url.Values, errs web.Errors) error {
	platforms, gpus, err := s.Store.QuoteRefNames(c.Request().Context())
	if err != nil {
		return err
	}
	msgs := map[string]string{}
	for k, id := range errs {
		msgs[k] = server.Translator(c).T(id.ID, id.Args...)
	}
	v.Sections, v.Lines = web.QuoteForm(values, msgs, web.RefOptions(server.Translator(c).Lang, platforms), web.GPUOptions(gpus))
	v.Errors = web.QuoteFormErrors(v.Sections, v.Lines)
	titleID := "quote.form.new"
	if !v.IsNew {
		titleID = "quote.form.edit_title"
	}
	v.Page = s.Page(c, titleID)
	return s.Render(c, status, v.Page, web.QuoteFormPage(v))
}

func (s *Handlers) QuoteNew(c echo.Context) error {
	if !s.IsEditor(c) {
		return s.proposalNew(c) // docs/RULES.md §18.1
	}
	values := url.Values{"gpu_count": {"1"}, "sharing": {"dedicated"}, "prices_include_tax": {"true"},
		"as_of": {s.Today().Format(time.DateOnly)}}
	for _, k := range []string{"platform", "gpu_model", "currency"} {
		if v := c.QueryParam(k); v != "" {
			values.Set(k, v)
		}
	}
	return s.renderQuoteForm(c, http.StatusOK, web.QuoteFormView{IsNew: true, Action: "/quotes"}, values, nil)
}

func (s *Handlers) QuoteCreate(c echo.Context) error {
	ctx := c.Request().Context()
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	refs, err := s.QuoteRefs(ctx)
	if err != nil {
		return err
	}
	q, errs := quote.Read(values.Get, refs, s.LatestDay())
	if len(errs) > 0 {
		return s.renderQuoteForm(c, http.StatusUnprocessableEntity, web.QuoteFormView{IsNew: true, Action: "/quotes"}, values, errs)
	}
	q, err = s.Store.CreateQuoteDraft(ctx, s.Actor(c), q)
	if err != nil {
		return err
	}
	return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "ok", "quote.flash.saved")
}

func (s *Handlers) QuoteEditForm(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	if q.State != quote.Draft {
		return c.Redirect(http.StatusSeeOther, "/quotes/"+strconv.FormatInt(q.ID, 10))
	}
	v := web.QuoteFormView{Action: "/quotes/" + strconv.FormatInt(q.ID, 10), QuoteID: q.ID, LockVersion: q.LockVersion, Version: q.Version}
	return s.renderQuoteForm(c, http.StatusOK, v, quote.Values(q), nil)
}

// QuoteUpdate saves a draft. Someone else's save in between is a conflict:
// the form comes back with this editor's input and the message (409).
func (s *Handlers) QuoteUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	cur, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(values.Get("lock_version"))
	v := web.QuoteFormView{Action: "/quotes/" + strconv.FormatInt(cur.ID, 10), QuoteID: cur.ID, LockVersion: lock, Version: cur.Version}
	if cur.State != quote.Draft {
		return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(cur.ID, 10), "error", "quote.flash.not_draft")
	}
	refs, err := s.QuoteRefs(ctx)
	if err != nil {
		return err
	}
	q, errs := quote.Read(values.Get, refs, s.LatestDay())
	if len(errs) > 0 {
		return s.renderQuoteForm(c, http.StatusUnprocessableEntity, v, values, errs)
	}
	q.ID, q.LockVersion = cur.ID, lock
	_, err = s.Store.UpdateQuoteDraft(ctx, s.Actor(c), q)
	switch {
	case errors.Is(err, store.ErrConflict):
		v.Conflict = true
		v.LockVersion = cur.LockVersion // saving again overwrites, knowingly
		return s.renderQuoteForm(c, http.StatusConflict, v, values, nil)
	case errors.Is(err, store.ErrNotDraft):
		return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(cur.ID, 10), "error", "quote.flash.not_draft")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(cur.ID, 10), "ok", "quote.flash.saved")
}

func (s *Handlers) QuotePublish(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(c.FormValue("lock_version"))
	target := "/quotes/" + strconv.FormatInt(q.ID, 10)
	_, err = s.Store.PublishQuote(c.Request().Context(), s.Actor(c), q.ID, lock)
	switch {
	case errors.Is(err, store.ErrConflict):
		return s.RedirectWithFlash(c, target, "error", "quote.flash.publish_conflict")
	case errors.Is(err, store.ErrNotDraft):
		return s.RedirectWithFlash(c, target, "error", "quote.flash.not_draft")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, target, "ok", "quote.flash.published")
}

func (s *Handlers) QuoteNewVersion(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	d, err := s.Store.NewQuoteVersion(c.Request().Context(), s.Actor(c), q.ID)
	var exists store.DraftExistsError
	switch {
	case errors.As(err, &exists):
		return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(exists.DraftID, 10)+"/edit", "ok", "quote.flash.draft_exists")
	case errors.Is(err, store.ErrNotDraft), errors.Is(err, store.ErrConflict):
		return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "quote.flash.not_current")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(d.ID, 10)+"/edit", "ok", "quote.flash.new_version")
}

func (s *Handlers) QuoteArchive(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	if err := s.Store.ArchiveQuote(c.Request().Context(), s.Actor(c), q.ID); errors.Is(err, store.ErrNotFound) {
		return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "quote.flash.not_current")
	} else if err != nil {
		return err
	}
	return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "ok", "quote.flash.archived")
}

func (s *Handlers) QuoteDeleteDraft(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(c.FormValue("lock_version"))
	err = s.Store.DeleteQuoteDraft(c.Request().Context(), s.Actor(c), q.ID, lock)
	switch {
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotDraft):
		return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "quote.flash.delete_conflict")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, "/quotes", "ok", "quote.flash.deleted")
}

// QuoteShow is the quote page: lines, terms, versions and what the engine
// says about break-even for this quote alone.
func (s *Handlers) QuoteShow(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	in := web.QuoteRecords{Quote: q, Today: s.Today(), IsEditor: s.IsEditor(c)}
	if in.Versions, err = s.Store.QuoteVersions(c.Request().Context(), q.SeriesID); err != nil {
		return err
	}
	if in.Examples, err = quote.Examples(q, in.Today); err != nil {
		// A stored quote always evaluates; if not, the page still shows
		// everything else rather than failing.
		s.Log.WarnContext(c.Request().Context(), "evaluate stored quote", "quote", q.ID, "err", err)
	}
	v := web.NewQuoteDetailView(server.Translator(c), in)
	if v.Proposal, err = s.proposalPanel(c, q); err != nil {
		return err
	}
	if v.Availability, err = s.quoteAvailability(c, q); err != nil {
		return err
	}
	v.Page = s.Page(c, "quote.detail.page_title")
	v.Page.Title = v.Title
	return s.Render(c, http.StatusOK, v.Page, web.QuoteDetail(v))
}
