// Package pdftext reads the text layer of a PDF a vendor sent, so that the
// vendor-message reader can read a quote from it (docs/RULES.md §22.9).
// It does no IO beyond the bytes it is given: rows of text top to bottom,
// page after page, each row's runs joined left to right. A PDF whose pages
// carry no text (a scan, a picture of a price list) is ErrNoText, never an
// empty success.
package pdftext

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Bounds: a vendor's PDF is a quote of a few pages; what is past these is
// not read.
const (
	// MaxPages is how many pages are read.
	MaxPages = 50
	// MaxChars is how many characters of text are kept.
	MaxChars = 100_000
)

var (
	// ErrNotPDF: the bytes are not a PDF this package can open (also an
	// encrypted one).
	ErrNotPDF = errors.New("pdftext: not a readable PDF")
	// ErrNoText: the PDF opens but none of its pages carries text.
	ErrNoText = errors.New("pdftext: the PDF has no text layer")
)

// Text returns the PDF's text: its rows top to bottom on each page, one
// per line, pages separated by a blank line; at most MaxPages pages and
// MaxChars characters.
func Text(data []byte) (text string, err error) {
	// The library recovers most malformed input itself; anything else it
	// panics with is a PDF it cannot read, not a crash of the server.
	defer func() {
		if x := recover(); x != nil {
			text, err = "", fmt.Errorf("%w: %v", ErrNotPDF, x)
		}
	}()
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return "", ErrNotPDF
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotPDF, err)
	}
	var b strings.Builder
	chars := 0
	for i := 1; i <= min(r.NumPage(), MaxPages) && chars < MaxChars; i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		page, err := pageText(p)
		if err != nil {
			return "", fmt.Errorf("%w: page %d: %v", ErrNotPDF, i, err)
		}
		if page == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
			chars += 2
		}
		b.WriteString(page)
		chars += utf8.RuneCountInString(page)
	}
	text = b.String()
	if strings.TrimSpace(text) == "" {
		return "", ErrNoText
	}
	if r := []rune(text); len(r) > MaxChars {
		text = string(r[:MaxChars])
	}
	return text, nil
}

// pageText is a page's text: its runs grouped in rows by their baseline,
// rows top to bottom (PDF's y grows upwards), each row's runs in the order
// the page draws them, one row per line; rows of spaces are left out. A run
// drawn in a font the reader cannot name carries no Unicode mapping it can
// use (a bold face a browser made up, a picture font) and is left out
// rather than read as garbage.
func pageText(p pdf.Page) (text string, err error) {
	defer func() {
		if x := recover(); x != nil {
			text, err = "", fmt.Errorf("%v", x)
		}
	}()
	type row struct {
		y float64
		b strings.Builder
	}
	var rows []*row
	byY := map[int64]*row{}
	for _, t := range p.Content().Text {
		if t.Font == "" {
			continue
		}
		// Runs within a quarter point share a baseline.
		key := int64(math.Round(t.Y * 4))
		r := byY[key]
		if r == nil {
			r = &row{y: t.Y}
			byY[key] = r
			rows = append(rows, r)
		}
		r.b.WriteString(t.S)
	}
	slices.SortStableFunc(rows, func(a, b *row) int { return cmp.Compare(b.y, a.y) })
	var lines []string
	for _, r := range rows {
		if line := strings.TrimRightFunc(r.b.String(), isSpace); strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n"), nil
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\u00a0' || r == '\r' }
