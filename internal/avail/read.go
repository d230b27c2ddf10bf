package avail

import (
	"strconv"
	"strings"
	"time"

	"gpuquote/internal/form"
)

// Message IDs of the problems only a record has.
const (
	MsgAttemptedAt  = "availability.error.attempted_at"
	MsgFuture       = "availability.error.future"
	MsgBeforeMin    = "availability.error.before_2000"
	MsgUnknownRef   = "availability.error.unknown"
	MsgDraftQuote   = "availability.error.draft_quote"
	MsgPairMismatch = "availability.error.pair_mismatch"
	MsgNoPair       = "availability.error.no_pair"
)

// Input is a record as asked for, before the store resolves where it
// came from: the quote version or trial (whose platform × GPU model it
// takes), or the platform and GPU model named directly.
type Input struct {
	PlatformID  int64
	GPUModelID  int64
	QuoteID     int64
	TrialID     int64
	AttemptedAt time.Time
	GPUCount    int
	Obtained    bool
	WaitMinutes int
	Note        string
}

// attemptLayouts are the ways an attempt's time may be written: RFC 3339
// with an offset, or a date and time without one, read as UTC (what a
// browser's date-and-time field sends).
var attemptLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05"}

// ParseAttempt reads an attempt's time (attemptLayouts); ok is false when
// it is none of them.
func ParseAttempt(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	for _, l := range attemptLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// Read reads and validates a record from its fields, every problem at
// once (docs/RULES.md §18.2): attempted_at (not before 2000, its UTC day
// not after latest, the latest calendar day on Earth), gpu_count 1–1024,
// obtained ("true" or "false", required), wait_minutes 0–100000 whole
// minutes, note ≤ 2000 characters, and optional ids: quote_id, trial_id,
// platform and gpu_model. Which of them must be given is the caller's to
// check (Require); that they exist, the store's.
func Read(get func(string) string, latest time.Time) (Input, form.Errors) {
	r := form.NewReader(get)
	var in Input
	switch raw := r.Raw("attempted_at"); {
	case raw == "":
		r.Fail("attempted_at", form.MsgRequired)
	default:
		t, ok := ParseAttempt(raw)
		y, m, d := latest.Date()
		switch {
		case !ok:
			r.Fail("attempted_at", MsgAttemptedAt)
		case t.Before(Earliest):
			r.Fail("attempted_at", MsgBeforeMin)
		case !t.Before(time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)):
			r.Fail("attempted_at", MsgFuture)
		default:
			in.AttemptedAt = t
		}
	}
	in.GPUCount, _ = r.Int("gpu_count", 1, MaxGPUs, true)
	switch r.Choice("obtained", true, "true", "false") {
	case "true":
		in.Obtained = true
	}
	in.WaitMinutes, _ = r.Int("wait_minutes", 0, MaxWaitMinutes, true)
	in.Note = r.Paragraphs("note", NoteMax)
	in.QuoteID = readID(r, "quote_id")
	in.TrialID = readID(r, "trial_id")
	in.PlatformID = readID(r, "platform")
	in.GPUModelID = readID(r, "gpu_model")
	return in, r.Errs
}

// readID reads an optional positive id (0 when empty); anything else is
// an unknown reference.
func readID(r *form.Reader, name string) int64 {
	raw := r.Raw(name)
	if raw == "" {
		return 0
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		r.Fail(name, MsgUnknownRef)
		return 0
	}
	return id
}

// Require checks that in names where the attempt was made: a quote
// version, a trial, or both a platform and a GPU model.
func Require(in Input, errs form.Errors) {
	if in.QuoteID != 0 || in.TrialID != 0 || errs.Has("quote_id") || errs.Has("trial_id") {
		return
	}
	if in.PlatformID == 0 && !errs.Has("platform") {
		errs.Add("platform", MsgNoPair)
	}
	if in.GPUModelID == 0 && !errs.Has("gpu_model") {
		errs.Add("gpu_model", MsgNoPair)
	}
}

// RefError says that a record's quote, trial, platform or GPU model is
// unknown or does not fit: Field is the field to blame, MessageID the
// problem.
type RefError struct {
	Field     string
	MessageID string
}

func (e *RefError) Error() string { return "availability: " + e.Field + ": " + e.MessageID }
