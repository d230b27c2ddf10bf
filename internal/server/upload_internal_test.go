package server

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestReadMultipart checks how an upload form is read as it arrives
// (docs/RULES.md §18.1): the file kept up to its limit and no further,
// "too large" past it or when the request is cut at its limit inside it
// (never kept cut short), the part a browser sends when no file was
// chosen, the file parts whose name cannot be read, and the bounds of the
// other fields.
func TestReadMultipart(t *testing.T) {
	const boundary = "b0undary"
	u := Upload{File: "f", MaxFile: 10}
	type part struct{ cd, body string }
	form := func(parts ...part) string {
		var b strings.Builder
		for _, p := range parts {
			fmt.Fprintf(&b, "--%s\r\nContent-Disposition: %s\r\n\r\n%s\r\n", boundary, p.cd, p.body)
		}
		fmt.Fprintf(&b, "--%s--\r\n", boundary)
		return b.String()
	}
	field := func(name, v string) part { return part{`form-data; name="` + name + `"`, v} }
	file := func(name, v string) part { return part{`form-data; name="f"; filename="` + name + `"`, v} }
	tests := []struct {
		name      string
		body      string
		cutAt     string // the body ends 3 bytes into the first of these
		limit     int64  // else, 0: the body's length
		wantFile  UploadedFile
		wantLabel string
		wantCode  int // an HTTP error
	}{
		{name: "no file part", body: form(field("label", "a")), wantLabel: "a"},
		{name: "no file chosen", body: form(field("label", "a"), file("", "")), wantLabel: "a"},
		{name: "a file", body: form(field("label", "a"), file("q.pdf", "%PDF-1234")),
			wantFile: UploadedFile{Present: true, Name: "q.pdf", Data: []byte("%PDF-1234")}, wantLabel: "a"},
		{name: "a file at its limit", body: form(file("q.pdf", "0123456789"), field("label", "after")),
			wantFile: UploadedFile{Present: true, Name: "q.pdf", Data: []byte("0123456789")}, wantLabel: "after"},
		{name: "a file a byte over", body: form(file("q.pdf", "0123456789X"), field("label", "after")),
			wantFile: UploadedFile{Present: true, Name: "q.pdf", TooLarge: true}, wantLabel: "after"},
		{name: "an empty file with a name", body: form(file("q.pdf", "")), wantFile: UploadedFile{Present: true, Name: "q.pdf", Data: []byte{}}},
		{name: "the body exactly at its limit", body: form(field("label", "a"), file("q.pdf", "%PDF-")),
			wantFile: UploadedFile{Present: true, Name: "q.pdf", Data: []byte("%PDF-")}, wantLabel: "a"},
		{name: "cut at the limit inside the file", body: form(field("label", "a"), file("q.pdf", "%PDF-12")), cutAt: "%PDF-12",
			wantFile: UploadedFile{Present: true, Name: "q.pdf", TooLarge: true}, wantLabel: "a"},
		{name: "cut after a file too large", body: form(field("label", "a"), file("q.pdf", strings.Repeat("x", 100))), cutAt: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n",
			wantFile: UploadedFile{Present: true, Name: "q.pdf", TooLarge: true}, wantLabel: "a"},
		{name: "filename*", body: form(field("label", "a"), part{`form-data; name="f"; filename="a.pdf"; filename*=UTF-8''b.exe`, "%PDF-"}),
			wantFile: UploadedFile{Present: true, Malformed: true}, wantLabel: "a"},
		{name: "filename* as words of a quoted name", body: form(part{`form-data; name="f"; filename="my filename*.pdf"`, "%PDF-"}),
			wantFile: UploadedFile{Present: true, Name: "my filename*.pdf", Data: []byte("%PDF-")}},
		{name: "a quote left open", body: form(field("label", "a"), part{`form-data; name="f"; filename="a.pdf`, "%PDF-"}),
			wantFile: UploadedFile{Present: true, Malformed: true}, wantLabel: "a"},
		{name: "no filename", body: form(part{`form-data; name="f"`, "%PDF-"}), wantFile: UploadedFile{Present: true, Malformed: true}},
		{name: "two files", body: form(file("a.pdf", "%PDF-"), file("b.pdf", "%PDF-")), wantFile: UploadedFile{Present: true, Name: "a.pdf", Malformed: true}},
		{name: "a file in another field is not read", body: form(part{`form-data; name="label"; filename="x"`, "zzz"}, field("label", "a")), wantLabel: "a"},
		{name: "fields over 1 MiB", body: form(field("label", strings.Repeat("x", uploadFieldBytes+1))), limit: 2 << 20, wantCode: http.StatusRequestEntityTooLarge},
		{name: "cut inside a field", body: form(field("label", strings.Repeat("x", 100))), cutAt: "xxx", wantCode: http.StatusRequestEntityTooLarge},
		{name: "not multipart as it said", body: "label=a", wantCode: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			limit := tt.limit
			if tt.cutAt != "" {
				limit = int64(strings.Index(tt.body, tt.cutAt) + 3)
			}
			if limit == 0 {
				limit = int64(len(tt.body))
			}
			values, got, err := readMultipart(&capReader{r: strings.NewReader(tt.body), left: limit}, boundary, u, make([]byte, u.MaxFile+1))
			var he *echo.HTTPError
			switch {
			case tt.wantCode != 0:
				if !errors.As(err, &he) || he.Code != tt.wantCode {
					t.Fatalf("err %v, want HTTP %d", err, tt.wantCode)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if got.Present != tt.wantFile.Present || got.Name != tt.wantFile.Name || !bytes.Equal(got.Data, tt.wantFile.Data) ||
				(got.Data == nil) != (tt.wantFile.Data == nil) || got.TooLarge != tt.wantFile.TooLarge || got.Malformed != tt.wantFile.Malformed {
				t.Errorf("file %+v, want %+v", *got, tt.wantFile)
			}
			if v := values.Get("label"); v != tt.wantLabel {
				t.Errorf("label %q, want %q", v, tt.wantLabel)
			}
		})
	}
}
