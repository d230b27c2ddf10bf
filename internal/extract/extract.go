// Package extract reads a GPU-rental vendor's message — an email, a chat
// message or a price list, in Chinese or English — and returns the fields
// of the quote entry form it states, each with the exact span of text it
// was read from (docs/RULES.md §22).
//
// It reads by rules and never guesses: a field the message does not state
// stays absent (no default is filled in), a price that is a range, an
// estimate, a "from" price, a former price or one under a condition gives
// no value and is listed as skipped with its reason, and a field read two
// different ways is left out. A wrong value is worse than a missing one.
//
// Values are written the way the entry form takes them: field names of
// quote.Fields and "<item>.<field>" for the twelve hidden-cost lines,
// decimals as plain strings ("1150", "0.06"), choices by their value
// ("second", "vat_special", "per_day"). gpu_model and platform are the
// names as the message gives them, for the caller to resolve through the
// alias tables.
//
// Evidence offsets are character (rune) offsets into the text, end
// exclusive. The package does no IO, keeps no state and is deterministic:
// the same text always gives the same result.
package extract

import (
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
)

// Evidence is where one value was read: Start/End are CHARACTER (rune)
// offsets into the input text, End exclusive; Text is exactly
// []rune(text)[Start:End].
type Evidence struct {
	Field      string
	Text       string
	Start, End int
}

// Value is one form field the text states, Value written the way the
// quote entry form accepts it.
type Value struct {
	Field string
	Value string
}

// Skip is a price-bearing phrase the extractor saw but deliberately did
// not turn into a value: Reason is a message id (extract.skip.…), Field
// the field it would have filled where that is known, and the span is in
// runes like Evidence's.
type Skip struct {
	Reason     string
	Field      string
	Text       string
	Start, End int
}

// Result is what Read found: the values in the entry form's order, the
// evidence of each, the sentences holding a price that gave no value, and
// the phrases skipped with their reasons.
type Result struct {
	Values   []Value
	Evidence []Evidence
	Unread   []string
	Skipped  []Skip
}

// Get returns the value read for field.
func (r Result) Get(field string) (string, bool) {
	for _, v := range r.Values {
		if v.Field == field {
			return v.Value, true
		}
	}
	return "", false
}

// Read reads a vendor's message (docs/RULES.md §22).
func Read(text string) Result {
	d := newDoc(text)
	d.scanLexicon()
	d.scanNumbers()
	d.readTables()
	d.readLabels()
	for _, h := range d.hits {
		if h.cls == cCurrency && !d.inMoney(h.s) {
			d.declared = append(d.declared, h)
		}
	}
	d.readHardware()
	count, countEv := d.gpuCount()
	d.readPrices(count, countEv)
	d.readLines()
	d.readTerms()
	d.readTax()
	d.readOffer()
	d.readDiscounts()
	return d.result()
}

// gpuCount is the one GPU count the message states, with where, or 0.
func (d *doc) gpuCount() (int, []span) {
	v, ev := "", []span(nil)
	for _, c := range d.cands {
		if c.field != "gpu_count" {
			continue
		}
		if v != "" && c.value != v {
			return 0, nil
		}
		v = c.value
		ev = append(ev, c.ev...)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, nil
	}
	return n, ev
}

func (d *doc) skip(reason, field string, s span) {
	d.skips = append(d.skips, Skip{Reason: reason, Field: field, Text: d.text(s.s, s.e), Start: s.s, End: s.e})
}

// lineFields are a line's fields the reader fills, in form order.
var lineFields = []string{"status", "unit", "unit_price", "free_allowance"}

// fieldOrder is the order of the values: the form's, then the lines in
// table order.
var fieldOrder = func() map[string]int {
	o := map[string]int{}
	for i, f := range quote.FormOrder {
		o[f] = i
	}
	k := len(o)
	for _, it := range catalog.Items {
		for _, f := range lineFields {
			o[string(it.Key)+"."+f] = k
			k++
		}
	}
	return o
}()

// result settles the currency, resolves each field's readings (one value,
// or none when they differ), checks each value against the form's bounds
// and lists what was not placed.
func (d *doc) result() Result {
	d.settleCurrency()
	var out Result
	emit := func(field, value string, cs []cand) {
		if !validValue(field, value) {
			for _, c := range cs {
				d.skip(MsgSkipBounds, field, c.ev[0])
				if c.m != nil {
					c.m.skipped = true
				}
			}
			return
		}
		out.Values = append(out.Values, Value{Field: field, Value: value})
		for _, c := range cs {
			for _, e := range c.ev {
				out.Evidence = append(out.Evidence, Evidence{Field: field, Text: d.text(e.s, e.e), Start: e.s, End: e.e})
			}
			if c.m != nil {
				c.m.placed = true
			}
		}
	}
	byField := map[string][]cand{}
	var fields []string
	for _, c := range d.cands {
		if _, seen := byField[c.field]; !seen {
			fields = append(fields, c.field)
		}
		byField[c.field] = append(byField[c.field], c)
	}
	for _, l := range d.lineCands() {
		if _, seen := byField[l.field]; !seen {
			fields = append(fields, l.field)
		}
		byField[l.field] = append(byField[l.field], l)
	}
	sort.SliceStable(fields, func(i, j int) bool { return fieldOrder[fields[i]] < fieldOrder[fields[j]] })
	for _, f := range fields {
		cs := byField[f]
		vals := distinct(cs)
		if f == "gpu_model" && len(vals) > 1 {
			vals = refineModel(vals)
		}
		if len(vals) == 1 {
			emit(f, vals[0], cs)
			continue
		}
		for _, c := range cs {
			d.skip(MsgSkipConflict, f, c.ev[0])
			if c.m != nil {
				c.m.skipped = true
			}
		}
	}
	for _, m := range d.money {
		if !m.placed && !m.skipped {
			t := d.trimmed(d.sentence(m.s))
			if len(out.Unread) == 0 || out.Unread[len(out.Unread)-1] != t {
				out.Unread = append(out.Unread, t)
			}
		}
	}
	sort.SliceStable(out.Evidence, func(i, j int) bool {
		a, b := out.Evidence[i], out.Evidence[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.End != b.End {
			return a.End < b.End
		}
		return fieldOrder[a.Field] < fieldOrder[b.Field]
	})
	out.Evidence = dedupe(out.Evidence, func(a, b Evidence) bool { return a == b })
	sort.SliceStable(d.skips, func(i, j int) bool {
		a, b := d.skips[i], d.skips[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.End != b.End {
			return a.End < b.End
		}
		if a.Reason != b.Reason {
			return a.Reason < b.Reason
		}
		return a.Field < b.Field
	})
	out.Skipped = dedupe(d.skips, func(a, b Skip) bool { return a == b })
	return out
}

func dedupe[T any](xs []T, eq func(a, b T) bool) []T {
	var out []T
	for _, x := range xs {
		if len(out) > 0 && eq(out[len(out)-1], x) {
			continue
		}
		out = append(out, x)
	}
	return out
}

// distinct returns the different values of cs in order of first reading.
func distinct(cs []cand) []string {
	var out []string
	for _, c := range cs {
		found := false
		for _, v := range out {
			if v == c.value {
				found = true
				break
			}
		}
		if !found {
			out = append(out, c.value)
		}
	}
	return out
}

// refineModel keeps the fullest name when every other name is the start
// of it ("H100" and "H100 SXM5" are one card).
func refineModel(vals []string) []string {
	if len(vals) == 0 {
		return nil
	}
	longest := vals[0]
	for _, v := range vals {
		if len(v) > len(longest) {
			longest = v
		}
	}
	for _, v := range vals {
		if v != longest && !strings.HasPrefix(longest, v+" ") {
			return vals
		}
	}
	return []string{longest}
}

// settleCurrency decides the quote's currency (docs/RULES.md §22.4): the
// one currency written with the message's prices, or else the one it
// names on its own. Prices in two currencies give no currency and no
// price; a price with no currency anywhere in the message gives none.
func (d *doc) settleCurrency() {
	var codes []string
	var ev []span
	note := func(code string, s span) {
		found := false
		for _, c := range codes {
			found = found || c == code
		}
		if !found {
			codes = append(codes, code)
		}
		ev = append(ev, s)
	}
	for _, m := range d.money {
		if m.cur != "" {
			note(m.cur, span{m.curS, m.curE})
		}
	}
	if len(codes) == 0 {
		for _, h := range d.declared {
			note(h.arg, span{h.s, h.e})
		}
	}
	drop := func(reason string) {
		kept := d.cands[:0]
		for _, c := range d.cands {
			if c.m != nil {
				d.skip(reason, c.field, span{c.m.s, c.m.e})
				c.m.skipped = true
				continue
			}
			kept = append(kept, c)
		}
		d.cands = kept
		for _, c := range d.charges {
			d.skip(reason, c.item+".unit_price", span{c.m.s, c.m.e})
			c.m.skipped = true
		}
		d.charges = nil
	}
	switch {
	case len(codes) == 1 && money.IsCurrency(codes[0]):
		d.cands = append(d.cands, cand{field: "currency", value: codes[0], ev: ev})
	case len(codes) > 1:
		drop(MsgSkipCurrency)
	default:
		drop(MsgSkipNoCurrency)
	}
}

// lineCands turns the priced lines and the statuses said in words into
// candidate values, item by item (docs/RULES.md §22.6). A line both priced
// and said to be free, or priced two ways, gets nothing: its readings are
// skipped as a conflict.
func (d *doc) lineCands() []cand {
	var out []cand
	for _, it := range catalog.Items {
		key := string(it.Key)
		var chs []charge
		for _, c := range d.charges {
			if c.item == key {
				chs = append(chs, c)
			}
		}
		var sts []lineStatus
		for _, s := range d.statuses {
			if s.item == key {
				sts = append(sts, s)
			}
		}
		agree := true
		for _, c := range chs {
			agree = agree && c.unit == chs[0].unit && c.price == chs[0].price
		}
		switch {
		case len(chs) > 0 && (len(sts) > 0 || !agree):
			for _, c := range chs {
				d.skip(MsgSkipConflict, key+".unit_price", span{c.m.s, c.m.e})
				c.m.skipped = true
			}
			for _, s := range sts {
				d.skip(MsgSkipConflict, key+".status", s.ev[0])
			}
		case len(chs) > 0:
			for _, c := range chs {
				ms := span{c.m.s, c.m.e}
				unitEv := ms
				if c.m.unitE > c.m.unitS {
					unitEv = span{c.m.unitS, c.m.unitE}
				}
				status := []span{ms}
				if c.at.e > c.at.s {
					status = []span{c.at, ms}
				}
				out = append(out,
					cand{field: key + ".status", value: string(catalog.StatusCharged), ev: status, m: c.m},
					cand{field: key + ".unit", value: c.unit, ev: []span{unitEv}, m: c.m},
					cand{field: key + ".unit_price", value: c.price, ev: []span{ms}, m: c.m})
			}
		default:
			for _, s := range sts {
				out = append(out, cand{field: key + ".status", value: s.status, ev: s.ev})
			}
		}
	}
	return out
}

// validValue reports whether the entry form takes value for field
// (docs/RULES.md §2.3).
func validValue(field, value string) bool {
	if k := strings.IndexByte(field, '.'); k >= 0 {
		return true
	}
	f, ok := quote.FieldByName(field)
	if !ok {
		return false
	}
	switch f.Kind {
	case quote.KindInt:
		v, err := strconv.Atoi(value)
		return err == nil && v >= f.Min && v <= f.Max
	case quote.KindDecimal:
		v, err := money.ParseDecimal(value)
		if err != nil || v.Sign() < 0 || money.Places(v) > f.Places || !v.LessThan(quote.MaxAmount) {
			return false
		}
		if f.Positive && v.Sign() <= 0 || f.MaxValue.Valid && v.GreaterThan(f.MaxValue.Decimal) {
			return false
		}
		return field != "tax_rate" || v.LessThan(decimal.New(1, 0))
	case quote.KindText:
		return value != "" && len([]rune(value)) <= f.Max
	case quote.KindRef:
		return value != "" && len([]rune(value)) <= 200
	case quote.KindChoice:
		for _, c := range f.Choices {
			if c == value {
				return true
			}
		}
		return false
	case quote.KindBool, quote.KindYesNo:
		return value == "true" || value == "false"
	case quote.KindCurrency:
		return money.IsCurrency(value)
	}
	return false
}
