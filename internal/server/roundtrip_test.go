package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/compare"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/testutil"
)

var quotePath = regexp.MustCompile(`^/quotes/(\d+)$`)

// enteredFields is the part of a quote a person enters: every field of
// quote.Fields and the lines, nothing of the bookkeeping.
func enteredFields(q quote.Quote) url.Values { return quote.Values(q) }

// TestQuoteRoundTrip: every field of a quote, each holding a value other
// than its default (testutil.FullQuote fills whatever quote.Fields lists),
// survives the entry form → the store → a saved report's snapshot → the
// CSV export → the CSV import unchanged. A field forgotten in any of them
// fails here.
func TestQuoteRoundTrip(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	ctx := context.Background()
	_, _, gpu := csvRefs(t, app)
	var platform int64
	if err := app.Store.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('往返云', 'Round Trip', 'EUR') RETURNING id`).Scan(&platform); err != nil {
		t.Fatal(err)
	}
	in := testutil.FullQuote(platform, gpu, clock.Now())
	want := enteredFields(in)

	// The entry form.
	editor, _ := app.AsUser(auth.RoleEditor)
	r := editor.PostForm("/quotes", quote.Values(in))
	m := quotePath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("create: %d %s", r.StatusCode, between(r.Body, `data-testid="form-errors"`, "</form>"))
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	draft, err := app.Store.QuoteByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r := editor.PostForm("/quotes/"+m[1]+"/publish", url.Values{"lock_version": {strconv.Itoa(draft.LockVersion)}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", r.StatusCode)
	}

	// The store, read back by a server process that never saw the quote.
	fresh := reportAppOn(t, app.Store, clock)
	stored, err := fresh.Store.QuoteByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	sameFields(t, "store", want, enteredFields(stored))

	// A saved report's snapshot.
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	rf := url.Values{"title": {"round trip"}, "profile.hours_per_month": {"200"}, "profile.months": {"1"},
		"profile.instances": {"1"}, "report_currency": {"EUR"}, "q": {m[1]}}
	reportID := saveReport(t, analyst, rf)
	raw, err := app.Store.ReportSnapshot(ctx, reportID)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := report.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Rows) != 1 {
		t.Fatalf("%d rows frozen", len(snap.Rows))
	}
	_, rows := compare.Thaw(snap)
	sameFields(t, "report snapshot", want, enteredFields(rows[0].Quote))

	// The CSV export, imported again as a new offer.
	export := editor.Get("/quotes/export.csv?platform=" + strconv.FormatInt(platform, 10))
	if export.StatusCode != http.StatusOK {
		t.Fatalf("export: %d", export.StatusCode)
	}
	records, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(export.Body, quote.UTF8BOM))).ReadAll()
	if err != nil || len(records) != 2 {
		t.Fatalf("export: %d records, %v", len(records), err)
	}
	if res := csvUpload(t, app, editor, []byte(export.Body)); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("import: %d %s", res.StatusCode, between(res.Body, `data-testid="import-errors"`, "</section>"))
	}
	var imported int64
	if err := app.Store.Pool().QueryRow(ctx, `SELECT max(id) FROM quotes WHERE platform_id = $1`, platform).Scan(&imported); err != nil {
		t.Fatal(err)
	}
	if imported == id {
		t.Fatal("the import made no quote")
	}
	back, err := fresh.Store.QuoteByID(ctx, imported)
	if err != nil {
		t.Fatal(err)
	}
	sameFields(t, "CSV export and import", want, enteredFields(back))
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(records[0])
	if !reflect.DeepEqual(records[0], quote.CSVHeader) {
		t.Errorf("export header %v", records[0])
	}
}

// sameFields compares two quotes' entered fields, naming each difference.
func sameFields(t *testing.T, where string, want, got url.Values) {
	t.Helper()
	for k := range want {
		if got.Get(k) != want.Get(k) {
			t.Errorf("%s: %s is %q, want %q", where, k, got.Get(k), want.Get(k))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s is %q, want it empty", where, k, got.Get(k))
		}
	}
}
