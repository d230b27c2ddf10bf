package verify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// maxSeedBytes leaves the largest fixtures out of the fuzz corpus: the
// mutator spends its time minimising them rather than exploring.
const maxSeedBytes = 20 << 10

// seedFixtures adds every fixture whose name passes keep to the corpus.
func seedFixtures(f *testing.F, keep func(string) bool) {
	entries, err := os.ReadDir("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !keep(e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("testdata", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= maxSeedBytes {
			f.Add(string(b))
		}
	}
}

// checkReport asserts what every successful parse guarantees.
func checkReport(t *testing.T, r Report, err error, formats ...Format) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("error %T %v is not a *ParseError", err, err)
		}
		if _, ok := messageArgs[pe.MessageID]; !ok {
			t.Fatalf("unregistered message %q", pe.MessageID)
		}
		for _, a := range messageArgs[pe.MessageID] {
			if _, ok := pe.Args[a].(string); !ok {
				t.Fatalf("%s lacks arg %s: %v", pe.MessageID, a, pe.Args)
			}
		}
		if pe.Line < 0 || len(r.Samples) != 0 {
			t.Fatalf("line %d, %d samples with an error", pe.Line, len(r.Samples))
		}
		return
	}
	if len(r.Samples) == 0 {
		t.Fatal("nil error and no samples")
	}
	if len(r.Samples) > MaxSamples {
		t.Fatalf("%d samples", len(r.Samples))
	}
	ok := false
	for _, fm := range formats {
		ok = ok || r.Format == fm
	}
	if !ok {
		t.Fatalf("format %q, want one of %v", r.Format, formats)
	}
	type key struct{ s, g int }
	seen := map[key]bool{}
	last := 0
	for _, s := range r.Samples {
		if s.Sample < last || s.GPU < 0 || s.GPU >= 1024 {
			t.Fatalf("sample %d GPU %d after sample %d", s.Sample, s.GPU, last)
		}
		last = s.Sample
		if seen[key{s.Sample, s.GPU}] {
			t.Fatalf("sample %d GPU %d twice", s.Sample, s.GPU)
		}
		seen[key{s.Sample, s.GPU}] = true
		for _, d := range []decimal.NullDecimal{s.MemoryTotalMiB, s.MemoryUsedMiB, s.PowerDrawW, s.PowerLimitW,
			s.ClockSMMHz, s.ClockMaxSMMHz, s.UtilizationGPUPct, s.TemperatureC} {
			if d.Valid && d.Decimal.IsNegative() {
				t.Fatalf("negative reading %s", d.Decimal)
			}
		}
		if len(s.ThrottleReasons) > 0 && !s.ThrottleKnown {
			t.Fatalf("reasons %v while unknown", s.ThrottleReasons)
		}
	}
	// Whatever parsed must evaluate without panicking, every check present
	// with a registered message and its arguments.
	for _, spec := range []Spec{{}, spec3090, specH200} {
		checks := Evaluate(r, spec)
		if len(checks) != len(CheckKeys) {
			t.Fatalf("%d checks", len(checks))
		}
		for _, c := range checks {
			for _, a := range messageArgs[c.MessageID] {
				if _, ok := c.Args[a].(string); !ok {
					t.Fatalf("%s lacks arg %s", c.MessageID, a)
				}
			}
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	seedFixtures(f, func(n string) bool { return strings.HasSuffix(n, ".csv") })
	f.Add("name, memory.total [MiB]\nNVIDIA L4, 23034 MiB\n")
	f.Add("index, name\n0, A\n0, B\n1, C\n")
	f.Add("timestamp, index, name\n2026/03/12 02:14:01.112, 0, A\n2026/03/12 02:14:01.112, [N/A], B\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines, err := splitLines(text)
		if err != nil {
			checkReport(t, Report{}, err)
			return
		}
		r, err := parseCSV(lines)
		checkReport(t, r, err, FormatCSV, FormatCSVNoHeader)
	})
}

func FuzzParseQuery(f *testing.F) {
	seedFixtures(f, func(n string) bool { return strings.HasSuffix(n, "_query.txt") || strings.HasSuffix(n, "_loop.txt") })
	f.Add("GPU 00000000:18:00.0\n    Product Name : X\n    FB Memory Usage\n        Total : 1 MiB\n")
	f.Add("==============NVSMI LOG==============\nGPU 0000:01:00.0\nGPU 0000:01:00.0\n\tClocks\n\t\tSM : 1 MHz\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines, err := splitLines(text)
		if err != nil {
			checkReport(t, Report{}, err)
			return
		}
		r, err := parseQuery(lines)
		checkReport(t, r, err, FormatQuery)
	})
}

func FuzzParse(f *testing.F) {
	seedFixtures(f, func(string) bool { return true })
	f.Add("")
	f.Add("\xff\xfen\x00a\x00m\x00e\x00,\x00 \x00i\x00n\x00d\x00e\x00x\x00\n\x00A\x00,\x00 \x000\x00")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := Parse(text)
		checkReport(t, r, err, FormatCSV, FormatCSVNoHeader, FormatQuery)
	})
}
