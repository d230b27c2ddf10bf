// Package proposal holds the rules of quotes proposed by anyone signed in
// and published by editors (docs/RULES.md §18.1) that need no IO: the
// vendor's message and the editor's comment, and the vendor's file — its
// type decided from its bytes, its size and its name.
package proposal

import (
	"bytes"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of what a proposal carries (docs/RULES.md §18.1).
const (
	// MaxMessageChars bounds the vendor's pasted message, counted in
	// characters after trimming.
	MaxMessageChars = 20000
	// MaxCommentChars bounds an editor's comment when sending back.
	MaxCommentChars = 2000
	// MaxFileBytes bounds the vendor's file: 5 MiB.
	MaxFileBytes = 5 << 20
	// MaxFilenameChars bounds the kept file name.
	MaxFilenameChars = 200
)

// Content types a vendor's file may have, decided from its first bytes.
const (
	PDF  = "application/pdf"
	PNG  = "image/png"
	JPEG = "image/jpeg"
	WebP = "image/webp"
)

// Sniff decides a file's content type from its magic number: PDF, PNG,
// JPEG or WebP; anything else answers "" (refused), whatever its name says.
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("%PDF-")):
		return PDF
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return JPEG
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && bytes.Equal(data[8:12], []byte("WEBP")):
		return WebP
	}
	return ""
}

// Filename keeps the base name a browser sent, without directories,
// control characters or characters that mean something in a header or a
// shell (replaced by "_"), at most MaxFilenameChars characters (the end,
// with its extension, is kept); an empty result is "file".
func Filename(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), strings.ContainsRune(`/\:*?"<>|;%`, r):
			b.WriteRune('_')
		default:
			b.WriteRune(r)
		}
	}
	out := strings.TrimSpace(b.String())
	out = strings.TrimLeft(out, ".")
	if rs := []rune(out); len(rs) > MaxFilenameChars {
		out = string(rs[len(rs)-MaxFilenameChars:])
	}
	if out == "" || out == "." {
		return "file"
	}
	return out
}

// CheckMessage is the message id of what is wrong with a vendor's message
// (trimmed), or "" when it is fine.
func CheckMessage(msg string) string {
	n := utf8.RuneCountInString(strings.TrimSpace(msg))
	switch {
	case n == 0:
		return "proposal.error.message_required"
	case n > MaxMessageChars:
		return "proposal.error.message_too_long"
	}
	return ""
}

// CheckComment is the message id of what is wrong with an editor's comment
// on sending a proposal back (required, trimmed), or "".
func CheckComment(c string) string {
	n := utf8.RuneCountInString(strings.TrimSpace(c))
	switch {
	case n == 0:
		return "proposal.error.comment_required"
	case n > MaxCommentChars:
		return "proposal.error.comment_too_long"
	}
	return ""
}

// CheckFile is the message id of what is wrong with a vendor's file of
// size bytes whose first bytes are head, or "" when it is fine; contentType
// is what the server decided.
func CheckFile(size int64, head []byte) (contentType, problem string) {
	switch {
	case size <= 0:
		return "", "proposal.error.file_empty"
	case size > MaxFileBytes:
		return "", "proposal.error.file_too_large"
	}
	ct := Sniff(head)
	if ct == "" {
		return "", "proposal.error.file_type"
	}
	return ct, ""
}
