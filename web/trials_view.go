package web

import (
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/trial"
)

// The view models of trials, built from a trial's records.

// TrialTime formats a recording time as the pages do (UTC).
func TrialTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

// TrialQuoteName names a trial's quote: its version and label.
func TrialQuoteName(tr *i18n.Translator, t trial.Trial) string {
	name := tr.T("quote.version_short", "Version", strconv.Itoa(t.QuoteVersion))
	if t.QuoteLabel != "" {
		name += " · " + t.QuoteLabel
	}
	return name
}

// NewTrialRow is one line of the trial list.
func NewTrialRow(tr *i18n.Translator, t trial.Trial) TrialRow {
	r := TrialRow{ID: t.ID, Platform: DisplayName(tr.Lang, t.PlatformNameZH, t.PlatformNameEN),
		GPU: t.GPUVendor + " " + t.GPUName, QuoteName: TrialQuoteName(tr, t), QuoteURL: "/quotes/" + strconv.FormatInt(t.QuoteID, 10),
		StartedOn: FormatDate(t.StartedOn), Verdict: string(t.Verdict), Done: t.Done}
	if t.PerfBelow != nil {
		r.Perf = "ok"
		if *t.PerfBelow {
			r.Perf = "below"
		}
	}
	return r
}

// reasonTexts renders reasons from internal/verify in the reader's
// language.
func reasonTexts(tr *i18n.Translator, rs []trial.Reason) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, tr.TMap(r.MessageID, r.Args))
	}
	return out
}

// recordView shows one recording, its output cut to trial.PreviewChars
// characters (docs/RULES.md §16.3).
func recordView(tr *i18n.Translator, r trial.Result) TrialRecordView {
	v := TrialRecordView{State: string(r.State), Note: r.Note, Measured: r.Measured,
		Reasons: reasonTexts(tr, r.Reasons), PasteID: r.PasteID, RecordedBy: r.RecordedByName, RecordedAt: TrialTime(r.RecordedAt)}
	v.Output, v.Truncated = trial.Preview(r.Output, trial.PreviewChars)
	if v.Truncated {
		v.OutputChars, v.OutputURL = r.OutputChars, TrialResultOutputURL(r.TrialID, r.ID)
	}
	return v
}

// TrialWriters says who may record on a trial opened by name (empty: by
// the system) (docs/RULES.md §16.3).
func TrialWriters(tr *i18n.Translator, name string) string {
	if name == "" {
		return tr.T("trials.writers.no_owner")
	}
	return tr.T("trials.writers", "Name", name)
}

// TrialBudgetRefused says why a paste of n bytes does not fit a trial
// that has used u of its evidence budget (docs/RULES.md §16.3).
func TrialBudgetRefused(tr *i18n.Translator, u trial.Use, n int64) string {
	return tr.T("trials.budget.refused", "Pastes", strconv.Itoa(u.Pastes), "MaxPastes", strconv.Itoa(trial.MaxPastes),
		"Used", ByteSize(u.Bytes), "MaxSize", ByteSize(trial.MaxPasteBytes), "Size", ByteSize(n))
}

// evidence is a failed check's evidence as the verdict names it.
func evidence(tr *i18n.Translator, r trial.Result) []string {
	var out []string
	if r.Measured != "" {
		out = append(out, tr.T("trials.field.measured")+": "+r.Measured)
	}
	if r.Note != "" {
		out = append(out, r.Note)
	}
	out = append(out, reasonTexts(tr, r.Reasons)...)
	if len(out) == 0 && r.Output != "" {
		out = append(out, tr.T("trials.evidence.output"))
	}
	return out
}

// perfOptions are the precisions the GPU model has catalog figures for,
// labelled with them.
func perfOptions(tr *i18n.Translator, g market.GPUModel) []Option {
	var out []Option
	for _, p := range g.Perf {
		args := []any{"Precision", tr.T(PerfLabelID(p.Precision)), "Nominal", specNumber(p.NominalTFLOPS)}
		id := "trials.perf.option"
		if p.Sparse {
			id += "_sparse"
		}
		if p.MeasuredTFLOPS.Valid {
			id += "_reference"
			args = append(args, "Reference", specNumber(p.MeasuredTFLOPS.Decimal))
		}
		out = append(out, Option{Value: p.Precision, Label: tr.T(id, args...)})
	}
	return out
}

// TrialRecords is everything a trial's page shows: the trial, its GPU
// model's catalog figures, and every recording (results oldest first,
// pastes and performance measurements newest first).
type TrialRecords struct {
	Trial   trial.Trial
	GPU     market.GPUModel
	Results []trial.Result
	Pastes  []trial.Paste
	Perfs   []trial.Perf
	Today   time.Time
	// Use is the trial's evidence budget use; CanWrite says the reader may
	// record on the trial.
	Use      trial.Use
	CanWrite bool
}

// NewTrialView is a trial's page: progress and verdict from the latest
// recording of each check (trial.Latest), the checks by phase with their
// history, the pasted output and the performance measurements.
func NewTrialView(tr *i18n.Translator, in TrialRecords) TrialView {
	tl := in.Trial
	platform := DisplayName(tr.Lang, tl.PlatformNameZH, tl.PlatformNameEN)
	gpu := tl.GPUVendor + " " + tl.GPUName
	v := TrialView{ID: tl.ID, Platform: platform, PlatformID: tl.PlatformID, GPU: gpu, GPUModelID: tl.GPUModelID,
		QuoteURL: "/quotes/" + strconv.FormatInt(tl.QuoteID, 10), StartedOn: FormatDate(tl.StartedOn),
		Note: tl.Note, CreatedBy: tl.CreatedByName, Verdict: string(tl.Verdict), CanWrite: in.CanWrite}
	if !in.CanWrite {
		v.Writers = TrialWriters(tr, tl.CreatedByName)
	}
	v.BudgetFull = in.Use.Full()
	v.Budget = tr.T("trials.budget.use", "Pastes", strconv.Itoa(in.Use.Pastes), "MaxPastes", strconv.Itoa(trial.MaxPastes),
		"Used", ByteSize(in.Use.Bytes), "MaxSize", ByteSize(trial.MaxPasteBytes))
	v.Title = tr.T("trials.detail.title", "ID", strconv.FormatInt(tl.ID, 10), "Platform", platform, "GPU", gpu)
	v.QuoteName = tr.T("quote.detail.title", "Platform", platform, "GPU", gpu, "Count", strconv.Itoa(tl.QuoteGPUCount)) +
		" · " + TrialQuoteName(tr, tl)
	if !in.Today.Before(tl.StartedOn) {
		v.Day = int(in.Today.Sub(tl.StartedOn).Hours()/24) + 1
	}
	for _, st := range trial.States {
		v.States = append(v.States, Option{Value: string(st), LabelID: st.LabelID()})
	}

	latest, older := trial.Latest(in.Results)
	states := trial.StatesOf(latest)
	for _, p := range trial.ProgressOf(states) {
		v.Progress = append(v.Progress, TrialProgress{Phase: string(p.Phase), LabelID: p.Phase.LabelID(),
			Total: p.Total, Pass: p.Pass, Fail: p.Fail, NA: p.NA, Pending: p.Pending})
	}
	for _, ck := range trial.Failed(states, false) {
		rv := TrialReasonView{Number: ck.Number, LabelID: ck.LabelID, Evidence: evidence(tr, latest[ck.Number])}
		if ck.LeaveOnFailure {
			v.ExitReasons = append(v.ExitReasons, rv)
		} else {
			v.Concerns = append(v.Concerns, rv)
		}
	}
	for _, ph := range catalog.TrialPhases {
		pv := TrialPhaseView{Phase: string(ph), LabelID: ph.LabelID()}
		for _, ck := range catalog.TrialChecks {
			if ck.Phase != ph {
				continue
			}
			cv := TrialCheckView{Number: ck.Number, Key: ck.Key, LabelID: ck.LabelID, LeaveOnFailure: ck.LeaveOnFailure,
				Latest: TrialRecordView{State: string(trial.Pending)}}
			for _, r := range older[ck.Number] {
				cv.History = append(cv.History, recordView(tr, r))
			}
			if r, ok := latest[ck.Number]; ok {
				cv.Latest, cv.Recorded = recordView(tr, r), true
			}
			cv.Form = TrialCheckForm{State: cv.Latest.State, Errors: Errors{}}
			pv.Checks = append(pv.Checks, cv)
		}
		v.Phases = append(v.Phases, pv)
	}

	for i, p := range in.Pastes {
		pv := TrialPasteView{ID: p.ID, Format: tr.T("trials.format." + p.Format), Samples: p.Samples, Size: ByteSize(p.Bytes),
			URL: TrialPasteURL(tl.ID, p.ID), RecordedBy: p.RecordedByName, RecordedAt: TrialTime(p.RecordedAt)}
		if i < trial.OpenPastes {
			pv.Output, pv.Truncated = trial.Preview(p.Output, trial.PreviewChars)
		}
		for _, ch := range p.Checks {
			cv := TrialPasteCheckView{TrialCheck: ch.TrialCheck, Outcome: ch.Outcome, Text: tr.TMap(ch.MessageID, ch.Args)}
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
		if i < trial.OpenPastes {
			v.Pastes = append(v.Pastes, pv)
		} else {
			v.OlderPastes = append(v.OlderPastes, pv)
		}
	}

	pct := func(r decimal.Decimal) string { return percent(tr, decimal.NewNullDecimal(r)) }
	for _, p := range in.Perfs {
		pv := TrialPerfView{ID: p.ID, PrecisionID: PerfLabelID(p.Precision), Measured: specNumber(p.MeasuredTFLOPS),
			Benchmark: p.Benchmark, Nominal: specNumber(p.NominalTFLOPS), Sparse: p.Sparse, Basis: p.Basis,
			BasisTFLOPS: specNumber(p.BasisTFLOPS), RatioPct: pct(p.Ratio), NominalPct: pct(p.RatioToNominal),
			Threshold: money.Fixed(p.ThresholdTFLOPS, 2), Below: p.Below, Trusted: p.Trusted, Verdict: tr.TMap(p.Message.MessageID, p.Message.Args),
			Note: p.Note, RecordedBy: p.RecordedByName, RecordedAt: TrialTime(p.RecordedAt)}
		if p.ReferenceTFLOPS.Valid {
			pv.Reference = specNumber(p.ReferenceTFLOPS.Decimal)
		}
		v.Perfs = append(v.Perfs, pv)
	}
	v.PerfForm = TrialPerfForm{Precisions: perfOptions(tr, in.GPU), Errors: Errors{}}
	v.PerfAvailable = len(v.PerfForm.Precisions) > 0
	if v.PerfAvailable {
		v.PerfForm.Precision = v.PerfForm.Precisions[0].Value
		if p, ok := in.GPU.PerfFor("bf16"); ok {
			v.PerfForm.Precision = p.Precision // the precision the guides measure in
		}
	}
	return v
}

// SetCheckForm puts back the form of check number as it was typed.
func (v *TrialView) SetCheckForm(number int, f TrialCheckForm) {
	for i := range v.Phases {
		for j := range v.Phases[i].Checks {
			if v.Phases[i].Checks[j].Number == number {
				v.Phases[i].Checks[j].Form = f
			}
		}
	}
}
