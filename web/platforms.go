package web

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/market"
)

// PlatformName is the name a reader sees: the name in the reader's language
// when the platform has one, else the other.
func PlatformName(ctx context.Context, nameZH, nameEN string) string {
	if Lang(ctx) == "en" && nameEN != "" || nameZH == "" {
		return nameEN
	}
	return nameZH
}

// PlatformOtherName is the platform's name in the other language, when it
// has both.
func PlatformOtherName(ctx context.Context, nameZH, nameEN string) string {
	if nameZH == "" || nameEN == "" {
		return ""
	}
	if PlatformName(ctx, nameZH, nameEN) == nameZH {
		return nameEN
	}
	return nameZH
}

// QualBadge is one platform qualification with its state.
type QualBadge struct {
	// LabelID is the catalog message of the qualification's name.
	LabelID string
	// State is "yes", "no" or "unknown".
	State string
}

// StateID is the catalog message of the state.
func (q QualBadge) StateID() string { return "platform.state." + q.State }

// Class is the badge's CSS class: unknown is shown apart from no.
func (q QualBadge) Class() string { return "badge badge-" + q.State }

// PlatformRow is one line of the platform list.
type PlatformRow struct {
	ID       int64
	NameZH   string
	NameEN   string
	Country  string
	Currency string
	// Since is the year the platform started operating, 0 when not known.
	Since int
	// Years is the number of whole calendar years since then.
	Years     int
	Quals     []QualBadge
	SupportID string
}

// PlatformsView is the platform list's view model.
type PlatformsView struct {
	Page  Page
	Rows  []PlatformRow
	Pager Pager
	Query string
	// Qualification and Has are the qualification filter: the
	// qualification's name and "yes", "no" or "unknown".
	Qualification  string
	Has            string
	Qualifications []Option
	States         []Option
	// Filtered is set when any filter is on (the empty state differs).
	Filtered bool
	CanEdit  bool
}

// PlatformView is the platform detail page's view model.
type PlatformView struct {
	// Facts is the environment, support and data-safety section (docs/RULES.md §18.3).
	Facts    PlatformFactsView
	Page     Page
	ID       int64
	NameZH   string
	NameEN   string
	Website  string
	Country  string
	Currency string
	// Since is the year the platform started operating, 0 when not known;
	// Years is the number of whole calendar years since then.
	Since          int
	Years          int
	Quals          []QualBadge
	GuaranteeNote  string
	SupportID      string
	GranularityIDs []string
	Notes          string
	Aliases        []string
	LockVersion    int
	UpdatedAt      time.Time
	CanEdit        bool
	// Terms are the platform's answers to the SLA clauses and written
	// confirmations.
	Terms PlatformTermsView
}

// QuotesURL lists the quotes of this platform.
func (v PlatformView) QuotesURL() string { return "/quotes?platform=" + strconv.FormatInt(v.ID, 10) }

// PlatformYearsText is how long the platform has operated, as a sentence.
func PlatformYearsText(ctx context.Context, since, years int) string {
	if since == 0 {
		return T(ctx, "platform.since.unknown")
	}
	if years < 1 {
		return T(ctx, "platform.since.under_a_year", "Since", strconv.Itoa(since))
	}
	return T(ctx, "platform.since.years", "Since", strconv.Itoa(since), "Years", strconv.Itoa(years))
}

// QualField is one qualification's select on the platform form.
type QualField struct {
	// Name is the form field name.
	Name    string
	LabelID string
	// Value is "", "true" or "false" (not known, yes, no).
	Value string
}

// SpecCheckbox is one box of a group of checkboxes.
type SpecCheckbox struct {
	Value   string
	LabelID string
	Checked bool
}

// PlatformForm is the state of the new and edit platform forms.
type PlatformForm struct {
	Page Page
	// ID is the platform being edited, 0 for a new one.
	ID             int64
	NameZH         string
	NameEN         string
	Website        string
	Country        string
	Currency       string
	OperatingSince string
	Quals          []QualField
	GuaranteeNote  string
	SupportChannel string
	Supports       []Option
	Granularities  []SpecCheckbox
	Notes          string
	Aliases        string // one per line (docs/RULES.md §7.6)
	// LockVersion is the version the form edits; a save names it.
	LockVersion int
	Errors      Errors
	// Conflict is set when someone else saved the platform after this form
	// was opened: the reader's input is kept, LockVersion is the current
	// one, and saving again overwrites the other change.
	Conflict bool
}

// Action is where the form posts (and where cancelling returns).
func (f PlatformForm) Action() string {
	if f.ID == 0 {
		return "/platforms"
	}
	return "/platforms/" + strconv.FormatInt(f.ID, 10)
}

// QualChoices are the choices of a qualification: not known, yes, no.
var QualChoices = []Option{
	{Value: "", LabelID: "platform.state.unknown"},
	{Value: "true", LabelID: "platform.state.yes"},
	{Value: "false", LabelID: "platform.state.no"},
}

// specInputType is the type attribute of an input of the given kind.
func specInputType(kind string) string {
	switch kind {
	case "url", "date":
		return kind
	}
	return "text"
}

// specInputMode is the inputmode attribute of an input of the given kind
// ("" for none): numbers are typed as text so "0.471" is never reformatted.
func specInputMode(kind string) string {
	switch kind {
	case "int":
		return "numeric"
	case "decimal":
		return "decimal"
	}
	return ""
}

// specDescribedBy lists the ids of a field's hint and error, for
// aria-describedby ("" when it has neither).
func specDescribedBy(errs Errors, name, hintID string) string {
	var ids []string
	if hintID != "" {
		ids = append(ids, "hint-"+sanitizeID(name))
	}
	if errs.Has(name) {
		ids = append(ids, "err-"+name)
	}
	return strings.Join(ids, " ")
}

// PlatformsRecords is one page of the platform list for its filters: a
// search text and a qualification ("" for any) held ("yes"), not held
// ("no") or not known ("unknown"); CanEdit says the reader may add one.
type PlatformsRecords struct {
	Query, Qualification, Has string
	CanEdit                   bool
	Platforms                 []market.Platform
	Page, PerPage, Total      int
	Today                     time.Time
}

// NewPlatformsView builds the platform list: its filters, its pager and
// its rows as of Today.
func NewPlatformsView(in PlatformsRecords) PlatformsView {
	v := PlatformsView{Query: in.Query, Qualification: in.Qualification, Has: in.Has, CanEdit: in.CanEdit,
		Qualifications: PlatformQualificationOptions(), States: []Option{
			{Value: "yes", LabelID: "platform.state.yes"}, {Value: "no", LabelID: "platform.state.no"},
			{Value: "unknown", LabelID: "platform.state.unknown"}}}
	// "Nothing matches" rather than "nothing entered yet" also past the last page.
	v.Filtered = v.Query != "" || v.Qualification != "" || in.Total > 0
	filters := url.Values{"q": {v.Query}, "qual": {v.Qualification}}
	if v.Qualification != "" {
		filters.Set("has", v.Has)
	}
	v.Pager = Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total, Base: listURL("/platforms", filters)}
	for _, p := range in.Platforms {
		v.Rows = append(v.Rows, NewPlatformRow(p, in.Today))
	}
	return v
}

// TitleID is the form's title: a new platform's or an edit's.
func (f PlatformForm) TitleID() string {
	if f.ID == 0 {
		return "platform.new"
	}
	return "platform.edit"
}
