package web

import "strings"

// Option is one choice of a select field.
type Option struct {
	Value string
	// LabelID is the catalog message of the label; Label is used when the
	// choice is data (a platform's name) rather than interface text.
	LabelID string
	Label   string
}

// Field is one input of a form, with its submitted value and its error.
type Field struct {
	// Name is the form field name.
	Name string
	// LabelID and HintID are catalog messages (HintID may be empty).
	LabelID, HintID string
	// Kind is "text", "decimal", "int", "date", "select" or "checkbox".
	Kind string
	// Options are the choices of a select; an empty Value is "not stated".
	Options []Option
	// Value is the submitted (or default) value.
	Value string
	// Error is the translated problem with this field, if any.
	Error string
	// LiveError keeps the error's container on the page when there is no
	// error (empty), so a page that recalculates with htmx can swap it in
	// out of band as the reader types.
	LiveError bool
	// Source is the phrase of the vendor's message the field was filled
	// from, when it was (docs/RULES.md §22.11): the field is marked and
	// says it.
	Source string
}

// ID is the element id of the field.
func (f Field) ID() string { return "f-" + sanitizeID(f.Name) }

// ErrorID is the element id of the field's error message (its container
// when LiveError), which the input names in aria-describedby.
func (f Field) ErrorID() string { return f.ID() + "-error" }

// SourceID is the element id of the phrase a prefilled field was read
// from.
func (f Field) SourceID() string { return f.ID() + "-source" }

// describedBy is the input's aria-describedby: its error, when it has one
// or its error's container is always there, and the phrase it was read
// from, when it was.
func (f Field) describedBy() string {
	var ids []string
	if f.Error != "" || f.LiveError {
		ids = append(ids, f.ErrorID())
	}
	if f.Source != "" {
		ids = append(ids, f.SourceID())
	}
	return strings.Join(ids, " ")
}

func sanitizeID(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}

// Section is a titled group of fields; advanced groups start closed.
type Section struct {
	TitleID string
	Open    bool
	Fields  []Field
}

// Row is a row of fields under one label (a line of the twelve-line table).
type Row struct {
	LabelID string
	Fields  []Field
}

// ErrorList lists the errors of a form in form order for its summary: the
// sections' fields under their own labels, then the rows' fields under
// their row's label.
func ErrorList(sections []Section, rows []Row) []CalcError {
	var out []CalcError
	for _, s := range sections {
		for _, f := range s.Fields {
			if f.Error != "" {
				out = append(out, CalcError{FieldID: f.ID(), LabelID: f.LabelID, Message: f.Error})
			}
		}
	}
	for _, r := range rows {
		for _, f := range r.Fields {
			if f.Error != "" {
				out = append(out, CalcError{FieldID: f.ID(), LabelID: r.LabelID, Message: f.Error})
			}
		}
	}
	return out
}
