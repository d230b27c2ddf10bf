package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/compare"
	"gpuquote/internal/form"
	"gpuquote/internal/gzsplice"
	"gpuquote/internal/report"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
	"gpuquote/web"
)

// reportsPerPage is the length of a page of the report list.
const reportsPerPage = 25

// loadReport reads the report named in the path with its snapshot, as the
// reader may see it (404 otherwise).
func (s *Handlers) loadReport(c echo.Context) (report.Report, report.Snapshot, error) {
	id, err := server.PathID(c)
	if err != nil {
		return report.Report{}, report.Snapshot{}, err
	}
	r, err := s.Store.ReportHead(c.Request().Context(), id)
	if err != nil {
		return report.Report{}, report.Snapshot{}, err
	}
	if !server.CanSeeReport(c, r) {
		return report.Report{}, report.Snapshot{}, echo.ErrNotFound
	}
	snap, err := s.ReportSnapshot(c.Request().Context(), id)
	if err != nil {
		return report.Report{}, report.Snapshot{}, err
	}
	return r, snap, nil
}

// ReportNewForm shows the "save as report" form for the comparison in the
// query (the compare page links here with its state).
func (s *Handlers) ReportNewForm(c echo.Context) error {
	values := c.QueryParams()
	return s.renderReportNew(c, http.StatusOK, values, values.Get("title"), values.Get("purpose"), nil)
}

// renderReportNew computes the comparison to preview what will be frozen.
func (s *Handlers) renderReportNew(c echo.Context, status int, values url.Values, title, purpose string, errs web.Errors) error {
	ctx := c.Request().Context()
	in := web.ReportNewRecords{Values: values, Title: title, Purpose: purpose, Errors: errs}
	var err error
	if in.Frozen, err = s.Priced.FreezeValuesFor(ctx, s.Store, values, s.Today(), server.ReportViewer(c)); err != nil {
		return err
	}
	// The reader's returned reports that await a revision: saving may make
	// the next revision of one of them instead of a new report.
	cur := auth.CurrentUser(c)
	if in.Returned, _, err = s.Store.Reports(ctx, store.ReportFilter{ViewerID: cur.UserID, AuthorID: cur.UserID,
		Statuses: []string{report.Returned}, Limit: 200}); err != nil {
		return err
	}
	v := web.NewReportNewView(server.Translator(c), in)
	v.Page = s.Page(c, "report.new.title")
	return s.Render(c, status, v.Page, web.ReportNew(v))
}

// ReportCreate freezes the comparison in the form as a new draft report
// (or as the next revision of the author's returned report).
func (s *Handlers) ReportCreate(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	title, purpose, errs := report.ReadTexts(values)
	fz, err := s.Priced.FreezeValuesFor(c.Request().Context(), s.Store, values, s.Today(), server.ReportViewer(c))
	if err != nil {
		return err
	}
	if len(errs) > 0 || !fz.Savable() {
		return s.renderReportNew(c, http.StatusUnprocessableEntity, values, values.Get("title"), values.Get("purpose"), errs)
	}
	nr, err := report.Save(fz.Snapshot, title, purpose)
	if err != nil {
		return err
	}
	if raw := values.Get("revise_of"); raw != "" {
		if nr.PreviousRevisionID, err = strconv.ParseInt(raw, 10, 64); err != nil || nr.PreviousRevisionID <= 0 {
			return echo.ErrNotFound
		}
		prev, err := s.Store.ReportHead(c.Request().Context(), nr.PreviousRevisionID)
		if err != nil {
			return err
		}
		if !server.CanSeeReport(c, prev) {
			return echo.ErrNotFound
		}
	}
	r, err := s.Store.CreateReport(c.Request().Context(), s.Actor(c), s.Now(), nr)
	if errors.Is(err, store.ErrConflict) {
		return echo.NewHTTPError(http.StatusConflict)
	}
	if err != nil {
		return server.ReportStoreError(err)
	}
	return s.RedirectWithFlash(c, web.ReportURL(r.ID), "ok", "report.flash.saved", "Number", r.Number)
}

// ReportShow is a saved report's page.
func (s *Handlers) ReportShow(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	// The author has now seen the decision: its notice goes before this
	// page counts what waits for them (docs/RULES.md §11.3).
	if cur := auth.CurrentUser(c); cur != nil && cur.UserID == r.AuthorID && (r.Status == report.Approved || r.Status == report.Returned) {
		if err := s.Store.SeeReportNotice(c.Request().Context(), r.ID, cur.UserID, s.Now()); err != nil {
			return err
		}
	}
	return s.renderReport(c, http.StatusOK, r, snap, nil, nil, false)
}

// renderReport renders a report from its row and snapshot only (and its
// timeline and links): it never reads quotes, rates or prices, so it shows
// the same figures whatever happened to them since.
func (s *Handlers) renderReport(c echo.Context, status int, r report.Report, snap report.Snapshot, form url.Values, errs web.Errors, conflict bool) error {
	ctx := c.Request().Context()
	cur := auth.CurrentUser(c)
	var viewer int64
	if cur != nil {
		viewer = cur.UserID
	}
	// Every revision's timeline the reader may see, so a revision shows
	// why the one before was returned (docs/RULES.md §11.3).
	events, err := s.Store.ReportHistory(ctx, r.Number, viewer, cur != nil && cur.Role == auth.RoleAdmin)
	if err != nil {
		return err
	}
	into, err := s.Store.ReportsRecomputedFrom(ctx, r.ID)
	if err != nil {
		return err
	}
	v := web.NewReportView(server.Translator(c), r, snap, report.RightsOf(r, viewer, s.IsFinance(c)), into)
	v.Form, v.Errors, v.Conflict = form, errs, conflict
	if r.RecomputedFromID != 0 {
		src, err := s.Store.ReportHead(ctx, r.RecomputedFromID)
		if err != nil {
			return err
		}
		old, err := s.ReportSnapshot(ctx, src.ID)
		if err != nil {
			return err
		}
		v = v.WithRecomputedFrom(server.Translator(c), src, old, snap)
	}

	if v.Bills, err = s.reportBills(c, r, snap); err != nil {
		return err
	}
	s.reportFrozenParts(c, r.ID, snap, &v)
	v.Timeline = web.ReportTimeline(server.Translator(c), events, r.ID)
	v.Page = s.Page(c, "report.page.title")
	v.Page.Title = r.Number + " · " + r.Title
	return s.RenderKept(c, status, v.Page, web.ReportPage(v))
}

// reportFrozenParts fills the parts of a report's page drawn from its
// snapshot alone — the full table and charts (the comparison's own
// formatting), the summary, the inputs and the vendor questions — drawn
// once per report and language (see frozenCache).
func (s *Handlers) reportFrozenParts(c echo.Context, id int64, snap report.Snapshot, v *web.ReportView) {
	tr := server.Translator(c)
	k := server.FrozenKey{ID: id, Kind: "view", Lang: string(tr.Lang)}
	if cached, ok := s.Frozen.Get(k); ok {
		v.UseFrozen(cached.(web.ReportView))
		return
	}
	f := web.FrozenReportParts(server.Translator(c), snap)
	f.Own = web.ReportOwn(server.Translator(c), snap)
	v.UseFrozen(f)
	// The parts that read only the snapshot and the language (docs/RULES.md
	// §20.2): rendered once, kept as HTML with the parts.
	var b strings.Builder
	if err := web.ReportFrozen(*v).Render(c.Request().Context(), &b); err == nil {
		f.FrozenHTML = gzsplice.NewBlock(b.String(), frozenLevel)
		v.FrozenHTML = f.FrozenHTML // this page too: drawn once, not twice
	}
	s.Frozen.Put(k, f)
}

// frozenLevel is the compression a report's kept parts are kept with: they
// are compressed once per report and language and sent many times, so
// harder than what is compressed per request (gzsplice.Level).
const frozenLevel = 6

// reportAction runs one workflow step on the report in the path and
// answers like every form: 303 back to the report with a message; 403
// when the reader may not; 409 with the report as it now is when someone
// else moved it first; 422 with the form when the comment is missing.
func (s *Handlers) reportAction(c echo.Context, step func(ctx context.Context, a user.Actor, now time.Time, id int64, comment string) error, flashID string) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	fr := form.Values(values)
	comment := fr.Paragraphs("comment", report.MaxComment)
	if !fr.OK() {
		return s.renderReport(c, http.StatusUnprocessableEntity, r, snap, url.Values{"return_comment": {comment}}, fr.Errs, false)
	}
	err = step(c.Request().Context(), s.Actor(c), s.Now(), r.ID, comment)
	switch {
	case errors.Is(err, store.ErrCommentRequired):
		return s.renderReport(c, http.StatusUnprocessableEntity, r, snap, url.Values{"return_comment": {comment}},
			web.Errors{"comment": {ID: "report.error.comment_required"}}, false)
	case errors.Is(err, store.ErrConflict):
		now, err := s.Store.ReportHead(c.Request().Context(), r.ID)
		if err != nil {
			return err
		}
		if !server.CanSeeReport(c, now) {
			return echo.ErrNotFound
		}
		return s.renderReport(c, http.StatusConflict, now, snap, nil, nil, true)
	case err != nil:
		return server.ReportStoreError(err)
	}
	return s.RedirectWithFlash(c, web.ReportURL(r.ID), "ok", flashID, "Number", r.Number)
}

func (s *Handlers) ReportSubmit(c echo.Context) error {
	return s.reportAction(c, func(ctx context.Context, a user.Actor, now time.Time, id int64, _ string) error {
		return s.Store.SubmitReport(ctx, a, now, id)
	}, "report.flash.submitted")
}

func (s *Handlers) ReportApprove(c echo.Context) error {
	return s.reportAction(c, s.Store.ApproveReport, "report.flash.approved")
}

func (s *Handlers) ReportReturn(c echo.Context) error {
	return s.reportAction(c, s.Store.ReturnReport, "report.flash.returned")
}

// ReportDelete deletes the author's draft and goes back to the list.
func (s *Handlers) ReportDelete(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	err = s.Store.DeleteReport(c.Request().Context(), s.Actor(c), s.Now(), r.ID)
	if errors.Is(err, store.ErrConflict) {
		return s.renderReport(c, http.StatusConflict, r, snap, nil, nil, true)
	}
	if err != nil {
		return server.ReportStoreError(err)
	}
	return s.RedirectWithFlash(c, "/reports", "ok", "report.flash.deleted", "Number", r.Number)
}

// ReportRetitle changes the title and purpose of the author's draft.
func (s *Handlers) ReportRetitle(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	title, purpose, errs := report.ReadTexts(values)
	if len(errs) > 0 {
		if cur := auth.CurrentUser(c); cur.UserID != r.AuthorID {
			return echo.NewHTTPError(http.StatusForbidden)
		}
		return s.renderReport(c, http.StatusUnprocessableEntity, r, snap, values, errs, false)
	}
	err = s.Store.RetitleReport(c.Request().Context(), s.Actor(c), s.Now(), r.ID, title, purpose)
	if errors.Is(err, store.ErrConflict) {
		return s.renderReport(c, http.StatusConflict, r, snap, nil, nil, true)
	}
	if err != nil {
		return server.ReportStoreError(err)
	}
	return s.RedirectWithFlash(c, web.ReportURL(r.ID), "ok", "report.flash.retitled", "Number", r.Number)
}

// ReportRecompute makes a new draft report from this one's comparison with
// today's data, linked to it; its page shows what changed.
func (s *Handlers) ReportRecompute(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	fz, err := compare.RecomputeFor(c.Request().Context(), s.Store, snap, s.Today(), server.ReportViewer(c))
	if err != nil {
		return err
	}
	if !fz.Savable() {
		return s.renderReport(c, http.StatusUnprocessableEntity, r, snap, nil, web.Errors{"recompute": {ID: "report.error.recompute"}}, false)
	}
	nr, err := report.Save(fz.Snapshot, r.Title, r.Purpose)
	if err != nil {
		return err
	}
	nr.RecomputedFromID = r.ID
	out, reused, err := s.Store.RecomputeReport(c.Request().Context(), s.Actor(c), s.Now(), nr)
	if err != nil {
		return server.ReportStoreError(err)
	}
	if reused { // nothing changed since the reader's last recomputation (docs/RULES.md §11.5)
		return s.RedirectWithFlash(c, web.ReportURL(out.ID), "ok", "report.flash.recompute_same", "Number", out.Number, "From", r.Number)
	}
	return s.RedirectWithFlash(c, web.ReportURL(out.ID), "ok", "report.flash.recomputed", "Number", out.Number, "From", r.Number)
}

// ReportRevise makes the next revision of the author's returned report:
// with the same figures, or recomputed with today's data.
func (s *Handlers) ReportRevise(c echo.Context) error {
	r, snap, err := s.loadReport(c)
	if err != nil {
		return err
	}
	cur := auth.CurrentUser(c)
	if cur.UserID != r.AuthorID {
		return echo.NewHTTPError(http.StatusForbidden)
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	title, purpose, errs := report.ReadTexts(values)
	if values.Get("data") != "same" && values.Get("data") != "today" {
		errs.Set("data", "report.error.revise_data")
	}
	if len(errs) > 0 {
		return s.renderReport(c, http.StatusUnprocessableEntity, r, snap, values, errs, false)
	}
	next := snap
	if values.Get("data") == "today" {
		fz, err := compare.RecomputeFor(c.Request().Context(), s.Store, snap, s.Today(), server.ReportViewer(c))
		if err != nil {
			return err
		}
		if !fz.Savable() {
			return s.renderReport(c, http.StatusUnprocessableEntity, r, snap, values, web.Errors{"data": {ID: "report.error.recompute"}}, false)
		}
		next = fz.Snapshot
	}
	nr, err := report.Save(next, title, purpose)
	if err != nil {
		return err
	}
	nr.PreviousRevisionID = r.ID
	out, err := s.Store.CreateReport(c.Request().Context(), s.Actor(c), s.Now(), nr)
	if errors.Is(err, store.ErrConflict) {
		now, err := s.Store.ReportHead(c.Request().Context(), r.ID)
		if err != nil {
			return err
		}
		return s.renderReport(c, http.StatusConflict, now, snap, nil, nil, true)
	}
	if err != nil {
		return server.ReportStoreError(err)
	}
	return s.RedirectWithFlash(c, web.ReportURL(out.ID), "ok", "report.flash.revised", "Number", out.Number,
		"Revision", strconv.Itoa(out.Revision))
}

// ReportList lists the reports the reader may see, filtered.
func (s *Handlers) ReportList(c echo.Context) error {
	ctx := c.Request().Context()
	cur := auth.CurrentUser(c)
	in := web.ReportListRecords{Query: web.ReadReportListQuery(c.QueryParams()), ViewerID: cur.UserID,
		Page: server.PageParam(c), PerPage: reportsPerPage}
	q := in.Query
	f := store.ReportFilter{ViewerID: cur.UserID, ViewerAdmin: cur.Role == auth.RoleAdmin, Statuses: q.Statuses,
		AuthorID: q.AuthorID, From: q.From, To: q.To, PlatformID: q.PlatformID, MinTCO: q.MinTCO, MaxTCO: q.MaxTCO,
		Currency: q.Currency, Offset: (in.Page - 1) * reportsPerPage, Limit: reportsPerPage}
	status := http.StatusOK
	var err error
	if len(q.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	} else if in.Reports, in.Total, err = s.Store.Reports(ctx, f); err != nil {
		return err
	}
	if in.Authors, err = s.Store.ReportAuthors(ctx, cur.UserID); err != nil {
		return err
	}
	if in.Platforms, _, err = s.Store.QuoteRefNames(ctx); err != nil {
		return err
	}
	v := web.NewReportListView(server.Translator(c), in)
	v.Page = s.Page(c, "report.list.title")
	return s.Render(c, status, v.Page, web.ReportList(v))
}

// ReportInbox lists the reports waiting for finance, oldest first.
func (s *Handlers) ReportInbox(c echo.Context) error {
	cur := auth.CurrentUser(c)
	in := web.ReportListRecords{Inbox: true, ViewerID: cur.UserID, Page: server.PageParam(c), PerPage: reportsPerPage}
	var err error
	if in.Reports, in.Total, err = s.Store.Reports(c.Request().Context(), store.ReportFilter{ViewerID: cur.UserID,
		ViewerAdmin: cur.Role == auth.RoleAdmin, Statuses: []string{report.Submitted}, OldestFirst: true,
		Offset: (in.Page - 1) * reportsPerPage, Limit: reportsPerPage}); err != nil {
		return err
	}
	v := web.NewReportListView(server.Translator(c), in)
	v.Page = s.Page(c, "report.inbox.title")
	return s.Render(c, http.StatusOK, v.Page, web.ReportList(v))
}
