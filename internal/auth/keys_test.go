package auth

import (
	"bytes"
	"testing"
)

func TestSignerBindsKeyPurposeAndMessage(t *testing.T) {
	a := NewSigner(bytes.Repeat([]byte{1}, 32))
	b := NewSigner(bytes.Repeat([]byte{2}, 32))
	mac := a.Sign("csrf", "nonce")
	if !a.Verify("csrf", "nonce", mac) {
		t.Fatal("a signature does not verify under its own key, purpose and message")
	}
	for name, ok := range map[string]bool{
		"other key":     b.Verify("csrf", "nonce", mac),
		"other purpose": a.Verify("device", "nonce", mac),
		"other message": a.Verify("csrf", "nonce2", mac),
		"not base64":    a.Verify("csrf", "nonce", "!!"),
		"empty":         a.Verify("csrf", "nonce", ""),
	} {
		if ok {
			t.Errorf("%s: verified", name)
		}
	}
}
