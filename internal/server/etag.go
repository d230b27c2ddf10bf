package server

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// BytesETag is the strong ETag of an answer's bytes: the data API's
// answers (docs/RULES.md §19.1) and the feeds (§24.5).
func BytesETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:18]) + `"`
}

// ETagMatches reports whether an If-None-Match header names etag (or is
// "*"), weak forms included (RFC 9110 §13.1.2 compares weakly).
func ETagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
