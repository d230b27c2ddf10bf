package user

import "time"

// FeedToken is a user's feed token (docs/RULES.md §24.6): the secret in
// their feed addresses, which reads feeds and nothing else. The token
// itself is never stored, only its hash, which never leaves the store.
type FeedToken struct {
	UserID     int64      `json:"user_id"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
}
