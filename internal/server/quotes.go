package server

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/web"
)

const quotesPerPage = 50

// formatMoney writes an amount for the reader (web.FormatMoney).
func (s *Server) formatMoney(c echo.Context, d decimal.NullDecimal, currency string) string {
	return web.FormatMoney(translator(c).Lang, d, currency)
}

// ageDays is the number of whole days from asOf to today.
func (s *Server) ageDays(asOf time.Time) int { return int(s.today().Sub(asOf).Hours() / 24) }

// quoteFilter reads the quote list's filters from the query (the list and
// the CSV export share them); only editors may ask for drafts or archived
// versions. filter holds the given values, for links.
func (s *Server) quoteFilter(c echo.Context) (f store.QuoteFilter, filter url.Values) {
	q := c.QueryParams()
	f = store.QuoteFilter{Query: q.Get("q"), Currency: strings.ToUpper(strings.TrimSpace(q.Get("currency")))}
	f.PlatformID, _ = strconv.ParseInt(q.Get("platform"), 10, 64)
	f.GPUModelID, _ = strconv.ParseInt(q.Get("gpu"), 10, 64)
	if q.Get("stale") == "1" {
		f.AsOfBefore = s.today().AddDate(0, 0, -staleAfterDays)
	}
	if s.isEditor(c) {
		switch st := q.Get("state"); st {
		case quote.Draft, quote.Archived, quote.Published:
			f.States = []string{st}
		case "all":
			f.States = []string{quote.Draft, quote.Published, quote.Archived}
		}
	}
	filter = url.Values{}
	for _, k := range []string{"q", "platform", "gpu", "currency", "stale", "state"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			filter.Set(k, v)
		}
	}
	return f, filter
}

func (s *Server) quoteList(c echo.Context) error {
	ctx := c.Request().Context()
	f, filter := s.quoteFilter(c)
	f.Limit = quotesPerPage
	editor := s.isEditor(c)
	page := pageParam(c)
	f.Offset = (page - 1) * quotesPerPage
	quotes, total, err := s.store.Quotes(ctx, f)
	if err != nil {
		return err
	}
	platforms, gpus, err := s.store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	lang := translator(c).Lang
	pager := web.Pager{Page: page, PerPage: quotesPerPage, Total: total, Base: "/quotes?" + filter.Encode()}
	if total > store.QuoteCountCap {
		pager.Total, pager.Capped = store.QuoteCountCap, true
	}
	v := web.QuoteListView{Platforms: web.RefOptions(lang, platforms), GPUs: web.GPUOptions(gpus), Filter: filter, IsEditor: editor,
		Pager:     pager,
		ExportURL: "/quotes/export.csv?" + filter.Encode(),
		States: []web.Option{{Value: "", LabelID: "quote.state.published"}, {Value: "draft", LabelID: "quote.state.draft"},
			{Value: "archived", LabelID: "quote.state.archived"}, {Value: "all", LabelID: "filter.all"}}}
	stale := s.today().AddDate(0, 0, -staleAfterDays)
	for _, qt := range quotes {
		v.Rows = append(v.Rows, web.QuoteRow{ID: qt.ID, Platform: web.DisplayName(lang, qt.PlatformNameZH, qt.PlatformNameEN),
			GPU: qt.GPUVendor + " " + qt.GPUName, GPUCount: qt.GPUCount, Label: qt.Label, Region: qt.Region,
			Currency: qt.Currency, Hourly: s.formatMoney(c, qt.Hourly, qt.Currency), Monthly: s.formatMoney(c, qt.Monthly, qt.Currency),
			AsOf: web.FormatDate(qt.AsOf), Stale: qt.State == quote.Published && qt.AsOf.Before(stale),
			State: qt.State, Version: qt.Version})
	}
	v.Page = s.page(c, "quote.list.title")
	return s.render(c, http.StatusOK, v.Page, web.QuoteList(v))
}

// renderQuoteForm shows the entry form with values and translated errors.
func (s *Server) renderQuoteForm(c echo.Context, status int, v web.QuoteFormView, values url.Values, errs web.Errors) error {
	platforms, gpus, err := s.store.QuoteRefNames(c.Request().Context())
	if err != nil {
		return err
	}
	msgs := map[string]string{}
	for k, id := range errs {
		msgs[k] = translator(c).T(id.ID, id.Args...)
	}
	v.Sections, v.Lines = web.QuoteForm(values, msgs, web.RefOptions(translator(c).Lang, platforms), web.GPUOptions(gpus))
	v.Errors = web.QuoteFormErrors(v.Sections, v.Lines)
	titleID := "quote.form.new"
	if !v.IsNew {
		titleID = "quote.form.edit_title"
	}
	v.Page = s.page(c, titleID)
	return s.render(c, status, v.Page, web.QuoteFormPage(v))
}

func (s *Server) quoteNew(c echo.Context) error {
	if !s.isEditor(c) {
		return s.proposalNew(c) // docs/RULES.md §18.1
	}
	values := url.Values{"gpu_count": {"1"}, "sharing": {"dedicated"}, "prices_include_tax": {"true"},
		"as_of": {s.today().Format(time.DateOnly)}}
	for _, k := range []string{"platform", "gpu_model", "currency"} {
		if v := c.QueryParam(k); v != "" {
			values.Set(k, v)
		}
	}
	return s.renderQuoteForm(c, http.StatusOK, web.QuoteFormView{IsNew: true, Action: "/quotes"}, values, nil)
}

func (s *Server) quoteCreate(c echo.Context) error {
	ctx := c.Request().Context()
	values, err := formValues(c)
	if err != nil {
		return err
	}
	refs, err := s.quoteRefs(ctx)
	if err != nil {
		return err
	}
	q, errs := quote.Read(values.Get, refs, s.latestDay())
	if len(errs) > 0 {
		return s.renderQuoteForm(c, http.StatusUnprocessableEntity, web.QuoteFormView{IsNew: true, Action: "/quotes"}, values, errs)
	}
	q, err = s.store.CreateQuoteDraft(ctx, s.actor(c), q)
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "ok", "quote.flash.saved")
}

// loadQuote loads :id when the reader may read it (quote.MayRead: drafts
// editors only, a proposal its author and editors, docs/RULES.md §18.1);
// others get 404.
func (s *Server) loadQuote(c echo.Context) (quote.Quote, error) {
	id, err := pathID(c)
	if err != nil {
		return quote.Quote{}, err
	}
	uid, role := viewer(c)
	return s.store.QuoteFor(c.Request().Context(), id, uid, role)
}

func (s *Server) quoteEditForm(c echo.Context) error {
	q, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	if q.State != quote.Draft {
		return c.Redirect(http.StatusSeeOther, "/quotes/"+strconv.FormatInt(q.ID, 10))
	}
	v := web.QuoteFormView{Action: "/quotes/" + strconv.FormatInt(q.ID, 10), QuoteID: q.ID, LockVersion: q.LockVersion, Version: q.Version}
	return s.renderQuoteForm(c, http.StatusOK, v, quote.Values(q), nil)
}

// quoteUpdate saves a draft. Someone else's save in between is a conflict:
// the form comes back with this editor's input and the message (409).
func (s *Server) quoteUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	cur, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	values, err := formValues(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(values.Get("lock_version"))
	v := web.QuoteFormView{Action: "/quotes/" + strconv.FormatInt(cur.ID, 10), QuoteID: cur.ID, LockVersion: lock, Version: cur.Version}
	if cur.State != quote.Draft {
		return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(cur.ID, 10), "error", "quote.flash.not_draft")
	}
	refs, err := s.quoteRefs(ctx)
	if err != nil {
		return err
	}
	q, errs := quote.Read(values.Get, refs, s.latestDay())
	if len(errs) > 0 {
		return s.renderQuoteForm(c, http.StatusUnprocessableEntity, v, values, errs)
	}
	q.ID, q.LockVersion = cur.ID, lock
	_, err = s.store.UpdateQuoteDraft(ctx, s.actor(c), q)
	switch {
	case errors.Is(err, store.ErrConflict):
		v.Conflict = true
		v.LockVersion = cur.LockVersion // saving again overwrites, knowingly
		return s.renderQuoteForm(c, http.StatusConflict, v, values, nil)
	case errors.Is(err, store.ErrNotDraft):
		return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(cur.ID, 10), "error", "quote.flash.not_draft")
	case err != nil:
		return err
	}
	return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(cur.ID, 10), "ok", "quote.flash.saved")
}

func (s *Server) quotePublish(c echo.Context) error {
	q, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(c.FormValue("lock_version"))
	target := "/quotes/" + strconv.FormatInt(q.ID, 10)
	_, err = s.store.PublishQuote(c.Request().Context(), s.actor(c), q.ID, lock)
	switch {
	case errors.Is(err, store.ErrConflict):
		return s.redirectWithFlash(c, target, "error", "quote.flash.publish_conflict")
	case errors.Is(err, store.ErrNotDraft):
		return s.redirectWithFlash(c, target, "error", "quote.flash.not_draft")
	case err != nil:
		return err
	}
	return s.redirectWithFlash(c, target, "ok", "quote.flash.published")
}

func (s *Server) quoteNewVersion(c echo.Context) error {
	q, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	d, err := s.store.NewQuoteVersion(c.Request().Context(), s.actor(c), q.ID)
	var exists store.DraftExistsError
	switch {
	case errors.As(err, &exists):
		return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(exists.DraftID, 10)+"/edit", "ok", "quote.flash.draft_exists")
	case errors.Is(err, store.ErrNotDraft), errors.Is(err, store.ErrConflict):
		return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "quote.flash.not_current")
	case err != nil:
		return err
	}
	return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(d.ID, 10)+"/edit", "ok", "quote.flash.new_version")
}

func (s *Server) quoteArchive(c echo.Context) error {
	q, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	if err := s.store.ArchiveQuote(c.Request().Context(), s.actor(c), q.ID); errors.Is(err, store.ErrNotFound) {
		return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "quote.flash.not_current")
	} else if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "ok", "quote.flash.archived")
}

func (s *Server) quoteDeleteDraft(c echo.Context) error {
	q, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(c.FormValue("lock_version"))
	err = s.store.DeleteQuoteDraft(c.Request().Context(), s.actor(c), q.ID, lock)
	switch {
	case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrNotDraft):
		return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "quote.flash.delete_conflict")
	case err != nil:
		return err
	}
	return s.redirectWithFlash(c, "/quotes", "ok", "quote.flash.deleted")
}

// quoteShow is the quote page: lines, terms, versions and what the engine
// says about break-even for this quote alone.
func (s *Server) quoteShow(c echo.Context) error {
	q, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	in := web.QuoteRecords{Quote: q, Today: s.today(), IsEditor: s.isEditor(c)}
	if in.Versions, err = s.store.QuoteVersions(c.Request().Context(), q.SeriesID); err != nil {
		return err
	}
	if in.Examples, err = quote.Examples(q, in.Today); err != nil {
		// A stored quote always evaluates; if not, the page still shows
		// everything else rather than failing.
		s.log.WarnContext(c.Request().Context(), "evaluate stored quote", "quote", q.ID, "err", err)
	}
	v := web.NewQuoteDetailView(translator(c), in)
	if v.Proposal, err = s.proposalPanel(c, q); err != nil {
		return err
	}
	if v.Availability, err = s.quoteAvailability(c, q); err != nil {
		return err
	}
	v.Page = s.page(c, "quote.detail.page_title")
	v.Page.Title = v.Title
	return s.render(c, http.StatusOK, v.Page, web.QuoteDetail(v))
}
