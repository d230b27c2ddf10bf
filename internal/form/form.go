// Package form reads a submitted form: typed fields (decimals, whole
// numbers, dates, text, choices, yes/no) from strings, each problem kept as
// a catalog message ID under the field it belongs to, every problem at
// once. Every page's form and the quote CSV import read through it, so one
// kind of input is always checked, and worded, the same way.
//
// It knows nothing of HTTP: a Reader reads from any func(name) string (a
// posted form, a query, a CSV row).
package form

import (
	"errors"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// Message is a catalog message ID with its template arguments as
// name/value pairs.
type Message struct {
	ID   string
	Args []any
}

// Errors maps a form field name to the message of its problem.
type Errors map[string]Message

// Add records a problem with field unless it already has one: the first
// problem found is the one shown.
func (e Errors) Add(field, id string, args ...any) {
	if _, ok := e[field]; !ok {
		e[field] = Message{ID: id, Args: args}
	}
}

// Set records a problem with field, replacing one found before.
func (e Errors) Set(field, id string, args ...any) { e[field] = Message{ID: id, Args: args} }

// Has reports whether field has a problem.
func (e Errors) Has(field string) bool { _, ok := e[field]; return ok }

// ID is the message ID of field's problem ("" without one).
func (e Errors) ID(field string) string { return e[field].ID }

// Invalid is the aria-invalid value for field.
func (e Errors) Invalid(field string) string {
	if e.Has(field) {
		return "true"
	}
	return "false"
}

// Message IDs of the problems the Reader finds (catalog form.*).
const (
	MsgRequired = "form.required"
	MsgTooLong  = "form.error.too_long"
	MsgNumber   = "form.error.number"
	MsgNegative = "form.error.negative"
	MsgPositive = "form.error.positive"
	MsgTooLarge = "form.error.too_large"
	MsgInteger  = "form.error.integer"
	MsgRange    = "form.error.range"
	MsgChoice   = "form.error.choice"
	MsgDate     = "form.date.invalid"
	MsgFuture   = "form.error.future"
	// MsgFullWidth: a number typed with full-width digits (２００).
	MsgFullWidth = "form.error.fullwidth"
	// MsgCommaDecimal: a decimal comma (1,5) where a dot is needed.
	MsgCommaDecimal = "form.error.comma_decimal"
	// MsgThousands: thousands separators (1,234.5 or 1 234).
	MsgThousands = "form.error.thousands"
	// MsgLineBreak: a line break in a field of one line (a title, a
	// label, a name, a source), docs/RULES.md §16.4.
	MsgLineBreak = "form.error.line_break"
)

// StorableText reports whether s may be stored and shown as it is: UTF-8
// holding no NUL byte and no other control character (DEL included) but
// tab and the line breaks. The input guard refuses a form or query with
// anything else, and the JSON doors a string (docs/RULES.md §16.4).
func StorableText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return false
		}
	}
	return true
}

// OneLine reports whether s holds no line break: what a field of one line
// (a title, a label, a name, a source) may hold (docs/RULES.md §16.4).
func OneLine(s string) bool { return !strings.ContainsAny(s, "\r\n\u0085\u2028\u2029") }

var (
	decimalComma = regexp.MustCompile(`^-?[0-9]+,[0-9]+$`)
	thousands    = regexp.MustCompile(`^-?[0-9]{1,3}([, \x{00A0}\x{202F}][0-9]{3})+(\.[0-9]+)?$`)
	// groupedComma is a decimal comma after dot or space groups (1.234,5).
	groupedComma = regexp.MustCompile(`^-?[0-9]{1,3}([. \x{00A0}\x{202F}][0-9]{3})+,[0-9]+$`)
)

// NumberProblem names what is wrong with text that was meant as a number
// (a whole number when integer) and could not be read: full-width digits,
// a decimal comma, thousands separators, a fraction where a whole number
// is needed, or anything else. The message says how to write it.
func NumberProblem(v string, integer bool) string {
	v = strings.TrimSpace(v)
	for _, r := range v {
		if r >= '０' && r <= '９' || r == '．' || r == '，' || r == '－' {
			return MsgFullWidth
		}
	}
	grouped := thousands.MatchString(v) && !strings.HasPrefix(strings.TrimPrefix(v, "-"), "0")
	// The digits after a comma decide what it is (docs/RULES.md §14.1):
	// exactly three, in groups of three, read as thousands separators
	// (1,500 · 1,234,567 · 1,234.5 · 12 000); any other count is a decimal
	// comma (1,5 · 0,471 · 1,5000 · 1.234,5), to be written with a dot.
	switch {
	case grouped:
		return MsgThousands // no separators, and a dot for decimals
	case decimalComma.MatchString(v) || groupedComma.MatchString(v):
		if integer {
			return MsgInteger // 1,5 is a fraction where a whole number is needed
		}
		return MsgCommaDecimal
	case integer:
		return MsgInteger
	}
	return MsgNumber
}

// MsgPlaces is the message of a number with more than places decimal
// places.
func MsgPlaces(places int) string { return "form.error.places." + strconv.Itoa(places) }

// Reader reads the fields of one form and collects every problem.
type Reader struct {
	get func(string) string
	// Errs holds the problems found so far, by field.
	Errs Errors
}

// NewReader reads fields through get.
func NewReader(get func(name string) string) *Reader { return &Reader{get: get, Errs: Errors{}} }

// Values reads fields from submitted values.
func Values(v url.Values) *Reader { return NewReader(v.Get) }

// OK reports whether no problem was found.
func (r *Reader) OK() bool { return len(r.Errs) == 0 }

// Fail records a problem of the caller's own with field (the first one
// found stays).
func (r *Reader) Fail(field, id string, args ...any) { r.Errs.Add(field, id, args...) }

// Has reports whether field has a problem already.
func (r *Reader) Has(field string) bool { return r.Errs.Has(field) }

// Raw is the field as typed, trimmed, in valid UTF-8.
func (r *Reader) Raw(name string) string {
	return strings.TrimSpace(strings.ToValidUTF8(r.get(name), "\uFFFD"))
}

// Text reads a trimmed text field of one line (a title, a label, a name,
// a source) of at most max characters ("" when empty); a line break in it
// is a problem (MsgLineBreak). Text of several lines is read by
// Paragraphs.
func (r *Reader) Text(name string, max int) string {
	v := r.Raw(name)
	switch {
	case !OneLine(v):
		r.Fail(name, MsgLineBreak)
	case utf8.RuneCountInString(v) > max:
		r.Fail(name, MsgTooLong, "Max", strconv.Itoa(max))
	}
	return v
}

// Paragraphs reads multi-line text (a comment, a note, a description) of
// at most max characters, its line ends made "\n" (a browser sends
// "\r\n").
func (r *Reader) Paragraphs(name string, max int) string {
	v := strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(r.get(name), "\uFFFD"), "\r\n", "\n"))
	if utf8.RuneCountInString(v) > max {
		r.Fail(name, MsgTooLong, "Max", strconv.Itoa(max))
	}
	return v
}

// RequiredText is Text that must not be empty.
func (r *Reader) RequiredText(name string, max int) string {
	v := r.Text(name, max)
	if v == "" {
		r.Fail(name, MsgRequired)
	}
	return v
}

// Decimal says what a decimal field accepts. Numbers are read exactly,
// never through float64: digits with at most one dot, no sign, no
// exponent, no thousands separators (money.ParsePlaces).
type Decimal struct {
	// Places is the most decimal places.
	Places int
	// Positive refuses 0; otherwise 0 is allowed. A decimal is never
	// negative.
	Positive bool
	// Below, when set, is the first value too large (the column's limit).
	Below decimal.NullDecimal
	// Max, when set, is the largest value allowed (a percentage's 100).
	Max decimal.NullDecimal
	// Required refuses an empty field.
	Required bool
	// Digits, when set, is the most digits before the decimal point: what
	// the field's NUMERIC(p, s) column holds, p − s (docs/RULES.md §16.4).
	Digits int
}

// Numeric is the rule of a field stored in a NUMERIC(precision, scale)
// column: at most scale places and precision − scale digits before the
// point, so whatever the form takes, the column holds.
func Numeric(precision, scale int) Decimal {
	return Decimal{Places: scale, Digits: precision - scale}
}

// MsgDigits is the message of a number with more than n digits before the
// decimal point.
func MsgDigits(n int) string {
	if n == 1 {
		return "form.error.digits.one"
	}
	return "form.error.digits.other"
}

// IntDigits is how many digits d has before the decimal point (0 for a
// number below 1).
func IntDigits(d decimal.Decimal) int {
	n := d.Abs().Truncate(0)
	if n.Sign() == 0 {
		return 0
	}
	return n.NumDigits() + int(n.Exponent())
}

// Decimal reads a decimal field; an empty one is null (or a problem when
// required).
func (r *Reader) Decimal(name string, rule Decimal) decimal.NullDecimal {
	v := r.Raw(name)
	if v == "" {
		if rule.Required {
			r.Fail(name, MsgRequired)
		}
		return decimal.NullDecimal{}
	}
	d, err := money.ParsePlaces(v, rule.Places)
	switch {
	case errors.Is(err, money.ErrTooManyPlaces):
		r.Fail(name, MsgPlaces(rule.Places))
	case err != nil:
		r.Fail(name, NumberProblem(v, false))
	case d.Sign() < 0:
		r.Fail(name, MsgNegative)
	case rule.Positive && d.Sign() == 0:
		r.Fail(name, MsgPositive)
	case rule.Digits > 0 && IntDigits(d) > rule.Digits:
		r.Fail(name, MsgDigits(rule.Digits), "Digits", rule.Digits)
	case rule.Below.Valid && d.GreaterThanOrEqual(rule.Below.Decimal):
		r.Fail(name, MsgTooLarge)
	case rule.Max.Valid && d.GreaterThan(rule.Max.Decimal):
		r.Fail(name, MsgRange, "Min", "0", "Max", money.String(rule.Max.Decimal))
	default:
		return decimal.NewNullDecimal(d)
	}
	return decimal.NullDecimal{}
}

// Int reads a whole number within [min, max], written in digits only (no
// sign: counts are never negative); ok is false when the field is empty or
// wrong (wrong is a problem; empty is one only when required).
func (r *Reader) Int(name string, min, max int, required bool) (n int, ok bool) {
	v := r.Raw(name)
	if v == "" {
		if required {
			r.Fail(name, MsgRequired)
		}
		return 0, false
	}
	n, err := strconv.Atoi(v)
	switch {
	case strings.HasPrefix(v, "-") && err == nil:
		r.Fail(name, MsgRange, "Min", money.Group(strconv.Itoa(min)), "Max", money.Group(strconv.Itoa(max)))
	case err != nil || strings.Trim(v, "0123456789") != "":
		r.Fail(name, NumberProblem(v, true))
	case n < min || n > max:
		r.Fail(name, MsgRange, "Min", money.Group(strconv.Itoa(min)), "Max", money.Group(strconv.Itoa(max)))
	default:
		return n, true
	}
	return 0, false
}

// Date says what a date field accepts.
type Date struct {
	Required bool
	// NotAfter, when set, is the latest day allowed.
	NotAfter time.Time
	// NotBefore, when set, is the earliest day allowed (an earlier one is
	// not a real date for this field).
	NotBefore time.Time
}

// Date reads a YYYY-MM-DD date; ok is false when it is empty or wrong.
func (r *Reader) Date(name string, rule Date) (d time.Time, ok bool) {
	v := r.Raw(name)
	if v == "" {
		if rule.Required {
			r.Fail(name, MsgRequired)
		}
		return time.Time{}, false
	}
	d, err := time.Parse(time.DateOnly, v)
	switch {
	case err != nil || !rule.NotBefore.IsZero() && d.Before(rule.NotBefore):
		r.Fail(name, MsgDate)
	case !rule.NotAfter.IsZero() && d.After(rule.NotAfter):
		r.Fail(name, MsgFuture)
	default:
		return d, true
	}
	return time.Time{}, false
}

// Choice reads a value that must be one of allowed; "" is allowed unless
// required.
func (r *Reader) Choice(name string, required bool, allowed ...string) string {
	v := r.Raw(name)
	if v == "" {
		if required {
			r.Fail(name, MsgRequired)
		}
		return ""
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.Fail(name, MsgChoice)
	return ""
}

// YesNo reads yes / no / not stated: "true", "yes", "1" or "on" is yes;
// "false", "no" or "0" is no; empty is nil (not stated).
func (r *Reader) YesNo(name string) *bool {
	switch strings.ToLower(r.Raw(name)) {
	case "":
		return nil
	case "true", "yes", "1", "on":
		b := true
		return &b
	case "false", "no", "0":
		b := false
		return &b
	}
	r.Fail(name, MsgChoice)
	return nil
}

// Check reads a checkbox: "true" when ticked, empty when not.
func (r *Reader) Check(name string) bool {
	switch r.Raw(name) {
	case "":
		return false
	case "true":
		return true
	}
	r.Fail(name, MsgChoice)
	return false
}

// Currency reads an ISO 4217 code ("eur" is read as EUR) that prices may
// be given in.
func (r *Reader) Currency(name string, required bool) string {
	v := strings.ToUpper(r.Raw(name))
	switch {
	case v == "":
		if required {
			r.Fail(name, MsgRequired)
		}
	case !money.IsCurrency(v):
		r.Fail(name, "form.error.currency")
	}
	return v
}
