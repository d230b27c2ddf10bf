// Package gzsplice writes a gzip stream into which HTML fragments kept
// with their own compression are spliced as they are, so a page that shows
// a large kept fragment compresses only what is drawn for the request.
//
// A Block is a fragment and its raw DEFLATE compression ended by a sync
// flush (RFC 1951 blocks, none of them final, ending on a byte boundary).
// A Writer compresses what is written to it; Splice ends its current
// deflate blocks the same way, appends the block's bytes and starts a fresh
// compressor, so nothing written after it refers back across the spliced
// bytes; Close writes the final block and the gzip trailer (CRC-32 and
// size of every byte, spliced ones included). Decompressed, the stream is
// exactly the bytes a plain writer would have received.
//
// A Block is a templ component: rendered into a page whose writer is a
// Writer (WithWriter names it in the context), it is spliced; rendered
// anywhere else it writes its HTML.
package gzsplice

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	templruntime "github.com/a-h/templ/runtime"
	"github.com/klauspost/compress/flate"
)

// Level is the compression of what a Writer compresses as it goes: the
// level the server's own gzip uses (internal/server, compressed).
const Level = 2

// Block is an HTML fragment kept with its compression. It never changes
// once made and is safe for concurrent use.
type Block struct {
	html     string
	deflated []byte
}

// NewBlock compresses html at level (a compress/flate level) and keeps
// both.
func NewBlock(html string, level int) *Block {
	out := bufferWriter{b: make([]byte, 0, len(html)/5)}
	var fw *flate.Writer
	if level == Level {
		fw = flatePool.Get().(*flate.Writer)
		defer flatePool.Put(fw)
		fw.Reset(&out)
	} else if w, err := flate.NewWriter(&out, level); err == nil {
		fw = w
	} else {
		fw = flatePool.Get().(*flate.Writer)
		defer flatePool.Put(fw)
		fw.Reset(&out)
	}
	_, _ = io.WriteString(fw, html)
	_ = fw.Flush() // never Close: the stream goes on after the block
	fw.Reset(io.Discard)
	// Kept long: no spare room.
	return &Block{html: html, deflated: append([]byte(nil), out.b...)}
}

// bufferWriter collects bytes (bytes.Buffer would do, less simply).
type bufferWriter struct{ b []byte }

func (w *bufferWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// HTML is the fragment.
func (b *Block) HTML() string { return b.html }

// Deflated is the fragment's compression (not to be changed).
func (b *Block) Deflated() []byte { return b.deflated }

// Render writes the block: spliced when w is the Writer the context names
// (or templ's buffer around it), else as HTML.
func (b *Block) Render(ctx context.Context, w io.Writer) error {
	if z, _ := ctx.Value(ctxKey{}).(*Writer); z != nil {
		if zw, ok := w.(*Writer); ok && zw == z {
			return z.Splice(b)
		}
		if tb, ok := w.(*templruntime.Buffer); ok {
			if zw, ok := tb.Underlying.(*Writer); ok && zw == z {
				// What templ holds goes before the block.
				if err := tb.Flush(); err != nil {
					return err
				}
				return z.Splice(b)
			}
		}
	}
	_, err := io.WriteString(w, b.html)
	return err
}

type ctxKey struct{}

// WithWriter names z as the writer blocks rendered under ctx splice into.
func WithWriter(ctx context.Context, z *Writer) context.Context {
	return context.WithValue(ctx, ctxKey{}, z)
}

// Writer writes a gzip stream to its destination. It is not safe for
// concurrent use.
type Writer struct {
	dst  io.Writer
	fw   *flate.Writer
	crc  uint32
	size uint32
	err  error
}

var flatePool = sync.Pool{New: func() any {
	fw, _ := flate.NewWriter(io.Discard, Level)
	return fw
}}

// header is a gzip member's header: deflate, no flags, no time, no extra
// flags, an unknown system (as Go's compress/gzip writes it).
var header = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// NewWriter starts a gzip stream on dst. Close ends it.
func NewWriter(dst io.Writer) *Writer {
	fw := flatePool.Get().(*flate.Writer)
	fw.Reset(dst)
	z := &Writer{dst: dst, fw: fw}
	_, z.err = dst.Write(header[:])
	return z
}

// Write compresses p.
func (z *Writer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	z.crc = crc32.Update(z.crc, crc32.IEEETable, p)
	z.size += uint32(len(p))
	var n int
	n, z.err = z.fw.Write(p)
	return n, z.err
}

// Splice ends the deflate blocks written so far on a byte boundary, appends
// b's compression and starts the compressor afresh.
func (z *Writer) Splice(b *Block) error {
	if z.err != nil {
		return z.err
	}
	if z.err = z.fw.Flush(); z.err != nil {
		return z.err
	}
	if _, z.err = z.dst.Write(b.deflated); z.err != nil {
		return z.err
	}
	z.crc = crc32.Update(z.crc, crc32.IEEETable, unsafe.Slice(unsafe.StringData(b.html), len(b.html))) // read only
	z.size += uint32(len(b.html))
	// A fresh compressor: no match may reach back across the block, which
	// the compressor never saw.
	z.fw.Reset(z.dst)
	return nil
}

// Close writes the final block and the trailer; the Writer is done.
func (z *Writer) Close() error {
	if z.fw == nil {
		return errors.New("gzsplice: closed twice")
	}
	if z.err == nil {
		z.err = z.fw.Close()
	}
	z.fw.Reset(io.Discard)
	flatePool.Put(z.fw)
	z.fw = nil
	if z.err != nil {
		return z.err
	}
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], z.crc)
	binary.LittleEndian.PutUint32(trailer[4:], z.size)
	_, z.err = z.dst.Write(trailer[:])
	return z.err
}

// Accepts says whether the answer to r may be gzipped as the server's own
// compression would: not for HEAD, and only when Accept-Encoding names gzip
// with a quality above 0 ("*" is not taken for it).
func Accepts(r *http.Request) bool {
	if r.Method == http.MethodHead {
		return false
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			p = strings.TrimSpace(p)
			if len(p) >= 2 && strings.EqualFold(p[:2], "q=") {
				if v, err := strconv.ParseFloat(p[2:], 64); err == nil {
					q = v
				} else {
					q = 0
				}
			}
		}
		return q > 0
	}
	return false
}
