package billfile

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/quote"
)

// The columns of gpuquote's own bill CSV (docs/CSV.md, "Bills").
const (
	ColItem        = "item"
	ColQuantity    = "quantity"
	ColAmount      = "amount"
	ColDescription = "description"
)

// CSVColumns are the own format's columns in the order an example writes
// them; the header names them, in any order. CSVRequired must be there;
// description may be left out.
var (
	CSVColumns  = []string{ColItem, ColQuantity, ColAmount, ColDescription}
	CSVRequired = []string{ColItem, ColQuantity, ColAmount}
)

// ReadCSV reads a bill in gpuquote's own CSV: a header naming the columns
// item, quantity, amount and (optionally) description, in any order and
// case, then one row per bill line. Every row is checked: a known item, a
// quantity ≥ 0 and an amount (negative for a credit), each exact with at
// most billcheck.MaxAmountPlaces places, a description of one line of at
// most billcheck.MaxDescriptionLen characters. Any problem refuses the
// whole file: no lines, the first MaxErrors row problems, and a *Refused
// error. An error of another type means reading failed.
func ReadCSV(r io.Reader) ([]billcheck.Line, []RowError, error) {
	var s sheet
	var index map[string]int
	header := func(head []string) bool {
		var unknown, dup, missing []string
		index, dup, missing, unknown = quote.ColumnIndex(head, CSVColumns, CSVRequired)
		for i, h := range unknown {
			unknown[i] = strconv.Quote(shortHeader(h))
		}
		if len(unknown) > 0 {
			s.fileProblem(msgUnknownCols, "Columns", strings.Join(unknown, ", "))
		}
		if len(dup) > 0 {
			s.fileProblem(msgDuplicateCols, "Columns", strings.Join(dup, ", "))
		}
		if len(missing) > 0 {
			s.fileProblem(msgMissingCols, "Columns", strings.Join(missing, ", "))
		}
		return !s.failed()
	}
	var lines []billcheck.Line
	row := func(line int, rec []string) {
		get := func(col string) string {
			if i, ok := index[col]; ok {
				return quote.UnguardCell(strings.TrimSpace(rec[i]))
			}
			return ""
		}
		var l billcheck.Line
		var id string
		var args []any
		if l.Item, id, args = readItem(get(ColItem)); id != "" {
			s.rowProblem(line, ColItem, id, args...)
		}
		if l.Quantity, id, args = readAmount(get(ColQuantity), amountRule{required: true}, false); id != "" {
			s.rowProblem(line, ColQuantity, id, args...)
		}
		if l.Amount, id, args = readAmount(get(ColAmount), amountRule{required: true, negative: true}, false); id != "" {
			s.rowProblem(line, ColAmount, id, args...)
		}
		l.Description = get(ColDescription)
		if id, args = readDescription(l.Description); id != "" {
			s.rowProblem(line, ColDescription, id, args...)
		}
		if !s.failed() { // once a row is wrong, no line is kept
			lines = append(lines, l)
		}
	}
	if err := s.scan(r, MaxBytes, header, row); err != nil {
		return nil, nil, err
	}
	if errs, err := s.result(); err != nil {
		return nil, errs, err
	}
	return lines, nil, nil
}

func known(col string) bool {
	for _, c := range CSVColumns {
		if c == col {
			return true
		}
	}
	return false
}

// shortHeader cuts an unknown column's name, and shows text that is not
// UTF-8 as such, before it goes into a message.
func shortHeader(h string) string {
	if !utf8.ValidString(h) {
		return strings.ToValidUTF8(h, "\uFFFD")
	}
	return shorten(h)
}
