package web

import (
	"testing"

	"gpuquote/internal/i18n"
)

// TestFieldErrorsAreNamedByTheirInputs: a field's error is tied to its
// input (aria-describedby, aria-invalid); a field without one names
// nothing, unless its error's place is kept for htmx (LiveError), which is
// then there, empty.
func TestFieldErrorsAreNamedByTheirInputs(t *testing.T) {
	s := Section{TitleID: "calc.section.usage", Open: true, Fields: []Field{
		{Name: "profile.hours_per_month", Kind: "decimal", LabelID: "calc.profile.hours_per_month", Value: "２００", Error: "half-width digits"},
		{Name: "profile.months", Kind: "int", LabelID: "calc.profile.months", Value: "1"},
		{Name: "profile.instances", Kind: "int", LabelID: "calc.profile.instances", Value: "1", LiveError: true},
		{Name: "profile.resumable", Kind: "checkbox", LabelID: "calc.profile.resumable", Value: "maybe", Error: "choose", LiveError: true},
	}}
	doc := render(t, i18n.ZH, fieldSection(s))

	in := doc.Find("#f-profile-hours_per_month")
	if in.AttrOr("aria-invalid", "") != "true" || in.AttrOr("aria-describedby", "") != "f-profile-hours_per_month-error" ||
		text(doc.Find("#f-profile-hours_per_month-error")) != "half-width digits" || in.AttrOr("value", "") != "２００" {
		t.Errorf("the wrong field is not tied to its error: %v", in.Nodes[0].Attr)
	}
	ok := doc.Find("#f-profile-months")
	if _, has := ok.Attr("aria-describedby"); has || doc.Find("#f-profile-months-error").Length() != 0 {
		t.Error("a field without an error names one")
	}
	live := doc.Find("#f-profile-instances")
	box := doc.Find("#f-profile-instances-error")
	if live.AttrOr("aria-describedby", "") != "f-profile-instances-error" || live.AttrOr("aria-invalid", "") != "false" ||
		box.Length() != 1 || text(box) != "" || box.AttrOr("data-field", "") != "f-profile-instances" {
		t.Error("a live field's error place is not there, empty and named")
	}
	check := doc.Find("#f-profile-resumable")
	if check.AttrOr("aria-invalid", "") != "true" || check.AttrOr("aria-describedby", "") != "f-profile-resumable-error" ||
		text(doc.Find(`#f-profile-resumable-error [data-testid="error-profile.resumable"]`)) != "choose" {
		t.Error("a checkbox's error is not tied to it")
	}
}
