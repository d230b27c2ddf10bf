package pdftext_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"gpuquote/internal/pdftext"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestText: a printed price list reads top to bottom, one row per line,
// each row's cells left to right, the Chinese text whole. The bold title
// and headings, which Chromium draws in Type 3 fonts the library cannot
// map to Unicode, are left out rather than read as garbage.
func TestText(t *testing.T) {
	text, err := pdftext.Text(read(t, "vendor-quote.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	if lines[0] != "报价日期：2026年11月28日\u3000有效期 30 天" {
		t.Errorf("the first line is %q, want the date under the title", lines[0])
	}
	if strings.ContainsAny(text, "µñ®\x03\x11") || strings.Contains(text, "晨曦") {
		t.Errorf("the Type 3 title was read as something:\n%s", text)
	}
	for _, want := range []string{"¥1.98/小时，按秒计费", "¥1,150/月", "50GB 免费，超出部分 ¥0.01/GB/天", "可开 6% 增值税专票"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q is not in the text:\n%s", want, text)
		}
	}
	hourly, monthly := strings.Index(text, "¥1.98"), strings.Index(text, "¥1,150")
	if hourly < 0 || monthly < hourly {
		t.Errorf("rows out of order (the hourly row is above the monthly one):\n%s", text)
	}
	again, _ := pdftext.Text(read(t, "vendor-quote.pdf"))
	if again != text {
		t.Error("the same PDF read twice gave two texts")
	}
}

// TestNoText: a picture of a price list is ErrNoText; bytes that are not a
// PDF, or a PDF cut short, are ErrNotPDF.
func TestNoText(t *testing.T) {
	if _, err := pdftext.Text(read(t, "scanned-quote.pdf")); !errors.Is(err, pdftext.ErrNoText) {
		t.Errorf("an image-only PDF: %v, want ErrNoText", err)
	}
	for name, b := range map[string][]byte{
		"not a PDF": []byte("RTX 4090 ¥1.98/小时"),
		"cut short": read(t, "vendor-quote.pdf")[:4000],
		"empty":     nil,
	} {
		if _, err := pdftext.Text(b); !errors.Is(err, pdftext.ErrNotPDF) {
			t.Errorf("%s: %v, want ErrNotPDF", name, err)
		}
	}
}

// FuzzText: whatever the bytes, Text returns (never panics) text within
// its bound or an error.
func FuzzText(f *testing.F) {
	pdf, _ := os.ReadFile("testdata/vendor-quote.pdf")
	f.Add(pdf)
	f.Add(pdf[:len(pdf)/2])
	f.Add([]byte("%PDF-1.4\n%%EOF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		text, err := pdftext.Text(b)
		if err == nil && (strings.TrimSpace(text) == "" || len([]rune(text)) > pdftext.MaxChars) {
			t.Errorf("text of %d characters without an error", len([]rune(text)))
		}
	})
}
