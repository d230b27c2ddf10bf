package server

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/trial"
	"gpuquote/internal/verify"
	"gpuquote/web"
)

const (
	trialsPerPage = 50
	// Bounds of what a trial form stores (the table's CHECKs say the same).
	trialMaxNote     = 2000
	checkMaxNote     = 5000
	checkMaxOutput   = 200000
	checkMaxMeasured = 200
	perfMaxBenchmark = 200
	perfMaxNote      = 2000
)

// perfMaxTFLOPS is the first figure too large for numeric(12,3).
var perfMaxTFLOPS = decimal.New(1, 9)

// trialText reads a form field, trimmed, and names it too long past
// maxRunes characters.
func trialText(raw string, errs web.Errors, name string, maxRunes int) string {
	v := strings.TrimSpace(strings.ToValidUTF8(raw, "\uFFFD"))
	if utf8.RuneCountInString(v) > maxRunes {
		errs.Set(name, "spec.error.too_long")
	}
	return v
}

// trialOutput reads pasted command output: blank lines around it go, the
// indentation of its first line stays (nvidia-smi's tables are aligned).
func trialOutput(raw string) string {
	s := strings.ToValidUTF8(raw, "\uFFFD")
	s = strings.TrimRight(s, " \t\r\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			return s
		}
		s = s[i+1:]
	}
}

// trialTime formats a recording time as the pages do (UTC).
func trialTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// trialQuote resolves the quote a trial is opened for: a catalog message
// naming the problem when it is not a published quote.
func (s *Server) trialQuote(c echo.Context, raw string) (quote.Quote, string, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || id <= 0 {
		if strings.TrimSpace(raw) == "" {
			return quote.Quote{}, "form.required", nil
		}
		return quote.Quote{}, "trials.error.quote_id", nil
	}
	q, err := s.store.QuoteByID(c.Request().Context(), id)
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

// trialList is GET /trials: every trial, filtered by platform, GPU model,
// verdict or quote.
func (s *Server) trialList(c echo.Context) error {
	ctx := c.Request().Context()
	q := c.QueryParams()
	f := store.TrialFilter{Limit: trialsPerPage}
	f.PlatformID, _ = strconv.ParseInt(q.Get("platform"), 10, 64)
	f.GPUModelID, _ = strconv.ParseInt(q.Get("gpu"), 10, 64)
	f.QuoteID, _ = strconv.ParseInt(q.Get("quote"), 10, 64)
	if v := trial.Verdict(q.Get("verdict")); v.Valid() {
		f.Verdict = v
	}
	page := pageParam(c)
	f.Offset = (page - 1) * trialsPerPage
	rows, total, err := s.store.Trials(ctx, f)
	if err != nil {
		return err
	}
	platforms, gpus, err := s.store.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	lang := t(c).Lang
	v := web.TrialListView{Platforms: refOptions(lang, platforms), GPUs: gpuOptions(gpus), Verdict: string(f.Verdict)}
	for _, vd := range trial.Verdicts {
		v.Verdicts = append(v.Verdicts, web.Option{Value: string(vd), LabelID: vd.LabelID()})
	}
	filters := map[string]string{}
	if f.PlatformID > 0 {
		v.Platform = strconv.FormatInt(f.PlatformID, 10)
		filters["platform"] = v.Platform
	}
	if f.GPUModelID > 0 {
		v.GPU = strconv.FormatInt(f.GPUModelID, 10)
		filters["gpu"] = v.GPU
	}
	if f.QuoteID > 0 {
		v.Quote = strconv.FormatInt(f.QuoteID, 10)
		filters["quote"] = v.Quote
		if qt, err := s.store.QuoteByID(ctx, f.QuoteID); err == nil {
			v.QuoteName = compareCandidateName(c, qt)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	if v.Verdict != "" {
		filters["verdict"] = v.Verdict
	}
	base := "/trials"
	values := make([]string, 0, len(filters))
	for _, k := range []string{"platform", "gpu", "quote", "verdict"} {
		if filters[k] != "" {
			values = append(values, k+"="+filters[k])
		}
	}
	if len(values) > 0 {
		base += "?" + strings.Join(values, "&")
	}
	v.Filtered = len(filters) > 0 || total > 0
	v.Pager = web.Pager{Page: page, PerPage: trialsPerPage, Total: total, Base: base}
	for _, tr := range rows {
		r := web.TrialRow{ID: tr.ID, Platform: displayName(lang, tr.PlatformNameZH, tr.PlatformNameEN),
			GPU: tr.GPUVendor + " " + tr.GPUName, QuoteName: trialQuoteName(c, tr), QuoteURL: "/quotes/" + strconv.FormatInt(tr.QuoteID, 10),
			StartedOn: web.FormatDate(tr.StartedOn), Verdict: string(tr.Verdict), Done: tr.Done}
		if tr.PerfBelow != nil {
			r.Perf = "ok"
			if *tr.PerfBelow {
				r.Perf = "below"
			}
		}
		v.Rows = append(v.Rows, r)
	}
	v.Page = s.page(c, "trials.list.title")
	return s.render(c, http.StatusOK, v.Page, web.TrialList(v))
}

// trialQuoteName names a trial's quote: its version and label.
func trialQuoteName(c echo.Context, tr trial.Trial) string {
	name := t(c).T("quote.version_short", "Version", strconv.Itoa(tr.QuoteVersion))
	if tr.QuoteLabel != "" {
		name += " · " + tr.QuoteLabel
	}
	return name
}

// trialNew is GET /trials/new?quote=ID: the form that opens a trial, the
// quote filled in from its page.
func (s *Server) trialNew(c echo.Context) error {
	f := web.TrialForm{StartedOn: s.today().Format(time.DateOnly), Errors: web.Errors{}}
	if raw := c.QueryParam("quote"); raw != "" {
		f.QuoteID = raw
		q, problem, err := s.trialQuote(c, raw)
		if err != nil {
			return err
		}
		if problem != "" {
			f.Errors.Set("quote", problem)
		} else {
			f.QuoteName, f.QuoteURL = compareCandidateName(c, q), "/quotes/"+strconv.FormatInt(q.ID, 10)
		}
	}
	f.Page = s.page(c, "trials.new.title")
	return s.render(c, http.StatusOK, f.Page, web.TrialNew(f))
}

// trialCreate is POST /trials: opens a trial of a published quote.
func (s *Server) trialCreate(c echo.Context) error {
	errs := web.Errors{}
	f := web.TrialForm{QuoteID: strings.TrimSpace(c.FormValue("quote")), StartedOn: strings.TrimSpace(c.FormValue("started_on")), Errors: errs}
	q, problem, err := s.trialQuote(c, f.QuoteID)
	if err != nil {
		return err
	}
	if problem != "" {
		errs.Set("quote", problem)
	} else {
		f.QuoteName, f.QuoteURL = compareCandidateName(c, q), "/quotes/"+strconv.FormatInt(q.ID, 10)
	}
	var started time.Time
	switch d, err := time.Parse(time.DateOnly, f.StartedOn); {
	case f.StartedOn == "":
		errs.Set("started_on", "form.required")
	case err != nil:
		errs.Set("started_on", "form.date.invalid")
	case d.After(s.latestDay()):
		errs.Set("started_on", "trials.error.started_on_future")
	case d.Year() < 2000:
		errs.Set("started_on", "form.date.invalid")
	default:
		started = d
	}
	f.Note = trialText(c.FormValue("note"), errs, "note", trialMaxNote)
	if len(errs) == 0 {
		tr, err := s.store.CreateTrial(c.Request().Context(), s.actor(c), trial.Start{QuoteID: q.ID, StartedOn: started, Note: f.Note})
		switch {
		case errors.Is(err, store.ErrTrialQuote), errors.Is(err, store.ErrNotFound):
			// archived or removed since it was read
			errs.Set("quote", "trials.error.quote_not_published")
		case err != nil:
			return err
		default:
			return s.redirectWithFlash(c, web.TrialURL(tr.ID), "ok", "trials.flash.created")
		}
	}
	f.Page = s.page(c, "trials.new.title")
	return s.render(c, http.StatusUnprocessableEntity, f.Page, web.TrialNew(f))
}

// trialShow is GET /trials/:id.
func (s *Server) trialShow(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	return s.renderTrial(c, http.StatusOK, id, nil)
}

// renderTrial shows trial id with status; adjust, when set, puts a form
// back as it was typed, with its errors.
func (s *Server) renderTrial(c echo.Context, status int, id int64, adjust func(*web.TrialView)) error {
	v, err := s.trialView(c, id)
	if err != nil {
		return err
	}
	if adjust != nil {
		adjust(&v)
	}
	v.Page = s.page(c, "trials.detail.page_title")
	v.Page.Title = v.Title
	return s.render(c, status, v.Page, web.Trial(v))
}

// trialReasonTexts renders reasons from internal/verify in the reader's
// language.
func trialReasonTexts(tr *i18n.Translator, rs []trial.Reason) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, tr.TMap(r.MessageID, r.Args))
	}
	return out
}

// trialRecordView shows one recording.
func trialRecordView(tr *i18n.Translator, r trial.Result) web.TrialRecordView {
	return web.TrialRecordView{State: string(r.State), Note: r.Note, Output: r.Output, Measured: r.Measured,
		Reasons: trialReasonTexts(tr, r.Reasons), PasteID: r.PasteID, RecordedBy: r.RecordedByName, RecordedAt: trialTime(r.RecordedAt)}
}

// trialEvidence is a failed check's evidence as the verdict names it.
func trialEvidence(tr *i18n.Translator, r trial.Result) []string {
	var out []string
	if r.Measured != "" {
		out = append(out, tr.T("trials.field.measured")+": "+r.Measured)
	}
	if r.Note != "" {
		out = append(out, r.Note)
	}
	out = append(out, trialReasonTexts(tr, r.Reasons)...)
	if len(out) == 0 && r.Output != "" {
		out = append(out, tr.T("trials.evidence.output"))
	}
	return out
}

// perfOptions are the precisions the GPU model has catalog figures for,
// labelled with them.
func perfOptions(tr *i18n.Translator, g market.GPUModel) []web.Option {
	var out []web.Option
	for _, p := range g.Perf {
		args := []any{"Precision", tr.T(perfLabelID(p.Precision)), "Nominal", web.SpecNumber(p.NominalTFLOPS)}
		id := "trials.perf.option"
		if p.Sparse {
			id += "_sparse"
		}
		if p.MeasuredTFLOPS.Valid {
			id += "_reference"
			args = append(args, "Reference", web.SpecNumber(p.MeasuredTFLOPS.Decimal))
		}
		out = append(out, web.Option{Value: p.Precision, Label: tr.T(id, args...)})
	}
	return out
}

// trialView reads a trial and everything its page shows.
func (s *Server) trialView(c echo.Context, id int64) (web.TrialView, error) {
	ctx := c.Request().Context()
	tr := t(c)
	tl, err := s.store.TrialByID(ctx, id)
	if err != nil {
		return web.TrialView{}, err
	}
	g, err := s.store.GPUModelByID(ctx, tl.GPUModelID)
	if err != nil {
		return web.TrialView{}, err
	}
	results, err := s.store.TrialResults(ctx, id)
	if err != nil {
		return web.TrialView{}, err
	}
	pastes, err := s.store.TrialPastes(ctx, id)
	if err != nil {
		return web.TrialView{}, err
	}
	perfs, err := s.store.TrialPerfs(ctx, id)
	if err != nil {
		return web.TrialView{}, err
	}

	platform := displayName(tr.Lang, tl.PlatformNameZH, tl.PlatformNameEN)
	gpu := tl.GPUVendor + " " + tl.GPUName
	v := web.TrialView{ID: tl.ID, Platform: platform, PlatformID: tl.PlatformID, GPU: gpu, GPUModelID: tl.GPUModelID,
		QuoteURL: "/quotes/" + strconv.FormatInt(tl.QuoteID, 10), StartedOn: web.FormatDate(tl.StartedOn),
		Note: tl.Note, CreatedBy: tl.CreatedByName, Verdict: string(tl.Verdict)}
	v.Title = tr.T("trials.detail.title", "ID", strconv.FormatInt(tl.ID, 10), "Platform", platform, "GPU", gpu)
	v.QuoteName = tr.T("quote.detail.title", "Platform", platform, "GPU", gpu, "Count", strconv.Itoa(tl.QuoteGPUCount)) +
		" · " + trialQuoteName(c, tl)
	if today := s.today(); !today.Before(tl.StartedOn) {
		v.Day = int(today.Sub(tl.StartedOn).Hours()/24) + 1
	}
	for _, st := range trial.States {
		v.States = append(v.States, web.Option{Value: string(st), LabelID: st.LabelID()})
	}

	// The latest recording of each check is its state; the older ones
	// are its history, newest first.
	latest := map[int]trial.Result{}
	history := map[int][]web.TrialRecordView{}
	for _, r := range results {
		if prev, ok := latest[r.Check]; ok {
			history[r.Check] = append([]web.TrialRecordView{trialRecordView(tr, prev)}, history[r.Check]...)
		}
		latest[r.Check] = r
	}
	states := make(map[int]trial.State, len(latest))
	for n, r := range latest {
		states[n] = r.State
	}
	for _, p := range trial.ProgressOf(states) {
		v.Progress = append(v.Progress, web.TrialProgress{Phase: string(p.Phase), LabelID: p.Phase.LabelID(),
			Total: p.Total, Pass: p.Pass, Fail: p.Fail, NA: p.NA, Pending: p.Pending})
	}
	for _, ck := range trial.Failed(states, false) {
		rv := web.TrialReasonView{Number: ck.Number, LabelID: ck.LabelID, Evidence: trialEvidence(tr, latest[ck.Number])}
		if ck.LeaveOnFailure {
			v.ExitReasons = append(v.ExitReasons, rv)
		} else {
			v.Concerns = append(v.Concerns, rv)
		}
	}
	for _, ph := range catalog.TrialPhases {
		pv := web.TrialPhaseView{Phase: string(ph), LabelID: ph.LabelID()}
		for _, ck := range catalog.TrialChecks {
			if ck.Phase != ph {
				continue
			}
			cv := web.TrialCheckView{Number: ck.Number, Key: ck.Key, LabelID: ck.LabelID, LeaveOnFailure: ck.LeaveOnFailure,
				Latest: web.TrialRecordView{State: string(trial.Pending)}, History: history[ck.Number]}
			if r, ok := latest[ck.Number]; ok {
				cv.Latest, cv.Recorded = trialRecordView(tr, r), true
			}
			cv.Form = web.TrialCheckForm{State: cv.Latest.State, Errors: web.Errors{}}
			pv.Checks = append(pv.Checks, cv)
		}
		v.Phases = append(v.Phases, pv)
	}

	for _, p := range pastes {
		pv := web.TrialPasteView{ID: p.ID, Format: tr.T("trials.format." + p.Format), Samples: p.Samples, Output: p.Output,
			RecordedBy: p.RecordedByName, RecordedAt: trialTime(p.RecordedAt)}
		for _, ch := range p.Checks {
			cv := web.TrialPasteCheckView{TrialCheck: ch.TrialCheck, Outcome: ch.Outcome, Text: tr.TMap(ch.MessageID, ch.Args)}
			if ck, ok := trial.Check(ch.TrialCheck); ok {
				cv.TrialLabelID = ck.LabelID
			} else {
				cv.TrialCheck = 0
			}
			if !slices.Contains([]string{"pass", "fail", "unknown"}, cv.Outcome) {
				cv.Outcome = "unknown"
			}
			pv.Checks = append(pv.Checks, cv)
		}
		v.Pastes = append(v.Pastes, pv)
	}

	hundred := decimal.NewFromInt(100)
	pct := func(r decimal.Decimal) string {
		return tr.T("calc.result.percent", "Value", money.Fixed(r.Mul(hundred), 2))
	}
	for _, p := range perfs {
		pv := web.TrialPerfView{ID: p.ID, PrecisionID: perfLabelID(p.Precision), Measured: web.SpecNumber(p.MeasuredTFLOPS),
			Benchmark: p.Benchmark, Nominal: web.SpecNumber(p.NominalTFLOPS), Sparse: p.Sparse, Basis: p.Basis,
			BasisTFLOPS: web.SpecNumber(p.BasisTFLOPS), RatioPct: pct(p.Ratio), NominalPct: pct(p.RatioToNominal),
			Threshold: money.Fixed(p.ThresholdTFLOPS, 2), Below: p.Below, Verdict: tr.TMap(p.Message.MessageID, p.Message.Args),
			Note: p.Note, RecordedBy: p.RecordedByName, RecordedAt: trialTime(p.RecordedAt)}
		if p.ReferenceTFLOPS.Valid {
			pv.Reference = web.SpecNumber(p.ReferenceTFLOPS.Decimal)
		}
		v.Perfs = append(v.Perfs, pv)
	}
	v.PerfForm = web.TrialPerfForm{Precisions: perfOptions(tr, g), Errors: web.Errors{}}
	v.PerfAvailable = len(v.PerfForm.Precisions) > 0
	if v.PerfAvailable {
		v.PerfForm.Precision = v.PerfForm.Precisions[0].Value
		if p, ok := g.PerfFor("bf16"); ok {
			v.PerfForm.Precision = p.Precision // the precision the guides measure in
		}
	}
	return v, nil
}

// trialRecordCheck is POST /trials/:id/checks: records one check's result
// with its evidence. A day-1 failure turns the verdict to exit at once.
func (s *Server) trialRecordCheck(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.FormValue("check"))
	ck, ok := trial.Check(n)
	if err != nil || !ok {
		return echo.NewHTTPError(http.StatusBadRequest)
	}
	errs := web.Errors{}
	form := web.TrialCheckForm{State: c.FormValue("state"), Errors: errs, Open: true}
	st := trial.State(form.State)
	if !st.Valid() {
		errs.Set("state", "trials.error.state")
	}
	form.Note = trialText(c.FormValue("note"), errs, "note", checkMaxNote)
	form.Measured = trialText(c.FormValue("measured"), errs, "measured", checkMaxMeasured)
	form.Output = trialOutput(c.FormValue("output"))
	if utf8.RuneCountInString(form.Output) > checkMaxOutput {
		errs.Set("output", "trials.error.output_too_long")
	}
	// A failure names its reason: the verdict quotes it.
	if st == trial.Fail && form.Note == "" && form.Measured == "" && strings.TrimSpace(form.Output) == "" {
		errs.Set("note", "trials.error.evidence_required")
	}
	if len(errs) > 0 {
		return s.renderTrial(c, http.StatusUnprocessableEntity, id, func(v *web.TrialView) {
			for i := range v.Phases {
				for j := range v.Phases[i].Checks {
					if v.Phases[i].Checks[j].Number == ck.Number {
						v.Phases[i].Checks[j].Form = form
					}
				}
			}
		})
	}
	before, err := s.store.TrialByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	after, err := s.store.RecordTrialResults(c.Request().Context(), s.actor(c), id, nil, []trial.Record{{
		Check: ck.Number, State: st, Note: form.Note, Output: form.Output, Measured: form.Measured}})
	if err != nil {
		return err
	}
	target := web.TrialURL(id) + "#check-" + strconv.Itoa(ck.Number)
	if after.Verdict == trial.Exit && before.Verdict != trial.Exit {
		return s.redirectWithFlash(c, target, "error", "trials.flash.exit", "Number", strconv.Itoa(ck.Number))
	}
	return s.redirectWithFlash(c, target, "ok", "trials.flash.recorded", "Number", strconv.Itoa(ck.Number))
}

// trialRecordsFromChecks turns internal/verify's checks into results of
// the acceptance checks they evidence: several verify checks may evidence
// one acceptance check (power, clock and throttle reasons all evidence
// check 11), so one failing fails it, otherwise one passing passes it;
// when all say "unknown" the check is left as it is. The reasons recorded
// are those of the checks that decided it.
func trialRecordsFromChecks(checks []verify.Check) (recs []trial.Record, failed int) {
	type acc struct {
		fail, pass []trial.Reason
	}
	by := map[int]*acc{}
	for _, ch := range checks {
		if _, ok := trial.Check(ch.TrialCheck); !ok {
			continue
		}
		a := by[ch.TrialCheck]
		if a == nil {
			a = &acc{}
			by[ch.TrialCheck] = a
		}
		r := trial.Reason{MessageID: ch.MessageID, Args: ch.Args}
		switch ch.Outcome {
		case verify.OutcomeFail:
			a.fail = append(a.fail, r)
		case verify.OutcomePass:
			a.pass = append(a.pass, r)
		}
	}
	for _, ck := range catalog.TrialChecks {
		a := by[ck.Number]
		switch {
		case a == nil:
		case len(a.fail) > 0:
			recs = append(recs, trial.Record{Check: ck.Number, State: trial.Fail, Reasons: a.fail})
			failed++
		case len(a.pass) > 0:
			recs = append(recs, trial.Record{Check: ck.Number, State: trial.Pass, Reasons: a.pass})
		}
	}
	return recs, failed
}

// trialNvidiaSMI is POST /trials/:id/nvidia-smi: pasted nvidia-smi output
// is read by internal/verify (the same code as the JSON API) against the
// GPU model's figures; every acceptance check it decides is recorded with
// the reasons, and a day-1 failure turns the verdict to exit.
func (s *Server) trialNvidiaSMI(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	tr := t(c)
	output := c.FormValue("output")
	fail := func(msg string) error {
		return s.renderTrial(c, http.StatusUnprocessableEntity, id, func(v *web.TrialView) {
			v.NvidiaSMI = web.NvidiaSMIForm{Output: output, Error: msg}
		})
	}
	if strings.TrimSpace(output) == "" {
		return fail(tr.T("trials.nvsmi.required"))
	}
	before, err := s.store.TrialByID(ctx, id)
	if err != nil {
		return err
	}
	rep, err := verify.Parse(output)
	var pe *verify.ParseError
	switch {
	case errors.As(err, &pe):
		return fail(tr.TMap(pe.MessageID, pe.Args))
	case err != nil:
		return err
	}
	g, err := s.store.GPUModelByID(ctx, before.GPUModelID)
	if err != nil {
		return err
	}
	checks := verify.Evaluate(rep, verifySpec(g)) // the JSON API's spec and checks (verify.go)
	paste := &trial.Paste{Output: output, Format: string(rep.Format), Samples: len(rep.Samples)}
	for _, ch := range checks {
		paste.Checks = append(paste.Checks, trial.PasteCheck{Key: ch.Key, TrialCheck: ch.TrialCheck,
			Outcome: string(ch.Outcome), MessageID: ch.MessageID, Args: ch.Args})
	}
	recs, failed := trialRecordsFromChecks(checks)
	after, err := s.store.RecordTrialResults(ctx, s.actor(c), id, paste, recs)
	if err != nil {
		return err
	}
	target := web.TrialURL(id) + "#nvidia-smi"
	counts := []string{"Samples", strconv.Itoa(len(rep.Samples)), "Decided", strconv.Itoa(len(recs)), "Failed", strconv.Itoa(failed)}
	switch {
	case after.Verdict == trial.Exit && before.Verdict != trial.Exit:
		return s.redirectWithFlash(c, target, "error", "trials.flash.nvsmi_exit", counts...)
	case len(recs) == 0:
		return s.redirectWithFlash(c, target, "ok", "trials.flash.nvsmi_none", counts...)
	case failed > 0:
		return s.redirectWithFlash(c, target, "error", "trials.flash.nvsmi", counts...)
	}
	return s.redirectWithFlash(c, target, "ok", "trials.flash.nvsmi", counts...)
}

// trialPerformance is POST /trials/:id/performance: a measured TFLOPS
// figure, judged by the 85 % rule against the catalog's reference measured
// figure for the precision where there is one, else its nominal figure
// (internal/verify). The newest ratio of the platform × GPU model feeds
// comparisons.
func (s *Server) trialPerformance(c echo.Context) error {
	id, err := specPathID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	tl, err := s.store.TrialByID(ctx, id)
	if err != nil {
		return err
	}
	g, err := s.store.GPUModelByID(ctx, tl.GPUModelID)
	if err != nil {
		return err
	}
	errs := web.Errors{}
	form := web.TrialPerfForm{Precision: c.FormValue("precision"), Measured: strings.TrimSpace(c.FormValue("measured")), Errors: errs}
	perf, ok := g.PerfFor(form.Precision)
	if !ok {
		errs.Set("precision", "trials.error.precision")
	}
	measured := specDecimal(form.Measured, errs, "measured", 3, perfMaxTFLOPS, true)
	form.Benchmark = trialText(c.FormValue("benchmark"), errs, "benchmark", perfMaxBenchmark)
	if form.Benchmark == "" {
		errs.Set("benchmark", "form.required")
	}
	form.Note = trialText(c.FormValue("note"), errs, "note", perfMaxNote)
	if len(errs) > 0 {
		return s.renderTrial(c, http.StatusUnprocessableEntity, id, func(v *web.TrialView) {
			form.Precisions = v.PerfForm.Precisions
			v.PerfForm = form
		})
	}
	m := measured.Decimal
	verdict := verify.Performance(m, perf.NominalTFLOPS, perf.MeasuredTFLOPS)
	// The stored ratios are computed here from the exact figures (the
	// verdict's are rounded to 4 places for reading) and cut to 6 places
	// by the store, so "below 85 %" is the same for the comparison's
	// engine as for the verdict.
	rec := trial.Perf{TrialID: id, Precision: perf.Precision, MeasuredTFLOPS: m, Benchmark: form.Benchmark,
		NominalTFLOPS: perf.NominalTFLOPS, Sparse: perf.Sparse, ReferenceTFLOPS: perf.MeasuredTFLOPS,
		Basis: verdict.Basis, BasisTFLOPS: verdict.BasisTFLOPS, Ratio: m.DivRound(verdict.BasisTFLOPS, 20),
		RatioToNominal: m.DivRound(perf.NominalTFLOPS, 20), ThresholdTFLOPS: verdict.Threshold, Below: verdict.Below,
		Message: trial.Reason{MessageID: verdict.MessageID, Args: verdict.Args}, Note: form.Note}
	if _, err := s.store.RecordTrialPerf(ctx, s.actor(c), rec); err != nil {
		return err
	}
	target := web.TrialURL(id) + "#performance"
	if verdict.Below {
		return s.redirectWithFlash(c, target, "error", "trials.flash.perf_below")
	}
	return s.redirectWithFlash(c, target, "ok", "trials.flash.perf")
}
