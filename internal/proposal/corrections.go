package proposal

import (
	"gpuquote/internal/catalog"
	"gpuquote/internal/quote"
)

// Corrections are what an editor changed of a proposal when publishing it
// (docs/RULES.md §18.1): the quote's fields (names of quote.Fields, in the
// form's order) and, per cost line (in the table's order), the line's
// fields (quote.LineFields) whose values differ between the vendor's
// version and the version published.
type Corrections struct {
	Fields []string
	Lines  []LineCorrection
}

// LineCorrection is one of the twelve lines the editor changed: its item
// and the fields of it that differ.
type LineCorrection struct {
	Item   string
	Fields []string
}

// None says the editor published the proposal as it was.
func (c Corrections) None() bool { return len(c.Fields) == 0 && len(c.Lines) == 0 }

// Correct compares the vendor's version of a proposal with the version an
// editor published from it. Values are compared as the form writes them
// (quote.Values), so 0.50 and 0.5 are one price and a line missing from a
// quote reads as the unconfirmed line the form shows for it.
func Correct(vendor, published quote.Quote) Corrections {
	a, b := quote.Values(withAllLines(vendor)), quote.Values(withAllLines(published))
	var out Corrections
	for _, name := range quote.FormOrder {
		if a.Get(name) != b.Get(name) {
			out.Fields = append(out.Fields, name)
		}
	}
	for _, it := range catalog.Items {
		lc := LineCorrection{Item: string(it.Key)}
		for _, f := range quote.LineFields {
			k := string(it.Key) + "." + f
			if a.Get(k) != b.Get(k) {
				lc.Fields = append(lc.Fields, f)
			}
		}
		if len(lc.Fields) > 0 {
			out.Lines = append(out.Lines, lc)
		}
	}
	return out
}

// withAllLines is q with an unconfirmed line for each item it lacks.
func withAllLines(q quote.Quote) quote.Quote {
	have := map[string]bool{}
	for _, l := range q.Lines {
		have[l.Item] = true
	}
	lines := append([]quote.Line(nil), q.Lines...)
	for _, it := range catalog.Items {
		if !have[string(it.Key)] {
			lines = append(lines, quote.Line{Item: string(it.Key), Status: string(catalog.StatusUnconfirmed)})
		}
	}
	q.Lines = lines
	return q
}
