package server

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/web"
)

// Proposed quotes (docs/RULES.md §18.1): anyone signed in proposes a quote
// with the vendor's words; editors publish it (as the series' next
// version) or send it back with a comment; the author edits a returned
// one, which proposes it again.

// proposalBodyLimit is the upload limit of the proposal routes: the 5 MiB
// file, the form and the multipart framing around them.
const proposalBodyLimit = proposal.MaxFileBytes + 1<<20

const proposalsPerPage = 50

// proposalNew is GET /quotes/new for readers who are not editors: the
// proposal form, with the defaults of the editors' form.
func (s *Server) proposalNew(c echo.Context) error {
	values := url.Values{"gpu_count": {"1"}, "sharing": {"dedicated"}, "prices_include_tax": {"true"},
		"as_of": {s.today().Format(time.DateOnly)}}
	for _, k := range []string{"platform", "gpu_model", "currency"} {
		if v := c.QueryParam(k); v != "" {
			values.Set(k, v)
		}
	}
	v := web.ProposalFormView{Form: web.QuoteFormView{IsNew: true, Action: "/quotes/proposals"}}
	return s.renderProposalForm(c, http.StatusOK, v, values, nil)
}

// renderProposalForm shows the proposal form with values and the
// translated field errors.
func (s *Server) renderProposalForm(c echo.Context, status int, v web.ProposalFormView, values url.Values, errs web.Errors) error {
	platforms, gpus, err := s.store.QuoteRefNames(c.Request().Context())
	if err != nil {
		return err
	}
	tr := translator(c)
	msgs := map[string]string{}
	for k, id := range errs {
		msgs[k] = tr.T(id.ID, id.Args...)
	}
	v.Form.Sections, v.Form.Lines = web.QuoteForm(values, msgs, web.RefOptions(tr.Lang, platforms), web.GPUOptions(gpus))
	v.Form.Errors = web.QuoteFormErrors(v.Form.Sections, v.Form.Lines)
	v.Message = values.Get("vendor_message")
	titleID := "proposal.new.title"
	if !v.Form.IsNew {
		titleID = "proposal.edit.title"
	}
	v.Page = s.page(c, titleID)
	v.Form.Page = v.Page
	return s.render(c, status, v.Page, web.ProposalFormPage(v))
}

// readVendorWords reads the vendor's message and optional file of a
// posted proposal form; the problems are message ids ("" when fine). The
// file's type is decided from its bytes, never from its name or the
// browser's word (docs/RULES.md §18.1).
func readVendorWords(c echo.Context, values url.Values) (file *store.NewAttachment, msgProblem, fileProblem string, err error) {
	msgProblem = proposal.CheckMessage(values.Get("vendor_message"))
	fh, ferr := c.FormFile("vendor_file")
	if errors.Is(ferr, http.ErrMissingFile) || errors.Is(ferr, http.ErrNotMultipart) {
		return nil, msgProblem, "", nil
	}
	if ferr != nil {
		return nil, msgProblem, "proposal.error.file_unreadable", nil
	}
	if fh.Size == 0 && fh.Filename == "" {
		return nil, msgProblem, "", nil // the browser sends an empty part when no file was chosen
	}
	if fh.Size > proposal.MaxFileBytes {
		return nil, msgProblem, "proposal.error.file_too_large", nil
	}
	f, err := fh.Open()
	if err != nil {
		return nil, msgProblem, "proposal.error.file_unreadable", nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, proposal.MaxFileBytes+1))
	if err != nil {
		return nil, "", "", err
	}
	ct, problem := proposal.CheckFile(int64(len(data)), data)
	if problem != "" {
		return nil, msgProblem, problem, nil
	}
	return &store.NewAttachment{Filename: proposal.Filename(fh.Filename), ContentType: ct, Data: data}, msgProblem, "", nil
}

// proposalCreate is POST /quotes/proposals: the quote is read as the
// editors' form reads it; any problem re-shows the form with every value.
func (s *Server) proposalCreate(c echo.Context) error {
	ctx := c.Request().Context()
	values, err := formValues(c)
	if err != nil {
		return err
	}
	v := web.ProposalFormView{Form: web.QuoteFormView{IsNew: true, Action: "/quotes/proposals"}}
	q, file, errs, ok, err := s.readProposal(c, values, &v)
	if err != nil {
		return err
	}
	if !ok {
		return s.renderProposalForm(c, http.StatusUnprocessableEntity, v, values, errs)
	}
	q, err = s.store.CreateProposal(ctx, s.actor(c), q, values.Get("vendor_message"), file, s.now())
	if err != nil {
		return err
	}
	return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "ok", "proposal.flash.proposed")
}

// readProposal reads a posted proposal: the quote fields, the vendor's
// message and file; ok is false when anything is wrong (errs are the
// quote fields' problems; the message's and the file's are set on v).
func (s *Server) readProposal(c echo.Context, values url.Values, v *web.ProposalFormView) (q quote.Quote,
	file *store.NewAttachment, errs web.Errors, ok bool, err error) {
	// A multipart form passes no input guard of its own (docs/RULES.md
	// §16.4): its values are checked here, as the guard checks others.
	for k, vs := range values {
		for _, x := range append([]string{k}, vs...) {
			if !storableText(x) {
				return quote.Quote{}, nil, nil, false, echo.NewHTTPError(http.StatusBadRequest).SetInternal(errUnstorableText)
			}
		}
	}
	refs, err := s.quoteRefs(c.Request().Context())
	if err != nil {
		return quote.Quote{}, nil, nil, false, err
	}
	q, errs = quote.Read(values.Get, refs, s.latestDay())
	file, msgProblem, fileProblem, err := readVendorWords(c, values)
	if err != nil {
		return quote.Quote{}, nil, nil, false, err
	}
	tr := translator(c)
	if msgProblem != "" {
		v.MessageError = tr.T(msgProblem, "Max", strconv.Itoa(proposal.MaxMessageChars))
	}
	if fileProblem != "" {
		v.FileError = tr.T(fileProblem)
	}
	return q, file, errs, len(errs) == 0 && msgProblem == "" && fileProblem == "", nil
}

// proposalEditForm is GET /quotes/:id/proposal/edit: the author's form
// for a returned proposal; anyone else gets 404, a proposal in another
// state its page.
func (s *Server) proposalEditForm(c echo.Context) error {
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
func (s *Server) ownProposal(c echo.Context) (quote.Quote, error) {
	q, err := s.loadQuote(c)
	if err != nil {
		return quote.Quote{}, err
	}
	uid, _ := viewer(c)
	if !quote.IsProposal(q.State) || q.CreatedBy != uid {
		return quote.Quote{}, echo.ErrNotFound
	}
	return q, nil
}

// proposalEditView is the edit form of returned proposal q, prefilled
// with it, the vendor's newest message and the editor's newest comment.
func (s *Server) proposalEditView(c echo.Context, q quote.Quote) (web.ProposalFormView, url.Values, error) {
	ctx := c.Request().Context()
	id := strconv.FormatInt(q.ID, 10)
	v := web.ProposalFormView{Form: web.QuoteFormView{Action: "/quotes/" + id + "/proposal", QuoteID: q.ID,
		LockVersion: q.LockVersion, Version: q.Version}}
	values := quote.Values(q)
	msgs, err := s.store.QuoteMessages(ctx, q.SeriesID)
	if err != nil {
		return v, nil, err
	}
	if len(msgs) > 0 {
		values.Set("vendor_message", msgs[0].Body)
	}
	reviews, err := s.store.QuoteReviews(ctx, q.SeriesID)
	if err != nil {
		return v, nil, err
	}
	for _, r := range reviews {
		if r.QuoteID == q.ID && r.Decision == quote.Returned {
			v.ReturnedComment = r.Comment
			break
		}
	}
	return v, values, nil
}

// proposalUpdate is POST /quotes/:id/proposal: the author's edit of a
// returned proposal, which proposes it again.
func (s *Server) proposalUpdate(c echo.Context) error {
	ctx := c.Request().Context()
	cur, err := s.ownProposal(c)
	if err != nil {
		return err
	}
	target := "/quotes/" + strconv.FormatInt(cur.ID, 10)
	if cur.State != quote.Returned {
		return s.redirectWithFlash(c, target, "error", "proposal.flash.not_returned")
	}
	values, err := formValues(c)
	if err != nil {
		return err
	}
	v, _, err := s.proposalEditView(c, cur)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(values.Get("lock_version"))
	v.Form.LockVersion = lock
	q, file, errs, ok, err := s.readProposal(c, values, &v)
	if err != nil {
		return err
	}
	if !ok {
		return s.renderProposalForm(c, http.StatusUnprocessableEntity, v, values, errs)
	}
	q.ID, q.LockVersion = cur.ID, lock
	_, err = s.store.UpdateProposal(ctx, s.actor(c), q, values.Get("vendor_message"), file, s.now())
	switch {
	case errors.Is(err, store.ErrConflict):
		v.Form.Conflict, v.Form.LockVersion = true, cur.LockVersion
		return s.renderProposalForm(c, http.StatusConflict, v, values, nil)
	case errors.Is(err, store.ErrNotProposed):
		return s.redirectWithFlash(c, target, "error", "proposal.flash.not_returned")
	case err != nil:
		return err
	}
	return s.redirectWithFlash(c, target, "ok", "proposal.flash.proposed")
}

// proposalRows turns store rows into list rows for the reader.
func (s *Server) proposalRows(c echo.Context, rows []store.ProposalRow, editor bool) []web.ProposalListRow {
	tr := translator(c)
	uid, _ := viewer(c)
	out := make([]web.ProposalListRow, 0, len(rows))
	for _, r := range rows {
		q := r.Quote
		row := web.ProposalListRow{ID: q.ID, Name: web.QuoteName(tr, q), State: q.State, Author: r.AuthorName,
			Created: web.FormatDate(r.CreatedAt), Hourly: s.formatMoney(c, q.Hourly, q.Currency),
			Monthly: s.formatMoney(c, q.Monthly, q.Currency)}
		id := strconv.FormatInt(q.ID, 10)
		switch q.State {
		case quote.Proposed:
			if editor {
				row.ReviewURL = "/quotes/" + id + "/review"
			}
		case quote.Returned:
			row.Comment = r.LastComment
			if uid != 0 && !editor {
				row.EditURL = "/quotes/" + id + "/proposal/edit"
			}
		case quote.Reviewed:
			if r.PublishedID != 0 {
				row.PublishedURL = "/quotes/" + strconv.FormatInt(r.PublishedID, 10)
			}
		}
		out = append(out, row)
	}
	return out
}

// proposalQueue is GET /quotes/review: the proposals waiting for an
// editor, oldest first.
func (s *Server) proposalQueue(c echo.Context) error {
	page := pageParam(c)
	rows, total, err := s.store.ProposalQueue(c.Request().Context(), (page-1)*proposalsPerPage, proposalsPerPage)
	if err != nil {
		return err
	}
	v := web.ProposalListView{Queue: true, Rows: s.proposalRows(c, rows, true),
		Pager: web.Pager{Page: page, PerPage: proposalsPerPage, Total: total, Base: "/quotes/review?"}}
	v.Page = s.page(c, "proposal.queue.title")
	return s.render(c, http.StatusOK, v.Page, web.ProposalList(v))
}

// proposalMine is GET /quotes/proposals: the reader's own proposals, newest
// first, with their state and the editor's comment.
func (s *Server) proposalMine(c echo.Context) error {
	page := pageParam(c)
	uid, _ := viewer(c)
	rows, total, err := s.store.ProposalsBy(c.Request().Context(), uid, (page-1)*proposalsPerPage, proposalsPerPage)
	if err != nil {
		return err
	}
	v := web.ProposalListView{Rows: s.proposalRows(c, rows, false),
		Pager: web.Pager{Page: page, PerPage: proposalsPerPage, Total: total, Base: "/quotes/proposals?"}}
	for i := range v.Rows {
		if v.Rows[i].State != quote.Returned {
			v.Rows[i].EditURL = ""
		}
	}
	v.Page = s.page(c, "proposal.mine.title")
	return s.render(c, http.StatusOK, v.Page, web.ProposalList(v))
}

// proposalPanel is what quote q's page shows of the proposal behind its
// series, or nil when the series never was one.
func (s *Server) proposalPanel(c echo.Context, q quote.Quote) (*web.ProposalPanel, error) {
	ctx := c.Request().Context()
	msgs, err := s.store.QuoteMessages(ctx, q.SeriesID)
	if err != nil {
		return nil, err
	}
	atts, err := s.store.QuoteAttachments(ctx, q.SeriesID)
	if err != nil {
		return nil, err
	}
	reviews, err := s.store.QuoteReviews(ctx, q.SeriesID)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 && len(atts) == 0 && len(reviews) == 0 && !quote.IsProposal(q.State) {
		return nil, nil
	}
	id := strconv.FormatInt(q.ID, 10)
	uid, _ := viewer(c)
	p := &web.ProposalPanel{State: q.State, NotReviewed: q.State == quote.Proposed || q.State == quote.Returned}
	if q.State == quote.Proposed && s.isEditor(c) {
		p.ReviewURL = "/quotes/" + id + "/review"
	}
	if q.State == quote.Returned && q.CreatedBy == uid {
		p.EditURL = "/quotes/" + id + "/proposal/edit"
	}
	for _, m := range msgs {
		p.Messages = append(p.Messages, web.ProposalMessage{Body: m.Body, At: m.CreatedAt.UTC().Format("2006-01-02 15:04")})
	}
	for _, a := range atts {
		p.Attachments = append(p.Attachments, web.ProposalAttachment{URL: "/quotes/" + id + "/attachments/" + strconv.FormatInt(a.ID, 10),
			Filename: a.Filename, ContentType: a.ContentType, Size: web.FileSize(a.Size)})
	}
	for _, r := range reviews {
		d := web.ProposalDecision{Decision: r.Decision, Comment: r.Comment, By: r.DeciderName, At: r.DecidedAt.UTC().Format("2006-01-02 15:04")}
		if r.PublishedID != 0 {
			d.PublishedURL = "/quotes/" + strconv.FormatInt(r.PublishedID, 10)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p, nil
}

// proposalReview is GET /quotes/:id/review: the editor's review page.
func (s *Server) proposalReview(c echo.Context) error {
	q, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	if q.State != quote.Proposed {
		return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(q.ID, 10), "error", "proposal.flash.not_proposed")
	}
	return s.renderReview(c, http.StatusOK, q, quote.Values(q), nil, q.LockVersion, "", "", false)
}

// renderReview shows the review page of proposal q with the form's values
// and errors, the comment typed and its problem.
func (s *Server) renderReview(c echo.Context, status int, q quote.Quote, values url.Values, errs web.Errors, lock int,
	comment, commentError string, conflict bool) error {
	ctx := c.Request().Context()
	platforms, gpus, err := s.store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	panel, err := s.proposalPanel(c, q)
	if err != nil {
		return err
	}
	tr := translator(c)
	author, err := s.store.UserByID(ctx, q.CreatedBy)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	msgs := map[string]string{}
	for k, id := range errs {
		msgs[k] = tr.T(id.ID, id.Args...)
	}
	v := web.ProposalReviewView{QuoteID: q.ID, Title: web.QuoteName(tr, q), Author: author.DisplayName, Panel: *panel,
		Comment: comment, CommentError: commentError}
	v.Panel.ReviewURL = ""
	v.Form = web.QuoteFormView{QuoteID: q.ID, LockVersion: lock, Version: q.Version, Conflict: conflict}
	v.Form.Sections, v.Form.Lines = web.QuoteForm(values, msgs, web.RefOptions(tr.Lang, platforms), web.GPUOptions(gpus))
	v.Form.Errors = web.QuoteFormErrors(v.Form.Sections, v.Form.Lines)
	v.Page = s.page(c, "proposal.review.title")
	v.Form.Page = v.Page
	return s.render(c, status, v.Page, web.ProposalReviewPage(v))
}

// proposalPublish is POST /quotes/:id/review/publish: the form's quote is
// published as the series' next version and the proposal is reviewed.
func (s *Server) proposalPublish(c echo.Context) error {
	ctx := c.Request().Context()
	prop, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	values, err := formValues(c)
	if err != nil {
		return err
	}
	lock, _ := strconv.Atoi(values.Get("lock_version"))
	target := "/quotes/" + strconv.FormatInt(prop.ID, 10)
	if prop.State != quote.Proposed {
		return s.redirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	}
	refs, err := s.quoteRefs(ctx)
	if err != nil {
		return err
	}
	q, errs := quote.Read(values.Get, refs, s.latestDay())
	if len(errs) > 0 {
		return s.renderReview(c, http.StatusUnprocessableEntity, prop, values, errs, lock, "", "", false)
	}
	out, err := s.store.PublishProposal(ctx, s.actor(c), prop.ID, lock, q, s.now())
	switch {
	case errors.Is(err, store.ErrConflict):
		return s.renderReview(c, http.StatusConflict, prop, values, nil, prop.LockVersion, "", "", true)
	case errors.Is(err, store.ErrNotProposed):
		return s.redirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	case err != nil:
		return err
	}
	return s.redirectWithFlash(c, "/quotes/"+strconv.FormatInt(out.ID, 10), "ok", "proposal.flash.published")
}

// proposalReturn is POST /quotes/:id/review/return: the proposal goes back
// to its author with the editor's comment (required).
func (s *Server) proposalReturn(c echo.Context) error {
	ctx := c.Request().Context()
	prop, err := s.loadQuote(c)
	if err != nil {
		return err
	}
	target := "/quotes/" + strconv.FormatInt(prop.ID, 10)
	if prop.State != quote.Proposed {
		return s.redirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	}
	comment := c.FormValue("comment")
	lock, _ := strconv.Atoi(c.FormValue("lock_version"))
	if problem := proposal.CheckComment(comment); problem != "" {
		msg := translator(c).T(problem, "Max", strconv.Itoa(proposal.MaxCommentChars))
		return s.renderReview(c, http.StatusUnprocessableEntity, prop, quote.Values(prop), nil, lock, comment, msg, false)
	}
	err = s.store.ReturnProposal(ctx, s.actor(c), prop.ID, lock, comment, s.now())
	switch {
	case errors.Is(err, store.ErrConflict):
		return s.renderReview(c, http.StatusConflict, prop, quote.Values(prop), nil, prop.LockVersion, comment, "", true)
	case errors.Is(err, store.ErrNotProposed):
		return s.redirectWithFlash(c, target, "error", "proposal.flash.not_proposed")
	case err != nil:
		return err
	}
	return s.redirectWithFlash(c, "/quotes/review", "ok", "proposal.flash.returned")
}

// quoteAttachment is GET /quotes/:id/attachments/:att: a vendor's file,
// to whoever may read quote :id (store.QuoteAttachment decides; others get
// 404), as a download that no browser runs or sniffs.
func (s *Server) quoteAttachment(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	raw := c.Param("att")
	if idOutOfRange(raw) {
		return badID()
	}
	attID, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || attID <= 0 {
		return store.ErrNotFound
	}
	uid, role := viewer(c)
	att, err := s.store.QuoteAttachment(c.Request().Context(), id, attID, uid, role)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(att.Filename))
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	h.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, att.ContentType, att.Data)
}
