package extract

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gpuquote/internal/money"
)

// corpusMessage is one vendor message of testdata/ with the fields a
// person reading it fills in (NN-name.want: "field=value" lines, and
// "skip=<reason>" for a phrase that must be skipped with that reason).
type corpusMessage struct {
	name  string
	text  string
	want  map[string]string
	order []string
	skips []string
}

func loadCorpus(t testing.TB) []corpusMessage {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	var out []corpusMessage
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		wf := strings.TrimSuffix(f, ".txt") + ".want"
		w, err := os.Open(wf)
		if err != nil {
			t.Fatalf("%s has no %s: %v", f, wf, err)
		}
		m := corpusMessage{name: strings.TrimSuffix(filepath.Base(f), ".txt"), text: string(text), want: map[string]string{}}
		sc := bufio.NewScanner(w)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				t.Fatalf("%s: bad line %q", wf, line)
			}
			if k == "skip" {
				m.skips = append(m.skips, v)
				continue
			}
			if _, dup := m.want[k]; dup {
				t.Fatalf("%s: %s twice", wf, k)
			}
			m.want[k] = v
			m.order = append(m.order, k)
		}
		w.Close()
		out = append(out, m)
	}
	return out
}

// family groups a field for the report.
func family(field string) string {
	if strings.Contains(field, ".") {
		return "lines"
	}
	switch field {
	case "currency", "hourly", "monthly", "yearly", "spot_hourly", "billing_granularity":
		return "prices"
	case "commitment_months", "early_termination_pct", "deposit", "deposit_refundable", "balance_withdrawable",
		"sla_availability_pct":
		return "terms"
	case "prices_include_tax", "tax_rate", "invoice_type":
		return "tax"
	}
	return "hardware"
}

// same compares two values, decimals by value ("1150" is "1150.00").
func same(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := money.ParseDecimal(a)
	y, err2 := money.ParseDecimal(b)
	return err1 == nil && err2 == nil && x.Equal(y)
}

type tally struct{ produced, expected, correct int }

func (t tally) precision() float64 {
	if t.produced == 0 {
		return 1
	}
	return float64(t.correct) / float64(t.produced)
}

func (t tally) recall() float64 {
	if t.expected == 0 {
		return 1
	}
	return float64(t.correct) / float64(t.expected)
}

// TestCorpus reads every message of testdata/ and measures field precision
// (correct values / values produced) and recall (correct values / values
// expected), overall and per family; it prints each miss and each wrong
// value and fails below 0.95 precision or 0.80 recall (docs/RULES.md §22).
func TestCorpus(t *testing.T) {
	msgs := loadCorpus(t)
	zh, en := 0, 0
	for _, m := range msgs {
		if strings.ContainsFunc(m.text, isCJK) {
			zh++
		} else {
			en++
		}
	}
	if len(msgs) < 40 || zh < 18 || en < 18 {
		t.Fatalf("corpus has %d messages (%d Chinese, %d English); want at least 40, 18 of each", len(msgs), zh, en)
	}
	all := tally{}
	fam := map[string]*tally{}
	for _, f := range []string{"prices", "hardware", "terms", "tax", "lines"} {
		fam[f] = &tally{}
	}
	var misses, wrongs []string
	for _, m := range msgs {
		r := Read(m.text)
		checkInvariants(t, m.name, m.text, r)
		got := map[string]string{}
		for _, v := range r.Values {
			got[v.Field] = v.Value
			f := fam[family(v.Field)]
			f.produced++
			all.produced++
			want, ok := m.want[v.Field]
			switch {
			case ok && same(want, v.Value):
				f.correct++
				all.correct++
			case ok:
				wrongs = append(wrongs, fmt.Sprintf("%s: %s = %q, want %q", m.name, v.Field, v.Value, want))
			default:
				wrongs = append(wrongs, fmt.Sprintf("%s: %s = %q, not stated", m.name, v.Field, v.Value))
			}
		}
		for _, k := range m.order {
			fam[family(k)].expected++
			all.expected++
			if _, ok := got[k]; !ok {
				misses = append(misses, fmt.Sprintf("%s: %s = %q not read", m.name, k, m.want[k]))
			}
		}
		for _, reason := range m.skips {
			found := false
			for _, s := range r.Skipped {
				found = found || s.Reason == reason
			}
			if !found {
				t.Errorf("%s: no phrase skipped as %s; skipped: %+v", m.name, reason, r.Skipped)
			}
		}
	}
	for _, w := range wrongs {
		t.Logf("wrong: %s", w)
	}
	for _, m := range misses {
		t.Logf("miss:  %s", m)
	}
	t.Logf("%d messages (%d Chinese, %d English)", len(msgs), zh, en)
	t.Logf("%-9s %9s %9s %9s %10s %8s", "family", "produced", "expected", "correct", "precision", "recall")
	for _, f := range []string{"prices", "hardware", "terms", "tax", "lines"} {
		x := fam[f]
		t.Logf("%-9s %9d %9d %9d %10.3f %8.3f", f, x.produced, x.expected, x.correct, x.precision(), x.recall())
	}
	t.Logf("%-9s %9d %9d %9d %10.3f %8.3f", "overall", all.produced, all.expected, all.correct, all.precision(), all.recall())
	if all.precision() < 0.95 {
		t.Errorf("precision %.3f < 0.95", all.precision())
	}
	if all.recall() < 0.80 {
		t.Errorf("recall %.3f < 0.80", all.recall())
	}
}

// checkInvariants holds for every result: every value has evidence of its
// field, every span is inside the text and its Text is the text's runes
// there, values follow the form's order.
func checkInvariants(t *testing.T, name, text string, r Result) {
	t.Helper()
	runes := []rune(text)
	for _, e := range r.Evidence {
		if e.Start < 0 || e.End > len(runes) || e.Start >= e.End {
			t.Errorf("%s: evidence %+v out of bounds (%d runes)", name, e, len(runes))
			continue
		}
		if string(runes[e.Start:e.End]) != e.Text {
			t.Errorf("%s: evidence %+v does not match the text %q", name, e, string(runes[e.Start:e.End]))
		}
	}
	for _, s := range r.Skipped {
		if s.Start < 0 || s.End > len(runes) || s.Start > s.End || string(runes[s.Start:s.End]) != s.Text {
			t.Errorf("%s: skipped %+v does not match the text", name, s)
		}
	}
	for i, v := range r.Values {
		found := false
		for _, e := range r.Evidence {
			found = found || e.Field == v.Field
		}
		if !found {
			t.Errorf("%s: %s has no evidence", name, v.Field)
		}
		if i > 0 && fieldOrder[r.Values[i-1].Field] >= fieldOrder[v.Field] {
			t.Errorf("%s: %s after %s", name, v.Field, r.Values[i-1].Field)
		}
		if _, ok := fieldOrder[v.Field]; !ok {
			t.Errorf("%s: %s is no field of the form", name, v.Field)
		}
	}
}
