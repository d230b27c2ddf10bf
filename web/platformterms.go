package web

import "strconv"

// PlatformTermRow is a platform's answer to one SLA clause or written
// confirmation, as the platform page shows it.
type PlatformTermRow struct {
	Kind    string
	Key     string
	Number  int
	LabelID string
	Answer  string
	// State is "written" (answered in writing), "unwritten" (answered, not
	// in writing) or "missing" (no answer).
	State      string
	AnsweredOn string
	UpdatedBy  string
	UpdatedAt  string
}

// TestID is the row's data-testid.
func (r PlatformTermRow) TestID() string { return "term-" + r.Kind + "-" + r.Key }

// PlatformTermsView is the platform page's section of SLA clauses and
// written confirmations.
type PlatformTermsView struct {
	PlatformID    int64
	CanEdit       bool
	SLA           []PlatformTermRow
	Confirmations []PlatformTermRow
	// Open is the number of terms still to ask the vendor about.
	Open int
}

// EditURL is the editors' form.
func (v PlatformTermsView) EditURL() string {
	return "/platforms/" + strconv.FormatInt(v.PlatformID, 10) + "/terms/edit"
}

// PlatformTermField is one term on the editors' form, as typed.
type PlatformTermField struct {
	Kind        string
	Key         string
	Number      int
	LabelID     string
	HintID      string
	Answer      string
	InWriting   bool
	AnsweredOn  string
	LockVersion int
}

// Name is the form field name of one of the term's inputs.
func (f PlatformTermField) Name(input string) string { return f.Kind + "." + f.Key + "." + input }

// ID is the element id of one of the term's inputs.
func (f PlatformTermField) ID(input string) string {
	return "term-" + f.Kind + "-" + f.Key + "-" + input
}

// PlatformTermsForm is the state of the editors' form.
type PlatformTermsForm struct {
	Page          Page
	PlatformID    int64
	PlatformName  string
	SLA           []PlatformTermField
	Confirmations []PlatformTermField
	// Errors are keyed by the field name (Name).
	Errors Errors
	// Conflict says someone else saved in between; the form keeps the
	// reader's input with the current versions, so saving again overwrites.
	Conflict bool
}

// Action is the URL the form posts to.
func (f PlatformTermsForm) Action() string {
	return "/platforms/" + strconv.FormatInt(f.PlatformID, 10) + "/terms"
}

// PlatformURL is the platform's page.
func (f PlatformTermsForm) PlatformURL() string {
	return "/platforms/" + strconv.FormatInt(f.PlatformID, 10)
}

// termStateClass is the badge class of a term's state.
func termStateClass(state string) string {
	switch state {
	case "written":
		return "badge badge-yes"
	case "unwritten":
		return "badge badge-warn"
	}
	return "badge badge-unknown"
}
