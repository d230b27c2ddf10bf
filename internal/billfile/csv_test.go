package billfile_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/billfile"
	"gpuquote/internal/form"
	"gpuquote/internal/quote"
)

// TestReadCSVExample reads docs/examples/bill.csv, golden bill 1, and the
// lines check as billcheck's golden test says.
func TestReadCSVExample(t *testing.T) {
	lines, errs, err := billfile.ReadCSV(bytes.NewReader(readFile(t, "..", "..", "docs", "examples", "bill.csv")))
	if err != nil || errs != nil {
		t.Fatalf("refused: %v %+v", err, errs)
	}
	sameLines(t, lines, golden1Lines())
	q, b := golden1()
	b.Lines = lines
	r, err := billcheck.Check(q, b, billcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.BilledTotal.StringFixed(2) != "102.90" || r.OverchargeTotal.StringFixed(2) != "1.70" {
		t.Errorf("billed %s overcharge %s, want 102.90 and 1.70", r.BilledTotal, r.OverchargeTotal)
	}
}

// TestReadCSVForms: a byte-order mark, columns in another order and case,
// CRLF line ends, description left out, blank rows, a credit, six places,
// a guarded formula.
func TestReadCSVForms(t *testing.T) {
	in := quote.UTF8BOM + " Amount ,ITEM,quantity\r\n94.2,compute_hourly,200\r\n\r\n,,\r\n-5,Other,0\r\n0.123456,egress,1.5\r\n"
	lines, errs, err := billfile.ReadCSV(strings.NewReader(in))
	if err != nil {
		t.Fatalf("refused: %v %+v", err, errs)
	}
	sameLines(t, lines, []billcheck.Line{
		{Item: billcheck.ItemComputeHourly, Quantity: d("200"), Amount: d("94.2")},
		{Item: billcheck.ItemOther, Quantity: d("0"), Amount: d("-5")},
		{Item: "egress", Quantity: d("1.5"), Amount: d("0.123456")},
	})
	lines, _, err = billfile.ReadCSV(strings.NewReader("item,quantity,amount,description\nother,1,1,'=1+1 voucher\n"))
	if err != nil || lines[0].Description != "=1+1 voucher" {
		t.Errorf("guarded description read as %q (%v), want =1+1 voucher", lines[0].Description, err)
	}
}

// TestReadCSVRowErrors: every problem of a row named with its line and
// column, a quoted line break counted in the lines, and no lines at all.
func TestReadCSVRowErrors(t *testing.T) {
	in := "item,quantity,amount,description\n" +
		"compute_hourly,200,94.20,GPU hours\n" + // 2: fine
		"gpu,-1,1,x\n" + // 3: item, quantity
		"egress,1,0.1234567,\"two\nlines\"\n" + // 4–5: amount places, line break
		"egress,1,1\n" + // 6: field count
		"other,1.5.5,1,\n" + // 7: quantity
		"other,1,1,a\x01b\n" + // 8: not storable
		",1,1e3,x\n" + // 9: item required, amount
		"other,1,1," + strings.Repeat("é", 501) + "\n" + // 10: too long
		"other,1,1,\xff\n" // 11: not UTF-8
	lines, errs, err := billfile.ReadCSV(strings.NewReader(in))
	r := refused(t, err)
	if lines != nil {
		t.Errorf("lines of a refused file: %+v", lines)
	}
	type want struct {
		line int
		col  string
		id   string
	}
	wants := []want{
		{3, "item", billfile.MsgItem}, {3, "quantity", form.MsgNegative},
		{4, "amount", form.MsgPlaces(billcheck.MaxAmountPlaces)}, {4, "description", form.MsgLineBreak},
		{6, "", "import.error.field_count.other"},
		{7, "quantity", form.MsgNumber},
		{8, "description", billfile.MsgText},
		{9, "item", form.MsgRequired}, {9, "amount", form.MsgNumber},
		{10, "description", form.MsgTooLong},
		{11, "", "import.error.encoding"},
	}
	if len(errs) != len(wants) {
		t.Fatalf("%d errors, want %d: %+v", len(errs), len(wants), errs)
	}
	for i, w := range wants {
		if e := errs[i]; e.Line != w.line || e.Column != w.col || e.ID != w.id {
			t.Errorf("error %d: line %d %q %s, want line %d %q %s", i, e.Line, e.Column, e.ID, w.line, w.col, w.id)
		}
	}
	if v := arg(errs[0], "Value"); v != "gpu" {
		t.Errorf("unknown item named %v, want gpu", v)
	}
	if r.RowErrors != len(wants) || r.Omitted != 0 || r.BadRows != 8 || len(r.File) != 0 {
		t.Errorf("refused %+v, want %d row errors in 8 rows", r, len(wants))
	}
}

// TestReadCSVKeepsTheFirstHundredErrors: 150 wrong rows among right ones
// give the first 100 problems, the count of the rest, and no lines.
func TestReadCSVKeepsTheFirstHundredErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("item,quantity,amount\n")
	for i := range 300 {
		if i%2 == 0 {
			b.WriteString("egress,1,1\n")
		} else {
			b.WriteString("egress,-1,1\n")
		}
	}
	lines, errs, err := billfile.ReadCSV(strings.NewReader(b.String()))
	r := refused(t, err)
	if lines != nil || len(errs) != billfile.MaxErrors {
		t.Fatalf("%d lines, %d errors; want none and %d", len(lines), len(errs), billfile.MaxErrors)
	}
	if r.RowErrors != 150 || r.Omitted != 50 || r.BadRows != 150 {
		t.Errorf("refused %+v, want 150 row errors, 50 omitted", r)
	}
	if errs[0].Line != 3 || errs[99].Line != 201 {
		t.Errorf("first error on line %d, last kept on %d; want 3 and 201", errs[0].Line, errs[99].Line)
	}
}

func TestReadCSVFileProblems(t *testing.T) {
	tooMany := "item,quantity,amount\n" + strings.Repeat("egress,1,1\n", billfile.MaxRows+1)
	cases := []struct {
		name, in, id string
	}{
		{"empty", "", "import.error.empty"},
		{"header only", "item,quantity,amount\n", "import.error.empty"},
		{"unknown column", "item,quantity,amount,amout\n", "import.error.unknown_columns"},
		{"duplicate column", "item,quantity,amount,Item\n", "import.error.duplicate_columns"},
		{"missing column", "item,amount\negress,1\n", "import.error.missing_columns"},
		{"bare quote", "item,quantity,amount\negress,1,\"1\n", "import.error.csv"},
		{"too many rows", tooMany, "import.error.too_many_rows"},
		{"too large", "item,quantity,amount,description\nother,1,1,\"" + strings.Repeat("a", billfile.MaxBytes), billfile.MsgTooLarge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines, errs, err := billfile.ReadCSV(strings.NewReader(c.in))
			r := refused(t, err)
			if lines != nil || len(errs) != 0 || len(r.File) != 1 || r.File[0].ID != c.id {
				t.Errorf("lines %d, errors %+v, file %+v; want only %s", len(lines), errs, r.File, c.id)
			}
		})
	}
	// The whole file at the cap is read.
	atCap := "item,quantity,amount\n" + strings.Repeat("egress,1,1\n", billfile.MaxRows)
	if lines, _, err := billfile.ReadCSV(strings.NewReader(atCap)); err != nil || len(lines) != billfile.MaxRows {
		t.Errorf("%d lines (%v), want %d", len(lines), err, billfile.MaxRows)
	}
}

// TestReadCSVReaderFails: a reader's own failure is returned as it is,
// not as a refused file.
func TestReadCSVReaderFails(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := billfile.ReadCSV(io.MultiReader(strings.NewReader("item,quantity,amount\n"), failing{boom}))
	var r *billfile.Refused
	if !errors.Is(err, boom) || errors.As(err, &r) {
		t.Errorf("error %v, want boom", err)
	}
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// TestRefusedError reads as a sentence for logs.
func TestRefusedError(t *testing.T) {
	_, _, err := billfile.ReadCSV(strings.NewReader("item,quantity,amount\ngpu,1,1\n"))
	if got := fmt.Sprint(err); !strings.Contains(got, "1 row problems") {
		t.Errorf("%q", got)
	}
}
