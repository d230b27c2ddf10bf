package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Proposed quotes (docs/RULES.md §18.1): anyone signed in proposes a quote
// with the vendor's words; editors publish it (as the series' next
// version) or send it back with a comment; the author edits a returned
// one, which proposes it again.

const proposalsPerPage = 50

// proposalNew is GET /quotes/new for readers who are not editors: the
// proposal form, with the defaults of the editors' form.
func (s *Handlers) proposalNew(c echo.Context) error {
	v := web.ProposalFormView{Form: web.QuoteFormView{IsNew: true, Action: "/quotes/proposals"}}
	return s.renderProposalForm(c, http.StatusOK, v, web.QuoteFormDefaults(s.Today(), c.QueryParams()), nil)
}

// renderProposalForm shows the proposal form with values and the
// translated field errors.
func (s *Handlers) renderProposalForm(c echo.Context, status int, v web.ProposalFormView, values url.Values, errs web.Errors) error {
	platforms, gpus, err := s.Store.QuoteRefNames(c.Request().Context())
	if err != nil {
		return err
	}
	v.Form = v.Form.WithFields(server.Translator(c), values, errs, platforms, gpus)
	v.Message = values.Get("vendor_message")
	v.Page = s.Page(c, v.TitleID())
	v.Form.Page = v.Page
	return s.Render(c, status, v.Page, web.ProposalFormPage(v))
}

// readVendorWords reads the vendor's message and optional file of a
// posted proposal form; the problems are message ids ("" when fine). The
// file was read by the route's Upload as it arrived (server.UploadFile);
// its type is decided from its bytes, never from its name or the browser's
// word, and it is kept under a name that ends as its type does
// (docs/RULES.md §18.1).
func readVendorWords(c echo.Context, values url.Values) (file *store.NewAttachment, msgProblem string, fileProblem form.Message) {
	msgProblem = proposal.CheckMessage(values.Get("vendor_message"))
	up := server.UploadFile(c)
	if up == nil || !up.Present {
		return nil, msgProblem, form.Message{}
	}
	name := proposal.Filename(up.Name, "")
	switch {
	case up.Malformed:
		return nil, msgProblem, form.Message{ID: "proposal.error.file_name"}
	case up.TooLarge:
		return nil, msgProblem, form.Message{ID: "proposal.error.file_too_large", Args: []any{"Name", name, "Max", maxFile}}
	}
	ct, problem := proposal.CheckFile(int64(len(up.Data)), up.Data)
	if problem != "" {
		return nil, msgProblem, form.Message{ID: problem, Args: []any{"Name", name, "Max", maxFile}}
	}
	return &store.NewAttachment{Filename: proposal.Filename(up.Name, ct), ContentType: ct, Data: up.Data}, msgProblem, form.Message{}
}

// maxFile is the vendor's file's limit as the form's words say it.
var maxFile = strconv.Itoa(proposal.MaxFileBytes>>20) + " MiB"

// quotaRefused re-shows the proposal form when the store refused it for
// its author's quota (docs/RULES.md §18.1): 429 with Retry-After for the
// hourly bound, the file's problem for the storage; ok is false for any
// other err.
func (s *Handlers) quotaRefused(c echo.Context, err error, v web.ProposalFormView, values url.Values, file *store.NewAttachment) (bool, error) {
	var (
		rate    *proposal.RateError
		storage *proposal.StorageError
	)
	switch {
	case errors.As(err, &rate):
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(rate.RetryAfter.Seconds())+1))
		v.SetRateProblem(server.Translator(c), rate)
		return true, s.renderProposalForm(c, http.StatusTooManyRequests, v, values, nil)
	case errors.As(err, &storage):
		v.SetVendorProblems(server.Translator(c), "", form.Message{ID: "proposal.error.storage", Args: []any{"Name", file.Filename,
			"Size", web.FileSize(int(storage.Size)), "Used", web.FileSize(int(storage.Used)), "Limit", web.FileSize(int(storage.Limit))}})
		return true, s.renderProposalForm(c, http.StatusUnprocessableEntity, v, values, nil)
	}
	return false, nil
}

// ProposalCreate is POST /quotes/proposals: the quote is read as the
// editors' form reads it; any problem re-shows the form with every value.
func (s *Handlers) ProposalCreate(c echo.Context) error {
	ctx := c.Request().Context()
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	v := web.ProposalFormView{Form: web.QuoteFormView{IsNew: true, Action: "/quotes/proposals"}}
	if wantsReading(values) {
		return s.readProposalForm(c, values, v) // docs/RULES.md §22.11
	}
	q, file, errs, ok, err := s.readProposal(c, values, &v)
	if err != nil {
		return err
	}
	if !ok {
		return s.renderProposalForm(c, http.StatusUnprocessableEntity, v, values, errs)
	}
	q, err = s.Store.CreateProposal(ctx, s.Actor(c), q, values.Get("vendor_message"), file, s.ProposalQuota(), s.Now())
	if refused, err := s.quotaRefused(c, err, v, values, file); refused {
		return err
	}
	if err != nil {
		return err
	}
	return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "ok", "proposal.flash.proposed")
}

// readProposal reads a posted proposal: the quote fields, the vendor's
// message and file; ok is false when anything is wrong (errs are the
// quote fields' problems; the message's and the file's are set on v).
func (s *Handlers) readProposal(c echo.Context, values url.Values, v *web.ProposalFormView) (q quote.Quote,
	file *store.NewAttachment, errs web.Errors, ok bool, err error) {
	if err := storableForm(values); err != nil {
		return quote.Quote{}, nil, nil, false, err
	}
	refs, err := s.QuoteRefs(c.Request().Context())
	if err != nil {
		return quote.Quote{}, nil, nil, false, err
	}
	q, errs = quote.Read(values.Get, refs, s.LatestDay())
	file, msgProblem, fileProblem := readVendorWords(c, values)
	v.SetVendorProblems(server.Translator(c), msgProblem, fileProblem)
	return q, file, errs, len(errs) == 0 && msgProblem == "" && fileProblem.ID == "", nil
}

// ProposalEditForm is GET /quotes/:id/proposal/edit: the author's form
// for a returned proposal; anyone else gets 404, a proposal in another
// state its page.
func (s *Handlers) ProposalEditForm(c echo.Context) error {
	q, err := s.ownProposal(c)
	if err != nil {
		return err
	}
	if q.State != quote.Returned {
		return c.Redirect(http.StatusSeeOther, "/quotes/"+strconv.FormatInt(q.ID, 10))
	}
	v, values, err := s.proposalEditView(c, q)
	if err != nil {
		return err
	}
	return s.renderProposalForm(c, http.StatusOK, v, values, nil)
}

// ownProposal loads :id when it is a proposal of the signed-in reader.
func (s *Handlers) ownProposal(c echo.Context) (quote.Quote, error) {
	q, err := s.LoadQuote(c)
	if err != nil {
		return quote.Quote{}, err
	}
	uid, _ := server.Viewer(c)
	if !quote.IsProposal(q.State) || q.CreatedBy != uid {
		return quote.Quote{}, echo.ErrNotFound
	}
	return q, nil
}

// proposalEditView is the edit form of returned proposal q, prefilled
// with it, the vendor's newest message and the editor's newest comment.
func (s *Handlers) proposalEditView(c echo.Context, q quote.Quote) (web.ProposalFormView, url.Values, error) {
	ctx := c.Request().Context()
	msgs, err := s.Store.QuoteMessages(ctx, q.SeriesID)
	if err != nil {
		return web.ProposalFormView{}, nil, err
	}
	reviews, err := s.Store.QuoteReviews(ctx, q.SeriesID)
	if err != nil {
		return web.ProposalFormView{}, nil, err
	}
	v, values := web.NewProposalEditView(q, msgs,
		reviews)
	return v, values, nil
}

// ProposalUpdate is POST /quotes/:id/proposal: the author's edit of a
// returned proposal, which proposes it again.
func (s *Handlers) ProposalUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	cur, err := s.ownProposal(c)
	if err != nil {
		return err
	}
	target := "/quotes/" + strconv.FormatInt(cur.ID, 10)
	if cur.State != quote.Returned {
		return s.RedirectWithFlash(c, target, "error", "proposal.flash.not_returned")
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	v, _, err := s.proposalEditView(c, cur)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(values.Get("lock_version"))
	v.Form.LockVersion = lock
	if wantsReading(values) {
		return s.readProposalForm(c, values, v) // docs/RULES.md §22.11
	}
	q, file, errs, ok, err := s.readProposal(c, values, &v)
	if err != nil {
		return err
	}
	if !ok {
		return s.renderProposalForm(c, http.StatusUnprocessableEntity, v, values, errs)
	}
	q.ID, q.LockVersion = cur.ID, lock
	_, err = s.Store.UpdateProposal(ctx, s.Actor(c), q, values.Get("vendor_message"), file, s.ProposalQuota(), s.Now())
	if refused, err := s.quotaRefused(c, err, v, values, file); refused {
		return err
	}
	switch {
	case errors.Is(err, store.ErrConflict):
		v.Form.Conflict, v.Form.LockVersion = true, cur.LockVersion
		return s.renderProposalForm(c, http.StatusConflict, v, values, nil)
	case errors.Is(err, store.ErrNotProposed):
		return s.RedirectWithFlash(c, target, "error", "proposal.flash.not_returned")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, target, "ok", "proposal.flash.proposed")
}

// proposalList is page page of a proposal list (the editors' queue, or
// the reader's own) as the reader sees it.
func (s *Handlers) proposalList(c echo.Context, queue bool, rows []store.ProposalRow, page, total int) web.ProposalListView {
	uid, _ := server.Viewer(c)
	return web.NewProposalListView(server.Translator(c), web.ProposalListRecords{Queue: queue, ViewerID: uid, Editor: queue,
		Proposals: rows,
		Page:      page, PerPage: proposalsPerPage, Total: total})
}

// ProposalQueue is GET /quotes/review: the proposals waiting for an
// editor, oldest first.
func (s *Handlers) ProposalQueue(c echo.Context) error {
	page := server.PageParam(c)
	rows, total, err := s.Store.ProposalQueue(c.Request().Context(), (page-1)*proposalsPerPage, proposalsPerPage)
	if err != nil {
		return err
	}
	v := s.proposalList(c, true, rows, page, total)
	v.Page = s.Page(c, "proposal.queue.title")
	return s.Render(c, http.StatusOK, v.Page, web.ProposalList(v))
}

// ProposalMine is GET /quotes/proposals: the reader's own proposals, newest
// first, with their state and the editor's comment.
func (s *Handlers) ProposalMine(c echo.Context) error {
	page := server.PageParam(c)
	uid, _ := server.Viewer(c)
	rows, total, err := s.Store.ProposalsBy(c.Request().Context(), uid, (page-1)*proposalsPerPage, proposalsPerPage)
	if err != nil {
		return err
	}
	v := s.proposalList(c, false, rows, page, total)
	v.Page = s.Page(c, "proposal.mine.title")
	return s.Render(c, http.StatusOK, v.Page, web.ProposalList(v))
}

// proposalPanel is what quote q's page shows of the proposal behind its
// series, or nil when the series never was one.
func (s *Handlers) proposalPanel(c echo.Context, q quote.Quote) (*web.ProposalPanel, error) {
	ctx := c.Request().Context()
	msgs, err := s.Store.QuoteMessages(ctx, q.SeriesID)
	if err != nil {
		return nil, err
	}
	atts, err := s.Store.QuoteAttachments(ctx, q.SeriesID)
	if err != nil {
		return nil, err
	}
	reviews, err := s.Store.QuoteReviews(ctx, q.SeriesID)
	if err != nil {
		return nil, err
	}
	uid, _ := server.Viewer(c)
	p := web.NewProposalPanel(web.ProposalRecords{Quote: q, ViewerID: uid, Editor: s.IsEditor(c),
		Messages:    msgs,
		Attachments: atts,
		Reviews:     reviews})
	if p != nil {
		p.CSRF = auth.CSRFToken(c)
		if p.Corrections, err = s.proposalCorrections(c, q, reviews); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// proposalCorrections is what the editor changed of the proposal behind
// q's series when publishing it, shown on the proposal's page and on the
// version published from it (docs/RULES.md §18.1); nil on any other
// version, or when no editor has published the proposal.
func (s *Handlers) proposalCorrections(c echo.Context, q quote.Quote, reviews []store.QuoteReview) (*web.ProposalCorrections, error) {
	for _, r := range reviews {
		if r.Decision != quote.Published || r.PublishedID == 0 || (q.ID != r.QuoteID && q.ID != r.PublishedID) {
			continue
		}
		vendor, published := q, q
		var err error
		if q.ID == r.QuoteID {
			published, err = s.Store.QuoteByID(c.Request().Context(), r.PublishedID)
		} else {
			vendor, err = s.Store.QuoteByID(c.Request().Context(), r.QuoteID)
		}
		if err != nil {
			return nil, err
		}
		uid, role := server.Viewer(c)
		return web.NewProposalCorrections(server.Translator(c), vendor, published, quote.MayRead(vendor, uid, role)), nil
	}
	return nil, nil
}

// ProposalReview is GET /quotes/:id/review: the editor's review page.
func (s *Handlers) ProposalReview(c echo.Context) error {
	q, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	if q.State != quote.Proposed {
		return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "proposal.flash.not_proposed")
	}
	return s.renderReview(c, http.StatusOK, q, quote.Values(q), nil, q.LockVersion, "", "", false)
}

// renderReview shows the review page of proposal q with the form's values
// and errors, the comment typed and its problem.
func (s *Handlers) renderReview(c echo.Context, status int, q quote.Quote, values url.Values, errs web.Errors, lock int,
	comment, commentError string, conflict bool) error {
	ctx := c.Request().Context()
	platforms, gpus, err := s.Store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	panel, err := s.proposalPanel(c, q)
	if err != nil {
		return err
	}
	tr := server.Translator(c)
	author, err := s.Store.UserByID(ctx, q.CreatedBy)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	v := web.ProposalReviewView{QuoteID: q.ID, Title: web.QuoteName(tr, q), Author: author.DisplayName, Panel: *panel,
		Comment: comment, CommentError: commentError}
	v.Panel.ReviewURL = ""
	v.Form = web.QuoteFormView{QuoteID: q.ID, LockVersion: lock, Version: q.Version, Conflict: conflict}.WithFields(tr, values, errs, platforms, gpus)
	v.Page = s.Page(c, "proposal.review.title")
	v.Form.Page = v.Page
	return s.Render(c, status, v.Page, web.ProposalReviewPage(v))
}

// ProposalPublish is POST /quotes/:id/review/publish: the form's quote is
// published as the series' next version and the proposal is reviewed.
func (s *Handlers) ProposalPublish(c echo.Context) error {
	ctx := c.Request().Context()
	prop, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(values.Get("lock_version"))
	target := "/quotes/" + strconv.FormatInt(prop.ID, 10)
	if prop.State != quote.Proposed {
		return s.RedirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	}
	refs, err := s.QuoteRefs(ctx)
	if err != nil {
		return err
	}
	q, errs := quote.Read(values.Get, refs, s.LatestDay())
	if len(errs) > 0 {
		return s.renderReview(c, http.StatusUnprocessableEntity, prop, values, errs, lock, "", "", false)
	}
	out, err := s.Store.PublishProposal(ctx, s.Actor(c), prop.ID, lock, q, s.Now())
	switch {
	case errors.Is(err, store.ErrConflict):
		return s.renderReview(c, http.StatusConflict, prop, values, nil, prop.LockVersion, "", "", true)
	case errors.Is(err, store.ErrNotProposed):
		return s.RedirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, "/quotes/"+strconv.FormatInt(out.ID, 10), "ok", "proposal.flash.published")
}

// ProposalReturn is POST /quotes/:id/review/return: the proposal goes back
// to its author with the editor's comment (required).
func (s *Handlers) ProposalReturn(c echo.Context) error {
	ctx := c.Request().Context()
	prop, err := s.LoadQuote(c)
	if err != nil {
		return err
	}
	target := "/quotes/" + strconv.FormatInt(prop.ID, 10)
	if prop.State != quote.Proposed {
		return s.RedirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	}
	comment := c.FormValue("comment")
	lock, _ := strconv.Atoi(c.FormValue("lock_version"))
	if problem := proposal.CheckComment(comment); problem != "" {
		msg := server.Translator(c).T(problem, "Max", strconv.Itoa(proposal.MaxCommentChars))
		return s.renderReview(c, http.StatusUnprocessableEntity, prop, quote.Values(prop), nil, lock, comment, msg, false)
	}
	err = s.Store.ReturnProposal(ctx, s.Actor(c), prop.ID, lock, comment, s.Now())
	switch {
	case errors.Is(err, store.ErrConflict):
		return s.renderReview(c, http.StatusConflict, prop, quote.Values(prop), nil, prop.LockVersion, comment, "", true)
	case errors.Is(err, store.ErrNotProposed):
		return s.RedirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, "/quotes/review", "ok", "proposal.flash.returned")
}

// attachmentPath reads /quotes/:id/attachments/:att: the quote's and the
// file's ids (an id out of range is 400, one that is no id 404).
func attachmentPath(c echo.Context) (id, attID int64, err error) {
	if id, err = server.PathID(c); err != nil {
		return 0, 0, err
	}
	raw := c.Param("att")
	if server.IDOutOfRange(raw) {
		return 0, 0, server.BadID()
	}
	attID, err = strconv.ParseInt(raw, 10, 64)
	if err != nil || attID <= 0 {
		return 0, 0, store.ErrNotFound
	}
	return id, attID, nil
}

// QuoteAttachment is GET /quotes/:id/attachments/:att: a vendor's file,
// to whoever may read quote :id (store.QuoteAttachment decides; others get
// 404), as a download that no browser runs or sniffs.
func (s *Handlers) QuoteAttachment(c echo.Context) error {
	id, attID, err := attachmentPath(c)
	if err != nil {
		return err
	}
	uid, role := server.Viewer(c)
	att, err := s.Store.QuoteAttachment(c.Request().Context(), id, attID, uid, role)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("X-Content-Type-Options", "nosniff")
	// The name is kept by proposal.Filename's rule; one kept before it is
	// served by the rule too (docs/RULES.md §18.1).
	h.Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(proposal.Filename(att.Filename, att.ContentType)))
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, att.ContentType, att.Data)
}

// AttachmentWithdraw is POST /quotes/:id/attachments/:att/withdraw: an
// editor or admin withdraws a vendor's file from a returned proposal
// (docs/RULES.md §18.1): its bytes are deleted, its record stays with who
// withdrew it and when. Back to the quote page, with a word either way.
func (s *Handlers) AttachmentWithdraw(c echo.Context) error {
	id, attID, err := attachmentPath(c)
	if err != nil {
		return err
	}
	target := "/quotes/" + strconv.FormatInt(id, 10)
	err = s.Store.WithdrawAttachment(c.Request().Context(), s.Actor(c), id, attID, s.Now())
	switch {
	case errors.Is(err, store.ErrNotWithdrawable):
		return s.RedirectWithFlash(c, target, "error", "proposal.flash.not_withdrawable")
	case err != nil:
		return err
	}
	return s.RedirectWithFlash(c, target, "ok", "proposal.flash.file_withdrawn")
}

// storableForm checks a multipart form's names and values: such a form
// passes no input guard of its own (docs/RULES.md §16.4), so they are
// checked here, as the guard checks others (400 otherwise).
func storableForm(values url.Values) error {
	for k, vs := range values {
		for _, x := range append([]string{k}, vs...) {
			if !server.StorableText(x) {
				return echo.NewHTTPError(http.StatusBadRequest).SetInternal(server.ErrUnstorableText)
			}
		}
	}
	return nil
}
