// Package user is who uses gpuquote: accounts, the actor a write is
// audited under, signed-in sessions and personal API tokens. Passwords and
// the rules of sessions live in package auth; the store persists these.
package user

import "time"

// User is an account. PasswordHash never leaves the server.
type User struct {
	ID           int64     `json:"id"`
	Email        string    `json:"email"`
	DisplayName  string    `json:"display_name"`
	Role         string    `json:"role"`
	PasswordHash string    `json:"-"`
	Disabled     bool      `json:"disabled"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// NewAccount is what creating an account needs; the password is already hashed.
type NewAccount struct {
	Email        string
	DisplayName  string
	Role         string
	PasswordHash string
}

// Actor is who performs a write, with the request it came from; every
// audited store method takes one.
type Actor struct {
	UserID    int64 // 0 for the system (CLI, seed)
	Email     string
	RequestID string
	ClientIP  string
}

// SystemActor is the actor of command-line writes.
var SystemActor = Actor{Email: "system"}

// Session is a signed-in browser: the row behind a session cookie.
type Session struct {
	TokenHash  []byte
	UserID     int64
	CSRFToken  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	ClientIP   string
	UserAgent  string
}

// APIToken is a personal API token. The token itself is never stored, only
// its hash, which never leaves the store.
type APIToken struct {
	ID         int64      `json:"id"`
	UserID     int64      `json:"user_id"`
	Name       string     `json:"name"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// AttemptBucket is one counter a password attempt is counted against
// (docs/RULES.md §16.2): Key names it, and an attempt that takes the count
// past Limit within the window gets no password check (0: never refused).
type AttemptBucket struct {
	Key   string
	Limit int
}

// AttemptCount is a bucket's count in its open window, this attempt included.
type AttemptCount struct {
	Key         string
	Attempts    int
	WindowStart time.Time
}
