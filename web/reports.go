package web

import (
	"context"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/gzsplice"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/report"
	"gpuquote/internal/vendorq"
)

// ReportLink names another report: its number and revision, and where it is.
type ReportLink struct {
	Number   string
	Revision int
	URL      string
	Status   string
}

// ReportStatusLabelID is the catalog message of a report status.
func ReportStatusLabelID(status string) string { return "report.status." + status }

// ReportEventLabelID is the catalog message of a timeline action.
func ReportEventLabelID(action string) string { return "report.event." + action }

// modeText is a billing mode's label, or nothing when there is none.
func modeText(ctx context.Context, labelID string) string {
	if labelID == "" {
		return ""
	}
	return T(ctx, labelID)
}

// ReportSummaryView is the report's conclusion, formatted.
type ReportSummaryView struct {
	// HasRecommendation is false when no option is eligible.
	HasRecommendation bool
	Recommended       string
	RecommendedURL    string
	ChosenModeID      string
	TCO               string
	Pessimistic       string
	Range             string
	HasRange          bool
	UnconfirmedLines  int
	HasNext           bool
	Next              string
	Savings           string
	SavingsPct        string
	Eligible          int
	RuledOut          int
	// Risks are the recommended option's risk flags, translated.
	Risks []string
}

// ReportFact is one labelled value (the usage profile, the inputs).
type ReportFact struct {
	Label string
	Value string
}

// ReportQuestions are the questions one compared quote raised, as text.
type ReportQuestions struct {
	ID   int64
	Name string
	Text string
}

// ReportLetter is one letter of vendor questions: for one quote, or for
// several whose questions are word for word the same.
type ReportLetter struct {
	// ID is the first quote's; Name names every quote the letter is for,
	// joined by the list separator.
	ID   int64
	Name string
	Text string
	// Quotes counts the quotes.
	Quotes int
}

// Letters are the report's questions as letters, one per distinct set of
// questions (vendorq.MergeLetters), in the order of the quotes; sep joins
// the names of a merged letter's quotes.
func (v ReportView) Letters(sep string) []ReportLetter {
	texts := make([]string, len(v.Questions))
	for i, q := range v.Questions {
		texts[i] = q.Text
	}
	merged, members := vendorq.MergeLetters(texts)
	out := make([]ReportLetter, len(merged))
	for k, text := range merged {
		names := make([]string, len(members[k]))
		for j, i := range members[k] {
			names[j] = v.Questions[i].Name
		}
		out[k] = ReportLetter{ID: v.Questions[members[k][0]].ID, Name: strings.Join(names, sep), Text: text, Quotes: len(names)}
	}
	return out
}

// ReportChangeRow is what recomputing changed for one quote offer.
type ReportChangeRow struct {
	Name                        string
	Added, Removed              bool
	OldVersion, NewVersion      string
	VersionChanged              bool
	OldRate, NewRate            string
	RateChanged                 bool
	OldModeID, NewModeID        string
	ModeChanged                 bool
	OldTCO, NewTCO, TCODelta    string
	OldPess, NewPess, PessDelta string
	Changed                     bool
}

// ReportChanges compares a recomputed report with the one it recomputes.
type ReportChanges struct {
	From         ReportLink
	OldDate      string
	NewDate      string
	RulesChanged bool
	RefsChanged  bool
	Rows         []ReportChangeRow
	// Own are the own-hardware options' changes (docs/RULES.md §11.7).
	Own []ReportOwnChangeRow
}

// ReportOwnChangeRow is what recomputing changed for one own-hardware
// option: its version, the electricity price and the confirmed TCO.
type ReportOwnChangeRow struct {
	Name                           string
	Added, Removed                 bool
	OldVersion, NewVersion         string
	VersionChanged                 bool
	OldElectricity, NewElectricity string
	ElectricityChanged             bool
	OldTCO, NewTCO, TCODelta       string
	Changed                        bool
}

// ReportEventView is one entry of a report's timeline.
type ReportEventView struct {
	At       string
	Actor    string
	ActionID string
	FromID   string
	ToID     string
	Comment  string
	Related  *ReportLink
	// Revision is the revision whose timeline this is; Current: the
	// revision on screen.
	Revision int
	Current  bool
}

// ReportView is a saved report's page: the facts, the summary, the full
// comparison as frozen, the timeline and the actions the reader may take.
type ReportView struct {
	// FrozenHTML, when set, is ReportFrozen already rendered for this
	// report in the reader's language: a pure function of the snapshot, so
	// a server may render it once and keep it (docs/RULES.md §20.2), with
	// its compression (§20.5).
	FrozenHTML *gzsplice.Block
	// NotReviewed names the quotes the report froze while they were
	// proposals no editor had reviewed (docs/RULES.md §18.1); "" when none.
	NotReviewed string
	// ScenarioChanges are what usage profile B changed, when the report
	// froze one.
	ScenarioChanges []ReportFact
	Page            Page
	ID              int64
	Number          string
	Revision        int
	Title           string
	Purpose         string
	Status          string
	Author          string
	CreatedAt       string
	SubmittedAt     string
	DecidedAt       string
	DecidedBy       string
	Decision        string
	FiguresDate     string
	RulesVersion    string
	ReportCurrency  string
	QuoteCount      int

	// Bills are the report's bills by month (docs/RULES.md §23.8).
	Bills BillsSection

	PreviousRevision *ReportLink
	NextRevision     *ReportLink
	RecomputedFrom   *ReportLink
	RecomputedInto   []ReportLink

	CanSubmit  bool
	CanEdit    bool
	CanDecide  bool
	OwnPending bool // submitted, the reader is finance but the author
	CanRevise  bool
	// ReviseCompareURL reopens the comparison to revise it with changes.
	ReviseCompareURL string
	CSVURL           string
	XLSXURL          string
	CompareURL       string

	Summary         ReportSummaryView
	Profile         []ReportFact
	VRAMFloor       string
	FXNotes         []string
	ReferencePrices []string
	Rows            []CompareRow
	ItemLabelIDs    []string
	CurvesSVG       string
	BarsSVG         string
	Crossings       []CrossingView
	// Own are the own-hardware options the report froze (docs/RULES.md
	// §11.7); none for a report without any.
	Own []ReportOwnRow
	// Availability is each row's platform × GPU model's availability as
	// frozen (docs/RULES.md §18.2); none for a report without it.
	Availability    []CompareAvailabilityRow
	AvailabilityDay string
	// Facts are the compared platforms' facts as frozen (docs/RULES.md
	// §18.3); none for a report saved before reports kept them.
	Facts     []CompareFactsPlatform
	Questions []ReportQuestions
	Changes   *ReportChanges
	Timeline  []ReportEventView

	// Form state of the actions (after a 422): values and errors.
	Form   url.Values
	Errors Errors
	// Conflict says the action lost to a concurrent one (409).
	Conflict bool
}

// FormValue is a submitted value of an action's form, or def.
func (v ReportView) FormValue(name, def string) string {
	if v.Form != nil {
		if _, ok := v.Form[name]; ok {
			return v.Form.Get(name)
		}
	}
	return def
}

// NumberLabel is the report number with its revision after the first.
func (v ReportView) NumberLabel() ReportLink {
	return ReportLink{Number: v.Number, Revision: v.Revision}
}

// ReportListRow is one report of a list.
type ReportListRow struct {
	ID          int64
	Number      string
	Revision    int
	Title       string
	Status      string
	Author      string
	Own         bool
	CreatedAt   string
	SubmittedAt string
	Currency    string
	Recommended string
	QuoteCount  int
	URL         string
}

// ReportListView is the report list (and the finance inbox).
type ReportListView struct {
	Page      Page
	Inbox     bool
	Rows      []ReportListRow
	Pager     Pager
	Filter    url.Values
	Statuses  []Option
	Authors   []Option
	Platforms []Option
	Errors    Errors
}

// HiddenValue is one name/value pair carried through a form.
type HiddenValue struct {
	Name  string
	Value string
}

// ReportNewView is the "save as report" form: the comparison's state in
// hidden fields, a preview of what will be frozen, title and purpose.
type ReportNewView struct {
	Page     Page
	State    []HiddenValue
	Title    string
	Purpose  string
	Errors   Errors
	Problems []string // translated problems of the comparison itself
	// Revisable are the reader's returned reports this may revise;
	// ReviseOfID is the one chosen (0: a new report).
	Revisable   []Option
	ReviseOfID  int64
	BackURL     string
	Currency    string
	QuoteCount  int
	Summary     ReportSummaryView
	FiguresDate string
	// Own are the names of the own-hardware options the report freezes
	// beside the quotes; ScenarioChanges what its usage profile B changes.
	Own             []string
	ScenarioChanges []ReportFact
}

// reportStateKey says whether k is one of the comparison page's fields a
// report keeps: everything that decides what is on screen (the usage
// profile and profile B's changes, the report currency, the quotes and
// own-hardware options ticked, the order), not the candidate filters
// (docs/RULES.md §11.1).
func reportStateKey(k string) bool {
	return compare.IsStateField(k) && !compare.IsFilterField(k)
}

// ReportState returns the comparison's state a report keeps, as sorted
// hidden fields.
func ReportState(values url.Values) []HiddenValue {
	keys := make([]string, 0, len(values))
	for k := range values {
		if reportStateKey(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var out []HiddenValue
	for _, k := range keys {
		for _, v := range values[k] {
			if v != "" {
				out = append(out, HiddenValue{Name: k, Value: v})
			}
		}
	}
	return out
}

// reportNewURL links from the comparison to the "save as report" form.
func reportNewURL(values url.Values) string {
	q := url.Values{}
	for _, h := range ReportState(values) {
		q.Add(h.Name, h.Value)
	}
	if id, err := strconv.ParseInt(values.Get("revise_of"), 10, 64); err == nil && id > 0 {
		q.Set("revise_of", strconv.FormatInt(id, 10))
	}
	return "/reports/new?" + q.Encode()
}

// ReportURL is a report's page.
func ReportURL(id int64) string { return "/reports/" + strconv.FormatInt(id, 10) }

// NewReportLink names a report for links.
func NewReportLink(id int64, number string, revision int, status string) *ReportLink {
	return &ReportLink{Number: number, Revision: revision, URL: ReportURL(id), Status: status}
}

// NewReportView is a saved report's page from its row and snapshot, the
// reader's rights on it and the reports recomputed from it; the parts drawn
// from the snapshot alone (FrozenReportParts: the availability and the
// facts among them), the changes and the timeline are the caller's to add.
func NewReportView(tr *i18n.Translator, r report.Report, snap report.Snapshot, rights report.Rights, into []report.Report) ReportView {
	v := ReportView{ID: r.ID, Number: r.Number, Revision: r.Revision, Title: r.Title, Purpose: r.Purpose, Status: r.Status,
		Author: r.AuthorName, CreatedAt: ReportTime(tr, r.CreatedAt), FiguresDate: snap.FiguresDate, RulesVersion: snap.RulesVersion,
		ReportCurrency: snap.ReportCurrency, QuoteCount: len(snap.Rows), NotReviewed: NotReviewedQuotes(tr, snap),
		CSVURL: ReportURL(r.ID) + "/export.csv", XLSXURL: ReportURL(r.ID) + "/export.xlsx",
		CompareURL: "/compare?" + snap.PageValues().Encode(),
		CanSubmit:  rights.Submit, CanEdit: rights.Edit, CanDecide: rights.Decide, OwnPending: rights.OwnPending,
		CanRevise: rights.Revise}
	if r.SubmittedAt != nil {
		v.SubmittedAt = ReportTime(tr, *r.SubmittedAt)
	}
	if r.DecidedAt != nil {
		v.DecidedAt, v.DecidedBy, v.Decision = ReportTime(tr, *r.DecidedAt), r.DecidedByName, r.DecisionComment
	}
	if v.CanRevise {
		q := snap.PageValues()
		q.Set("revise_of", strconv.FormatInt(r.ID, 10))
		v.ReviseCompareURL = "/compare?" + q.Encode()
	}
	if r.PreviousRevisionID != 0 {
		v.PreviousRevision = NewReportLink(r.PreviousRevisionID, r.Number, r.Revision-1, "")
	}
	if r.NextRevisionID != 0 {
		v.NextRevision = NewReportLink(r.NextRevisionID, r.Number, r.Revision+1, "")
	}
	for _, x := range into {
		v.RecomputedInto = append(v.RecomputedInto, *NewReportLink(x.ID, x.Number, x.Revision, x.Status))
	}
	return v
}

// ReportTimeline is a report's events as its page lists them: those of
// every revision given, each marked with its revision; current is the
// report on screen.
func ReportTimeline(tr *i18n.Translator, events []report.Event, current int64) []ReportEventView {
	var out []ReportEventView
	for _, e := range events {
		ev := ReportEventView{At: ReportTime(tr, e.At), Actor: e.ActorName, ActionID: ReportEventLabelID(e.Action),
			ToID: ReportStatusLabelID(e.ToStatus), Comment: e.Comment, Revision: e.Revision, Current: e.ReportID == current}
		if e.FromStatus != "" {
			ev.FromID = ReportStatusLabelID(e.FromStatus)
		}
		if e.RelatedReportID != 0 {
			ev.Related = NewReportLink(e.RelatedReportID, e.RelatedNumber, e.RelatedRevision, "")
		}
		out = append(out, ev)
	}
	return out
}

// ReportDocument lays a report out for export, from its row and snapshot
// only: the facts a reader of the file needs (number, dates, people,
// currency, rules, the recommendation), then the snapshot's figures.
func ReportDocument(tr *i18n.Translator, r report.Report, snap report.Snapshot) report.Document {
	number := r.Number
	if r.Revision > 1 {
		number += " " + tr.T("report.revision", "Revision", strconv.Itoa(r.Revision))
	}
	meta := [][2]string{
		{tr.T("report.col.number"), number},
		{tr.T("report.field.title"), r.Title},
		{tr.T("report.field.purpose"), r.Purpose},
		{tr.T("report.col.status"), tr.T(ReportStatusLabelID(r.Status))},
		{tr.T("report.col.author"), r.AuthorName},
		{tr.T("report.col.created"), ReportTime(tr, r.CreatedAt)},
	}
	if r.SubmittedAt != nil {
		meta = append(meta, [2]string{tr.T("report.col.submitted"), ReportTime(tr, *r.SubmittedAt)})
	}
	if r.DecidedAt != nil {
		who, when := "report.fact.approver", "report.fact.approved_at"
		if r.Status == report.Returned {
			who, when = "report.fact.returned_by", "report.fact.returned_at"
		}
		meta = append(meta, [2]string{tr.T(who), r.DecidedByName}, [2]string{tr.T(when), ReportTime(tr, *r.DecidedAt)},
			[2]string{tr.T("report.fact.comment"), r.DecisionComment})
	}
	meta = append(meta,
		[2]string{tr.T("report.fact.figures_date"), snap.FiguresDate},
		[2]string{tr.T("report.fact.currency"), snap.ReportCurrency},
		[2]string{tr.T("report.fact.rules"), snap.RulesVersion})
	if names := NotReviewedQuotes(tr, snap); names != "" { // docs/RULES.md §18.1
		meta = append(meta, [2]string{tr.T("proposal.report.not_reviewed"), names})
	}
	for _, fx := range snap.FXRates {
		date := fx.Date
		if date == "" {
			date = tr.T("compare.fx.undated")
		}
		meta = append(meta, [2]string{tr.T("report.col.fx_rate"),
			tr.T("compare.fx", "From", fx.Base, "To", fx.Quote, "Rate", money.String(fx.Rate), "Date", date)})
	}
	// The usage profile's figures: numbers in the workbook, like the
	// amounts below (rules 2027.1 on).
	var numbers []int
	for _, f := range ReportProfile(tr, snap) {
		meta = append(meta, [2]string{f.Label, f.Value})
		if _, err := decimal.NewFromString(f.Value); err == nil {
			numbers = append(numbers, len(meta)-1)
		}
	}
	// The amounts among the facts; from rules 2027.1 on the workbook
	// stores them as numbers (older reports keep their bytes,
	// docs/RULES.md §11.1).
	var amounts []int
	if sum := snap.Summary(); sum.Recommended >= 0 {
		rec := snap.Rows[sum.Recommended]
		meta = append(meta, [2]string{tr.T("report.summary.recommended"), QuoteName(tr, rec.Quote.AsQuote(rec.GPU))},
			[2]string{tr.T("calc.result.tco"), money.Fixed(rec.Result.TCO, 2)},
			[2]string{tr.T("calc.result.tco_pessimistic"), money.Fixed(rec.Result.TCOPessimistic, 2)})
		amounts = append(amounts, len(meta)-2, len(meta)-1)
		if sum.Savings.Valid {
			meta = append(meta, [2]string{tr.T("report.summary.savings"), money.Fixed(sum.Savings.Decimal, 2)})
			amounts = append(amounts, len(meta)-1)
		}
	}
	name := func(row report.Row) string { return QuoteName(tr, row.Quote.AsQuote(row.GPU)) }
	d := report.BuildDocument(snap, meta, tr.TMap, name)
	if snap.NamesUnpriced() {
		d.MetaKinds = make([]report.Kind, len(meta))
		for _, i := range amounts {
			d.MetaKinds[i] = report.Money
		}
		for _, i := range numbers {
			d.MetaKinds[i] = report.Number
		}
	}
	return d
}

// FreezeProblems words what keeps a frozen comparison from being saved.
func FreezeProblems(tr *i18n.Translator, fz compare.Frozen) []string {
	var out []string
	for _, e := range fz.ProfileErrors {
		out = append(out, tr.T(ProfileLabelID(e.Field))+": "+tr.TMap(e.MessageID, e.Args))
	}
	if fz.TooMany {
		out = append(out, tr.T("compare.too_many", "Max", strconv.Itoa(compare.MaxSelected)))
	}
	if fz.OwnTooMany {
		out = append(out, tr.T("report.error.own_too_many", "Max", strconv.Itoa(compare.MaxOwnSelected)))
	}
	if fz.Empty {
		out = append(out, tr.T("report.error.no_quotes"))
	}
	return out
}

// ProfileLabelID is the label of a profile field named in an error.
func ProfileLabelID(field string) string {
	for _, sec := range ProfileSections(url.Values{}, nil) {
		for _, f := range sec.Fields {
			if f.Name == field || "profile."+strings.TrimPrefix(field, "profile.") == f.Name {
				return f.LabelID
			}
		}
	}
	return "report.inputs.title"
}

// ReportListQuery is the report list's filters as the URL gives them:
// the filters set (Filter, trimmed), what they ask for, and the problems
// of a date or an amount that is none.
type ReportListQuery struct {
	Filter               url.Values
	Errors               Errors
	Statuses             []string
	AuthorID, PlatformID int64
	Currency             string
	From, To             time.Time
	MinTCO, MaxTCO       decimal.NullDecimal
}

// ReadReportListQuery reads the report list's filters from the query: a
// status or an id that names none is ignored, a date or an amount that is
// none is a problem.
func ReadReportListQuery(q url.Values) ReportListQuery {
	rq := ReportListQuery{Filter: url.Values{}, Errors: Errors{}}
	filter := rq.Filter
	for _, k := range []string{"status", "author", "from", "to", "platform", "min", "max", "currency"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			filter.Set(k, v)
		}
	}
	for _, st := range report.Statuses {
		if filter.Get("status") == st {
			rq.Statuses = []string{st}
		}
	}
	rq.AuthorID, _ = strconv.ParseInt(filter.Get("author"), 10, 64)
	rq.PlatformID, _ = strconv.ParseInt(filter.Get("platform"), 10, 64)
	rq.Currency = strings.ToUpper(filter.Get("currency"))
	for _, d := range []struct {
		key string
		to  *time.Time
	}{{"from", &rq.From}, {"to", &rq.To}} {
		if v := filter.Get(d.key); v != "" {
			day, err := time.Parse(time.DateOnly, v)
			if err != nil {
				rq.Errors.Set(d.key, "report.error.date")
				continue
			}
			*d.to = day
		}
	}
	for _, a := range []struct {
		key string
		to  *decimal.NullDecimal
	}{{"min", &rq.MinTCO}, {"max", &rq.MaxTCO}} {
		if v := filter.Get(a.key); v != "" {
			d, err := money.ParseDecimal(strings.ReplaceAll(v, ",", ""))
			if err != nil {
				rq.Errors.Set(a.key, "report.error.amount")
				continue
			}
			*a.to = decimal.NewNullDecimal(d)
		}
	}
	return rq
}

// ReportListRecords is one page of the report list for the filters of
// Query, or of the finance inbox (Inbox), with the choices of the list's
// filters; ViewerID is the reader, whose own reports are marked.
type ReportListRecords struct {
	Query                ReportListQuery
	Inbox                bool
	Reports              []report.Report
	Authors, Platforms   []market.RefName
	ViewerID             int64
	Page, PerPage, Total int
}

// NewReportListView builds the report list, or the finance inbox: its
// rows, its pager and, for the list, its filters.
func NewReportListView(tr *i18n.Translator, in ReportListRecords) ReportListView {
	v := ReportListView{Inbox: true, Pager: Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: "/reports/inbox"}}
	if !in.Inbox {
		v = ReportListView{Filter: in.Query.Filter, Errors: in.Query.Errors, Platforms: RefOptions(tr.Lang, in.Platforms),
			Pager: Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: "/reports?" + in.Query.Filter.Encode()}}
		for _, st := range report.Statuses {
			v.Statuses = append(v.Statuses, Option{Value: st, LabelID: ReportStatusLabelID(st)})
		}
		for _, a := range in.Authors {
			v.Authors = append(v.Authors, Option{Value: strconv.FormatInt(a.ID, 10), Label: a.Names[0]})
		}
	}
	v.Rows = make([]ReportListRow, 0, len(in.Reports))
	for _, r := range in.Reports {
		lr := ReportListRow{ID: r.ID, Number: r.Number, Revision: r.Revision, Title: r.Title, Status: r.Status,
			Author: r.AuthorName, Own: in.ViewerID != 0 && in.ViewerID == r.AuthorID, CreatedAt: FormatDate(r.CreatedAt.UTC()),
			Currency: r.ReportCurrency, QuoteCount: r.QuoteCount, URL: ReportURL(r.ID),
			Recommended: FormatMoney(tr.Lang, r.RecommendedTCO, r.ReportCurrency)}
		if r.SubmittedAt != nil {
			lr.SubmittedAt = FormatDate(r.SubmittedAt.UTC())
		}
		v.Rows = append(v.Rows, lr)
	}
	return v
}

// ReportNewRecords is what the "save as report" form shows: the
// comparison's page state (Values) frozen as it would be saved, the title
// and purpose typed with their problems, and the reader's returned
// reports, which saving may revise.
type ReportNewRecords struct {
	Values         url.Values
	Title, Purpose string
	Errors         Errors
	Frozen         compare.Frozen
	Returned       []report.Report
}

// NewReportNewView builds the "save as report" form: the comparison's
// state in hidden fields, a preview of what will be frozen, the returned
// reports it may revise (the one chosen fills an empty title and
// purpose), and the way back to the comparison.
func NewReportNewView(tr *i18n.Translator, in ReportNewRecords) ReportNewView {
	fz := in.Frozen
	v := ReportNewView{State: ReportState(in.Values), Title: in.Title, Purpose: in.Purpose, Errors: in.Errors,
		Problems: FreezeProblems(tr, fz), Currency: fz.Snapshot.ReportCurrency, QuoteCount: len(fz.Snapshot.Rows), FiguresDate: fz.Snapshot.FiguresDate}
	back := url.Values{}
	for _, h := range v.State {
		back.Add(h.Name, h.Value)
	}
	v.ReviseOfID, _ = strconv.ParseInt(in.Values.Get("revise_of"), 10, 64)
	for _, r := range in.Returned {
		if r.NextRevisionID != 0 {
			continue
		}
		v.Revisable = append(v.Revisable, Option{Value: strconv.FormatInt(r.ID, 10),
			Label: r.Number + " " + tr.T("report.revision", "Revision", strconv.Itoa(r.Revision+1)) + " · " + r.Title})
		if r.ID == v.ReviseOfID {
			back.Set("revise_of", strconv.FormatInt(r.ID, 10))
			if v.Title == "" {
				v.Title, v.Purpose = r.Title, r.Purpose
			}
		}
	}
	v.BackURL = "/compare?" + back.Encode()
	if len(fz.Snapshot.Rows) > 0 {
		v.Summary = ReportSummary(tr, fz.Snapshot)
	}
	for _, o := range fz.Snapshot.Own {
		v.Own = append(v.Own, o.Option.Name)
	}
	if b := fz.Snapshot.ScenarioB; b != nil {
		changes := url.Values{}
		for k, val := range b.Changes {
			changes.Set(k, val)
		}
		v.ScenarioChanges = ScenarioChanges(tr, changes)
	}
	return v
}

// WithRecomputedFrom is report page v of a report recomputed from report
// src: the link to it and what changed between its snapshot old and this
// report's snap.
func (v ReportView) WithRecomputedFrom(tr *i18n.Translator, src report.Report, old, snap report.Snapshot) ReportView {
	v.RecomputedFrom = NewReportLink(src.ID, src.Number, src.Revision, src.Status)
	ch := NewReportChanges(tr, old, snap)
	ch.From = *v.RecomputedFrom
	v.Changes = &ch
	return v
}

// UseFrozen puts on report page v the parts f drawn from its snapshot
// alone (FrozenReportParts, ReportOwn and, once rendered, FrozenHTML).
func (v *ReportView) UseFrozen(f ReportView) {
	v.Rows, v.ItemLabelIDs, v.FXNotes, v.CurvesSVG, v.BarsSVG = f.Rows, f.ItemLabelIDs, f.FXNotes, f.CurvesSVG, f.BarsSVG
	v.Summary, v.Profile, v.VRAMFloor, v.ReferencePrices, v.Questions = f.Summary, f.Profile, f.VRAMFloor, f.ReferencePrices, f.Questions
	v.ScenarioChanges, v.Crossings = f.ScenarioChanges, f.Crossings
	v.Availability, v.AvailabilityDay, v.Facts = f.Availability, f.AvailabilityDay, f.Facts
	v.Own, v.FrozenHTML = f.Own, f.FrozenHTML
}

// reportListTitle is the report list's title: the finance inbox or the
// list of reports.
func reportListTitle(ctx context.Context, inbox bool) string {
	if inbox {
		return T(ctx, "report.inbox.title")
	}
	return T(ctx, "report.list.title")
}
