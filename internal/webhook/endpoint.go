package webhook

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Endpoint is a registered address and what it is told.
type Endpoint struct {
	ID          int64
	Kind        string
	URL         string
	Secret      string
	Events      []string
	Description string
	Enabled     bool
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	// Waiting and Failed count its deliveries not yet delivered nor given
	// up, and given up (for the list).
	Waiting, Failed int
}

// Problems are an endpoint's invalid fields: field name → message ID.
type Problems map[string]string

// Check reads an endpoint as the form gives it (docs/RULES.md §24.7): a
// known kind, an address CheckURL accepts, at least one known event type,
// a description of at most 200 characters, and for a chat bot a secret of
// at most 200 characters (a generic endpoint's is made by the server).
func Check(e *Endpoint, allowPrivate bool) Problems {
	p := Problems{}
	e.URL = strings.TrimSpace(e.URL)
	e.Description = strings.TrimSpace(e.Description)
	e.Secret = strings.TrimSpace(e.Secret)
	if !ValidKind(e.Kind) {
		p["kind"] = "webhook.error.kind"
	}
	if e.URL == "" {
		p["url"] = "form.required"
	} else if err := CheckURL(e.URL, allowPrivate); err == ErrBlockedAddress {
		p["url"] = "webhook.error.private"
	} else if err != nil {
		p["url"] = "webhook.error.url"
	}
	seen := map[string]bool{}
	var events []string
	for _, t := range e.Events {
		if !ValidEventType(t) {
			p["events"] = "webhook.error.events"
			continue
		}
		if !seen[t] {
			seen[t] = true
			events = append(events, t)
		}
	}
	e.Events = events
	if len(events) == 0 {
		p["events"] = "webhook.error.events"
	}
	if utf8.RuneCountInString(e.Description) > 200 {
		p["description"] = "webhook.error.description"
	}
	if e.Kind != KindGeneric && utf8.RuneCountInString(e.Secret) > 200 {
		p["secret"] = "webhook.error.secret"
	}
	return p
}

// LogRow is one delivery in an endpoint's log, with its attempts.
type LogRow struct {
	ID            int64
	EventID       int64
	Type          string
	EntityID      int64
	EventAt       time.Time
	Attempts      int
	NextAttemptAt time.Time
	LastStatus    *int
	LastError     string
	LastDuration  *int // milliseconds
	ResponseBody  string
	DeliveredAt   *time.Time
	GaveUpAt      *time.Time
	Tries         []AttemptRow
}

// Waiting reports whether the delivery is neither delivered nor given up.
func (r LogRow) Waiting() bool { return r.DeliveredAt == nil && r.GaveUpAt == nil }

// AttemptRow is one attempt as it was logged.
type AttemptRow struct {
	Attempt    int
	At         time.Time
	Status     *int
	DurationMS int
	Error      string
	Body       string
}
