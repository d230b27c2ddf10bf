package server_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
	"gpuquote/internal/testutil"
)

// importBody is a ready multipart body of the import form carrying file.
func importBody(t testing.TB, csrf string, file []byte) (body []byte, contentType string) {
	t.Helper()
	var b bytes.Buffer
	b.Grow(len(file) + 1024)
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("_csrf", csrf)
	fw, err := mw.CreateFormFile("file", "quotes.csv")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(file); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), mw.FormDataContentType()
}

// badLinesFile is a valid header followed by n lines of one character:
// each a row with the wrong number of fields.
func badLinesFile(n int) []byte {
	header := "platform,gpu_model,gpu_count,sharing,currency,hourly,billing_granularity,prices_include_tax,as_of,source\n"
	var b bytes.Buffer
	b.Grow(len(header) + 2*n)
	b.WriteString(header)
	for range n {
		b.WriteString("x\n")
	}
	return b.Bytes()
}

// TestImportOfMillionsOfBadLinesIsRefusedInBoundedMemory: a header and
// 4,000,000 one-character lines (8 MB) are refused at the row cap, with
// the first 100 problems listed and the count of all seen; the whole
// request allocates far less than the 1.2 GB it once took (docs/RULES.md
// §16.4). TotalAlloc counts every allocation of the process during the
// request (the test's own client included), and a sampler records the
// peak of HeapInuse.
func TestImportOfMillionsOfBadLinesIsRefusedInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("8 MB upload in -short mode")
	}
	app := testutil.NewApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	editor.Get("/quotes/import")
	body, ctype := importBody(t, editor.CSRF, badLinesFile(4_000_000))

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	req, err := http.NewRequest(http.MethodPost, app.URL+"/quotes/import", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	start := time.Now()
	res := editor.Do(req)
	elapsed := time.Since(start)
	close(stop)
	<-done
	runtime.ReadMemStats(&after)

	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", res.StatusCode)
	}
	zh := app.Catalog.Translator(i18n.ZH)
	if !strings.Contains(res.Body, zh.T("import.error.too_many_rows", "Max", quote.CSVMaxRows)) {
		t.Errorf("no row cap message")
	}
	if n := strings.Count(res.Body, `data-testid="row-error-`); n != quote.CSVMaxErrors {
		t.Errorf("%d problems listed, want %d", n, quote.CSVMaxErrors)
	}
	// Reading stopped at the cap: rows 2 … 10,001 were read, each wrong.
	if want := zh.T("import.error.first.other", "Count", quote.CSVMaxRows, "Shown", quote.CSVMaxErrors); !strings.Contains(res.Body, want) {
		t.Errorf("missing %q", want)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d-byte upload of 4,000,000 bad lines refused in %v: %.1f MiB allocated, heap in use peaked at %.1f MiB (%.1f MiB before)",
		len(body), elapsed.Round(time.Millisecond), float64(allocated)/(1<<20), float64(peak.Load())/(1<<20), float64(before.HeapInuse)/(1<<20))
	if allocated > 64<<20 {
		t.Errorf("the request allocated %d bytes, want under 64 MiB", allocated)
	}
}

// BenchmarkImportMillionsOfBadLines times the refusal of the 8 MB file of
// bad lines through the whole handler.
func BenchmarkImportMillionsOfBadLines(b *testing.B) {
	app := testutil.NewApp(b)
	editor, _ := app.AsUser(auth.RoleEditor)
	editor.Get("/quotes/import")
	body, ctype := importBody(b, editor.CSRF, badLinesFile(4_000_000))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest(http.MethodPost, app.URL+"/quotes/import", bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		if res := editor.Do(req); res.StatusCode != http.StatusUnprocessableEntity {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
}

// TestImportListsTheFirstHundredProblems: a file of 150 wrong rows lists
// the first 100 and says how many there were, in both languages.
func TestImportListsTheFirstHundredProblems(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		editor.PostForm("/lang", url.Values{"lang": {string(lang)}})
		editor.Get("/quotes/import")
		body, ctype := importBody(t, editor.CSRF, badLinesFile(150))
		req, _ := http.NewRequest(http.MethodPost, app.URL+"/quotes/import", bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		res := editor.Do(req)
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s: status %d", lang, res.StatusCode)
		}
		tr := app.Catalog.Translator(lang)
		if n := strings.Count(res.Body, `data-testid="row-error-`); n != quote.CSVMaxErrors {
			t.Errorf("%s: %d problems listed", lang, n)
		}
		if !strings.Contains(res.Body, `data-testid="row-error-101-"`) || strings.Contains(res.Body, `data-testid="row-error-102-"`) {
			t.Errorf("%s: not the first 100 rows (2 … 101)", lang)
		}
		if want := tr.T("import.error.first.other", "Count", 150, "Shown", 100); !strings.Contains(res.Body, want) {
			t.Errorf("%s: missing %q", lang, want)
		}
	}
}

// TestOutOfRangeIDsAreBadRequests: an id too large for any record, in a
// path or a filter, is a 400 that says so, not a server error.
func TestOutOfRangeIDsAreBadRequests(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	admin, _ := app.AsUser(auth.RoleAdmin)
	admin.PostForm("/lang", url.Values{"lang": {"en"}})
	msg := app.Catalog.Translator(i18n.EN).T("error.id_range.text")
	for _, p := range []string{"/quotes/123456789012345678901234567890", "/trials?gpu=9223372036854775808",
		"/trials?platform=99999999999999999999999999.99", "/quotes?platform=-9223372036854775809", "/reports?author=123456789012345678901234567890"} {
		res := admin.Get(p)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(res.Body, msg) {
			t.Errorf("GET %s: status %d, want 400 with %q", p, res.StatusCode, msg)
		}
	}
	if res := admin.Get("/quotes/12345"); res.StatusCode != http.StatusNotFound {
		t.Errorf("an id that fits but is no record: %d, want 404", res.StatusCode)
	}
}

// TestQuoteDecimalBeyondItsColumnIsAFieldProblem: a VRAM figure with more
// digits than numeric(10,2) holds is refused with the field's message
// (422), not left for the database to refuse (a 500 before).
func TestQuoteDecimalBeyondItsColumnIsAFieldProblem(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	editor.PostForm("/lang", url.Values{"lang": {"en"}})
	f := quoteForm(app)
	f.Set("vram_gb", "123456789")
	res := editor.PostForm("/quotes", f)
	want := app.Catalog.Translator(i18n.EN).T("form.error.digits.other", "Digits", 8)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, want) {
		t.Fatalf("status %d, want 422 with %q", res.StatusCode, want)
	}
}

// TestReportFiguresTooLargeToStoreAre422: figures computed from inputs
// each within bounds (the largest hourly price, 730 hours, 120 months,
// 10,000 instances) beyond the reports table's numeric(20,2) are refused
// with 422 and a message; nothing is saved.
func TestReportFiguresTooLargeToStoreAre422(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	editor.PostForm("/lang", url.Values{"lang": {"en"}})
	f := quoteForm(app)
	f.Set("hourly", "999999999999")
	f.Del("monthly")
	res := editor.PostForm("/quotes", f)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("quote: %d", res.StatusCode)
	}
	id := strings.TrimPrefix(res.Header.Get("Location"), "/quotes/")
	if res := editor.PostForm("/quotes/"+id+"/publish", url.Values{"lock_version": {"1"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", res.StatusCode)
	}
	form := url.Values{"title": {"Huge"}, "profile.hours_per_month": {"730"}, "profile.months": {"120"},
		"profile.instances": {"10000"}, "report_currency": {"EUR"}, "q": {id}}
	res = editor.PostForm("/reports", form)
	want := app.Catalog.Translator(i18n.EN).T("error.too_large_to_store.text")
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, want) {
		t.Fatalf("status %d, want 422 with %q", res.StatusCode, want)
	}
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM reports`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d reports saved (%v)", n, err)
	}
}
