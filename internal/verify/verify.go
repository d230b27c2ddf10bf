// Package verify reads trial evidence: it parses what nvidia-smi printed on
// a rented machine, draws verdicts from it against the catalog's figures for
// the card that was ordered, and applies the 85 % rule to a measured
// performance figure (docs/RULES.md §9: verifying what you rent and "The 7-day
// trial"). It is pure: no IO, no HTTP, no SQL.
package verify

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Format is the kind of nvidia-smi output detected.
type Format string

// The nvidia-smi output formats Parse reads.
const (
	// FormatCSV is --query-gpu=... --format=csv: a header line, units in values.
	FormatCSV Format = "csv"
	// FormatCSVNoHeader is --format=csv,noheader[,nounits] in one of the
	// column orders of NoHeaderOrders.
	FormatCSVNoHeader Format = "csv_noheader"
	// FormatQuery is the nvidia-smi -q full report.
	FormatQuery Format = "query"
)

// Report is parsed nvidia-smi output: one Sample per GPU per sample taken.
type Report struct {
	Format  Format
	Samples []Sample
	// DriverVersion and CUDAVersion are what the tool printed ("" when it
	// did not): the -q header, or a driver_version CSV column.
	DriverVersion string
	CUDAVersion   string
}

// Sample is one GPU's readings in one sample.
type Sample struct {
	Sample int // 0-based sample number (repeated blocks / repeated rows for the same GPU)
	GPU    int // 0-based GPU index within the sample (nvidia-smi's index column when queried)
	Name   string
	// Readings; invalid = N/A / not printed.
	MemoryTotalMiB, MemoryUsedMiB, PowerDrawW, PowerLimitW, ClockSMMHz, ClockMaxSMMHz, UtilizationGPUPct, TemperatureC decimal.NullDecimal
	// ThrottleReasons are the named reasons active, in NVML bit order, e.g.
	// "sw_power_cap", "hw_slowdown", "sw_thermal_slowdown"; empty = none active.
	ThrottleReasons []string
	// ThrottleKnown is false when the tool printed N/A or no reasons at all.
	ThrottleKnown bool
}

// Limits on what Parse reads, so a hostile paste costs bounded work.
const (
	// MaxInputBytes caps the input: 1 MiB holds thousands of samples.
	MaxInputBytes = 1 << 20
	// MaxSamples caps the number of Sample entries (GPUs × samples).
	MaxSamples = 20000
	// maxValueEcho caps how much of a bad value an error message repeats.
	maxValueEcho = 40
)

// ParseError is bad input: a catalog message, never a panic.
type ParseError struct {
	// Line is the 1-based input line at fault; 0 when the error concerns
	// the whole input (empty, too large).
	Line      int
	MessageID string
	// Args are the message's placeholder values, as strings; Line is
	// among them when it is not 0.
	Args map[string]any
}

// Error describes the parse error in English for logs.
func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("verify: ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.MessageID)
	keys := make([]string, 0, len(e.Args))
	for k := range e.Args {
		if k != "Line" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%q", k, fmt.Sprint(e.Args[k]))
	}
	return b.String()
}

// parseErr builds a *ParseError; args are alternating name/value strings.
func parseErr(line int, id string, args ...string) *ParseError {
	m := make(map[string]any, len(args)/2+1)
	for i := 0; i+1 < len(args); i += 2 {
		m[args[i]] = args[i+1]
	}
	if line > 0 {
		m["Line"] = strconv.Itoa(line)
	}
	return &ParseError{Line: line, MessageID: id, Args: m}
}

// echo shortens a value repeated in an error message.
func echo(s string) string {
	if utf8.RuneCountInString(s) <= maxValueEcho {
		return s
	}
	r := []rune(s)
	return string(r[:maxValueEcho]) + "…"
}

// Parse reads nvidia-smi output pasted by a user: it detects the format,
// then returns every sample, or a *ParseError naming the line at fault. A
// nil error always comes with at least one sample.
func Parse(text string) (Report, error) {
	lines, err := splitLines(text)
	if err != nil {
		return Report{}, err
	}
	var r Report
	switch format := detect(lines); format {
	case FormatQuery:
		r, err = parseQuery(lines)
	case FormatCSV, FormatCSVNoHeader:
		r, err = parseCSV(lines)
	default:
		return Report{}, unknownFormat(lines)
	}
	if err != nil {
		return Report{}, err
	}
	return r, nil
}

// line is one input line, trimmed at the right, with its 1-based number.
type line struct {
	n    int
	text string
}

// splitLines checks the input's size and encoding and splits it into lines:
// a UTF-8 BOM is dropped, UTF-16 with a BOM (what Windows PowerShell's ">"
// writes) is decoded, CRLF and CR end lines like LF, and trailing spaces go.
func splitLines(text string) ([]line, error) {
	if len(text) > MaxInputBytes {
		return nil, parseErr(0, "verify.parse.too_large", "MaxKiB", strconv.Itoa(MaxInputBytes/1024))
	}
	text = decodeUTF16(text)
	text = strings.TrimPrefix(text, "\uFEFF")
	if strings.TrimSpace(text) == "" {
		return nil, parseErr(0, "verify.parse.empty")
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	raw := strings.Split(text, "\n")
	out := make([]line, 0, len(raw))
	for i, s := range raw {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return nil, parseErr(i+1, "verify.parse.not_text")
		}
		out = append(out, line{n: i + 1, text: strings.TrimRightFunc(s, isSpace)})
	}
	return out, nil
}

// decodeUTF16 decodes text that starts with a UTF-16 byte-order mark;
// anything else is returned as it is.
func decodeUTF16(text string) string {
	if len(text) < 2 {
		return text
	}
	var le bool
	switch {
	case text[0] == 0xFF && text[1] == 0xFE:
		le = true
	case text[0] == 0xFE && text[1] == 0xFF:
	default:
		return text
	}
	b := text[2:]
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		if le {
			u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
		} else {
			u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
		}
	}
	return string(utf16.Decode(u))
}

// isSpace is a space, tab or one of the no-break and thin spaces a
// localised number or a copy from a web page may carry.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\v', '\f', '\u00A0', '\u2007', '\u2009', '\u202F', '\u3000':
		return true
	}
	return false
}

// detect names the format of the input, or "" when it is none of them.
// The -q report is recognised by its banner or a GPU block header anywhere
// near the top; a CSV header by its field names; anything else with commas
// is taken for header-less CSV, which the column count then checks.
func detect(lines []line) Format {
	seen := 0
	first := ""
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		if first == "" && !isSeparator(t) {
			first = t
		}
		if isQueryBanner(t) || gpuBlockHeader(l.text) {
			return FormatQuery
		}
		if seen++; seen >= 50 {
			break
		}
	}
	switch {
	case isCSVHeader(first):
		return FormatCSV
	case strings.Contains(first, ",") && !isSummaryTable(lines):
		return FormatCSVNoHeader
	}
	return ""
}

// isQueryBanner is the line nvidia-smi -q starts each report with.
func isQueryBanner(t string) bool {
	return strings.HasPrefix(t, "====") && strings.Contains(t, "NVSMI LOG")
}

// isSummaryTable recognises nvidia-smi's default table (run without
// arguments), which does not carry every figure the checks need.
func isSummaryTable(lines []line) bool {
	for i, l := range lines {
		if i > 20 {
			break
		}
		if strings.Contains(l.text, "NVIDIA-SMI") || strings.HasPrefix(strings.TrimSpace(l.text), "+----") {
			return true
		}
	}
	return false
}

// unknownFormat says what the input looked like, so the user can fix it.
func unknownFormat(lines []line) error {
	if isSummaryTable(lines) {
		return parseErr(0, "verify.parse.summary_table")
	}
	for _, l := range lines {
		if strings.TrimSpace(l.text) != "" {
			return parseErr(l.n, "verify.parse.unknown_format")
		}
	}
	return parseErr(0, "verify.parse.empty")
}

// sampleCounter assigns sample numbers and bounds their count.
type sampleCounter struct {
	samples []Sample
}

// add appends s, refusing input with more than MaxSamples entries.
func (c *sampleCounter) add(s Sample, lineNo int) error {
	if len(c.samples) >= MaxSamples {
		return parseErr(lineNo, "verify.parse.too_many_samples", "Max", strconv.Itoa(MaxSamples))
	}
	c.samples = append(c.samples, s)
	return nil
}
