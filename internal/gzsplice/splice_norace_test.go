//go:build !race

// Two hundred streams of up to a megabyte each check nothing a race could
// break (one goroutine writes each), and -race slows them tenfold: make
// test runs this file in its pass without -race.

package gzsplice

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSpliced writes pieces and blocks in many orders (blocks first, last,
// side by side, empty, large) and reads back exactly the bytes written.
func TestSpliced(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		var want strings.Builder
		var out bytes.Buffer
		z := NewWriter(&out)
		for range r.IntN(8) {
			switch r.IntN(3) {
			case 0:
				s := text(r, r.IntN(3)*r.IntN(70_000))
				want.WriteString(s)
				if _, err := io.WriteString(z, s); err != nil {
					t.Fatal(err)
				}
			default:
				b := NewBlock(text(r, r.IntN(2)*r.IntN(120_000)), 1+r.IntN(9))
				want.WriteString(b.HTML())
				if err := z.Splice(b); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := z.Close(); err != nil {
			t.Fatal(err)
		}
		if got := gunzip(t, out.Bytes()); got != want.String() {
			t.Fatalf("case %d: %d bytes read back, %d written, or not the same", n, len(got), want.Len())
		}
		if n%20 == 0 {
			gzipTest(t, out.Bytes())
		}
	}
}
