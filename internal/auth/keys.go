package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
)

// Signer makes and checks message authentication codes with a key all
// server processes of one database share (docs/RULES.md §16): what one
// process signs, another verifies. Each use signs under its own purpose, so
// a value signed for one purpose never verifies for another.
type Signer struct {
	key []byte
}

// NewSigner wraps a key of at least 32 bytes.
func NewSigner(key []byte) *Signer {
	if len(key) < 32 {
		panic("auth: signing key shorter than 32 bytes")
	}
	return &Signer{key: append([]byte(nil), key...)}
}

// Sign returns the base64url (unpadded) HMAC-SHA256 of msg under purpose.
func (s *Signer) Sign(purpose, msg string) string {
	return base64.RawURLEncoding.EncodeToString(s.mac(purpose, msg))
}

// Verify reports whether mac is Sign(purpose, msg), in constant time.
func (s *Signer) Verify(purpose, msg, mac string) bool {
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil {
		return false
	}
	return hmac.Equal(got, s.mac(purpose, msg))
}

func (s *Signer) mac(purpose, msg string) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(msg))
	return h.Sum(nil)
}
