package proposal_test

import (
	"strings"
	"testing"

	"gpuquote/internal/proposal"
)

// Magic numbers of the accepted file types, as their formats define them.
var (
	pdfHead  = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	pngHead  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegHead = []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	webpHead = []byte("RIFF\x24\x00\x00\x00WEBPVP8 ")
)

// TestSniff checks that a vendor's file is recognised by its first bytes
// only (docs/RULES.md §18.1 "Proposing": PDF `%PDF-`, PNG, JPEG or WebP,
// whatever its name or the browser says); anything else is refused.
func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		head []byte
		want string
	}{
		{name: "PDF", head: pdfHead, want: "application/pdf"},
		{name: "PNG", head: pngHead, want: "image/png"},
		{name: "JPEG", head: jpegHead, want: "image/jpeg"},
		{name: "WebP", head: webpHead, want: "image/webp"},
		{name: "PDF without the dash", head: []byte("%PDF1.7"), want: ""},
		{name: "PDF magic not at the start", head: []byte(" %PDF-1.7"), want: ""},
		{name: "PNG cut short", head: []byte("\x89PNG\r\n"), want: ""},
		{name: "RIFF audio, not WebP", head: []byte("RIFF\x24\x00\x00\x00WAVEfmt "), want: ""},
		{name: "RIFF cut before its type", head: []byte("RIFF\x24\x00\x00\x00WEB"), want: ""},
		{name: "GIF", head: []byte("GIF89a\x01\x00"), want: ""},
		{name: "HTML", head: []byte("<!DOCTYPE html><html>"), want: ""},
		{name: "ZIP (an Office file)", head: []byte("PK\x03\x04\x14\x00"), want: ""},
		{name: "plain text named like a PDF", head: []byte("quote.pdf"), want: ""},
		{name: "empty", head: nil, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proposal.Sniff(tt.head); got != tt.want {
				t.Errorf("Sniff(%q) = %q, want %q", tt.head, got, tt.want)
			}
		})
	}
}

// TestCheckFile checks the vendor's file (docs/RULES.md §18.1
// "Proposing"): not empty, at most 5 MiB, and of an accepted type decided
// from its bytes; the content type is the server's, never the browser's.
func TestCheckFile(t *testing.T) {
	const mib = 1024 * 1024
	tests := []struct {
		name        string
		size        int64
		head        []byte
		wantType    string
		wantProblem string
	}{
		{name: "small PDF", size: 1234, head: pdfHead, wantType: "application/pdf"},
		{name: "PNG of exactly 5 MiB", size: 5 * mib, head: pngHead, wantType: "image/png"},
		{name: "JPEG of 5 MiB and a byte", size: 5*mib + 1, head: jpegHead, wantProblem: "proposal.error.file_too_large"},
		{name: "empty file", size: 0, head: nil, wantProblem: "proposal.error.file_empty"},
		{name: "negative size", size: -1, head: pdfHead, wantProblem: "proposal.error.file_empty"},
		{name: "WebP, header only", size: int64(len(webpHead)), head: webpHead, wantType: "image/webp"},
		{name: "GIF", size: 100, head: []byte("GIF89a"), wantProblem: "proposal.error.file_type"},
		{name: "executable", size: 100, head: []byte("MZ\x90\x00"), wantProblem: "proposal.error.file_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct, problem := proposal.CheckFile(tt.size, tt.head)
			if ct != tt.wantType || problem != tt.wantProblem {
				t.Errorf("CheckFile(%d, %q) = (%q, %q), want (%q, %q)", tt.size, tt.head, ct, problem, tt.wantType, tt.wantProblem)
			}
		})
	}
}

// TestFilename checks the name a vendor's file is kept, shown and served
// under (docs/RULES.md §18.1 "Proposing"): no directories; control, format
// (zero-width, bidi) and separator characters dropped; header and shell
// characters replaced; the extension of the type decided from the bytes
// (an extension that says otherwise replaced); at most 200 characters with
// the end kept; a name with nothing left is "file". Without a type (a
// name being refused) the extension is left as it is.
func TestFilename(t *testing.T) {
	long := strings.Repeat("a", 250) + ".pdf"
	wide := strings.Repeat("报", 300) + ".pdf"
	tests := []struct {
		name  string
		given string
		ct    string
		want  string
	}{
		{name: "plain name", given: "quote.pdf", ct: proposal.PDF, want: "quote.pdf"},
		{name: "Chinese name", given: "报价单 2026.pdf", ct: proposal.PDF, want: "报价单 2026.pdf"},
		{name: "Unix directories dropped", given: "/home/ana/quote.pdf", ct: proposal.PDF, want: "quote.pdf"},
		{name: "Windows directories dropped", given: `C:\Users\ana\quote.pdf`, ct: proposal.PDF, want: "quote.pdf"},
		{name: "climbing out of a directory", given: "../../etc/passwd", ct: "", want: "passwd"},
		{name: "control characters dropped", given: "quo\x00te\r\n.pdf", ct: proposal.PDF, want: "quote.pdf"},
		{name: "header characters", given: `a"b;c%d.pdf`, ct: proposal.PDF, want: "a_b_c_d.pdf"},
		{name: "shell characters", given: "a*b?c<d>e|f:g.png", ct: proposal.PNG, want: "a_b_c_d_e_f_g.png"},
		{name: "invalid UTF-8 dropped", given: "\xffquote.pdf", ct: proposal.PDF, want: "quote.pdf"},
		{name: "leading dots", given: ".hidden.pdf", ct: proposal.PDF, want: "hidden.pdf"},
		{name: "spaces around", given: "  quote.pdf  ", ct: proposal.PDF, want: "quote.pdf"},
		{name: "empty", given: "", ct: "", want: "file"},
		{name: "empty PDF", given: "", ct: proposal.PDF, want: "file.pdf"},
		{name: "only dots", given: "..", ct: proposal.PNG, want: "file.png"},
		{name: "directory only", given: "docs/", ct: "", want: "docs"},
		{name: "long name keeps its end", given: long, ct: proposal.PDF, want: strings.Repeat("a", 196) + ".pdf"},
		{name: "long name counted in characters", given: wide, ct: proposal.PDF, want: strings.Repeat("报", 196) + ".pdf"},
		{name: "exactly 200 characters", given: strings.Repeat("b", 196) + ".pdf", ct: proposal.PDF, want: strings.Repeat("b", 196) + ".pdf"},
		{name: "long name given an extension", given: strings.Repeat("c", 200) + ".exe", ct: proposal.PDF, want: strings.Repeat("c", 196) + ".pdf"},
		// The extension follows the bytes (ASVS 5.0 V5.2.2).
		{name: "batch file that is a PDF", given: "quote.bat", ct: proposal.PDF, want: "quote.pdf"},
		{name: "HTML that is a PNG", given: "evil.html", ct: proposal.PNG, want: "evil.png"},
		{name: "SVG that is a PNG", given: "x.svg", ct: proposal.PNG, want: "x.png"},
		{name: "executable with a PDF header", given: "setup.exe", ct: proposal.PDF, want: "setup.pdf"},
		{name: "PDF named as a JPEG", given: "scan.jpg", ct: proposal.PDF, want: "scan.pdf"},
		{name: "extension in capitals kept", given: "OFFER.PDF", ct: proposal.PDF, want: "OFFER.PDF"},
		{name: "JPEG as .jpeg", given: "photo.jpeg", ct: proposal.JPEG, want: "photo.jpeg"},
		{name: "JPEG as .jpg", given: "photo.JPG", ct: proposal.JPEG, want: "photo.JPG"},
		{name: "WebP without an extension", given: "screenshot", ct: proposal.WebP, want: "screenshot.webp"},
		{name: "a number is not an extension", given: "report.2026.11", ct: proposal.PDF, want: "report.2026.11.pdf"},
		{name: "double extension", given: "quote.pdf.exe", ct: proposal.PDF, want: "quote.pdf.pdf"},
		{name: "trailing dots", given: "quote.exe. . ", ct: proposal.PDF, want: "quote.pdf"},
		{name: "only an extension", given: ".exe", ct: proposal.PDF, want: "exe.pdf"},
		{name: "no type leaves the extension", given: "quote.bat", ct: "", want: "quote.bat"},
		// Format characters cannot make a name read as another.
		{name: "right-to-left override", given: "invoice\u202efdp.exe", ct: proposal.PDF, want: "invoicefdp.pdf"},
		{name: "zero-width space", given: "zero\u200bwidth.pdf", ct: proposal.PDF, want: "zerowidth.pdf"},
		{name: "bidi isolates and marks", given: "\u2067a\u2069\u200e\u200f\u061cb.pdf", ct: proposal.PDF, want: "ab.pdf"},
		{name: "byte order mark and soft hyphen", given: "\ufeffso\u00adft.png", ct: proposal.PNG, want: "soft.png"},
		{name: "line separator", given: "a\u2028b\u2029c.pdf", ct: proposal.PDF, want: "abc.pdf"},
		{name: "private use", given: "a\ue000b.pdf", ct: proposal.PDF, want: "ab.pdf"},
		{name: "nothing but format characters", given: "\u202e\u200b", ct: proposal.PDF, want: "file.pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := proposal.Filename(tt.given, tt.ct)
			if got != tt.want {
				t.Errorf("Filename(%q, %q) = %q, want %q", tt.given, tt.ct, got, tt.want)
			}
			if n := len([]rune(got)); n > 200 {
				t.Errorf("Filename(%q) has %d characters, want at most 200", tt.given, n)
			}
			for _, r := range got {
				if proposal.Invisible(r) {
					t.Errorf("Filename(%q) keeps %U", tt.given, r)
				}
			}
			if again := proposal.Filename(got, tt.ct); again != got {
				t.Errorf("Filename is not idempotent: %q, then %q", got, again)
			}
		})
	}
}

// TestCheckMessage checks the vendor's message (docs/RULES.md §18.1
// "Proposing": required, 1–20,000 characters after trimming).
func TestCheckMessage(t *testing.T) {
	tests := []struct {
		name string
		msg  string
		want string
	}{
		{name: "one character", msg: "a", want: ""},
		{name: "empty", msg: "", want: "proposal.error.message_required"},
		{name: "only whitespace", msg: " \n\t\r\n ", want: "proposal.error.message_required"},
		{name: "20,000 characters", msg: strings.Repeat("价", 20000), want: ""},
		{name: "20,000 characters and whitespace around", msg: "\n  " + strings.Repeat("价", 20000) + "  \n", want: ""},
		{name: "20,001 characters", msg: strings.Repeat("价", 20001), want: "proposal.error.message_too_long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proposal.CheckMessage(tt.msg); got != tt.want {
				t.Errorf("CheckMessage(%d characters) = %q, want %q", len([]rune(tt.msg)), got, tt.want)
			}
		})
	}
}

// TestCheckComment checks the editor's comment on sending a proposal
// back (docs/RULES.md §18.1 "Deciding": sending back needs a comment of
// 1–2,000 characters).
func TestCheckComment(t *testing.T) {
	tests := []struct {
		name    string
		comment string
		want    string
	}{
		{name: "one character", comment: "?", want: ""},
		{name: "empty", comment: "", want: "proposal.error.comment_required"},
		{name: "only whitespace", comment: "   \n", want: "proposal.error.comment_required"},
		{name: "2,000 characters", comment: strings.Repeat("退", 2000), want: ""},
		{name: "2,000 characters and whitespace around", comment: " " + strings.Repeat("退", 2000) + "\n", want: ""},
		{name: "2,001 characters", comment: strings.Repeat("退", 2001), want: "proposal.error.comment_too_long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := proposal.CheckComment(tt.comment); got != tt.want {
				t.Errorf("CheckComment(%d characters) = %q, want %q", len([]rune(tt.comment)), got, tt.want)
			}
		})
	}
}
