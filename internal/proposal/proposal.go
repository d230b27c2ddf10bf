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

// extensions are the endings a kept name may have, by the content type
// decided from the file's bytes; the first is the one a name gets when it
// ends with none of them (docs/RULES.md §18.1).
var extensions = map[string][]string{PDF: {".pdf"}, PNG: {".png"}, JPEG: {".jpg", ".jpeg"}, WebP: {".webp"}}

// Filename is the name a vendor's file of contentType is kept, shown and
// served under, from the name a browser sent (docs/RULES.md §18.1): its
// base name without directories; without control, format (zero-width,
// bidi overrides and isolates) or separator characters, which could make
// it read as something else ("invoice\u202efdp.exe" shows as
// "invoiceexe.pdf"); characters that mean something in a header or a shell
// replaced by "_"; ending with the extension of contentType (a name ending
// otherwise has its extension replaced, or gets one); at most
// MaxFilenameChars characters, the end kept. A name with nothing left is
// "file" with the extension. It is idempotent, so a name kept before this
// rule is shown and served by it too. An unknown contentType changes no
// extension (the name of a file being refused).
func Filename(name, contentType string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	name = path.Base(name)
	var b strings.Builder
	for _, r := range name {
		switch {
		case Invisible(r):
		case strings.ContainsRune(`/\:*?"<>|;%`, r):
			b.WriteRune('_')
		default:
			b.WriteRune(r)
		}
	}
	out := trimName(b.String())
	if out == "" {
		out = "file"
	}
	out = withExtension(out, contentType)
	if rs := []rune(out); len(rs) > MaxFilenameChars {
		out = trimName(string(rs[len(rs)-MaxFilenameChars:]))
	}
	return out
}

// Invisible reports whether r is dropped from a kept file name: a
// control, format (Cf: zero-width characters, bidi marks, overrides and
// isolates), line or paragraph separator, private-use or surrogate code
// point, or a byte that is not UTF-8.
func Invisible(r rune) bool {
	return r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs) ||
		unicode.Is(unicode.Bidi_Control, r) || unicode.Is(unicode.Noncharacter_Code_Point, r)
}

// trimName drops the spaces around a name and its leading dots (a hidden
// file) and trailing dots (which some systems drop, uncovering another
// extension).
func trimName(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, ". ")
	return strings.TrimRight(s, ". ")
}

// withExtension makes name end with an extension of contentType: kept when
// it does (in any case), else its own extension is replaced, or one added.
func withExtension(name, contentType string) string {
	exts, ok := extensions[contentType]
	if !ok {
		return name
	}
	lower := strings.ToLower(name)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) && len(lower) > len(e) {
			return name
		}
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 && isExtension(name[i+1:]) {
		name = trimName(name[:i])
		if name == "" {
			name = "file"
		}
	}
	return name + exts[0]
}

// isExtension reports whether s reads as a file extension: 1 to 8 ASCII
// letters and digits, at least one a letter ("exe", "html", "7z"; not the
// "11" of "report.2026.11").
func isExtension(s string) bool {
	if len(s) < 1 || len(s) > 8 {
		return false
	}
	letter := false
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return letter
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
