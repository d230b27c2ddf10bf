// Package billfile holds the file formats of a vendor's bill: gpuquote's
// own bill CSV and a FOCUS cost-and-usage file read into bill lines, and
// a checked bill written out as CSV, XLSX (through the report's writers)
// and FOCUS (docs/CSV.md, "Bills"). Like skycatalog it does no IO beyond
// the reader or writer it is given; every amount is read exactly from its
// text.
//
// A file is read whole or not at all: every row is checked, the first
// MaxErrors row problems are kept with their line numbers and the rest
// counted, and any problem means no lines.
package billfile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// Bounds of a bill file, named as skycatalog names its own.
const (
	// MaxRows bounds the rows of one file: each row is one bill line, and a
	// bill has at most billcheck.MaxLines. Every record read after the
	// header counts, and reading stops past it.
	MaxRows = billcheck.MaxLines
	// MaxBytes is the largest own CSV taken, as for the quote CSV.
	MaxBytes = quote.CSVMaxBytes
	// MaxFOCUSBytes is the largest FOCUS file taken: a FOCUS row carries
	// fifty-odd columns (identifiers, tags as JSON), so MaxRows of them
	// need more room than the own format's four.
	MaxFOCUSBytes = 64 << 20
	// MaxErrors is how many row problems are kept to show; the others are
	// only counted (as for the quote CSV).
	MaxErrors = quote.CSVMaxErrors
)

// Message IDs of the problems only a bill file has; the others are the
// quote CSV's (import.error.*) and the form's (form.*).
const (
	MsgItem       = "billfile.error.item"
	MsgText       = "billfile.error.text"
	MsgTooLarge   = "billfile.error.too_large"
	MsgKeyColumns = "billfile.error.focus_key_columns"
	MsgNoKey      = "billfile.error.focus_no_key"
	MsgDateTime   = "billfile.error.focus_datetime"
	MsgPeriod     = "billfile.error.focus_period_order"
	MsgOutside    = "billfile.error.focus_outside"
	MsgTax        = "billfile.error.focus_tax"
	MsgCategory   = "billfile.error.focus_category"
	MsgCurrency   = "billfile.error.focus_currency"
)

// The quote CSV's and the form's messages a bill file reuses.
const (
	msgEmpty         = "import.error.empty"
	msgCSV           = "import.error.csv"
	msgEncoding      = "import.error.encoding"
	msgFieldCountOne = "import.error.field_count.one"
	msgFieldCount    = "import.error.field_count.other"
	msgUnknownCols   = "import.error.unknown_columns"
	msgDuplicateCols = "import.error.duplicate_columns"
	msgMissingCols   = "import.error.missing_columns"
	msgTooManyRows   = "import.error.too_many_rows"
	msgCurrencyCode  = "form.error.currency"
)

// RowError is one problem of one row of a file.
type RowError struct {
	// Line is the file's line the row starts on: the header is line 1. (It
	// differs from a spreadsheet's row number only after a quoted value
	// holding a line break.)
	Line int
	// Column names the column the problem is in, as the format names it;
	// "" when it concerns the whole row.
	Column string
	// Message says what is wrong, in either language.
	form.Message
}

// Refused is the error of a file that gives no lines: its problems as a
// whole (File), and how many row problems were found beside the ones
// returned. A reader returns a *Refused whenever the file is refused, and
// any other error only when reading itself failed.
type Refused struct {
	// File are the problems of the file as a whole: not CSV, too large,
	// too many rows, a column missing, no rows.
	File []form.Message
	// RowErrors counts every row problem found; Omitted those of them not
	// returned (past the first MaxErrors).
	RowErrors, Omitted int
	// BadRows counts the rows with at least one problem.
	BadRows int
}

func (r *Refused) Error() string {
	return fmt.Sprintf("billfile: file refused: %d file problems, %d row problems in %d rows", len(r.File), r.RowErrors, r.BadRows)
}

// errTooLarge is what capReader returns past its limit.
var errTooLarge = errors.New("billfile: file too large")

// capReader reads at most max bytes of r and fails past them.
type capReader struct {
	r        io.Reader
	n, limit int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.n > c.limit {
		return 0, errTooLarge
	}
	if room := c.limit + 1 - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > c.limit {
		return 0, errTooLarge
	}
	return n, err
}

// sheet is one file being read: its problems so far.
type sheet struct {
	refused Refused
	errs    []RowError
	// rowBad is whether the row being read has a problem yet.
	rowBad bool
}

func (s *sheet) fileProblem(id string, args ...any) {
	s.refused.File = append(s.refused.File, form.Message{ID: id, Args: args})
}

// rowProblem counts a problem of a row and keeps it while fewer than
// MaxErrors are kept.
func (s *sheet) rowProblem(line int, column, id string, args ...any) {
	if !s.rowBad {
		s.rowBad = true
		s.refused.BadRows++
	}
	s.refused.RowErrors++
	if len(s.errs) < MaxErrors {
		s.errs = append(s.errs, RowError{Line: line, Column: column, Message: form.Message{ID: id, Args: args}})
	} else {
		s.refused.Omitted++
	}
}

// failed reports whether anything is wrong so far.
func (s *sheet) failed() bool { return len(s.refused.File) > 0 || s.refused.RowErrors > 0 }

// result is what a reader returns for the problems found: nil and nil
// when there are none.
func (s *sheet) result() ([]RowError, error) {
	if !s.failed() {
		return nil, nil
	}
	r := s.refused
	return s.errs, &r
}

// scan reads a CSV file: a header, then rows, each passed to row with the
// line it starts on unless the record itself is wrong (a field count other
// than the header's, text that is not UTF-8). A UTF-8 byte-order mark is
// skipped; empty rows are passed over. header says whether the columns
// are fit to read the rows. An error is returned only when reading failed.
func (s *sheet) scan(r io.Reader, maxBytes int64, header func([]string) bool, row func(line int, rec []string)) error {
	cr := quote.CSVReader(&capReader{r: r, limit: maxBytes})
	head, err := cr.Read()
	if err == io.EOF {
		s.fileProblem(msgEmpty)
		return nil
	}
	if err != nil {
		return s.readFailed(err, maxBytes)
	}
	width := len(head)
	if !header(head) {
		return nil
	}
	rows, read := 0, 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		var pe *csv.ParseError
		fieldCount := errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount)
		if err != nil && !fieldCount {
			return s.readFailed(err, maxBytes)
		}
		if read++; read > MaxRows {
			s.fileProblem(msgTooManyRows, "Max", MaxRows)
			return nil
		}
		s.rowBad = false
		if fieldCount {
			id := msgFieldCount
			if len(rec) == 1 {
				id = msgFieldCountOne
			}
			s.rowProblem(pe.StartLine, "", id, "Row", pe.StartLine, "Got", len(rec), "Want", width)
			continue
		}
		line, _ := cr.FieldPos(0)
		if blank(rec) {
			continue
		}
		if !quote.ValidText(rec) {
			s.rowProblem(line, "", msgEncoding, "Row", line)
			continue
		}
		rows++
		row(line, rec)
	}
	if rows == 0 && !s.failed() {
		s.fileProblem(msgEmpty)
	}
	return nil
}

// readFailed names why reading stopped: the file too large, not CSV, or
// (returned) the reader's own failure.
func (s *sheet) readFailed(err error, maxBytes int64) error {
	var pe *csv.ParseError
	switch {
	case errors.Is(err, errTooLarge):
		s.fileProblem(MsgTooLarge, "Max", strconv.FormatInt(maxBytes>>20, 10))
	case errors.As(err, &pe):
		s.fileProblem(msgCSV, "Line", pe.StartLine)
	default:
		return fmt.Errorf("billfile: read: %w", err)
	}
	return nil
}

// blank reports whether every field of a row is empty.
func blank(rec []string) bool {
	for _, f := range rec {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// amountRule says what a number of a bill may be.
type amountRule struct {
	required bool
	negative bool // whether it may be below 0
}

// readAmount reads a quantity or an amount as a bill line holds it:
// exact, at most billcheck.MaxAmountPlaces places, within ± tco.MaxAmount.
// E notation is read when exp is set (FOCUS allows it). It returns the
// problem's message ID ("" when none) and arguments; an empty value not
// required is zero.
func readAmount(v string, rule amountRule, exp bool) (decimal.Decimal, string, []any) {
	if v == "" {
		if rule.required {
			return decimal.Decimal{}, form.MsgRequired, nil
		}
		return decimal.Decimal{}, "", nil
	}
	parse := money.ParseDecimal
	if exp {
		parse = parseFOCUSNumber
	}
	d, err := parse(v)
	switch {
	case err != nil:
		return d, form.NumberProblem(v, false), nil
	case d.Sign() < 0 && !rule.negative:
		return d, form.MsgNegative, nil
	case d.Abs().GreaterThan(tco.MaxAmount):
		return d, form.MsgTooLarge, nil
	case money.Places(d) > billcheck.MaxAmountPlaces:
		return d, form.MsgPlaces(billcheck.MaxAmountPlaces), nil
	}
	return d, "", nil
}

// maxExponent bounds the exponent of a number in E notation: far beyond
// any amount's digits, far below what costs time.
const maxExponent = 40

// parseFOCUSNumber reads a number as FOCUS writes one (NumericFormat): a
// plain decimal, or E notation "mEn" with n an integer whose sign is
// written only when negative ("35.2E-7"). The value is exact: the
// mantissa's digits, the point moved by n.
func parseFOCUSNumber(s string) (decimal.Decimal, error) {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return money.ParseDecimal(s)
	}
	m, err := money.ParseDecimal(s[:i])
	if err != nil {
		return decimal.Decimal{}, err
	}
	e := s[i+1:]
	neg := strings.HasPrefix(e, "-")
	if neg {
		e = e[1:]
	}
	if e == "" || len(e) > 3 || strings.Trim(e, "0123456789") != "" {
		return decimal.Decimal{}, money.ErrSyntax
	}
	n, _ := strconv.Atoi(e)
	if n > maxExponent {
		return decimal.Decimal{}, money.ErrSyntax
	}
	if neg {
		n = -n
	}
	return decimal.NewFromBigInt(m.Coefficient(), m.Exponent()+int32(n)), nil
}

// readDescription checks a line's description: storable text on one line
// of at most billcheck.MaxDescriptionLen characters.
func readDescription(v string) (string, []any) {
	switch {
	case !form.StorableText(v):
		return MsgText, nil
	case !form.OneLine(v):
		return form.MsgLineBreak, nil
	case utf8.RuneCountInString(v) > billcheck.MaxDescriptionLen:
		return form.MsgTooLong, []any{"Max", strconv.Itoa(billcheck.MaxDescriptionLen)}
	}
	return "", nil
}

// itemList is the bill items, comma-separated, for the message naming
// them.
func itemList() string {
	items := billcheck.Items()
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = string(it)
	}
	return strings.Join(out, ", ")
}

// readItem reads a bill item's key (compared without regard to case).
func readItem(v string) (billcheck.Item, string, []any) {
	if v == "" {
		return "", form.MsgRequired, nil
	}
	it := billcheck.Item(strings.ToLower(v))
	if !it.Valid() {
		return "", MsgItem, []any{"Value", shorten(v), "Items", itemList()}
	}
	return it, "", nil
}

// shorten cuts a value from the file before it goes into a message.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}
