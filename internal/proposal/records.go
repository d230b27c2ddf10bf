package proposal

import (
	"time"

	"gpuquote/internal/quote"
)

// Row is a proposal in the editors' review queue or its author's list.
type Row struct {
	Quote       quote.Quote // the list's fields
	AuthorName  string
	CreatedAt   time.Time
	LastComment string // the newest "returned" comment, if any
	PublishedID int64  // the version it became, once reviewed
}

// Message is the vendor's message pasted with a proposal.
type Message struct {
	ID        int64
	QuoteID   int64
	Body      string
	CreatedAt time.Time
}

// Attachment is a stored vendor's file of a quote series (Data only when
// served). A file withdrawn (WithdrawnAt set, by WithdrawnBy, a display
// name) keeps its record but not its bytes (docs/RULES.md §18.1).
type Attachment struct {
	ID          int64
	QuoteID     int64
	SeriesID    int64
	Filename    string
	ContentType string
	Size        int
	SHA256      string
	CreatedAt   time.Time
	Data        []byte
	WithdrawnAt *time.Time
	WithdrawnBy string
}

// Review is an editor's decision on a proposal: "published" (PublishedID
// the version it became) or "returned" (with its comment).
type Review struct {
	ID          int64
	QuoteID     int64
	Decision    string
	Comment     string
	PublishedID int64
	DeciderName string
	DecidedAt   time.Time
}
