package server_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/user"
)

// TestScenarioBSideBySideAndFrozen compares the report market for two
// usage profiles at once — A 200 h a month, B 100 h (a link that changes
// one field) — and saves it: each quote shows A, B and B − A; the report
// keeps both, and its page, CSV and workbook stay the same bytes after the
// quote gets a new version and the rate a newer sample (read through a
// fresh server).
func TestScenarioBSideBySideAndFrozen(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	ctx := context.Background()
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	form := marketForm("A 与 B", a, b)
	form.Set("b.profile.hours_per_month", "100")

	q := "/compare?" + strings.TrimPrefix(encodeWithout(form, "title", "purpose"), "?")
	page := analyst.Get(q).Body
	// A at 200 h: monthly 70 + egress 5 = 75.00 (pessimistic + snapshots 5 = 80.00).
	// B at 100 h: hourly 0.471 × 100 = 47.10 + 5 = 52.10 (57.10); B − A = −22.90.
	// The USD quote: 0.40 × 200 × 0.9 = 72.00; at 100 h 36.00; −36.00.
	tr := app.Catalog.Translator(i18n.ZH)
	for _, f := range []struct {
		id         int64
		name, want string
	}{
		{a, "tco", "€75.00"}, {a, "b-tco", "€52.10"}, {a, "b-tco-pessimistic", "€57.10"}, {a, "diff-tco", "−€22.90"},
		{a, "diff-tco-pessimistic", "−€22.90"}, {a, "b-chosen", tr.T("mode.hourly")}, {a, "chosen", "A" + tr.T("mode.monthly")},
		{b, "tco", "€72.00"}, {b, "b-tco", "€36.00"}, {b, "diff-tco", "−€36.00"},
	} {
		if got := strings.Join(strings.Fields(figure(t, page, f.id, f.name)), ""); got != strings.ReplaceAll(f.want, " ", "") {
			t.Errorf("compare: quote %d %s = %q, want %q", f.id, f.name, got, f.want)
		}
	}
	if got := document(t, page).Find(`[data-testid="scenario-changes"]`).Text(); !strings.Contains(got, tr.T("calc.profile.hours_per_month")) ||
		!strings.Contains(got, "100") {
		t.Errorf("the page does not say what B changes: %q", got)
	}

	id := saveReport(t, analyst, form)
	path := "/reports/" + itoa(id)
	analyst.Get(path) // the one-time "saved" message
	view := analyst.Get(path).Body
	csvBody, xlsx := analyst.Get(path+"/export.csv").Body, analyst.Get(path+"/export.xlsx").Body
	if figure(t, view, a, "b-tco") != "€52.10" || figure(t, view, b, "diff-tco") != "−€36.00" {
		t.Fatalf("the report lacks scenario B: %q %q", figure(t, view, a, "b-tco"), figure(t, view, b, "diff-tco"))
	}
	header, rows := csvTable(readCSV(t, csvBody), tr.T("report.col.rank"))
	bcol := col(header, tr.T("report.col.scenario_b", "Column", tr.T("calc.result.tco")))
	dcol := col(header, tr.T("report.col.diff_tco"))
	if bcol < 0 || dcol < 0 || len(rows) != 2 {
		t.Fatalf("CSV header %v", header)
	}
	got := map[string]bool{}
	for _, r := range rows {
		got[r[bcol]+" "+r[dcol]] = true
	}
	if !got["52.10 -22.90"] || !got["36.00 -36.00"] {
		t.Errorf("CSV scenario B columns: %v", got)
	}

	// New prices and rates after saving.
	draft, err := app.Store.NewQuoteVersion(ctx, user.SystemActor, a)
	if err != nil {
		t.Fatal(err)
	}
	draft.Hourly, draft.Monthly = csvND("0.3"), csvND("50")
	if draft, err = app.Store.UpdateQuoteDraft(ctx, user.SystemActor, draft); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.PublishQuote(ctx, user.SystemActor, draft.ID, draft.LockVersion); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.CreateFXRate(ctx, user.SystemActor, market.FXRate{Base: "USD", Quote: "EUR",
		Rate: decimal.RequireFromString("0.97"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	fresh := analyst.On(reportAppOn(t, app.Store, clock))
	for _, f := range []struct{ path, want string }{{path, view}, {path + "/export.csv", csvBody}, {path + "/export.xlsx", xlsx}} {
		r := fresh.Get(f.path)
		if r.StatusCode != http.StatusOK || r.Body != f.want {
			t.Errorf("%s changed after new prices and rates (%d):\n%s", f.path, r.StatusCode, firstDiff(f.want, r.Body))
		}
	}
}

// encodeWithout is a form's query string without some of its fields.
func encodeWithout(form url.Values, drop ...string) string {
	q := url.Values{}
	for k, vs := range form {
		if !slices.Contains(drop, k) {
			q[k] = vs
		}
	}
	return q.Encode()
}

// TestScenarioBFormKeepsValuesAndNamesItsErrors: profile B's fields are in
// the compare form, open when used, with what was typed; a problem in one
// is listed in the summary as B's and priced nothing for B, and a report
// cannot be saved with it.
func TestScenarioBFormKeepsValuesAndNamesItsErrors(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	tr := app.Catalog.Translator(i18n.ZH)
	form := marketForm("B 有误", a, b)
	form.Set("b.profile.between_runs", "release")
	form.Set("b.profile.instances", "4")
	doc := document(t, analyst.Get("/compare?"+encodeWithout(form, "title", "purpose")).Body)
	if _, open := doc.Find(`[data-testid="scenario-form"]`).Attr("open"); !open {
		t.Error("the scenario form is closed although B is used")
	}
	if v, _ := doc.Find(`#f-b-profile-instances`).Attr("value"); v != "4" {
		t.Errorf("B's instances field holds %q", v)
	}
	if v, _ := doc.Find(`#f-b-profile-between_runs option[selected]`).Attr("value"); v != "release" {
		t.Errorf("B's between-runs choice is %q", v)
	}
	if doc.Find(`[data-testid="row-`+itoa(a)+`"] [data-testid="b-tco"]`).Length() != 1 {
		t.Error("B is not priced beside A")
	}

	form.Set("b.profile.instances", "２")
	page := analyst.Get("/compare?" + encodeWithout(form, "title", "purpose")).Body
	doc = document(t, page)
	link := doc.Find(`[data-testid="compare-errors"] a[href="#f-b-profile-instances"]`)
	if link.Length() != 1 || !strings.Contains(link.Text(), tr.T("compare.scenario.b")) {
		t.Fatalf("the summary does not name B's field: %q", doc.Find(`[data-testid="compare-errors"]`).Text())
	}
	if v, _ := doc.Find(`#f-b-profile-instances`).Attr("value"); v != "２" {
		t.Errorf("the mistyped value is not kept: %q", v)
	}
	if figure(t, page, a, "tco") != "€75.00" || figure(t, page, a, "b-tco") != "" {
		t.Errorf("A stays priced, B is not: %q %q", figure(t, page, a, "tco"), figure(t, page, a, "b-tco"))
	}
	if r := analyst.PostForm("/reports", form); r.StatusCode == http.StatusSeeOther {
		t.Error("a report was saved with a problem in profile B")
	}
}
