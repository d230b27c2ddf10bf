package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/facts"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

func doc(t *testing.T, body string) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFactFormKeepsValuesAndEditorOnly: a bad fact comes back (422) with
// every value as typed and the problem beside its field, in both
// languages; an analyst gets 403; an editor's fact shows on the platform
// page with its history (docs/RULES.md §18.3).
func TestFactFormKeepsValuesAndEditorOnly(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	pid, _ := marketRefs(app)
	path := "/platforms/" + itoa(pid) + "/facts"
	form := url.Values{"kind": {"setup_minutes"}, "value": {"no"}, "minutes": {"95"}, "note": {"装 CUDA 两小时"},
		"source": {"试用 2026-10"}, "as_of": {"2026-10-02"}, "trial_id": {""}}
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	if r := analyst.PostForm(path, form); r.StatusCode != http.StatusForbidden {
		t.Fatalf("analyst POST: %d", r.StatusCode)
	}
	editor, _ := app.AsUser(auth.RoleEditor)
	for lang, want := range map[string]string{"en": "Leave the minutes empty", "zh-CN": "请留空分钟数"} {
		editor.PostForm("/lang", url.Values{"lang": {lang}})
		r := editor.PostForm(path, form)
		if r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d", lang, r.StatusCode)
		}
		d := doc(t, r.Body)
		if got := d.Find(`[data-testid="error-minutes"]`).Text(); !strings.Contains(got, want) {
			t.Errorf("%s: minutes error %q", lang, got)
		}
		if d.Find(`#fact-minutes`).AttrOr("value", "") != "95" || d.Find(`#fact-note`).Text() != "装 CUDA 两小时" ||
			d.Find(`#fact-source`).AttrOr("value", "") != "试用 2026-10" || d.Find(`#fact-as-of`).AttrOr("value", "") != "2026-10-02" ||
			d.Find(`#fact-kind option[selected]`).AttrOr("value", "") != "setup_minutes" ||
			d.Find(`#fact-value option[selected]`).AttrOr("value", "") != "no" {
			t.Errorf("%s: values not kept", lang)
		}
	}
	form.Set("value", "yes")
	if r := editor.PostForm(path, form); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor: %d %s", r.StatusCode, r.Body)
	}
	page := doc(t, editor.Get("/platforms/"+itoa(pid)).Body)
	if v := page.Find(`[data-testid="fact-setup_minutes"]`); v.AttrOr("data-value", "") != "yes" || !strings.Contains(v.Text(), "95") {
		t.Fatalf("platform page: %q", v.Text())
	}
	if page.Find(`[data-testid="fact-history-setup_minutes"] li`).Length() != 1 || page.Find(`[data-testid="fact-backups"]`).AttrOr("data-value", "") != "unknown" {
		t.Fatal("history or unknown fact")
	}
	// Readers see the facts without the form.
	ap := doc(t, analyst.Get("/platforms/"+itoa(pid)).Body)
	if ap.Find(`[data-testid="platform-facts"]`).Length() != 1 || ap.Find(`[data-testid="facts-add"]`).Length() != 0 {
		t.Fatal("analyst's platform page")
	}
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE action = 'platform_fact.create'`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("audit: %d %v", n, err)
	}
}

// TestCompareShowsFactsFiltersAndAsks: the compare page's facts section
// (docs/RULES.md §20.4) shows the priced platforms' facts as one matrix, asks each unknown kind once naming the
// platforms to ask, the env filter keeps only platforms whose fact is yes,
// and the questions view asks the unknown facts (docs/RULES.md §18.3).
func TestCompareShowsFactsFiltersAndAsks(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	id := publishQuote(app, "EUR", "0.471", "", testfactory.AllIncluded())
	pid, gid := marketRefs(app)
	testfactory.Fact(app.T, app.Store, pid, facts.StateKept, facts.Yes)
	// A second platform knows its state and its backups.
	ctx := context.Background()
	var pid2 int64
	if err := app.Store.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('算力云', 'AutoDL', 'EUR') RETURNING id`).Scan(&pid2); err != nil {
		t.Fatal(err)
	}
	d2, err := app.Store.CreateQuoteDraft(ctx, user.SystemActor, quote.Quote{PlatformID: pid2, GPUModelID: gid, GPUCount: 1, Sharing: "dedicated",
		Currency: "EUR", BillingGranularity: "second", PricesIncludeTax: true, AsOf: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC),
		Source: "test", Lines: testfactory.AllIncluded(), Label: "second", Hourly: decimal.NewNullDecimal(decimal.RequireFromString("0.5"))})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := app.Store.PublishQuote(ctx, user.SystemActor, d2.ID, d2.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	testfactory.Fact(app.T, app.Store, pid2, facts.StateKept, facts.Yes)
	testfactory.Fact(app.T, app.Store, pid2, facts.Backups, facts.Yes)
	c, _ := app.AsUser(auth.RoleAnalyst)
	c.PostForm("/lang", url.Values{"lang": {"en"}})
	// The facts are their own section, loaded when opened (docs/RULES.md §20.4).
	d := doc(t, sectionOf(t, c, c.Get(compareURL("200", id, p2.ID)).Body, "facts"))
	block := d.Find(`[data-testid="compare-facts"]`)
	if block.Length() != 1 || block.Find(`[data-testid="compare-facts-`+itoa(pid)+`"]`).Length() != 1 || block.Find(`[data-testid="compare-facts-`+itoa(pid2)+`"]`).Length() != 1 {
		t.Fatal("no facts column for each platform")
	}
	if h := block.Find(`[data-testid="compare-facts-` + itoa(pid) + `"]`).Text(); !strings.Contains(h, "HOSTKEY") || !strings.Contains(h, "1 known") || !strings.Contains(h, "12 unknown") {
		t.Fatalf("column header: %q", h)
	}
	if v := block.Find(`[data-testid="compare-fact-` + itoa(pid) + `-state_kept"]`); v.AttrOr("data-value", "") != "yes" || !strings.Contains(v.Text(), "Yes") || !strings.Contains(v.Text(), "2026-10-01") {
		t.Fatalf("state kept: %q", v.Text())
	}
	if v := block.Find(`[data-testid="compare-fact-` + itoa(pid) + `-backups"]`); v.AttrOr("data-value", "") != "unknown" || !strings.Contains(v.Text(), "Unknown") {
		t.Fatalf("unknown backups: %q", v.Text())
	}
	// One question per kind with any unknown, naming the platforms to ask.
	qs := block.Find(`[data-testid="fact-question"]`)
	if n := qs.Length(); n != len(facts.Kinds)-1 {
		t.Fatalf("%d questions, want %d", n, len(facts.Kinds)-1)
	}
	if block.Find(`[data-testid="fact-question"][data-kind="state_kept"]`).Length() != 0 {
		t.Fatal("a question for a fact every platform knows")
	}
	if q := block.Find(`[data-testid="fact-question"][data-kind="backups"]`).Text(); !strings.Contains(q, "Ask HOSTKEY:") || strings.Contains(q, "AutoDL") || !strings.Contains(q, "Do you offer backups") {
		t.Fatalf("backups question: %q", q)
	}
	if q := block.Find(`[data-testid="fact-question"][data-kind="desktop"]`).Text(); !strings.Contains(q, "HOSTKEY") || !strings.Contains(q, "AutoDL") || !strings.Contains(q, ", ") {
		t.Fatalf("desktop question: %q", q)
	}
	// In Chinese the names are joined with "、".
	c.PostForm("/lang", url.Values{"lang": {"zh-CN"}})
	dz := doc(t, sectionOf(t, c, c.Get(compareURL("200", id, p2.ID)).Body, "facts"))
	if q := dz.Find(`[data-testid="fact-question"][data-kind="desktop"]`).Text(); !strings.Contains(q, "HOSTKEY、算力云") && !strings.Contains(q, "算力云、HOSTKEY") {
		t.Fatalf("zh desktop question: %q", q)
	}
	c.PostForm("/lang", url.Values{"lang": {"en"}})
	// The env filter: required yes facts narrow the candidates.
	candidate := `name="q" value="` + itoa(id) + `"`
	if r := c.Get(compareURL("200") + "&env=state_kept"); !strings.Contains(r.Body, candidate) {
		t.Fatal("env=state_kept dropped a platform whose state is kept")
	}
	if r := c.Get(compareURL("200") + "&env=state_kept&env=backups"); strings.Contains(r.Body, candidate) {
		t.Fatal("env=backups kept a platform whose backups are unknown")
	}
	// The questions view asks the unknown facts, not the known one.
	q := c.Get("/compare/questions?quote=" + itoa(id))
	text := doc(t, q.Body).Find(`[data-testid="questions-text"]`).Text()
	if !strings.Contains(text, "Environment, support and data safety") || !strings.Contains(text, "Do you offer backups") ||
		strings.Contains(text, "kept across a restart") {
		t.Fatalf("questions: %s", text)
	}
}
