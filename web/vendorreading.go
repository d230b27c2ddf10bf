package web

import (
	"strings"

	"gpuquote/internal/extract"
	"gpuquote/internal/i18n"
)

// VendorReading is what reading the vendor's message put in a quote form
// (docs/RULES.md §22.11), listed under the form: nothing is stored until
// the reader submits.
type VendorReading struct {
	// Fields are the fields the message states, in form order: the field's
	// name, the value as the form shows it, and the phrase it was read from.
	Fields []ReadingField
	// Kept are fields the reader had filled that the message states
	// otherwise; their values stay.
	Kept []ReadingKept
	// Unknown are platform and GPU model names no record has.
	Unknown []ReadingUnknown
	// Skipped are prices the reader left out on purpose, with the reason.
	Skipped []ReadingSkip
	// Unread are sentences with a price it could not place.
	Unread []string
	// FileNoteID says what became of the attached file ("" none), about
	// FileName.
	FileNoteID, FileName string
}

// ReadingField is one field read from the message.
type ReadingField struct {
	FieldID, Label, Value, Source string
}

// ReadingKept is a typed value kept over the message's.
type ReadingKept struct {
	FieldID, Label, Typed, Read, Source string
}

// ReadingUnknown is a name that names no known platform or GPU model.
type ReadingUnknown struct {
	FieldID, Label, Name, Nearest string
}

// ReadingSkip is a phrase read and left out, with its reason.
type ReadingSkip struct {
	Reason, Text string
}

// Count is how many fields the message filled or confirmed.
func (r VendorReading) Count() int { return len(r.Fields) }

// NewVendorReading lists a reading for a form whose fields (v, laid out
// by WithFields) carry their sources; fill and res are the plan and the
// reading, fileNoteID and fileName what became of an attached file.
func NewVendorReading(tr *i18n.Translator, v QuoteFormView, fill extract.Fill, res extract.Result, fileNoteID, fileName string) *VendorReading {
	r := &VendorReading{FileNoteID: fileNoteID, FileName: fileName, Unread: res.Unread}
	byName := map[string]Field{}
	labels := map[string]string{}
	for _, s := range v.Sections {
		for _, f := range s.Fields {
			byName[f.Name] = f
			labels[f.Name] = tr.T(f.LabelID)
		}
	}
	for _, l := range v.Lines {
		for _, f := range []Field{l.Status, l.Unit, l.UnitPrice, l.Allowance} {
			byName[f.Name] = f
			labels[f.Name] = tr.T(l.LabelID) + " · " + tr.T(f.LabelID)
		}
	}
	add := func(f Field) {
		if f.Source != "" {
			r.Fields = append(r.Fields, ReadingField{FieldID: f.ID(), Label: labels[f.Name], Value: shownValue(tr, f), Source: f.Source})
		}
	}
	for _, s := range v.Sections {
		for _, f := range s.Fields {
			add(f)
		}
	}
	for _, l := range v.Lines {
		for _, f := range []Field{l.Status, l.Unit, l.UnitPrice, l.Allowance} {
			add(f)
		}
	}
	for _, k := range fill.Kept {
		f := byName[k.Field]
		read := f
		read.Value = k.Read
		r.Kept = append(r.Kept, ReadingKept{FieldID: f.ID(), Label: labelOr(labels, k.Field), Typed: shownValue(tr, f),
			Read: shownValue(tr, read), Source: k.Source})
	}
	for _, u := range fill.Unknown {
		r.Unknown = append(r.Unknown, ReadingUnknown{FieldID: byName[u.Field].ID(), Label: labelOr(labels, u.Field), Name: u.Name,
			Nearest: u.Nearest})
	}
	for _, sk := range res.Skipped {
		r.Skipped = append(r.Skipped, ReadingSkip{Reason: tr.T(sk.Reason), Text: sk.Text})
	}
	return r
}

func labelOr(labels map[string]string, field string) string {
	if l, ok := labels[field]; ok {
		return l
	}
	return field
}

// shownValue is a field's value as its control shows it: a choice by its
// label.
func shownValue(tr *i18n.Translator, f Field) string {
	for _, o := range f.Options {
		if o.Value == f.Value {
			if o.LabelID != "" {
				return tr.T(o.LabelID)
			}
			return o.Label
		}
	}
	return strings.TrimSpace(f.Value)
}
