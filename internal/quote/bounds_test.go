package quote

import (
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gpuquote/migrations"
)

// csvBadLines is a valid header and n one-field rows.
func csvBadLines(n int) string {
	return "platform,gpu_model,currency,hourly\n" + strings.Repeat("x\n", n)
}

// TestReadCSVKeepsTheFirstHundredProblems: 150 wrong rows are all counted,
// the first 100 kept (docs/RULES.md §16.4).
func TestReadCSVKeepsTheFirstHundredProblems(t *testing.T) {
	quotes, p := ReadCSV(strings.NewReader(csvBadLines(150)), testRefs, today)
	if quotes != nil || len(p.Rows) != CSVMaxErrors || p.RowProblems != 150 || p.BadRows != 150 || len(p.File) != 0 {
		t.Fatalf("quotes %d, rows kept %d, counted %d, bad rows %d, file %v", len(quotes), len(p.Rows), p.RowProblems, p.BadRows, p.File)
	}
	if p.Rows[0].Row != 2 || p.Rows[CSVMaxErrors-1].Row != CSVMaxErrors+1 {
		t.Errorf("kept rows %d … %d, want 2 … %d", p.Rows[0].Row, p.Rows[CSVMaxErrors-1].Row, CSVMaxErrors+1)
	}
}

// TestReadCSVStopsAtTheRowCap: rows with the wrong number of fields count
// against the cap like any row; reading stops there.
func TestReadCSVStopsAtTheRowCap(t *testing.T) {
	_, p := ReadCSV(strings.NewReader(csvBadLines(CSVMaxRows+5000)), testRefs, today)
	if len(p.File) != 1 || p.File[0].ID != "import.error.too_many_rows" {
		t.Fatalf("file problems %v", p.File)
	}
	if p.RowProblems != CSVMaxRows || len(p.Rows) != CSVMaxErrors {
		t.Errorf("counted %d, kept %d: want %d, %d", p.RowProblems, len(p.Rows), CSVMaxRows, CSVMaxErrors)
	}
}

// TestColumnDigitsMatchTheMigration: every decimal column of quotes and
// quote_lines has its digits before the point in columnDigits, as its
// NUMERIC(p, s) in the migration says.
func TestColumnDigitsMatchTheMigration(t *testing.T) {
	sql, err := fs.ReadFile(migrations.FS, "00003_market.sql")
	if err != nil {
		t.Fatal(err)
	}
	table := regexp.MustCompile(`(?s)CREATE TABLE (quotes|quote_lines) \((.*?)\n\);`)
	col := regexp.MustCompile(`(?m)^\s+([a-z_]+)\s+numeric\((\d+),\s*(\d+)\)`)
	seen := 0
	for _, m := range table.FindAllStringSubmatch(string(sql), -1) {
		for _, c := range col.FindAllStringSubmatch(m[2], -1) {
			p, _ := strconv.Atoi(c[2])
			s, _ := strconv.Atoi(c[3])
			seen++
			if got, ok := columnDigits[c[1]]; !ok || got != p-s {
				t.Errorf("%s.%s numeric(%d,%d): columnDigits %d (%v), want %d", m[1], c[1], p, s, got, ok, p-s)
			}
		}
	}
	if seen != len(columnDigits) {
		t.Errorf("%d numeric columns in the migration, %d in columnDigits", seen, len(columnDigits))
	}
	for _, f := range Fields {
		if f.Kind == KindDecimal && columnDigits[f.Column] == 0 {
			t.Errorf("decimal field %s has no column digits", f.Name)
		}
	}
}
