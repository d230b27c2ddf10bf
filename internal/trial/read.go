package trial

import (
	"strings"
	"unicode/utf8"

	"gpuquote/internal/form"
)

// Bounds of what a check's result stores (the table's CHECKs say the same).
const (
	MaxCheckNote     = 5000
	MaxCheckOutput   = 200000
	MaxCheckMeasured = 200
)

// Output reads pasted command output: blank lines around it go, the
// indentation of its first line stays (nvidia-smi's tables are aligned).
func Output(raw string) string {
	s := strings.ToValidUTF8(raw, "\uFFFD")
	s = strings.TrimRight(s, " \t\r\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			return s
		}
		s = s[i+1:]
	}
}

// ReadResult reads one check's result from r (state, note, measured)
// and output: the trial page's form and the API's body both come through
// here, so both apply the same limits, and a failure must name its reason
// (the verdict quotes it). Problems are r's errors.
func ReadResult(r *form.Reader, check int, output string) Record {
	rec := Record{Check: check, State: State(r.Raw("state"))}
	if !rec.State.Valid() {
		r.Fail("state", "trials.error.state")
	}
	rec.Note = r.Paragraphs("note", MaxCheckNote)
	rec.Measured = r.Text("measured", MaxCheckMeasured)
	rec.Output = Output(output)
	if utf8.RuneCountInString(rec.Output) > MaxCheckOutput {
		r.Fail("output", "trials.error.output_too_long")
	}
	if rec.State == Fail && rec.Note == "" && rec.Measured == "" && strings.TrimSpace(rec.Output) == "" {
		r.Fail("note", "trials.error.evidence_required")
	}
	return rec
}
