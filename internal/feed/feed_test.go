package feed

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestTagURI(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"gpuquote.example.com", "tag:gpuquote.example.com,2026:quotes"},
		{"GPUQuote.Example.com:8443", "tag:gpuquote.example.com,2026:quotes"},
		{"127.0.0.1:8080", "tag:127.0.0.1,2026:quotes"},
		{"[::1]:8080", "tag:--1,2026:quotes"},
		{"", "tag:localhost,2026:quotes"},
	} {
		if got := TagURI(c.in, "quotes"); got != c.want {
			t.Errorf("TagURI(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestAtomIsTheSameBytes: the same feed gives the same bytes, dates in
// UTC, text escaped.
func TestAtomIsTheSameBytes(t *testing.T) {
	at := time.Date(2026, 3, 1, 8, 0, 0, 0, time.FixedZone("CST", 8*3600))
	f := Feed{ID: "tag:x,2026:quotes", Title: "A & <B>", Lang: "en", Updated: at, Self: "https://x/feeds/quotes.atom?token=t&lang=en",
		Alternate: "https://x/quotes", Author: "gpuquote",
		Entries: []Entry{{ID: "tag:x,2026:quote-version/1", Title: "t", Published: at, Updated: at, Link: "https://x/quotes/1", Summary: "s"}}}
	a, err := f.Atom()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.Atom()
	if !bytes.Equal(a, b) {
		t.Error("two writings differ")
	}
	for _, want := range []string{`<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">`, `<updated>2026-03-01T00:00:00Z</updated>`,
		`A &amp; &lt;B&gt;`, `href="https://x/feeds/quotes.atom?token=t&amp;lang=en"`, `<link rel="alternate" type="text/html" href="https://x/quotes/1">`} {
		if !strings.Contains(string(a), want) {
			t.Errorf("no %s in\n%s", want, a)
		}
	}
}
