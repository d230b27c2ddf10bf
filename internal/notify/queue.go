package notify

import "time"

// QueuedMail is one mail of the outgoing queue: waiting (NextAttemptAt),
// sent (SentAt) or given up (FailedAt, with the last error).
type QueuedMail struct {
	ID            int64
	Recipient     string
	Subject       string
	Body          string
	Attempts      int
	NextAttemptAt time.Time
	SentAt        *time.Time
	FailedAt      *time.Time
	LastError     string
	CreatedAt     time.Time
}
