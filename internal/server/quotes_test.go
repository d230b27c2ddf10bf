package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// marketRefs makes sure the app has one platform and one GPU model and
// returns their ids.
func marketRefs(a *testutil.App) (platformID, gpuID int64) {
	a.T.Helper()
	ctx := context.Background()
	err := a.Store.Pool().QueryRow(ctx, `SELECT id FROM platforms WHERE name_en = 'HOSTKEY'`).Scan(&platformID)
	if err != nil {
		if err := a.Store.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('HOSTKEY', 'HOSTKEY', 'EUR') RETURNING id`).Scan(&platformID); err != nil {
			a.T.Fatal(err)
		}
		if err := a.Store.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('AMD', 'Radeon AI PRO R9700', 32) RETURNING id`).Scan(&gpuID); err != nil {
			a.T.Fatal(err)
		}
		return platformID, gpuID
	}
	if err := a.Store.Pool().QueryRow(ctx, `SELECT id FROM gpu_models WHERE name = 'Radeon AI PRO R9700'`).Scan(&gpuID); err != nil {
		a.T.Fatal(err)
	}
	return platformID, gpuID
}

// quoteForm is a valid quote entry form: the guide's HOSTKEY tier.
func quoteForm(a *testutil.App) url.Values {
	pid, gid := marketRefs(a)
	v := url.Values{
		"platform": {itoa(pid)}, "gpu_model": {itoa(gid)}, "label": {"R9700 tier"}, "gpu_count": {"1"}, "sharing": {"dedicated"},
		"currency": {"EUR"}, "hourly": {"0.471"}, "monthly": {"284"}, "billing_granularity": {"second"},
		"prices_include_tax": {"true"}, "as_of": {"2026-11-20"}, "source": {"https://hostkey.example/gpu-servers"},
	}
	for _, it := range []string{"bandwidth", "egress", "public_ip"} {
		v.Set(it+".status", "included")
		v.Set(it+".in_writing", "true")
	}
	return v
}

// draftQuote is a draft of the HOSTKEY fixture at EUR 0.471 an hour, 284 a
// month.
func draftQuote(a *testutil.App) quote.Quote {
	a.T.Helper()
	pid, gid := marketRefs(a)
	return testfactory.Draft(a.T, a.Store, quote.Quote{PlatformID: pid, GPUModelID: gid,
		Hourly: testfactory.ND("0.471"), Monthly: testfactory.ND("284")})
}

// publishedQuote publishes a draftQuote.
func publishedQuote(a *testutil.App) int64 {
	a.T.Helper()
	return testfactory.Publish(a.T, a.Store, draftQuote(a)).ID
}

func TestQuoteEntryKeepsInputAndReportsEveryBadLine(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	form := quoteForm(app)
	form.Set("egress.status", "charged")
	form.Set("egress.unit", "per_event") // not a unit egress may be priced in
	form.Set("egress.unit_price", "0.0123456")
	form.Set("hourly", "abc")
	form.Set("label", "我的标签 stays")
	before := countRows(t, app, "quotes")
	r := editor.PostForm("/quotes", form)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad quote: %d", r.StatusCode)
	}
	for _, want := range []string{`data-testid="error-egress.unit"`, `data-testid="error-egress.unit_price"`, `data-testid="error-hourly"`,
		`value="我的标签 stays"`, `value="abc"`, `value="0.0123456"`, `data-testid="line-egress"`, `data-testid="line-start_stop_schedule"`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("missing %s", want)
		}
	}
	if countRows(t, app, "quotes") != before {
		t.Fatal("a quote was saved despite errors")
	}
	// Fixed, it saves as a draft and publishes; the page shows the engine's break-even.
	form.Set("egress.unit", "per_gb")
	form.Set("egress.unit_price", "0.01")
	form.Set("hourly", "0.471")
	r = editor.PostForm("/quotes", form)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("valid quote: %d\n%s", r.StatusCode, r.Body)
	}
	loc := r.Header.Get("Location")
	page := editor.Get(loc)
	if !strings.Contains(page.Body, `data-testid="quote-state">草稿<`) && !strings.Contains(page.Body, `data-testid="quote-state">Draft<`) {
		t.Fatal("new quote is not a draft")
	}
	lock := between(page.Body, `name="lock_version" value="`, `"`)
	if r := editor.PostForm(loc+"/publish", url.Values{"lock_version": {lock}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", r.StatusCode)
	}
	page = editor.Get(loc)
	if !strings.Contains(page.Body, `data-testid="break-even-hours">602.97`) {
		t.Fatalf("break-even 284 ÷ 0.471 = 602.97 missing")
	}
	// Analysts read it but see no editor actions, and never see drafts.
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	if r := analyst.Get(loc); r.StatusCode != http.StatusOK || strings.Contains(r.Body, `data-testid="quote-new-version"`) {
		t.Fatalf("analyst view: %d", r.StatusCode)
	}
	if r := analyst.Get("/quotes/" + itoa(draftQuote(app).ID)); r.StatusCode != http.StatusNotFound {
		t.Fatalf("analyst on a draft: %d, want 404", r.StatusCode)
	}
}

func TestQuoteDraftConflictKeepsTheSecondEditorsInput(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	alice, _ := app.AsUser(auth.RoleEditor)
	bob, _ := app.AsUser(auth.RoleEditor)
	d := draftQuote(app)
	path := "/quotes/" + itoa(d.ID)
	// Both open the edit form at lock version 1.
	fa, fb := quoteForm(app), quoteForm(app)
	fa.Set("lock_version", "1")
	fb.Set("lock_version", "1")
	fa.Set("hourly", "0.5")
	fb.Set("hourly", "0.6")
	fb.Set("notes", "Bob's careful note")
	if r := alice.PostForm(path, fa); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice: %d", r.StatusCode)
	}
	r := bob.PostForm(path, fb)
	if r.StatusCode != http.StatusConflict || !strings.Contains(r.Body, `data-testid="conflict"`) ||
		!strings.Contains(r.Body, `value="0.6"`) || !strings.Contains(r.Body, "Bob&#39;s careful note") {
		t.Fatalf("bob: %d (want 409 with his input kept)", r.StatusCode)
	}
	got, _ := app.Store.QuoteByID(context.Background(), d.ID)
	if got.Hourly.Decimal.String() != "0.5" {
		t.Fatalf("hourly %s, want alice's 0.5", got.Hourly.Decimal)
	}
	// Saving again from the conflict page (now at the current lock) wins knowingly.
	lock := between(r.Body, `name="lock_version" value="`, `"`)
	fb.Set("lock_version", lock)
	if r := bob.PostForm(path, fb); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob again: %d", r.StatusCode)
	}
}

func TestEditingAPublishedQuoteMakesANewVersion(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	id := publishedQuote(app)
	r := editor.PostForm("/quotes/"+itoa(id)+"/versions", nil)
	if r.StatusCode != http.StatusSeeOther || !strings.HasSuffix(r.Header.Get("Location"), "/edit") {
		t.Fatalf("new version: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	// Saving the published one directly is refused; it stays as it was.
	f := quoteForm(app)
	f.Set("hourly", "9")
	f.Set("lock_version", "2")
	editor.PostForm("/quotes/"+itoa(id), f)
	q, _ := app.Store.QuoteByID(context.Background(), id)
	if q.State != quote.Published || q.Hourly.Decimal.String() != "0.471" {
		t.Fatalf("published quote changed: %s %s", q.State, q.Hourly.Decimal)
	}
	page := editor.Get("/quotes/" + itoa(id))
	if !strings.Contains(page.Body, `data-testid="quote-versions"`) || strings.Count(page.Body, "/quotes/") < 2 {
		t.Fatal("versions not listed")
	}
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	s = s[i+len(from):]
	j := strings.Index(s, to)
	if j < 0 {
		return ""
	}
	return s[:j]
}
