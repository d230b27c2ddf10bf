package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

const quotesPerPage = 50

func (s *Handlers) QuoteList(c echo.Context) error {
	ctx := c.Request().Context()
	f, filter := s.QuoteFilter(c)
	in := web.QuoteListRecords{Filter: filter, IsEditor: s.IsEditor(c), Page: server.PageParam(c), PerPage: quotesPerPage,
		CountCap: store.QuoteCountCap, Today: s.Today()}
	f.Limit, f.Offset = quotesPerPage, (in.Page-1)*quotesPerPage
	list, err := s.Store.QuoteList(ctx, f, s.lists)
	if err != nil {
		return err
	}
	in.Quotes, in.Total, in.Platforms, in.GPUs = list.Quotes, list.Total, list.Platforms, list.GPUs
	tr := server.Translator(c)
	if list.Kept() && len(list.Quotes) > 0 {
		// A kept page's rows are drawn once per language and day
		// (docs/RULES.md §20.6).
		in.RowsHTML, err = list.Drawn(string(tr.Lang)+" "+in.Today.Format(time.DateOnly), func() (string, error) {
			return web.DrawQuoteRows(ctx, in.Quotes, in.Today)
		})
		if err != nil {
			return err
		}
	}
	v := web.NewQuoteListView(tr, in)
	v.Page = s.Page(c, "quote.list.title")
	return s.Render(c, http.StatusOK, v.Page, web.QuoteList(v))
}

// renderQuoteForm shows the entry form with values and translated errors.
func (s *Handlers) renderQuoteForm(c echo.Context, status int, v web.QuoteFormView, values url.Values, errs web.Errors) error {
	platforms, gpus, err := s.Store.QuoteRefNames(c.Request().Context())
	if err != nil {
		return err
	}
	v = v.WithFields(server.Translator(c), values, errs, platforms, gpus)
	if v.IsNew && v.VendorText == "" {
		v.VendorText = values.Get("vendor_text") // kept when the form comes back
	}
	v.Page = s.Page(c, v.TitleID())
	return s.Render(c, status, v.Page, web.QuoteFormPage(v))
}

func (s *Handlers) QuoteNew(c echo.Context) error {
	if !s.IsEditor(c) {
		return s.proposalNew(c) // docs/RULES.md §18.1
	}
	return s.renderQuoteForm(c, http.StatusOK, web.QuoteFormView{IsNew: true, Action: "/quotes"},
		web.QuoteFormDefaults(s.Today(), c.QueryParams()), nil)
}

func (s *Handlers) QuoteCreate(c echo.Context) error {
	ctx := c.Request().Context()
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	if wantsReading(values) {
		return s.readQuoteForm(c, values, web.QuoteFormView{IsNew: true, Action: "/quotes"}) // docs/RULES.md §22.11
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
