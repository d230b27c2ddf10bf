// Package notify is news inside the application for one user (docs/RULES.md
// §18.4): what happened (Kind), to what (Entity, EntityID), by whom and
// when. The store adds notices in the transaction of the write that causes
// them; pages word them in the reader's language.
package notify

import "time"

// Kind is what a notice tells.
type Kind string

// The kinds of notice and who receives each.
const (
	// ReportSubmitted goes to finance: a report waits for a decision.
	ReportSubmitted Kind = "report_submitted"
	// ReportReturned and ReportApproved go to the report's author.
	ReportReturned Kind = "report_returned"
	ReportApproved Kind = "report_approved"
	// QuoteProposed goes to editors: a proposed quote waits for review.
	QuoteProposed Kind = "quote_proposed"
	// QuoteReturned and QuotePublished go to the proposal's author.
	QuoteReturned  Kind = "quote_returned"
	QuotePublished Kind = "quote_published"
	// BillOvercharged goes to the report's author and finance: a bill
	// stored beside an approved report charges more than its quote.
	BillOvercharged Kind = "bill_overcharged"
	// WatchMatched goes to a watch's owner, or for a shared watch to the
	// editors: the watch's condition met (docs/RULES.md §24.2). The notice
	// is about the watch's event.
	WatchMatched Kind = "watch_matched"
)

// Kinds are every kind, in a fixed order.
var Kinds = []Kind{ReportSubmitted, ReportReturned, ReportApproved, QuoteProposed, QuoteReturned, QuotePublished,
	BillOvercharged, WatchMatched}

// Entity is what a kind of notice is about: "report", "quote", "bill" or
// "watch_event".
func (k Kind) Entity() string {
	switch k {
	case QuoteProposed, QuoteReturned, QuotePublished:
		return "quote"
	case BillOvercharged:
		return "bill"
	case WatchMatched:
		return "watch_event"
	default:
		return "report"
	}
}

// Notice is one notice to add: its kind, the id of the report, quote or
// bill it is about, who acted (0 for the system), the actor's comment if
// any, and when.
type Notice struct {
	Kind     Kind
	EntityID int64
	ActorID  int64
	Comment  string
	At       time.Time
}

// Notification is a stored notice for one user.
type Notification struct {
	ID        int64
	UserID    int64
	Kind      Kind
	Entity    string
	EntityID  int64
	ActorID   int64
	ActorName string
	Comment   string
	CreatedAt time.Time
	ReadAt    *time.Time
}
