package web

import "net/url"

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
	// NotReviewed marks the reader's own proposal (docs/RULES.md §18.1).
	NotReviewed bool
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
	Source    string // whose reference priced it (rules 2027.1)
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
	// editors, admins) that no editor has published (docs/RULES.md §18.1).
	NotReviewed    bool
	Eligible       bool
	Priced         bool
	Reasons        []string
	ChosenModeID   string
	Modes          []CompareMode
	BreakEven      string
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
}
