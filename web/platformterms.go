package web

import (
	"strconv"
	"strings"

	"gpuquote/internal/market"
)

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
func (f PlatformTermField) Name(input string) string { return market.TermField(f.Kind, f.Key, input) }

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

// termHintID explains a term on the form where it needs it: the first
// written confirmation is answered per quote, line by line.
func termHintID(kind, key string) string {
	if kind == market.TermKindConfirmation && key == "hidden_items" {
		return "terms.hint.hidden_items"
	}
	return ""
}

// termState is how far a term is answered: "written", "unwritten" or
// "missing".
func termState(t market.PlatformTerm) string {
	switch {
	case t.Answered():
		return "written"
	case strings.TrimSpace(t.Answer) != "":
		return "unwritten"
	}
	return "missing"
}

// NewPlatformTermsView is the platform page's section on its terms: each
// of the eleven, answered or not; the ones still to ask are counted (the
// first confirmation is answered per quote, line by line, so it is not).
func NewPlatformTermsView(platformID int64, terms []market.PlatformTerm, canEdit bool) PlatformTermsView {
	byKey := market.TermsByKey(terms)
	v := PlatformTermsView{PlatformID: platformID, CanEdit: canEdit}
	for _, tc := range market.TermClauses() {
		t := byKey[tc.Kind+"."+tc.Clause.Key]
		r := PlatformTermRow{Kind: tc.Kind, Key: tc.Clause.Key, Number: tc.Clause.Number, LabelID: tc.Clause.LabelID,
			Answer: t.Answer, State: termState(t)}
		if t.AnsweredOn != nil {
			r.AnsweredOn = FormatDate(*t.AnsweredOn)
		}
		if t.LockVersion > 0 {
			r.UpdatedBy, r.UpdatedAt = t.UpdatedByName, TrialTime(t.UpdatedAt)
		}
		if r.State != "written" && termHintID(tc.Kind, tc.Clause.Key) == "" {
			v.Open++
		}
		if tc.Kind == market.TermKindSLA {
			v.SLA = append(v.SLA, r)
		} else {
			v.Confirmations = append(v.Confirmations, r)
		}
	}
	return v
}

// NewPlatformTermsForm fills the editors' form with the eleven terms.
func NewPlatformTermsForm(platformID int64, name string, terms []market.PlatformTerm) PlatformTermsForm {
	f := PlatformTermsForm{PlatformID: platformID, PlatformName: name, Errors: Errors{}}
	byKey := market.TermsByKey(terms)
	for _, tc := range market.TermClauses() {
		t := byKey[tc.Kind+"."+tc.Clause.Key]
		fld := PlatformTermField{Kind: tc.Kind, Key: tc.Clause.Key, Number: tc.Clause.Number, LabelID: tc.Clause.LabelID,
			HintID: termHintID(tc.Kind, tc.Clause.Key), Answer: t.Answer, InWriting: t.InWriting, LockVersion: t.LockVersion}
		if t.AnsweredOn != nil {
			fld.AnsweredOn = FormatDate(*t.AnsweredOn)
		}
		if tc.Kind == market.TermKindSLA {
			f.SLA = append(f.SLA, fld)
		} else {
			f.Confirmations = append(f.Confirmations, fld)
		}
	}
	return f
}

// fields are the form's terms, SLA clauses first.
func (f *PlatformTermsForm) fields() []*PlatformTermField {
	var out []*PlatformTermField
	for i := range f.SLA {
		out = append(out, &f.SLA[i])
	}
	for i := range f.Confirmations {
		out = append(out, &f.Confirmations[i])
	}
	return out
}

// KeepTypedDates shows the dates as typed (one that could not be read is
// shown, not dropped).
func (f *PlatformTermsForm) KeepTypedDates(get func(string) string) {
	for _, fld := range f.fields() {
		fld.AnsweredOn = get(fld.Name("answered_on"))
	}
}

// TakeVersions sets each term's lock version to the stored one (after a
// lost save: saving again then overwrites, knowingly).
func (f *PlatformTermsForm) TakeVersions(stored []market.PlatformTerm) {
	byKey := market.TermsByKey(stored)
	for _, fld := range f.fields() {
		fld.LockVersion = byKey[fld.Kind+"."+fld.Key].LockVersion
	}
}
