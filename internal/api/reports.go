package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/apierror"
	"gpuquote/internal/auth"
	"gpuquote/internal/catalog"
	"gpuquote/internal/compare"
	"gpuquote/internal/form"
	"gpuquote/internal/i18n"
	"gpuquote/internal/report"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/trial"
	"gpuquote/internal/user"
	"gpuquote/web"
)

// The data API's comparison, reports and trial evidence (docs/RULES.md §19.5).

// apiProfile is a usage profile in a JSON request: the compare page's
// profile fields ("profile.hours_per_month" is hours_per_month), decimals
// as strings, counts as integers. Absent fields are left out, as on the page.
type apiProfile struct {
	HoursPerMonth         *string `json:"hours_per_month"`
	Months                *int64  `json:"months"`
	Instances             *int64  `json:"instances"`
	StartsPerMonth        *int64  `json:"starts_per_month"`
	BetweenRuns           *string `json:"between_runs"`
	Resumable             *bool   `json:"resumable"`
	SpotOverhead          *string `json:"spot_overhead"`
	Mbps                  *string `json:"mbps"`
	EgressGBPerMonth      *string `json:"egress_gb_per_month"`
	MigrationGB           *string `json:"migration_gb"`
	PublicIPs             *int64  `json:"public_ips"`
	SystemDiskGB          *string `json:"system_disk_gb"`
	DataDiskGB            *string `json:"data_disk_gb"`
	ObjectStorageGB       *string `json:"object_storage_gb"`
	SnapshotGB            *string `json:"snapshot_gb"`
	ImageGB               *string `json:"image_gb"`
	Task                  *string `json:"task"`
	ParamsBillions        *string `json:"params_billions"`
	Precision             *string `json:"precision"`
	TokensPerSecondPerGPU *string `json:"tokens_per_second_per_gpu"`
	PerformanceRatio      *string `json:"performance_ratio"`
}

// values writes the profile as the compare page's state, each field under
// prefix + "profile." + its name.
func (p *apiProfile) values(out url.Values, prefix string) {
	if p == nil {
		return
	}
	str := func(name string, v *string) {
		if v != nil {
			out.Set(prefix+"profile."+name, *v)
		}
	}
	num := func(name string, v *int64) {
		if v != nil {
			out.Set(prefix+"profile."+name, strconv.FormatInt(*v, 10))
		}
	}
	str("hours_per_month", p.HoursPerMonth)
	num("months", p.Months)
	num("instances", p.Instances)
	num("starts_per_month", p.StartsPerMonth)
	str("between_runs", p.BetweenRuns)
	if p.Resumable != nil {
		out.Set(prefix+"profile.resumable", strconv.FormatBool(*p.Resumable))
	}
	str("spot_overhead", p.SpotOverhead)
	str("mbps", p.Mbps)
	str("egress_gb_per_month", p.EgressGBPerMonth)
	str("migration_gb", p.MigrationGB)
	num("public_ips", p.PublicIPs)
	str("system_disk_gb", p.SystemDiskGB)
	str("data_disk_gb", p.DataDiskGB)
	str("object_storage_gb", p.ObjectStorageGB)
	str("snapshot_gb", p.SnapshotGB)
	str("image_gb", p.ImageGB)
	str("task", p.Task)
	str("params_billions", p.ParamsBillions)
	str("precision", p.Precision)
	str("tokens_per_second_per_gpu", p.TokensPerSecondPerGPU)
	str("performance_ratio", p.PerformanceRatio)
}

// apiCompareRequest is the body of POST /api/v1/compare: the compare
// page's state as JSON.
type apiCompareRequest struct {
	Profile        apiProfile  `json:"profile"`
	Quotes         []int64     `json:"quotes"`
	OwnHardware    []int64     `json:"own_hardware"`
	ReportCurrency string      `json:"report_currency"`
	Sort           string      `json:"sort"`
	Descending     bool        `json:"descending"`
	ScenarioB      *apiProfile `json:"scenario_b"`
}

// apiReportCreateRequest is the body of POST /api/v1/reports: a
// comparison with the report's texts, and the returned report it revises.
type apiReportCreateRequest struct {
	apiCompareRequest
	Title    string `json:"title"`
	Purpose  string `json:"purpose"`
	ReviseOf int64  `json:"revise_of"`
}

// pageValues is the request as the compare page's state, the values
// compare.FreezeValuesFor reads, priced through the kept comparisons as the
// page is (docs/RULES.md §19.5, §20.1).
func (r apiCompareRequest) pageValues() url.Values {
	v := url.Values{}
	r.Profile.values(v, "")
	r.ScenarioB.values(v, compare.ScenarioPrefix)
	for _, id := range r.Quotes {
		v.Add("q", strconv.FormatInt(id, 10))
	}
	for _, id := range r.OwnHardware {
		v.Add(compare.OwnParam, strconv.FormatInt(id, 10))
	}
	if c := strings.TrimSpace(r.ReportCurrency); c != "" {
		v.Set("report_currency", c)
	}
	if r.Sort != "" {
		v.Set("sort", r.Sort)
	}
	if r.Descending {
		v.Set("dir", "desc")
	}
	return v
}

// requestErrors are the problems of a comparison request the compare
// page would not refuse but an API caller must hear of: a report currency
// that is not one, an order that does not exist, an id that is not.
func (r apiCompareRequest) requestErrors(tr *i18n.Translator) []apierror.Error {
	var out []apierror.Error
	if c := strings.TrimSpace(r.ReportCurrency); c != "" {
		fr := form.Values(url.Values{"report_currency": {c}})
		fr.Currency("report_currency", false)
		if m, bad := fr.Errs["report_currency"]; bad {
			out = append(out, apierror.Error{Field: "report_currency", Code: m.ID, Message: tr.T(m.ID, m.Args...)})
		}
	}
	if r.Sort != "" && !slices.Contains(compare.SortKeys, r.Sort) {
		out = append(out, apierror.Error{Field: "sort", Code: "api.reports.error.sort",
			Message: tr.T("api.reports.error.sort", "Keys", strings.Join(compare.SortKeys, ", "))})
	}
	for _, ids := range []struct {
		field string
		ids   []int64
	}{{"quotes", r.Quotes}, {"own_hardware", r.OwnHardware}} {
		for _, id := range ids.ids {
			if id <= 0 {
				out = append(out, apierror.Error{Field: ids.field, Code: "api.reports.error.id", Message: tr.T("api.reports.error.id")})
				break
			}
		}
	}
	return out
}

// apiFreeze computes the comparison of a request for the caller, as the
// compare page and the report form do. ok is false when the answer (422
// naming every problem) has been written.
func (s *Handlers) apiFreeze(c echo.Context, req apiCompareRequest, extra []apierror.Error) (compare.Frozen, bool, error) {
	tr := server.Translator(c)
	errs := append(req.requestErrors(tr), extra...)
	fz, err := s.Priced.FreezeValuesFor(c.Request().Context(), s.Store, req.pageValues(), s.Today(), server.ReportViewer(c))
	if err != nil {
		return fz, false, err
	}
	for _, e := range fz.ProfileErrors {
		field := e.Field
		if rest, ok := strings.CutPrefix(field, compare.ScenarioPrefix+"profile."); ok {
			field = "scenario_b." + rest
		}
		errs = append(errs, apierror.Error{Field: field, Code: e.Code, Message: tr.TMap(e.MessageID, e.Args)})
	}
	if fz.TooMany {
		errs = append(errs, apierror.Error{Field: "quotes", Code: "api.reports.error.too_many",
			Message: tr.T("api.reports.error.too_many", "Max", strconv.Itoa(compare.MaxSelected))})
	}
	if fz.OwnTooMany {
		errs = append(errs, apierror.Error{Field: "own_hardware", Code: "api.reports.error.own_too_many",
			Message: tr.T("api.reports.error.own_too_many", "Max", strconv.Itoa(compare.MaxOwnSelected))})
	}
	if fz.Empty {
		errs = append(errs, apierror.Error{Field: "quotes", Code: "report.error.no_quotes", Message: tr.T("report.error.no_quotes")})
	}
	if len(errs) > 0 {
		return fz, false, server.APIErrors(c, http.StatusUnprocessableEntity, errs)
	}
	return fz, true, nil
}

// Compare is POST /api/v1/compare: the comparison of a usage profile
// and quotes (and own-hardware options), frozen as a report would freeze
// it, stored nowhere.
func (s *Handlers) Compare(c echo.Context) error {
	var req apiCompareRequest
	if err := apiReadJSON(c, &req); err != nil {
		return apiReadError(c, err)
	}
	fz, ok, err := s.apiFreeze(c, req, nil)
	if !ok {
		return err
	}
	return apiJSON(c, http.StatusOK, fz.Snapshot)
}

// apiPerson is a user named in an answer.
type apiPerson struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// apiReportHead is a report without its snapshot.
type apiReportHead struct {
	ID                        int64               `json:"id"`
	Number                    string              `json:"number"`
	Revision                  int                 `json:"revision"`
	Title                     string              `json:"title"`
	Purpose                   string              `json:"purpose"`
	Status                    string              `json:"status"`
	Author                    apiPerson           `json:"author"`
	ReportCurrency            string              `json:"report_currency"`
	QuoteCount                int                 `json:"quote_count"`
	FiguresDate               string              `json:"figures_date"`
	RulesVersion              string              `json:"rules_version"`
	RecommendedTCO            decimal.NullDecimal `json:"recommended_tco"`
	RecommendedTCOPessimistic decimal.NullDecimal `json:"recommended_tco_pessimistic"`
	PreviousRevisionID        *int64              `json:"previous_revision_id"`
	NextRevisionID            *int64              `json:"next_revision_id"`
	RecomputedFromID          *int64              `json:"recomputed_from_id"`
	CreatedAt                 time.Time           `json:"created_at"`
	SubmittedAt               *time.Time          `json:"submitted_at"`
	DecidedAt                 *time.Time          `json:"decided_at"`
	DecidedBy                 *apiPerson          `json:"decided_by"`
	DecisionComment           string              `json:"decision_comment"`
	URL                       string              `json:"url"`
}

// apiReportEvent is one entry of a report's timeline.
type apiReportEvent struct {
	ReportID   int64     `json:"report_id"`
	Revision   int       `json:"revision"`
	At         time.Time `json:"at"`
	Actor      apiPerson `json:"actor"`
	Action     string    `json:"action"`
	FromStatus string    `json:"from_status"`
	ToStatus   string    `json:"to_status"`
	Comment    string    `json:"comment"`
}

// apiReportDetail is a report with its frozen snapshot and the timeline
// of every revision the reader may see.
type apiReportDetail struct {
	apiReportHead
	Snapshot report.Snapshot  `json:"snapshot"`
	Events   []apiReportEvent `json:"events"`
}

func optionalID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func newAPIReportHead(r report.Report) apiReportHead {
	h := apiReportHead{ID: r.ID, Number: r.Number, Revision: r.Revision, Title: r.Title, Purpose: r.Purpose, Status: r.Status,
		Author: apiPerson{ID: r.AuthorID, Name: r.AuthorName}, ReportCurrency: r.ReportCurrency, QuoteCount: r.QuoteCount,
		FiguresDate: report.DateText(r.FiguresDate), RulesVersion: r.RulesVersion, RecommendedTCO: r.RecommendedTCO,
		RecommendedTCOPessimistic: r.RecommendedTCOPessimistic, PreviousRevisionID: optionalID(r.PreviousRevisionID),
		NextRevisionID: optionalID(r.NextRevisionID), RecomputedFromID: optionalID(r.RecomputedFromID),
		CreatedAt: r.CreatedAt.UTC(), SubmittedAt: utcPtr(r.SubmittedAt), DecidedAt: utcPtr(r.DecidedAt),
		DecisionComment: r.DecisionComment, URL: web.ReportURL(r.ID)}
	if r.DecidedBy != 0 {
		h.DecidedBy = &apiPerson{ID: r.DecidedBy, Name: r.DecidedByName}
	}
	return h
}

// apiReportHeadFor reads the report in the path as the caller may see it
// (404 otherwise, as on the report page).
func (s *Handlers) apiReportHeadFor(c echo.Context) (report.Report, error) {
	id, err := server.PathID(c)
	if err != nil {
		return report.Report{}, err
	}
	r, err := s.Store.ReportHead(c.Request().Context(), id)
	if err != nil {
		return report.Report{}, err
	}
	if !server.CanSeeReport(c, r) {
		return report.Report{}, echo.ErrNotFound
	}
	return r, nil
}

// apiReportDetailOf is report r with its snapshot, exactly as stored, and
// its timeline as the report page shows it.
func (s *Handlers) apiReportDetailOf(c echo.Context, r report.Report) (apiReportDetail, error) {
	ctx := c.Request().Context()
	snap, err := s.ReportSnapshot(ctx, r.ID)
	if err != nil {
		return apiReportDetail{}, err
	}
	cur := auth.CurrentUser(c)
	events, err := s.Store.ReportHistory(ctx, r.Number, cur.UserID, cur.Role == auth.RoleAdmin)
	if err != nil {
		return apiReportDetail{}, err
	}
	out := apiReportDetail{apiReportHead: newAPIReportHead(r), Snapshot: snap, Events: []apiReportEvent{}}
	for _, e := range events {
		out.Events = append(out.Events, apiReportEvent{ReportID: e.ReportID, Revision: e.Revision, At: e.At.UTC(),
			Actor: apiPerson{ID: e.ActorID, Name: e.ActorName}, Action: e.Action, FromStatus: e.FromStatus,
			ToStatus: e.ToStatus, Comment: e.Comment})
	}
	return out, nil
}

// Report is GET /api/v1/reports/{id}.
func (s *Handlers) Report(c echo.Context) error {
	r, err := s.apiReportHeadFor(c)
	if err != nil {
		return err
	}
	d, err := s.apiReportDetailOf(c, r)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, d)
}

// reportsAPIMax and reportsAPIDefault bound a page of GET /api/v1/reports.
const (
	reportsAPIMax     = 200
	reportsAPIDefault = 50
)

// reportCursor is a position in the report list's order (created_at
// DESC, id DESC): the last report of the page before; FP names the list
// (apiMarketFingerprint, reportsFingerprint).
type reportCursor struct {
	At time.Time `json:"at"`
	ID int64     `json:"id"`
	FP string    `json:"f"`
}

// reportsFingerprint is the report list's cursor fingerprint: it takes no
// filters.
var reportsFingerprint = apiMarketFingerprint("reports", nil)

// Reports is GET /api/v1/reports: the reports the caller may see,
// newest first, a keyset page at a time.
func (s *Handlers) Reports(c echo.Context) error {
	limit, ok := apiLimit(c, reportsAPIDefault, reportsAPIMax)
	if !ok {
		return apiBadLimit(c, reportsAPIMax)
	}
	var pos *reportCursor
	if raw := c.QueryParam("cursor"); raw != "" {
		pos = &reportCursor{}
		if err := s.decodeCursor(raw, pos); err != nil || pos.ID <= 0 || pos.FP != reportsFingerprint {
			return apiBadCursor(c)
		}
	}
	cur := auth.CurrentUser(c)
	f := store.ReportFilter{ViewerID: cur.UserID, ViewerAdmin: cur.Role == auth.RoleAdmin, NoCount: true, Limit: limit + 1}
	if pos != nil {
		f.Before = &store.ReportKey{CreatedAt: pos.At, ID: pos.ID}
	}
	rows, _, err := s.Store.Reports(c.Request().Context(), f)
	if err != nil {
		return err
	}
	page := apiPage[apiReportHead]{Items: []apiReportHead{}}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	for _, r := range rows {
		if server.CanSeeReport(c, r) { // the list's condition says the same; the page's rule decides
			page.Items = append(page.Items, newAPIReportHead(r))
		}
	}
	if more {
		last := rows[len(rows)-1]
		page.NextCursor = s.encodeCursor(reportCursor{At: last.CreatedAt, ID: last.ID, FP: reportsFingerprint})
	}
	return apiJSON(c, http.StatusOK, page)
}

// ReportCreate is POST /api/v1/reports: the comparison saved as a new
// draft report (or as the next revision of the caller's returned report),
// as the report form saves it.
func (s *Handlers) ReportCreate(c echo.Context) error {
	var req apiReportCreateRequest
	if err := apiReadJSON(c, &req); err != nil {
		return apiReadError(c, err)
	}
	title, purpose, texts := report.ReadTexts(url.Values{"title": {req.Title}, "purpose": {req.Purpose}})
	tr := server.Translator(c)
	var extra []apierror.Error
	for _, k := range []string{"title", "purpose"} {
		if m, bad := texts[k]; bad {
			extra = append(extra, apierror.Error{Field: k, Code: m.ID, Message: tr.T(m.ID, m.Args...)})
		}
	}
	if req.ReviseOf < 0 {
		extra = append(extra, apierror.Error{Field: "revise_of", Code: "api.reports.error.id", Message: tr.T("api.reports.error.id")})
	}
	fz, ok, err := s.apiFreeze(c, req.apiCompareRequest, extra)
	if !ok {
		return err
	}
	nr, err := report.Save(fz.Snapshot, title, purpose)
	if err != nil {
		return err
	}
	if req.ReviseOf > 0 {
		prev, err := s.Store.ReportHead(c.Request().Context(), req.ReviseOf)
		if err != nil {
			return err
		}
		if !server.CanSeeReport(c, prev) {
			return echo.ErrNotFound
		}
		nr.PreviousRevisionID = prev.ID
	}
	r, err := s.Store.CreateReport(c.Request().Context(), s.Actor(c), s.Now(), nr)
	if errors.Is(err, store.ErrConflict) {
		return apiFail(c, http.StatusConflict, "conflict", "api.reports.error.revise")
	}
	if err != nil {
		return server.ReportStoreError(err)
	}
	d, err := s.apiReportDetailOf(c, r)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusCreated, d)
}

// apiReportStep runs one workflow step on the report in the path with the
// store step the report page's buttons use (audited, with the same
// notifications): 200 with the report as it now is, 404 when the caller
// may not see it, 403 when they may not take the step, 409 when the report
// is not in the step's starting status, 422 for a missing or too long
// comment.
func (s *Handlers) apiReportStep(c echo.Context, step func(ctx context.Context, a user.Actor, now time.Time, id int64, comment string) error) error {
	r, err := s.apiReportHeadFor(c)
	if err != nil {
		return err
	}
	var req struct {
		Comment string `json:"comment"`
	}
	// The body is optional where no comment is needed: none reads as {}.
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		c.Request().Body = io.NopCloser(bytes.NewReader(body))
		if err := apiReadJSON(c, &req); err != nil {
			return apiReadError(c, err)
		}
	}
	fr := form.Values(url.Values{"comment": {req.Comment}})
	comment := fr.Paragraphs("comment", report.MaxComment)
	if !fr.OK() {
		return apiFormErrors(c, fr.Errs)
	}
	err = step(c.Request().Context(), s.Actor(c), s.Now(), r.ID, comment)
	switch {
	case errors.Is(err, store.ErrCommentRequired):
		return apiFormErrors(c, web.Errors{"comment": {ID: "report.error.comment_required"}})
	case errors.Is(err, store.ErrConflict):
		now, err := s.Store.ReportHead(c.Request().Context(), r.ID)
		if err != nil {
			return err
		}
		return apiFail(c, http.StatusConflict, "conflict", "api.reports.error.state",
			"Status", server.Translator(c).T(web.ReportStatusLabelID(now.Status)))
	case errors.Is(err, store.ErrNotAllowed):
		return apiFail(c, http.StatusForbidden, "forbidden", "api.reports.error.not_allowed")
	case err != nil:
		return err
	}
	now, err := s.Store.ReportHead(c.Request().Context(), r.ID)
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusOK, newAPIReportHead(now))
}

// ReportSubmit is POST /api/v1/reports/{id}/submit (the author's).
func (s *Handlers) ReportSubmit(c echo.Context) error {
	return s.apiReportStep(c, func(ctx context.Context, a user.Actor, now time.Time, id int64, _ string) error {
		return s.Store.SubmitReport(ctx, a, now, id)
	})
}

// ReportApprove is POST /api/v1/reports/{id}/approve (finance's and
// admins', never the author's).
func (s *Handlers) ReportApprove(c echo.Context) error {
	return s.apiReportStep(c, s.Store.ApproveReport)
}

// ReportReturn is POST /api/v1/reports/{id}/return, with the comment
// that says why.
func (s *Handlers) ReportReturn(c echo.Context) error {
	return s.apiReportStep(c, s.Store.ReturnReport)
}

// apiTrialCheckRequest is the body of POST /api/v1/trials/{id}/checks:
// the trial page's check form as JSON.
type apiTrialCheckRequest struct {
	Check    int    `json:"check"`
	State    string `json:"state"`
	Note     string `json:"note"`
	Measured string `json:"measured"`
	Output   string `json:"output"`
}

// apiTrialCheckResult is the answer: what was recorded and the trial's
// verdict after it.
type apiTrialCheckResult struct {
	TrialID     int64  `json:"trial_id"`
	Check       int    `json:"check"`
	State       string `json:"state"`
	Note        string `json:"note"`
	Measured    string `json:"measured"`
	OutputChars int    `json:"output_chars"`
	Verdict     string `json:"verdict"`
}

// TrialCheck is POST /api/v1/trials/{id}/checks: one check's result
// recorded as the trial page's form records it (docs/RULES.md §16.3):
// the trial's author, editors and admins only.
func (s *Handlers) TrialCheck(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	t, err := s.Store.TrialByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	if !server.MayWriteTrial(c, t) {
		return apiTrialForbidden(c, t)
	}
	var req apiTrialCheckRequest
	if err := apiReadJSON(c, &req); err != nil {
		return apiReadError(c, err)
	}
	// The same reader and rules as the trial page's form.
	r := form.Values(url.Values{"state": {req.State}, "note": {req.Note}, "measured": {req.Measured}})
	ck, ok := trial.Check(req.Check)
	if !ok {
		r.Fail("check", "api.trials.error.check", "Max", strconv.Itoa(len(catalog.TrialChecks)))
	}
	rec := trial.ReadResult(r, ck.Number, req.Output)
	if !r.OK() {
		return apiFormErrors(c, r.Errs)
	}
	after, err := s.Store.RecordTrialResults(c.Request().Context(), s.Actor(c), id, nil, []trial.Record{rec})
	if errors.Is(err, store.ErrNotAllowed) {
		return apiTrialForbidden(c, t)
	}
	if err != nil {
		return err
	}
	return apiJSON(c, http.StatusCreated, apiTrialCheckResult{TrialID: id, Check: ck.Number, State: string(rec.State), Note: rec.Note,
		Measured: rec.Measured, OutputChars: utf8.RuneCountInString(rec.Output), Verdict: string(after.Verdict)})
}

// apiTrialForbidden is the 403 of a write to a trial by someone who may
// only read it, worded as the trial page's (who may record).
func apiTrialForbidden(c echo.Context, t trial.Trial) error {
	tr := server.Translator(c)
	return server.APIErrors(c, http.StatusForbidden, []apierror.Error{{Code: "forbidden",
		Message: web.TrialWriters(tr, t.CreatedByName) + " " + tr.T("trials.forbidden.read")}})
}
