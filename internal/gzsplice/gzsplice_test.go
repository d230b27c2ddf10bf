package gzsplice

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/a-h/templ"
	templruntime "github.com/a-h/templ/runtime"
)

// text is n bytes of HTML-like text, repetitive enough to compress and
// varied enough to make long matches.
func text(r *rand.Rand, n int) string {
	words := []string{"<td class=\"num\">", "</td>", "¥1,234.50", "GPU", "H100", "<tr>", "</tr>", "租赁", "\n", "egress", "0.35"}
	var b strings.Builder
	for b.Len() < n {
		if r.IntN(5) == 0 {
			fmt.Fprintf(&b, "%d", r.IntN(1_000_000))
		} else {
			b.WriteString(words[r.IntN(len(words))])
		}
	}
	return b.String()
}

// gunzip decompresses z with Go's reader, which checks the CRC and size.
func gunzip(t *testing.T, z []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	if rest, _ := io.ReadAll(zr); len(rest) > 0 {
		t.Fatalf("%d bytes after the stream", len(rest))
	}
	return string(got)
}

// gzipTest checks z with the gzip tool's own test (gzip -t), when there is
// one.
func gzipTest(t *testing.T, z []byte) {
	t.Helper()
	path, err := exec.LookPath("gzip")
	if err != nil {
		return
	}
	cmd := exec.Command(path, "-t")
	cmd.Stdin = bytes.NewReader(z)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gzip -t: %v: %s", err, out)
	}
}

// TestBlockInTempl renders a component holding blocks into a Writer: they
// are spliced (the stream is smaller than compressing the page would make
// it only by accident, so what is checked is that the block's own bytes
// are in the stream) and the page reads back whole; into anything else
// they write their HTML.
func TestBlockInTempl(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	head, tail := text(r, 5000), text(r, 9000)
	b := NewBlock(text(r, 90_000), 6)
	page := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, head); err != nil {
			return err
		}
		if err := b.Render(ctx, w); err != nil {
			return err
		}
		return templ.Raw(tail).Render(ctx, w)
	})
	// As templ nests it: a component rendered inside another gets templ's
	// buffer around the page's writer.
	outer := templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		buf, isBuf := templruntimeBuffer(w)
		if !isBuf {
			defer releaseBuffer(buf)
		}
		return page.Render(ctx, buf)
	})
	want := head + b.HTML() + tail

	var out bytes.Buffer
	z := NewWriter(&out)
	if err := outer.Render(WithWriter(context.Background(), z), z); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if got := gunzip(t, out.Bytes()); got != want {
		t.Fatalf("read back %d bytes, want %d", len(got), len(want))
	}
	if !bytes.Contains(out.Bytes(), b.deflated) {
		t.Fatal("the block's compression is not in the stream: it was compressed again")
	}
	gzipTest(t, out.Bytes())

	// Not a Writer, or a Writer the context does not name: plain HTML.
	var plain strings.Builder
	if err := outer.Render(WithWriter(context.Background(), z), &plain); err != nil {
		t.Fatal(err)
	}
	if plain.String() != want {
		t.Fatal("rendered into another writer, the page differs")
	}
	var other bytes.Buffer
	z2 := NewWriter(&other)
	if err := outer.Render(context.Background(), z2); err != nil {
		t.Fatal(err)
	}
	_ = z2.Close()
	if got := gunzip(t, other.Bytes()); got != want {
		t.Fatal("compressed without splicing, the page differs")
	}
	if bytes.Contains(other.Bytes(), b.deflated) {
		t.Fatal("spliced into a writer the context does not name")
	}
}

func TestAccepts(t *testing.T) {
	for _, c := range []struct {
		method, header string
		want           bool
	}{
		{"GET", "gzip", true},
		{"GET", "gzip, deflate, br", true},
		{"GET", "br;q=1.0, GZIP;q=0.5", true},
		{"GET", "gzip;q=0", false},
		{"GET", "gzip;q=0.0, br", false},
		{"GET", "gzip;q=x", false},
		{"GET", "*", false},
		{"GET", "deflate", false},
		{"GET", "", false},
		{"HEAD", "gzip", false},
	} {
		r, _ := http.NewRequest(c.method, "/", nil)
		if c.header != "" {
			r.Header.Set("Accept-Encoding", c.header)
		}
		if got := Accepts(r); got != c.want {
			t.Errorf("%s with %q: %v, want %v", c.method, c.header, got, c.want)
		}
	}
}

func templruntimeBuffer(w io.Writer) (*templruntime.Buffer, bool) { return templruntime.GetBuffer(w) }

func releaseBuffer(b *templruntime.Buffer) { _ = templruntime.ReleaseBuffer(b) }
