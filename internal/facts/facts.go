// Package facts holds what a price does not say about a platform's
// environment, support and data safety (docs/RULES.md §18.3): the fact
// kinds in their order, which of them carry a measured number of minutes,
// which a comparison may require, the question each asks the vendor while
// unknown, and how a dated fact record is read and checked. It is pure: the
// store keeps the records, the pages show them.
package facts

import (
	"strings"
	"time"

	"gpuquote/internal/form"
)

// Kind names one fact kept per platform.
type Kind string

// The fact kinds (docs/RULES.md §18.3), in the order pages show them.
const (
	// Preinstalled: frameworks (CUDA, PyTorch …) and images come
	// preinstalled, rather than installed by hand on bare metal.
	Preinstalled Kind = "preinstalled"
	// StateKept: an instance keeps its installed state across restarts.
	StateKept Kind = "state_kept"
	// Desktop: a desktop (graphical) access is offered.
	Desktop Kind = "desktop"
	// SetupMinutes: the setup time measured in a trial, in minutes.
	SetupMinutes Kind = "setup_minutes"
	// SupportTicket: support through a ticket system.
	SupportTicket Kind = "support_ticket"
	// SupportPhone: support by phone.
	SupportPhone Kind = "support_phone"
	// SupportChatOnly: support is one chat group and nothing else.
	SupportChatOnly Kind = "support_chat_only"
	// SupportResponseMinutes: the support response time recorded by trial
	// check 29, in minutes.
	SupportResponseMinutes Kind = "support_response_minutes"
	// Backups: backups are offered.
	Backups Kind = "backups"
	// DeletionConfirmation: a written data-deletion confirmation is given
	// (trial check 25).
	DeletionConfirmation Kind = "deletion_confirmation"
	// ReleaseWipes: releasing an instance deletes its data disks (the note
	// says exactly what a release deletes).
	ReleaseWipes Kind = "release_wipes"
	// PaymentProtection: payment goes through a third party (a
	// marketplace) one can appeal to.
	PaymentProtection Kind = "payment_protection"
	// DomesticAccelerators: domestic (Chinese) accelerators are offered.
	DomesticAccelerators Kind = "domestic_accelerators"
)

// Kinds are every fact kind in page order.
var Kinds = []Kind{Preinstalled, StateKept, Desktop, SetupMinutes, SupportTicket, SupportPhone, SupportChatOnly,
	SupportResponseMinutes, Backups, DeletionConfirmation, ReleaseWipes, PaymentProtection, DomesticAccelerators}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// Measured reports whether the fact carries a number of minutes measured
// in a trial: its value is yes when measured (minutes required), no when
// the trial showed it never happens (no working setup, no answer), and
// unknown when not measured (docs/RULES.md §18.3).
func (k Kind) Measured() bool { return k == SetupMinutes || k == SupportResponseMinutes }

// Filterable reports whether a comparison may require the fact to be yes
// (the compare page's env filter): the facts where yes is what a buyer
// wants. A measured fact, chat-only support and a release that wipes the
// disks are not requirements.
func (k Kind) Filterable() bool {
	return k.Valid() && !k.Measured() && k != SupportChatOnly && k != ReleaseWipes
}

// Filterable are the kinds a comparison may require, in page order.
func FilterableKinds() []Kind {
	var out []Kind
	for _, k := range Kinds {
		if k.Filterable() {
			out = append(out, k)
		}
	}
	return out
}

// LabelID is the message of the fact's name.
func (k Kind) LabelID() string { return "facts.kind." + string(k) }

// HintID is the message explaining what the fact records.
func (k Kind) HintID() string { return "facts.hint." + string(k) }

// QuestionID is the message asking the vendor about the fact while it is
// unknown.
func (k Kind) QuestionID() string { return "facts.vq." + string(k) }

// Value is a fact's answer.
type Value string

// The three answers; a fact never recorded is Unknown.
const (
	Yes     Value = "yes"
	No      Value = "no"
	Unknown Value = "unknown"
)

// Values are the answers in form order.
var Values = []Value{Yes, No, Unknown}

// Bounds of a fact record (docs/RULES.md §18.3).
const (
	NoteMax    = 1000
	SourceMax  = 500
	MinutesMax = 43200 // 30 days
)

// earliest is the first day a fact may be dated.
var earliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Fact is one dated, sourced record of a platform's fact. Records are only
// ever added: a correction is a newer record.
type Fact struct {
	ID         int64
	PlatformID int64
	Kind       Kind
	Value      Value
	// Minutes is the measured number for a measured kind whose value is
	// yes; nil otherwise.
	Minutes *int
	Note    string
	Source  string
	AsOf    time.Time
	// TrialID is the trial the fact was seen in, 0 for none.
	TrialID int64
	// Sample marks the seed's sample data.
	Sample        bool
	CreatedBy     int64
	CreatedByName string
	CreatedAt     time.Time
}

// InForce returns the fact in force of each kind among records (any
// order): the newest by (as_of, id) dated on or before day. A kind without
// one is Unknown, with ID 0 (never recorded).
func InForce(records []Fact, day time.Time) map[Kind]Fact {
	out := make(map[Kind]Fact, len(Kinds))
	for _, f := range records {
		if f.AsOf.After(day) {
			continue
		}
		cur, ok := out[f.Kind]
		if !ok || f.AsOf.After(cur.AsOf) || f.AsOf.Equal(cur.AsOf) && f.ID > cur.ID {
			out[f.Kind] = f
		}
	}
	for _, k := range Kinds {
		if _, ok := out[k]; !ok {
			out[k] = Fact{Kind: k, Value: Unknown}
		}
	}
	return out
}

// Unknowns are the kinds whose fact in force is Unknown, in page order.
func Unknowns(inForce map[Kind]Fact) []Kind {
	var out []Kind
	for _, k := range Kinds {
		if f, ok := inForce[k]; !ok || f.Value == Unknown {
			out = append(out, k)
		}
	}
	return out
}

// Message IDs of a fact record's own problems.
const (
	MsgMinutesRequired = "facts.error.minutes_required"
	MsgMinutesRefused  = "facts.error.minutes_refused"
	MsgTrialPlatform   = "facts.error.trial_platform"
)

// Read reads and checks a fact record from a form: kind and value from
// their lists, minutes (whole, 0–MinutesMax) required for a measured kind
// whose value is yes and refused otherwise, a note of at most NoteMax
// characters, a source (required, at most SourceMax), a day from 2000 not
// after latest, and an optional trial id (docs/RULES.md §18.3). Every
// problem is kept under its field.
func Read(r *form.Reader, latest time.Time) Fact {
	var f Fact
	kinds := make([]string, len(Kinds))
	for i, k := range Kinds {
		kinds[i] = string(k)
	}
	f.Kind = Kind(r.Choice("kind", true, kinds...))
	f.Value = Value(r.Choice("value", true, string(Yes), string(No), string(Unknown)))
	if r.Raw("minutes") != "" {
		n, ok := r.Int("minutes", 0, MinutesMax, false)
		switch {
		case f.Kind != "" && f.Value != "" && !(f.Kind.Measured() && f.Value == Yes):
			r.Errs.Set("minutes", MsgMinutesRefused)
		case ok:
			f.Minutes = &n
		}
	} else if f.Kind.Measured() && f.Value == Yes {
		r.Fail("minutes", MsgMinutesRequired)
	}
	f.Note = r.Paragraphs("note", NoteMax)
	f.Source = r.RequiredText("source", SourceMax)
	f.AsOf, _ = r.Date("as_of", form.Date{Required: true, NotAfter: latest, NotBefore: earliest})
	if r.Raw("trial_id") != "" {
		if n, ok := r.Int("trial_id", 1, 1<<53, false); ok {
			f.TrialID = int64(n)
		}
	}
	return f
}

// Check is Read's rule for a fact built in code (the seed, the store):
// the message id of the first problem and its field, or "" when none.
func Check(f Fact, latest time.Time) (field, msg string) {
	switch {
	case !f.Kind.Valid():
		return "kind", form.MsgChoice
	case f.Value != Yes && f.Value != No && f.Value != Unknown:
		return "value", form.MsgChoice
	case f.Kind.Measured() && f.Value == Yes && f.Minutes == nil:
		return "minutes", MsgMinutesRequired
	case f.Minutes != nil && !(f.Kind.Measured() && f.Value == Yes):
		return "minutes", MsgMinutesRefused
	case f.Minutes != nil && (*f.Minutes < 0 || *f.Minutes > MinutesMax):
		return "minutes", form.MsgRange
	case len([]rune(f.Note)) > NoteMax:
		return "note", form.MsgTooLong
	case strings.TrimSpace(f.Source) == "":
		return "source", form.MsgRequired
	case len([]rune(f.Source)) > SourceMax:
		return "source", form.MsgTooLong
	case f.AsOf.Before(earliest):
		return "as_of", form.MsgDate
	case f.AsOf.After(latest):
		return "as_of", form.MsgFuture
	case f.TrialID < 0:
		return "trial_id", form.MsgRange
	}
	return "", ""
}
