package pages

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/form"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/trial"
	"gpuquote/internal/verify"
	"gpuquote/web"
)

const (
	trialsPerPage = 50
	// Bounds of what a trial form stores (the table's CHECKs say the same).
	trialMaxNote     = 2000
	perfMaxBenchmark = 200
	perfMaxNote      = 2000
)

var (
	// firstDay is the earliest date a trial or an answer may carry.
	firstDay = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	// perfBelow is the first figure too large for numeric(12,3).
	perfBelow = decimal.NewNullDecimal(decimal.New(1, 9))
)

// trialQuote resolves the quote a trial is opened for: a catalog message
// naming the problem when it is not a published quote.
func (s *Handlers) trialQuote(c echo.Context, raw string) (quote.Quote, string, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || id <= 0 {
		if strings.TrimSpace(raw) == "" {
			return quote.Quote{}, "form.required", nil
		}
		return quote.Quote{}, "trials.error.quote_id", nil
	}
	// A version the reader may not read is no quote to them (quote.MayRead,
	// docs/RULES.md §18.1): the same answer as an id that names none.
	uid, role := server.Viewer(c)
	q, err := s.Store.QuoteFor(c.Request().Context(), id, uid, role)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return quote.Quote{}, "trials.error.quote_not_found", nil
	case err != nil:
		return quote.Quote{}, "", err
	case q.State != quote.Published:
		return q, "trials.error.quote_not_published", nil
	}
	return q, "", nil
}

// TrialList is GET /trials: every trial, filtered by platform, GPU model,
// verdict or quote.
func (s *Handlers) TrialList(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	f := store.TrialFilter{Limit: trialsPerPage}
	f.PlatformID, _ = strconv.ParseInt(q.Get("platform"), 10, 64)
	f.GPUModelID, _ = strconv.ParseInt(q.Get("gpu"), 10, 64)
	f.QuoteID, _ = strconv.ParseInt(q.Get("quote"), 10, 64)
	if v := trial.Verdict(q.Get("verdict")); v.Valid() {
		f.Verdict = v
	}
	in := web.TrialListRecords{PlatformID: f.PlatformID, GPUModelID: f.GPUModelID, QuoteID: f.QuoteID, Verdict: f.Verdict,
		Page: server.PageParam(c), PerPage: trialsPerPage}
	f.Offset = (in.Page - 1) * trialsPerPage
	var err error
	if in.Trials, in.Total, err = s.Store.Trials(ctx, f); err != nil {
		return err
	}
	if in.Platforms, in.GPUs, err = s.Store.QuoteRefNames(ctx); err != nil {
		return err
	}
	if f.QuoteID > 0 {
		// Named only when the reader may read it (quote.MayRead).
		uid, role := server.Viewer(c)
		if qt, err := s.Store.QuoteFor(ctx, f.QuoteID, uid, role); err == nil {
			in.Quote = &qt
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	v := web.NewTrialListView(server.Translator(c), in)
	v.Page = s.Page(c, "trials.list.title")
	return s.Render(c, http.StatusOK, v.Page, web.TrialList(v))
}

// TrialNew is GET /trials/new?quote=ID: the form that opens a trial, the
// quote filled in from its page.
func (s *Handlers) TrialNew(c echo.Context) error {
	f := web.TrialForm{StartedOn: s.Today().Format(time.DateOnly), Errors: web.Errors{}}
	if raw := c.QueryParam("quote"); raw != "" {
		f.QuoteID = raw
		q, problem, err := s.trialQuote(c, raw)
		if err != nil {
			return err
		}
		if problem != "" {
			f.Errors.Set("quote", problem)
		} else {
			f.QuoteName, f.QuoteURL = web.QuoteName(server.Translator(c), q), "/quotes/"+strconv.FormatInt(q.ID, 10)
		}
	}
	f.Page = s.Page(c, "trials.new.title")
	return s.Render(c, http.StatusOK, f.Page, web.TrialNew(f))
}

// TrialCreate is POST /trials: opens a trial of a published quote.
func (s *Handlers) TrialCreate(c echo.Context) error {
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	f := web.TrialForm{QuoteID: r.Raw("quote"), StartedOn: r.Raw("started_on"), Errors: r.Errs}
	q, problem, err := s.trialQuote(c, f.QuoteID)
	if err != nil {
		return err
	}
	if problem != "" {
		r.Fail("quote", problem)
	} else {
		f.QuoteName, f.QuoteURL = web.QuoteName(server.Translator(c), q), "/quotes/"+strconv.FormatInt(q.ID, 10)
	}
	started, _ := r.Date("started_on", form.Date{Required: true, NotAfter: s.LatestDay(), NotBefore: firstDay})
	f.Note = r.Paragraphs("note", trialMaxNote)
	if r.OK() {
		tr, err := s.Store.CreateTrial(c.Request().Context(), s.Actor(c), trial.Start{QuoteID: q.ID, StartedOn: started, Note: f.Note})
		switch {
		case errors.Is(err, store.ErrTrialQuote), errors.Is(err, store.ErrNotFound):
			// archived or removed since it was read
			r.Fail("quote", "trials.error.quote_not_published")
		case err != nil:
			return err
		default:
			return s.RedirectWithFlash(c, web.TrialURL(tr.ID), "ok", "trials.flash.created")
		}
	}
	f.Page = s.Page(c, "trials.new.title")
	return s.Render(c, http.StatusUnprocessableEntity, f.Page, web.TrialNew(f))
}

// TrialShow is GET /trials/:id.
func (s *Handlers) TrialShow(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	return s.renderTrial(c, http.StatusOK, id, nil)
}

// renderTrial shows trial id with status; adjust, when set, puts a form
// back as it was typed, with its errors.
func (s *Handlers) renderTrial(c echo.Context, status int, id int64, adjust func(*web.TrialView)) error {
	v, err := s.trialView(c, id)
	if err != nil {
		return err
	}
	if adjust != nil {
		adjust(&v)
	}
	pair := market.PlatformGPU{PlatformID: v.PlatformID, GPUModelID: v.GPUModelID}
	if v.Availability, err = s.availabilityPanel(c, pair, 0, v.ID); err != nil {
		return err
	}
	v.Page = s.Page(c, "trials.detail.page_title")
	v.Page.Title = v.Title
	return s.Render(c, status, v.Page, web.Trial(v))
}

// trialForWrite reads trial id for a write by the signed-in user. ok is
// false when the write must not go on: err is then ErrNotFound for a
// missing trial, or the 403 page (docs/RULES.md §16.3) has been written.
func (s *Handlers) trialForWrite(c echo.Context, id int64) (t trial.Trial, ok bool, err error) {
	if t, err = s.Store.TrialByID(c.Request().Context(), id); err != nil {
		return t, false, err
	}
	if !server.MayWriteTrial(c, t) {
		return t, false, s.trialForbidden(c, t)
	}
	return t, true, nil
}

// trialForbidden is the 403 page of a write to a trial by someone who may
// only read it: it says who may record (docs/RULES.md §16.3).
func (s *Handlers) trialForbidden(c echo.Context, t trial.Trial) error {
	tr := server.Translator(c)
	p := s.Page(c, "error.403.title")
	return s.Render(c, http.StatusForbidden, p, web.ErrorPage(web.ErrorView{Page: p, Status: http.StatusForbidden,
		Message:   web.TrialWriters(tr, t.CreatedByName) + " " + tr.T("trials.forbidden.read"),
		RequestID: c.Response().Header().Get(echo.HeaderXRequestID)}))
}

// trialWriteError answers a refusal of the store: a user who may not
// write to the trial (their role changed since the check) gets the 403
// page.
func (s *Handlers) trialWriteError(c echo.Context, t trial.Trial, err error) error {
	if errors.Is(err, store.ErrNotAllowed) {
		return s.trialForbidden(c, t)
	}
	return err
}

// trialView reads a trial and everything its page shows.
func (s *Handlers) trialView(c echo.Context, id int64) (web.TrialView, error) {
	ctx := c.Request().Context()
	in := web.TrialRecords{Today: s.Today()}
	var err error
	if in.Trial, err = s.Store.TrialByID(ctx, id); err != nil {
		return web.TrialView{}, err
	}
	in.CanWrite = server.MayWriteTrial(c, in.Trial)
	if in.Use, err = s.Store.TrialEvidenceUse(ctx, id); err != nil {
		return web.TrialView{}, err
	}
	if in.GPU, err = s.Store.GPUModelByID(ctx, in.Trial.GPUModelID); err != nil {
		return web.TrialView{}, err
	}
	if in.Results, err = s.Store.TrialResults(ctx, id); err != nil {
		return web.TrialView{}, err
	}
	if in.Pastes, err = s.Store.TrialPastes(ctx, id); err != nil {
		return web.TrialView{}, err
	}
	if in.Perfs, err = s.Store.TrialPerfs(ctx, id); err != nil {
		return web.TrialView{}, err
	}
	return web.NewTrialView(server.Translator(c), in), nil
}

// TrialRecordCheck is POST /trials/:id/checks: records one check's result
// with its evidence. A day-1 failure turns the verdict to exit at once.
func (s *Handlers) TrialRecordCheck(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	before, ok, err := s.trialForWrite(c, id)
	if !ok {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(values.Get("check"))
	ck, ok := trial.Check(n)
	if err != nil || !ok {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	r := form.Values(values)
	rec := trial.ReadResult(r, ck.Number, values.Get("output"))
	cf := web.TrialCheckForm{State: values.Get("state"), Errors: r.Errs, Open: true, Note: rec.Note, Measured: rec.Measured, Output: rec.Output}
	if !r.OK() {
		return s.renderTrial(c, http.StatusUnprocessableEntity, id, func(v *web.TrialView) { v.SetCheckForm(ck.Number, cf) })
	}
	after, err := s.Store.RecordTrialResults(c.Request().Context(), s.Actor(c), id, nil, []trial.Record{rec})
	if err != nil {
		return s.trialWriteError(c, before, err)
	}
	target := web.TrialURL(id) + "#check-" + strconv.Itoa(ck.Number)
	if after.Verdict == trial.Exit && before.Verdict != trial.Exit {
		return s.RedirectWithFlash(c, target, "error", "trials.flash.exit", "Number", strconv.Itoa(ck.Number))
	}
	return s.RedirectWithFlash(c, target, "ok", "trials.flash.recorded", "Number", strconv.Itoa(ck.Number))
}

// TrialNvidiaSMI is POST /trials/:id/nvidia-smi: pasted nvidia-smi output
// is read by internal/verify (the same code as the JSON API) against the
// GPU model's figures; every acceptance check it decides is recorded with
// the reasons (trial.RecordsFromChecks), and a day-1 failure turns the
// verdict to exit.
func (s *Handlers) TrialNvidiaSMI(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	before, ok, err := s.trialForWrite(c, id)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	tr := server.Translator(c)
	output := c.FormValue("output")
	fail := func(msg string) error {
		return s.renderTrial(c, http.StatusUnprocessableEntity, id, func(v *web.TrialView) {
			v.NvidiaSMI = web.NvidiaSMIForm{Output: output, Error: msg}
		})
	}
	if strings.TrimSpace(output) == "" {
		return fail(tr.T("trials.nvsmi.required"))
	}
	// The evidence budget, checked again under the trial's lock when the
	// paste is stored (docs/RULES.md §16.3).
	use, err := s.Store.TrialEvidenceUse(ctx, id)
	if err != nil {
		return err
	}
	var over *trial.BudgetError
	if errors.As(use.Admit(int64(len(output))), &over) {
		return fail(web.TrialBudgetRefused(tr, over.Used, over.Adding))
	}
	rep, err := verify.Parse(output)
	var pe *verify.ParseError
	switch {
	case errors.As(err, &pe):
		return fail(tr.TMap(pe.MessageID, pe.Args))
	case err != nil:
		return err
	}
	g, err := s.Store.GPUModelByID(ctx, before.GPUModelID)
	if err != nil {
		return err
	}
	checks := verify.Evaluate(rep, trial.VerifySpec(g)) // the JSON API's spec and checks (nvidiasmi.go)
	recs, failed := trial.RecordsFromChecks(checks)
	after, err := s.Store.RecordTrialResults(ctx, s.Actor(c), id, trial.PasteOf(output, rep, checks), recs)
	if errors.As(err, &over) {
		return fail(web.TrialBudgetRefused(tr, over.Used, over.Adding))
	}
	if err != nil {
		return s.trialWriteError(c, before, err)
	}
	target := web.TrialURL(id) + "#nvidia-smi"
	counts := []string{"Samples", strconv.Itoa(len(rep.Samples)), "Decided", strconv.Itoa(len(recs)), "Failed", strconv.Itoa(failed)}
	switch {
	case after.Verdict == trial.Exit && before.Verdict != trial.Exit:
		return s.RedirectWithFlash(c, target, "error", "trials.flash.nvsmi_exit", counts...)
	case len(recs) == 0:
		return s.RedirectWithFlash(c, target, "ok", "trials.flash.nvsmi_none", counts...)
	case failed > 0:
		return s.RedirectWithFlash(c, target, "error", "trials.flash.nvsmi", counts...)
	}
	return s.RedirectWithFlash(c, target, "ok", "trials.flash.nvsmi", counts...)
}

// TrialPerformance is POST /trials/:id/performance: a measured TFLOPS
// figure, judged by the 85 % rule (trial.Measured). The newest ratio of
// the platform × GPU model feeds comparisons.
func (s *Handlers) TrialPerformance(c echo.Context) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	tl, ok, err := s.trialForWrite(c, id)
	if !ok {
		return err
	}
	g, err := s.Store.GPUModelByID(ctx, tl.GPUModelID)
	if err != nil {
		return err
	}
	values, err := server.FormValues(c)
	if err != nil {
		return err
	}
	r := form.Values(values)
	pf := web.TrialPerfForm{Precision: values.Get("precision"), Measured: r.Raw("measured"), Errors: r.Errs}
	perf, ok := g.PerfFor(pf.Precision)
	if !ok {
		r.Fail("precision", "trials.error.precision")
	}
	measured := r.Decimal("measured", form.Decimal{Places: 3, Positive: true, Below: perfBelow, Required: true})
	pf.Benchmark = r.RequiredText("benchmark", perfMaxBenchmark)
	pf.Note = r.Paragraphs("note", perfMaxNote)
	if !r.OK() {
		return s.renderTrial(c, http.StatusUnprocessableEntity, id, func(v *web.TrialView) {
			pf.Precisions = v.PerfForm.Precisions
			v.PerfForm = pf
		})
	}
	rec, verdict := trial.Measured(id, perf, measured.Decimal, pf.Benchmark, pf.Note)
	if _, err := s.Store.RecordTrialPerf(ctx, s.Actor(c), rec); err != nil {
		return s.trialWriteError(c, tl, err)
	}
	target := web.TrialURL(id) + "#performance"
	if verdict.Below {
		return s.RedirectWithFlash(c, target, "error", "trials.flash.perf_below")
	}
	return s.RedirectWithFlash(c, target, "ok", "trials.flash.perf")
}

// TrialPasteOutput is GET /trials/:id/pastes/:paste: the whole output of
// one paste as plain text. The trial page shows only the start of the
// newest pastes (docs/RULES.md §16.3).
func (s *Handlers) TrialPasteOutput(c echo.Context) error {
	return s.trialOutput(c, "paste", s.Store.TrialPasteOutput)
}

// TrialResultOutput is GET /trials/:id/results/:result/output: the whole
// command output of one recording as plain text (docs/RULES.md §16.3).
func (s *Handlers) TrialResultOutput(c echo.Context) error {
	return s.trialOutput(c, "result", s.Store.TrialResultOutput)
}

// trialOutput answers the text load gives for trial :id and the record
// named by path parameter param; an id that is none is not found.
func (s *Handlers) trialOutput(c echo.Context, param string, load func(ctx context.Context, trialID, id int64) (string, error)) error {
	id, err := server.PathID(c)
	if err != nil {
		return err
	}
	rid, err := strconv.ParseInt(c.Param(param), 10, 64)
	if err != nil || rid <= 0 {
		return store.ErrNotFound
	}
	out, err := load(c.Request().Context(), id, rid)
	if err != nil {
		return err
	}
	return trialText(c, out)
}

// trialText answers recorded output as plain text that no browser renders
// as anything else.
func trialText(c echo.Context, text string) error {
	h := c.Response().Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", "inline")
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", []byte(text))
}
