package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// NewToken returns a fresh 256-bit random token, base64url without padding.
func NewToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is what the database stores for a session token: its SHA-256.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// FeedTokenPrefix starts every feed token, so one is recognisable in logs
// (the request log redacts it) and by secret scanners.
const FeedTokenPrefix = "gqf_"

// NewFeedToken returns a fresh feed token (docs/RULES.md §24.6): the
// prefix and 256 random bits, base64url. Only HashToken of it is stored.
func NewFeedToken() string { return FeedTokenPrefix + NewToken() }

// LooksLikeFeedToken reports whether s has a feed token's form: the
// prefix and 43 base64url characters. Anything else is no token, so it is
// not looked up.
func LooksLikeFeedToken(s string) bool {
	rest, ok := strings.CutPrefix(s, FeedTokenPrefix)
	if !ok || len(rest) != 43 {
		return false
	}
	for _, r := range rest {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
