package extract

import (
	"strconv"
	"strings"

	"gpuquote/internal/catalog"
	"gpuquote/internal/quote"
)

// Fill is what reading a message changes in a quote form that may already
// hold the reader's typing (docs/RULES.md §22.11).
type Fill struct {
	// Set are the form fields to set, in the order of Result.Values; a
	// platform or GPU model by its id, as the form's choice posts it.
	Set []Value
	// Sources maps each form field the message states to the phrase it
	// was read from: the fields set, and those that already held the
	// same value.
	Sources map[string]string
	// Kept are the fields the reader had filled that the message states
	// otherwise: the reader's value stays.
	Kept []Kept
	// Unknown are platform and GPU model names the message gives that
	// name no known record exactly: nothing is chosen for them.
	Unknown []Unknown
}

// Kept is a field whose typed value was kept over the message's.
type Kept struct {
	Field, Typed, Read, Source string
}

// Unknown is a name the message gives for a platform or GPU model that
// names no known one; Nearest is the known name nearest to it ("" none).
type Unknown struct {
	Field, Name, Nearest, Source string
}

// Prefill plans the prefilling of a quote form from r (docs/RULES.md
// §22.11). current reads the form as posted; untouched says whether a
// field's current value is one the reader has not chosen (empty, or the
// new form's default). A line counts as the reader's when its status is
// not unconfirmed or it holds a price or an allowance; its fields are then
// kept like any typed field. Platform and GPU model names resolve through
// refs (names and aliases); a name that resolves to nothing is Unknown,
// never the nearest name.
func Prefill(r Result, current func(string) string, untouched func(field, value string) bool, refs quote.Refs) Fill {
	f := Fill{Sources: map[string]string{}}
	// A field's phrases in the order of the text: "按量 … ¥1.98/小时".
	// Each phrase once: a currency read from four prices is "¥".
	source := map[string]string{}
	seen := map[[2]string]bool{}
	for _, e := range r.Evidence {
		if seen[[2]string{e.Field, e.Text}] {
			continue
		}
		seen[[2]string{e.Field, e.Text}] = true
		if prev, ok := source[e.Field]; ok {
			source[e.Field] = prev + " … " + e.Text
		} else {
			source[e.Field] = e.Text
		}
	}
	lineTyped := map[string]bool{}
	for _, it := range catalog.Items {
		k := string(it.Key) + "."
		st := current(k + "status")
		lineTyped[string(it.Key)] = st != "" && st != string(catalog.StatusUnconfirmed) ||
			strings.TrimSpace(current(k+"unit_price")) != "" || strings.TrimSpace(current(k+"free_allowance")) != ""
	}
	for _, v := range r.Values {
		field, value := v.Field, v.Value
		switch field {
		case "platform", "gpu_model":
			resolve, suggest := refs.Platform, refs.SuggestPlatform
			if field == "gpu_model" {
				resolve, suggest = refs.GPUModel, refs.SuggestGPUModel
			}
			id, ok := resolve(value)
			if !ok {
				f.Unknown = append(f.Unknown, Unknown{Field: field, Name: value, Nearest: suggest(value), Source: source[field]})
				continue
			}
			value = strconv.FormatInt(id, 10)
		}
		if _, ok := quote.FieldByName(field); !ok && !quote.IsFormLineField(field) {
			continue // not a field of the form
		}
		cur := strings.TrimSpace(current(field))
		free := untouched(field, cur)
		if item, _, isLine := strings.Cut(field, "."); isLine && quote.IsFormLineField(field) {
			free = !lineTyped[item]
		}
		switch {
		case cur == value:
			f.Sources[field] = source[field]
		case free:
			f.Set = append(f.Set, Value{Field: field, Value: value})
			f.Sources[field] = source[field]
		default:
			f.Kept = append(f.Kept, Kept{Field: field, Typed: cur, Read: value, Source: source[field]})
		}
	}
	return f
}
