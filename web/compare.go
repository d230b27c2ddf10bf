package web

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/compare"
	"gpuquote/internal/form"
	"gpuquote/internal/gzsplice"
	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/own"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
	"gpuquote/internal/vendorq"
)

// ComparePreset is one of the guides' three paths, as a link that fills
// the profile.
type ComparePreset struct {
	Key     string
	LabelID string
	HintID  string
	URL     string
	Active  bool
}

// SavedProfile is a usage profile saved by name.
type SavedProfile struct {
	ID        int64
	Name      string
	Owner     string
	LoadURL   string
	CanDelete bool
}

// CompareCandidate is one published quote the filters found.
type CompareCandidate struct {
	ID       int64
	Name     string
	Hourly   string
	Monthly  string
	AsOf     string
	Stale    bool
	Selected bool
	Reasons  []string // translated; non-empty: shown greyed
	// NotReviewed marks the reader's own proposal (docs/RULES.md §18.1);
	// ProposalState is its state, which its mark says (waiting for review,
	// or sent back).
	NotReviewed   bool
	ProposalState string
}

// CompareMode is one billing mode's total of a compared quote.
type CompareMode struct {
	Mode    string
	LabelID string
	Total   string
	Allowed bool
	Chosen  bool
}

// CompareLine is one of the twelve lines of a compared quote: an amount,
// or its status when it costs nothing (included / unconfirmed / n.a.).
type CompareLine struct {
	Item      string
	Status    string
	Amount    string
	StatusID  string
	Reference string // pessimistic amount of an unconfirmed line, if priced
	// ReferenceUnitPrice is the reference unit price that amount is at, in
	// the quote's currency, with its unit.
	ReferenceUnitPrice string
	Source             string // whose reference priced it (rules 2027.1)
}

// CompareRow is one compared quote, formatted.
type CompareRow struct {
	ID   int64
	Name string
	// NameHead (platform · GPU × n) and NameOffer (the offer's label,
	// shortened when long; Name has it whole) are the name on two lines.
	NameHead     string
	NameOffer    string
	URL          string
	QuestionsURL string
	Archived     bool
	// NotReviewed marks a proposal the reader may compare (its author,
	// editors, admins) that no editor has published (docs/RULES.md §18.1);
	// ProposalState is its state, which its mark says.
	NotReviewed   bool
	ProposalState string
	Eligible      bool
	Priced        bool
	Reasons       []string
	ChosenModeID  string
	Modes         []CompareMode
	BreakEven     string
	// BreakEvenNote says why an offer has no break-even (one price only),
	// or that its monthly price binds for a commitment (docs/RULES.md §4.6).
	BreakEvenNote  string
	Compute        string
	Hidden         string
	OneOff         string
	TCO            string
	TCOPessimistic string
	HiddenShare    string
	// HiddenSharePessimistic and Unpriced came with rules 2027.1: the
	// pessimistic TCO's hidden share, and the items it leaves out for want
	// of a reference price, named in a list.
	HiddenSharePessimistic string
	Unpriced               string
	Effective              string
	PerReference           string
	PerMillionTokens       string
	FlagIDs                []string
	Lines                  []CompareLine
	CheapestConfirmed      bool
	CheapestPessimistic    bool
	// B is the quote under usage profile B, when the page has one.
	B *CompareRowB
}

// CompareSort is a sortable column header.
type CompareSort struct {
	Key     string
	LabelID string
	URL     string
	Active  bool
	Desc    bool
}

// QuestionsView is the questions one quote raises, grouped and numbered,
// as plain text ready to copy into a message to the vendor.
type QuestionsView struct {
	Page      Page
	ID        string
	Name      string
	QuoteURL  string
	PlainText string
}

// CompareView is the comparison page's view model.
type CompareView struct {
	// Results, when set, are the results below the inputs as kept for this
	// comparison in the reader's language (CompareResultsBody drawn once,
	// docs/RULES.md §20.5): Rows, OwnRows, the sorts, notes, sections,
	// crossings and charts are then left empty, not drawn again.
	Results *gzsplice.Block
	// Facts are the compared platforms' facts in force (docs/RULES.md
	// §18.3) and Availability each priced row's platform × GPU model's
	// record of attempts (§18.2): filled for their sections' own pages.
	Facts           []CompareFactsPlatform
	Availability    []CompareAvailabilityRow
	AvailabilityDay string
	// Sections are the sections shown closed, loaded when opened
	// (docs/RULES.md §20.4).
	Sections        []CompareSection
	Page            Page
	Presets         []ComparePreset
	ProfileSections []Section
	ReportCurrency  Field
	Profiles        []SavedProfile
	Errors          []CalcError
	// Hidden carries the selection and filters through the profile form
	// (and the profile through the filter form): one GET form holds all.
	Filter         url.Values
	GPUs           []Option
	Qualifications []Option
	Candidates     []CompareCandidate
	// CandidatesMore says more quotes match than are listed.
	CandidatesMore bool
	VRAMFloor      string
	SelectedCount  int
	TooMany        bool
	Rows           []CompareRow
	Sorts          []CompareSort
	ItemLabelIDs   []string
	ReportCur      string
	FXNotes        []string
	CurvesSVG      string
	BarsSVG        string
	Crossings      []CrossingView // break-even points across offers (docs/RULES.md §4.7)
	// ShareURL is the comparison's address from the site's configured
	// address (shown to copy by hand); SharePath the same without it, which
	// the script copies against the address the reader is at.
	ShareURL  string
	SharePath string
	// State is the page state as asked (a default report currency not
	// in it), which the profile forms carry back to the page; ReturnURL is
	// the page with it.
	State     url.Values
	ReturnURL string
	// ScenarioSections are usage profile B's fields.
	ScenarioSections []Section
	// ScenarioChanges are what usage profile B changes, when there is one.
	ScenarioChanges []ReportFact
	// OwnCandidates are the own-hardware options the reader may tick;
	// OwnSelected how many are ticked, OwnTooMany that more than
	// compare.MaxOwnSelected were; OwnRows the ticked ones priced
	// (docs/RULES.md §8.6).
	OwnCandidates []CompareOwnCandidate
	OwnSelected   int
	OwnTooMany    bool
	OwnRows       []CompareOwnRow
	// Folded says the address holds a comparison: the results come first
	// and the inputs fold under Summary, one line saying what was compared.
	Folded  bool
	Summary string
	// CurrencyNote says why the amounts are in the report currency shown
	// when nobody asked for one and the compared offers mix currencies.
	CurrencyNote string
}

// compareQualifications are the platform qualifications a comparison may
// require.
var compareQualifications = []Option{
	{Value: "idc_licence", LabelID: "compare.qual.idc_licence"},
	{Value: "isp_licence", LabelID: "compare.qual.isp_licence"},
	{Value: "iso27001", LabelID: "compare.qual.iso27001"},
	{Value: "mlps3", LabelID: "compare.qual.mlps3"},
	{Value: "third_party_guarantee", LabelID: "compare.qual.third_party_guarantee"},
}

// CompareURL is the compare page with a page state.
func CompareURL(state url.Values) string {
	if len(state) == 0 {
		return "/compare"
	}
	return "/compare?" + state.Encode()
}

// cloneValues copies v, every value list too.
func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// CompareRecords is what the compare page shows besides its charts: the
// page state asked for (Values, filled from Preset when it names one), its
// priced comparison, the quotes and own-hardware options to tick and the
// saved profiles.
type CompareRecords struct {
	Values url.Values
	Preset string
	Cmp    *compare.Comparison
	// Asked are the problems of the report currency asked for: while there
	// are any, nothing is shown priced.
	Asked form.Errors
	// Candidates are the quotes the filters found, the reader's open
	// proposals first; More says more quotes match than are listed.
	Candidates []quote.Quote
	More       bool
	// Owns are the own-hardware options the reader may read.
	Owns []own.Option
	// Profiles are the saved usage profiles; their LoadURL is filled in
	// here.
	Profiles []SavedProfile
	Today    time.Time
	// BaseURL is the site's configured address, the share link's start.
	BaseURL string
	// Results are the results kept for this comparison, its inputs and the
	// reader's language (docs/RULES.md §20.5), or nil: when set, the
	// priced rows are not formatted again.
	Results *gzsplice.Block
}

// NewCompareView builds the comparison page, all but its charts: the
// profile and scenario forms with every field's error, the presets, the
// candidates screened against the profile (greyed with the reason, never
// dropped, unless the reader asked to leave out cards below the VRAM
// floor), the priced table, scenario and own-hardware rows, the sections
// loaded when opened, the saved profiles and the page state's links.
func NewCompareView(tr *i18n.Translator, in CompareRecords) CompareView {
	values, cmp := in.Values, in.Cmp
	shows := len(in.Asked) == 0
	shown := CompareShown(values, cmp, shows)
	msgs := map[string]string{}
	profileErrors := cmp.ProfileErrors
	if cmp.B != nil {
		profileErrors = slices.Concat(profileErrors, cmp.B.ProfileErrors)
	}
	for _, e := range profileErrors {
		if _, dup := msgs[e.Field]; !dup {
			msgs[e.Field] = tr.TMap(e.MessageID, e.Args)
		}
	}
	v := CompareView{ProfileSections: ProfileSections(values, msgs), ScenarioSections: ScenarioSections(values, msgs),
		Qualifications: compareQualifications}
	// Every field's error has its place on the page, empty without one, so
	// htmx can bring the errors in out of band as the reader types.
	for _, secs := range [][]Section{v.ProfileSections, v.ScenarioSections} {
		for i := range secs {
			for j := range secs[i].Fields {
				secs[i].Fields[j].LiveError = true
			}
		}
	}
	v.ReportCurrency = Field{Name: "report_currency", Kind: "text", LabelID: "calc.report_currency",
		HintID: "compare.hint.report_currency", Value: values.Get("report_currency"), LiveError: true}
	if m, bad := in.Asked["report_currency"]; bad {
		v.ReportCurrency.Error = tr.T(m.ID, m.Args...)
	}
	v.Errors = ErrorList(slices.Concat(v.ProfileSections, []Section{{Fields: []Field{v.ReportCurrency}}}, v.ScenarioSections), nil)
	for _, p := range compare.Presets {
		v.Presets = append(v.Presets, ComparePreset{Key: p.Key, LabelID: p.LabelID, HintID: p.HintID,
			URL: "/compare?preset=" + p.Key, Active: p.Key == in.Preset})
	}
	if cmp.Floor.Valid {
		v.VRAMFloor = money.Fixed(cmp.Floor.Decimal, 2)
	}
	v.SelectedCount, v.TooMany = len(cmp.SelectedIDs), cmp.TooMany
	for _, g := range cmp.GPUs {
		v.GPUs = append(v.GPUs, Option{Value: strconv.FormatInt(g.ID, 10), Label: g.Vendor + " " + g.Name})
	}
	v.CandidatesMore = in.More

	stale := tco.StaleBefore(in.Today)
	for _, q := range in.Candidates {
		cand := compare.Candidate{Quote: q, GPU: cmp.GPUByID[q.GPUModelID]}
		var reasons []compare.Reason
		if len(cmp.ProfileErrors) == 0 {
			reasons = compare.Screen(cand, cmp.In, cmp.Floor)
		}
		if values.Get("fit") == "1" && slices.ContainsFunc(reasons, func(r compare.Reason) bool { return r.MessageID == compare.ReasonVRAMFloor }) {
			continue // the reader asked to leave out cards below the floor
		}
		v.Candidates = append(v.Candidates, CompareCandidate{ID: q.ID, Name: QuoteName(tr, q),
			Hourly: FormatMoney(tr.Lang, q.Hourly, q.Currency), Monthly: FormatMoney(tr.Lang, q.Monthly, q.Currency),
			AsOf: FormatDate(q.AsOf), Stale: q.AsOf.Before(stale), Selected: cmp.Seen[q.ID], Reasons: ReasonTexts(tr, reasons),
			NotReviewed: quote.IsProposal(q.State), ProposalState: q.State})
	}

	if len(cmp.Rows) > 0 && shows && in.Results != nil {
		v.Results = in.Results
	} else if len(cmp.Rows) > 0 && shows {
		CompareTable(tr, &v, cmp.Rows, cmp.In, values, cmp.SortKey, cmp.Desc)
		CompareScenario(tr, &v.Rows, &v.ScenarioChanges, cmp.B, cmp.Rows, cmp.In)
		// The matrix, the facts and the availability load when opened
		// (docs/RULES.md §20.4).
		v.Sections = CompareSections(shown, v.Rows)
	}
	v.OwnCandidates = OwnCandidates(tr, in.Owns, cmp.OwnSelectedIDs, cmp.Own)
	v.OwnSelected, v.OwnTooMany = len(cmp.OwnSelectedIDs), cmp.OwnTooMany
	if len(cmp.Own) > 0 && shows && v.Results == nil {
		CompareOwn(tr, &v, cmp.Rows, cmp.Own, cmp.In)
	}

	// Loading a saved profile replaces the profile only: the selection,
	// the filters, the order and the report currency asked for stay.
	keep := compare.State(values)
	for k := range keep {
		if strings.HasPrefix(k, "profile.") {
			delete(keep, k)
		}
	}
	for _, p := range in.Profiles {
		keep.Set("profile_id", strconv.FormatInt(p.ID, 10))
		p.LoadURL = "/compare?" + keep.Encode()
		v.Profiles = append(v.Profiles, p)
	}
	// The profile forms carry the state as asked (a default currency stays
	// a default); a report and a shared link carry the currency shown.
	v.State = compare.State(values)
	v.ReturnURL = CompareURL(v.State)
	v.Filter = cloneValues(values)
	if shows {
		v.Filter.Set("report_currency", cmp.In.ReportCurrency)
	}
	v.SharePath = CompareURL(shown)
	v.ShareURL = in.BaseURL + v.SharePath
	// A report currency nobody asked for, where the quotes and own options
	// compared are priced in several: the page says which and why
	// (docs/RULES.md §8.2).
	if shows && strings.TrimSpace(values.Get("report_currency")) == "" {
		v.CurrencyNote = currencyNote(tr, cmp)
	}
	// An address holding a comparison opens on its results, the inputs
	// folded under a line saying what was compared (docs/RULES.md §8.7);
	// while anything asked for is wrong the form stays open.
	if shows && len(v.Errors) == 0 && (v.HasRows() || len(v.OwnRows) > 0) {
		v.Folded, v.Summary = true, CompareSummary(tr, cmp)
	}
	return v
}

// HasRows says whether the page shows priced quotes: their rows drawn, or
// the results kept with them.
func (v CompareView) HasRows() bool { return len(v.Rows) > 0 || v.Results != nil }

// CompareResultsInputs is what the results below a comparison's inputs
// (CompareResultsBody) are drawn from besides its priced figures, which
// the kept comparison's key names (docs/RULES.md §20.1): the reader's
// language, the page state (the sorts', sections' and questions' links
// carry it), and what the page shows of each quote and own-hardware
// option as read for this request — names edited in place (a platform
// renamed), a version archived since, the electricity price's sample.
// Kept results are used only for the same inputs (docs/RULES.md §20.5).
func CompareResultsInputs(tr *i18n.Translator, values url.Values, cmp *compare.Comparison) string {
	var b strings.Builder
	field := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	num := func(n int64) { field(strconv.FormatInt(n, 10)) }
	field(string(tr.Lang))
	field(values.Encode()) // keys sorted
	num(int64(len(cmp.Rows)))
	for _, r := range cmp.Rows {
		q := r.Quote
		num(q.ID)
		num(int64(q.Version))
		field(q.State)
		field(q.Label)
		field(q.PlatformNameZH)
		field(q.PlatformNameEN)
		field(q.GPUVendor)
		field(q.GPUName)
		num(int64(q.GPUCount))
		field(q.Currency)
	}
	num(int64(len(cmp.Own)))
	for _, o := range cmp.Own {
		ver, e := o.Version, o.Electricity
		num(ver.ID)
		num(ver.OptionID)
		num(int64(ver.Version))
		field(ver.Name)
		field(ver.GPU())
		field(ownGPU(tr, ver))
		field(ver.Currency)
		num(int64(ver.LifeMonths))
		num(e.SampleID)
		field(e.KWhPrice.String())
		field(e.Region)
		field(e.Source)
		field(FormatDate(e.AsOf))
	}
	return b.String()
}

// currencyNote says the comparison's amounts are in its default report
// currency because what it compares is priced in several currencies; ""
// when they share one.
func currencyNote(tr *i18n.Translator, cmp *compare.Comparison) string {
	var curs []string
	for _, q := range cmp.Selected {
		curs = append(curs, q.Currency)
	}
	for _, o := range cmp.Own {
		curs = append(curs, o.Version.Currency)
	}
	slices.Sort(curs)
	curs = slices.Compact(curs)
	if len(curs) < 2 {
		return ""
	}
	return tr.T("compare.currency.mixed", "Currency", cmp.In.ReportCurrency, "Currencies", strings.Join(curs, tr.T("list.separator")))
}

// CompareSummary is the one line that stands for a folded comparison form:
// the usage profile's hours, months and instances, the report currency,
// how many quotes and own options are compared, and that there is a
// profile B.
func CompareSummary(tr *i18n.Translator, cmp *compare.Comparison) string {
	p := cmp.In.Profile
	// Hours may be a decimal: its form is chosen here, its digits written
	// as typed.
	hoursID := "compare.summary.hours.other"
	if p.HoursPerMonth.Equal(decimal.New(1, 0)) {
		hoursID = "compare.summary.hours.one"
	}
	parts := []string{
		tr.T(hoursID, "Count", money.Group(money.String(p.HoursPerMonth))),
		plural(tr, "compare.summary.months", p.Months),
		plural(tr, "compare.summary.instances", p.Instances),
		cmp.In.ReportCurrency,
	}
	if n := len(cmp.Rows); n > 0 {
		parts = append(parts, plural(tr, "compare.summary.quotes", n))
	}
	if n := len(cmp.Own); n > 0 {
		parts = append(parts, plural(tr, "compare.summary.own", n))
	}
	if cmp.B != nil {
		parts = append(parts, tr.T("compare.summary.scenario"))
	}
	return strings.Join(parts, " · ")
}

// CompareShown is the page state shown of the comparison cmp of the page
// state values: the share link's, and each section's (the report currency
// as decided, when the figures are shown).
func CompareShown(values url.Values, cmp *compare.Comparison, shows bool) url.Values {
	st := compare.State(values)
	if shows {
		st.Set("report_currency", cmp.In.ReportCurrency)
	}
	return st
}

// NewCompareSectionView builds section key of the comparison cmp of the
// page state values on its own (docs/RULES.md §20.4), at the address of
// the page state shown (CompareShown); shows says the figures are shown
// (the report currency asked for is one). Nothing priced is the section's
// empty state.
func NewCompareSectionView(ctx context.Context, tr *i18n.Translator, key string, values url.Values, cmp *compare.Comparison, shows bool) CompareSectionView {
	shown := CompareShown(values, cmp, shows)
	v := CompareSectionView{BackURL: CompareURL(shown),
		CompareSection: CompareSection{Key: key, TitleID: SectionTitleID(key), URL: SectionURL(key, shown)}}
	if len(cmp.Rows) == 0 || !shows {
		return v
	}
	var cv CompareView
	switch key {
	case SectionLines:
		CompareTable(tr, &cv, cmp.Rows, cmp.In, values, cmp.SortKey, cmp.Desc)
		v.Rows, v.ItemLabelIDs, v.Count = cv.Rows, cv.ItemLabelIDs, PricedCount(cv.Rows)
	case SectionFacts:
		AddCompareFacts(ctx, &cv, cmp)
		v.Facts, v.Count = cv.Facts, len(cmp.Rows)
	case SectionAvailability:
		AddCompareAvailability(tr, &cv, cmp)
		v.Availability, v.AvailabilityDay, v.Count = cv.Availability, cv.AvailabilityDay, len(cv.Availability)
	}
	return v
}

// NewQuestionsView builds the questions to send quote q's vendor as plain
// text to copy, in the context qc (docs/RULES.md §18.3).
func NewQuestionsView(tr *i18n.Translator, q quote.Quote, qc vendorq.Context) QuestionsView {
	name := QuoteName(tr, q)
	title := name + " · " + tr.T("quote.version_short", "Version", strconv.Itoa(q.Version)) + " · " + FormatDate(q.AsOf)
	return QuestionsView{ID: strconv.FormatInt(q.ID, 10), Name: name, QuoteURL: "/quotes/" + strconv.FormatInt(q.ID, 10),
		PlainText: vendorq.PlainText(title, vendorq.For(q, qc), tr.TMap)}
}
