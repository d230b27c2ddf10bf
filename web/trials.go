package web

import (
	"context"
	"strconv"
	"strings"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/trial"
	"gpuquote/internal/verify"
)

// TrialRow is one line of the trial list.
type TrialRow struct {
	ID        int64
	Platform  string
	GPU       string
	QuoteName string
	QuoteURL  string
	StartedOn string
	// Verdict is one of trial.Verdicts.
	Verdict string
	// Done is the number of the 30 checks decided.
	Done int
	// Perf is the newest performance measurement's verdict: "below",
	// "ok" or "" when none was recorded.
	Perf string
}

// URL is the trial's page.
func (r TrialRow) URL() string { return TrialURL(r.ID) }

// TrialURL is the page of trial id.
func TrialURL(id int64) string { return "/trials/" + strconv.FormatInt(id, 10) }

// TrialListView is the trial list's view model.
type TrialListView struct {
	Page  Page
	Rows  []TrialRow
	Pager Pager
	// Platforms, GPUs and Verdicts are the filters' choices; Platform,
	// GPU, Verdict and Quote the chosen values.
	Platforms []Option
	GPUs      []Option
	Verdicts  []Option
	Platform  string
	GPU       string
	Verdict   string
	Quote     string
	// QuoteName names the quote the list is narrowed to, if any.
	QuoteName string
	// Filtered is set when any filter is on (the empty state differs).
	Filtered bool
}

// TrialForm is the state of the form that opens a trial.
type TrialForm struct {
	Page Page
	// QuoteID is the quote as typed; QuoteName and QuoteURL name it when
	// it is a published quote.
	QuoteID   string
	QuoteName string
	QuoteURL  string
	StartedOn string
	Note      string
	Errors    Errors
}

// TrialProgress is one phase's counts on a trial page.
type TrialProgress struct {
	Phase   string
	LabelID string
	Total   int
	Pass    int
	Fail    int
	NA      int
	Pending int
}

// Done is the number of the phase's checks decided.
func (p TrialProgress) Done() int { return p.Pass + p.Fail + p.NA }

// TrialReasonView is a failed check named as the verdict's reason: which
// check and its evidence.
type TrialReasonView struct {
	Number  int
	LabelID string
	// Evidence is the latest recording's note, measured figure and the
	// reasons read from pasted output, already in the reader's language.
	Evidence []string
}

// TrialRecordView is one recording of a check.
type TrialRecordView struct {
	State    string
	Note     string
	Output   string
	Measured string
	// Reasons are internal/verify's reasons, in the reader's language.
	Reasons []string
	// PasteID is the pasted output the result was read from, 0 for none.
	PasteID    int64
	RecordedBy string
	RecordedAt string
	// Output holds only the start of a longer output when Truncated: the
	// whole is at OutputURL, OutputChars characters (docs/RULES.md §16.3).
	Truncated   bool
	OutputChars int
	OutputURL   string
}

// TrialCheckForm is the state of one check's recording form.
type TrialCheckForm struct {
	State    string
	Note     string
	Output   string
	Measured string
	Errors   Errors
	// Open shows the form unfolded (it came back with errors).
	Open bool
}

// TrialCheckView is one of the 30 checks on a trial page.
type TrialCheckView struct {
	Number         int
	Key            string
	LabelID        string
	LeaveOnFailure bool
	// Latest is the check's state (its newest recording); Recorded says
	// there is one.
	Latest   TrialRecordView
	Recorded bool
	// History is every older recording, newest first.
	History []TrialRecordView
	Form    TrialCheckForm
}

// TestID is the check's data-testid.
func (c TrialCheckView) TestID() string { return "check-" + strconv.Itoa(c.Number) }

// Anchor is the check's element id.
func (c TrialCheckView) Anchor() string { return "check-" + strconv.Itoa(c.Number) }

// TrialPhaseView is one phase's checks.
type TrialPhaseView struct {
	Phase   string
	LabelID string
	Checks  []TrialCheckView
}

// TrialPasteCheckView is one check internal/verify made of pasted output.
type TrialPasteCheckView struct {
	// TrialCheck is the acceptance check it decides, 0 for none.
	TrialCheck int
	// TrialLabelID is that check's wording.
	TrialLabelID string
	// Outcome is "pass", "fail" or "unknown".
	Outcome string
	Text    string
}

// TrialPasteView is pasted nvidia-smi output and what was read from it.
// Output is the start the page shows (empty for a folded paste); the
// whole output, Size long, is at URL (docs/RULES.md §16.3).
type TrialPasteView struct {
	ID         int64
	Format     string
	Samples    int
	Output     string
	Truncated  bool
	Size       string
	URL        string
	Checks     []TrialPasteCheckView
	RecordedBy string
	RecordedAt string
}

// TrialPasteURL is the page of the whole output of a paste.
func TrialPasteURL(trialID, pasteID int64) string {
	return TrialURL(trialID) + "/pastes/" + strconv.FormatInt(pasteID, 10)
}

// TrialResultOutputURL is the page of the whole output of a recording.
func TrialResultOutputURL(trialID, resultID int64) string {
	return TrialURL(trialID) + "/results/" + strconv.FormatInt(resultID, 10) + "/output"
}

// NvidiaSMIForm is the state of the paste form. Error is already in the
// reader's language (a parse error names its line).
type NvidiaSMIForm struct {
	Output string
	Error  string
}

// TrialPerfView is one performance measurement and the 85 % rule's verdict.
type TrialPerfView struct {
	ID          int64
	PrecisionID string
	Measured    string
	Benchmark   string
	Nominal     string
	Sparse      bool
	Reference   string
	// Basis is "reference" or "nominal"; BasisTFLOPS its figure.
	Basis       string
	BasisTFLOPS string
	// RatioPct and NominalPct are measured ÷ basis and ÷ nominal, as
	// percentages; Threshold is 85 % of the basis.
	RatioPct   string
	NominalPct string
	Threshold  string
	Below      bool
	// Trusted says the measurement feeds comparisons (docs/RULES.md §16.3).
	Trusted bool
	// Verdict is the verdict in the reader's language.
	Verdict    string
	Note       string
	RecordedBy string
	RecordedAt string
}

// TrialPerfForm is the state of the performance form.
type TrialPerfForm struct {
	Precision  string
	Measured   string
	Benchmark  string
	Note       string
	Precisions []Option
	Errors     Errors
}

// TrialView is the trial page's view model.
type TrialView struct {
	Page       Page
	ID         int64
	Title      string
	Platform   string
	PlatformID int64
	GPU        string
	GPUModelID int64
	QuoteName  string
	QuoteURL   string
	StartedOn  string
	// Day is the trial day today (1 on the start date); 0 before it.
	Day       int
	Note      string
	CreatedBy string
	Verdict   string
	// ExitReasons are the failed day-1 checks (verdict exit), Concerns the
	// failed later ones.
	ExitReasons []TrialReasonView
	Concerns    []TrialReasonView
	Progress    []TrialProgress
	Phases      []TrialPhaseView
	States      []Option
	NvidiaSMI   NvidiaSMIForm
	// Pastes are the newest trial.OpenPastes pastes, shown open;
	// OlderPastes the rest, folded, without their text.
	Pastes      []TrialPasteView
	OlderPastes []TrialPasteView
	// CanWrite says the reader may record on this trial; Writers says who
	// may (docs/RULES.md §16.3).
	CanWrite bool
	Writers  string
	// Budget is the evidence budget's use, in the reader's language;
	// BudgetFull says no further paste fits.
	Budget     string
	BudgetFull bool
	PerfForm   TrialPerfForm
	Perfs      []TrialPerfView
	// PerfAvailable says the GPU model has catalog figures to compare with.
	PerfAvailable bool
	// Availability is the box of attempts to get the trial's platform × GPU
	// model's instances (docs/RULES.md §18.2).
	Availability *AvailabilityPanel
}

// Action is the URL a trial form posts to.
func (v TrialView) Action(suffix string) string { return TrialURL(v.ID) + "/" + suffix }

// TrialsOfPlatformURL lists the trials of a platform.
func TrialsOfPlatformURL(id int64) string { return "/trials?platform=" + strconv.FormatInt(id, 10) }

// verdictClass is the badge class of a verdict.
func verdictClass(v string) string {
	switch v {
	case "pass":
		return "badge badge-yes"
	case "exit":
		return "badge badge-no"
	case "concerns":
		return "badge badge-warn"
	}
	return "badge badge-unknown"
}

// stateClass is the badge class of a check state.
func stateClass(s string) string {
	switch s {
	case "pass":
		return "badge badge-yes"
	case "fail":
		return "badge badge-no"
	case "na":
		return "badge badge-off"
	}
	return "badge badge-unknown"
}

// outcomeClass is the badge class of a verify outcome.
func outcomeClass(o string) string {
	switch o {
	case "pass":
		return "badge badge-yes"
	case "fail":
		return "badge badge-no"
	}
	return "badge badge-unknown"
}

// trialDayText says which day of the 7-day trial today is.
func trialDayText(ctx context.Context, day int) string {
	switch {
	case day < 1:
		return T(ctx, "trials.detail.not_started")
	case day > 7:
		return T(ctx, "trials.detail.day_after", "Day", strconv.Itoa(day))
	}
	return T(ctx, "trials.detail.day", "Day", strconv.Itoa(day))
}

// nvsmiCommand is the capture the trial page asks for, idle and under
// load alike: the recommended column order, with its header, every second
// (docs/RULES.md §9.3).
func nvsmiCommand() string {
	return "nvidia-smi --query-gpu=" + verify.Query() + " --format=csv -l 1"
}

// nvsmiOrders are the column orders header-less CSV may have.
func nvsmiOrders() []string { return verify.NoHeaderOrderList() }

// previewChars is how many characters of an output a trial page shows
// (docs/RULES.md §16.3), as the page writes the number.
func previewChars() string { return groupInt(trial.PreviewChars) }

// groupInt writes a count with thousands grouped (docs/RULES.md §1.5).
func groupInt(n int) string { return money.Group(strconv.Itoa(n)) }

// budgetClass is the class of the evidence budget line: a warning once
// no further paste fits.
func budgetClass(full bool) string {
	if full {
		return "alert alert-warn"
	}
	return "hint"
}

// TrialListRecords is one page of the trial list with its filters: a
// platform, a GPU model and a quote id (0: any), a verdict ("" any), and
// the quote filtered on when it exists.
type TrialListRecords struct {
	PlatformID, GPUModelID, QuoteID int64
	Verdict                         trial.Verdict
	Quote                           *quote.Quote
	Trials                          []trial.Trial
	Platforms, GPUs                 []market.RefName
	Page, PerPage, Total            int
}

// NewTrialListView builds the trial list: its filters, its rows and its
// pager over the filters set.
func NewTrialListView(tr *i18n.Translator, in TrialListRecords) TrialListView {
	v := TrialListView{Platforms: RefOptions(tr.Lang, in.Platforms), GPUs: GPUOptions(in.GPUs), Verdict: string(in.Verdict)}
	for _, vd := range trial.Verdicts {
		v.Verdicts = append(v.Verdicts, Option{Value: string(vd), LabelID: vd.LabelID()})
	}
	filters := map[string]string{}
	if in.PlatformID > 0 {
		v.Platform = strconv.FormatInt(in.PlatformID, 10)
		filters["platform"] = v.Platform
	}
	if in.GPUModelID > 0 {
		v.GPU = strconv.FormatInt(in.GPUModelID, 10)
		filters["gpu"] = v.GPU
	}
	if in.QuoteID > 0 {
		v.Quote = strconv.FormatInt(in.QuoteID, 10)
		filters["quote"] = v.Quote
		if in.Quote != nil {
			v.QuoteName = QuoteName(tr, *in.Quote)
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
	v.Filtered = len(filters) > 0 || in.Total > 0
	v.Pager = Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: base}
	for _, t := range in.Trials {
		v.Rows = append(v.Rows, NewTrialRow(tr, t))
	}
	return v
}
