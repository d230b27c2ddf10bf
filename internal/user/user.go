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
	// Scopes name what the token may do (docs/RULES.md §19.2), in
	// APIScopes order; ExpiresAt is when it stops working (nil: a token
	// made before expiries existed, which never expires).
	Scopes    []string   `json:"scopes"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// The scopes of API tokens (docs/RULES.md §19.2), in the order forms show them.
const (
	ScopeRead         = "read"
	ScopeQuotesWrite  = "quotes:write"
	ScopeReportsWrite = "reports:write"
	ScopeTrialsWrite  = "trials:write"
	ScopeWatchesWrite = "watches:write"
	ScopeAdmin        = "admin"
)

// APIScopes lists every scope.
var APIScopes = []string{ScopeRead, ScopeQuotesWrite, ScopeReportsWrite, ScopeTrialsWrite, ScopeWatchesWrite, ScopeAdmin}

// ScopesFor lists the scopes a user of role may give a token, in
// APIScopes order (docs/RULES.md §19.2): every scope for admins; the rest
// all but admin, which adds nothing a token could use below an admin's
// role.
func ScopesFor(role string) []string {
	if role == "admin" {
		return APIScopes
	}
	out := make([]string, 0, len(APIScopes)-1)
	for _, s := range APIScopes {
		if s != ScopeAdmin {
			out = append(out, s)
		}
	}
	return out
}

// HasScope reports whether the token may act under scope: admin holds
// every scope.
func (t APIToken) HasScope(scope string) bool {
	for _, s := range t.Scopes {
		if s == scope || s == ScopeAdmin {
			return true
		}
	}
	return false
}

// Expired reports whether the token no longer works at now.
func (t APIToken) Expired(now time.Time) bool { return t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) }

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

// LiveSession is one live session as its user's account page lists it. It
// names the session by its public id; the token hash never leaves the
// store (docs/RULES.md §16.5).
type LiveSession struct {
	PublicID   string
	CreatedAt  time.Time
	LastSeenAt time.Time
	ClientIP   string
	UserAgent  string
	// Current marks the session of the request that asked (this browser).
	Current bool
}

// OwnerOrAdmin reports whether a user (userID with role) may change or
// delete something of ownerID's own, such as a saved usage profile: its
// owner or an admin (docs/RULES.md §2.1).
func OwnerOrAdmin(ownerID, userID int64, role string) bool {
	return userID != 0 && (userID == ownerID || role == "admin")
}
