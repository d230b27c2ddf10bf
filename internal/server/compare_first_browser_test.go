package server_test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/xuri/excelize/v2"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// hostkeyComparison loads the sample market and its own-hardware options
// and returns the published HOSTKEY quotes (EUR) and the EUR sample own
// option's version.
func hostkeyComparison(t *testing.T, app *testutil.App) (quotes []int64, ownVersion int64) {
	t.Helper()
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := sample.LoadOwn(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	rows, err := app.Store.Pool().Query(ctx, `SELECT q.id FROM quotes q JOIN platforms p ON p.id = q.platform_id
		WHERE p.name_en = 'HOSTKEY' AND q.state = 'published' ORDER BY q.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		quotes = append(quotes, id)
	}
	if err := rows.Err(); err != nil || len(quotes) < 2 {
		t.Fatalf("sample HOSTKEY quotes: %v (%v)", quotes, err)
	}
	if err := app.Store.Pool().QueryRow(ctx, `SELECT min(id) FROM own_option_versions WHERE currency = 'EUR'`).Scan(&ownVersion); err != nil {
		t.Fatal(err)
	}
	return quotes, ownVersion
}

// hostkeyState is the comparison of quotes at 100 h a month for one month
// and one instance, in EUR.
func hostkeyState(quotes []int64) url.Values {
	state := url.Values{"profile.hours_per_month": {"100"}, "profile.months": {"1"}, "profile.instances": {"1"}, "report_currency": {"EUR"}}
	for _, id := range quotes {
		state.Add("q", itoa(id))
	}
	return state
}

// plural is catalog message id's form for n (the ".one" or ".other" key),
// with n as its Count, as the pages render it.
func plural(tr *i18n.Translator, id string, n int) string {
	if n == 1 {
		return tr.T(id+".one", "Count", n)
	}
	return tr.T(id+".other", "Count", n)
}

// firstTCOTop is where the first result row's TCO starts, in CSS pixels
// from the top of the page (-1: there is none).
const firstTCOTop = `(() => {
	const e = document.querySelector('[data-testid="compare-table"] tbody tr [data-testid="tco"]');
	return e ? Math.round(e.getBoundingClientRect().top + window.scrollY) : -1;
})()`

// TestBrowserCompareResultsFirst: a shared comparison link, and the page a
// comparison's "compare" button brings, open on the results: the first
// row's TCO within the first 900 px at a phone's and a desktop's width in
// both languages, the usage, filters and candidates folded into one line
// that says what was compared and opens the form in place, also with
// scripts off (docs/RULES.md §8.7). A page without a comparison opens on
// the form.
func TestBrowserCompareResultsFirst(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	quotes, _ := hostkeyComparison(t, app)
	state := hostkeyState(quotes)
	share := "/compare?" + state.Encode()
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, pw)); err != nil {
		t.Fatal(err)
	}
	summary := `[data-testid="compare-summary"]`
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, b, lang)
		tr := app.Catalog.Translator(i18n.Lang(lang))
		for _, width := range []int64{390, 1280} {
			where := fmt.Sprintf("%s at %d px", lang, width)
			if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+share),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="compare-table"]`))); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			top, err := chromedp.Run(b, chromedp.Evaluate[int](firstTCOTop))
			if err != nil {
				t.Fatal(err)
			}
			if top < 0 || top > 900-40 {
				t.Errorf("%s: the first row's TCO starts %d px down the shared comparison", where, top)
			}
			line, err := chromedp.Run(b, chromedp.Evaluate[string](`document.querySelector('`+summary+` summary').innerText`))
			if err != nil {
				t.Fatalf("%s: no summary of the comparison: %v", where, err)
			}
			for _, want := range []string{
				plural(tr, "compare.summary.hours", 100),
				plural(tr, "compare.summary.quotes", len(quotes)),
				"EUR", tr.T("compare.summary.change"),
			} {
				if !strings.Contains(line, want) {
					t.Errorf("%s: the summary %q does not say %q", where, line, want)
				}
			}
			if open, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.querySelector('`+summary+`').open`)); err != nil || open {
				t.Errorf("%s: the form is not folded on a shared comparison (open %v, %v)", where, open, err)
			}
			wide, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
			if err != nil || wide {
				t.Errorf("%s: the page scrolls sideways (%v)", where, err)
			}
			testutil.Screenshot(t, b, fmt.Sprintf("compare-first-%s-%d", lang, width))
		}
	}

	// From the form: a page without a comparison opens on it; ticking and
	// "compare" bring the results first.
	if err := chromedp.Do(b, chromedp.EmulateViewport(390, 900), chromedp.Navigate(app.URL+"/compare"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-form"]`))); err != nil {
		t.Fatal(err)
	}
	if open, err := chromedp.Run(b, chromedp.Evaluate[bool](`(document.querySelector('`+summary+`') || {open: true}).open`)); err != nil || !open {
		t.Errorf("a page without a comparison hides its form (%v)", err)
	}
	// At a phone's width each quote to tick is a card: its name reads
	// across the card, not one word a line in a squeezed column.
	nameWidth := `Math.round(document.querySelector('[data-testid="compare-candidates"] tbody tr label').getBoundingClientRect().width)`
	if w, err := chromedp.Run(b, chromedp.Evaluate[int](nameWidth)); err != nil || w < 250 {
		t.Errorf("at 390 px a candidate's name is %d px wide (%v)", w, err)
	}
	steps := []chromedp.Action[chromedp.Void]{chromedp.SetValue(chromedp.ID("f-report_currency"), "EUR")}
	for _, id := range quotes {
		steps = append(steps, chromedp.Click(chromedp.ID("cand-q-"+itoa(id))))
	}
	steps = append(steps, chromedp.Click(chromedp.CSS(`[data-testid="compare-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(summary+`:not([open])`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-table"] tbody tr [data-testid="tco"]`)))
	if err := chromedp.Do(b, steps...); err != nil {
		t.Fatalf("comparing from the form: %v", err)
	}
	if top, err := chromedp.Run(b, chromedp.Evaluate[int](firstTCOTop)); err != nil || top < 0 || top > 900-40 {
		t.Errorf("after compare at 390 px the first row's TCO starts %d px down (%v)", top, err)
	}

	// At 1920 px the results take the width (the page's column is 1,200 px
	// elsewhere).
	if err := chromedp.Do(b, chromedp.EmulateViewport(1920, 1000), chromedp.Navigate(app.URL+share),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-table"]`))); err != nil {
		t.Fatal(err)
	}
	if w, err := chromedp.Run(b, chromedp.Evaluate[int](`Math.round(document.getElementById("compare-results").getBoundingClientRect().width)`)); err != nil || w < 1500 {
		t.Errorf("at 1920 px the results are %d px wide (%v)", w, err)
	}

	// Scripts off: the summary opens the form in place, its fields filled.
	noJS := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	if err := chromedp.Do(b, noJS, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(app.URL+share),
		chromedp.WaitVisible(chromedp.CSS(summary+` summary`)),
		chromedp.Click(chromedp.CSS(summary+` summary`)),
		chromedp.WaitVisible(chromedp.ID("f-profile-hours_per_month"))); err != nil {
		t.Fatalf("scripts off, the summary does not open the form: %v", err)
	}
	if v, err := chromedp.Run(b, chromedp.Evaluate[string](`document.getElementById("f-profile-hours_per_month").value`)); err != nil || v != "100" {
		t.Errorf("the opened form holds %q hours (%v)", v, err)
	}
}

// TestBrowserReportKeepsWhatWasCompared: four HOSTKEY quotes at 100 h, usage
// profile B at 300 h and an own-hardware option ticked; the page's own
// "save as report" link brings all of it to the preview, which says so, and
// the saved report, its CSV and its workbook hold the own option and
// scenario B (docs/RULES.md §11.1).
func TestBrowserReportKeepsWhatWasCompared(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	quotes, ownV := hostkeyComparison(t, app)
	var ownName string
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT name FROM own_option_versions WHERE id = $1`, ownV).Scan(&ownName); err != nil {
		t.Fatal(err)
	}
	state := hostkeyState(quotes)
	state.Set("b.profile.hours_per_month", "300")
	state.Set("own", itoa(ownV))
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	b := testutil.Browser(t)
	tr := app.Catalog.Translator("zh-CN")
	if err := chromedp.Do(b, signIn(app, email, pw), chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(app.URL+"/compare?"+state.Encode()),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-own"]`)),
	); err != nil {
		t.Fatal(err)
	}
	link, err := chromedp.Run(b, chromedp.Evaluate[string](`document.querySelector('[data-testid="report-save-link"]').getAttribute("href")`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b, chromedp.Click(chromedp.CSS(`[data-testid="report-save-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-new-preview"]`))); err != nil {
		t.Fatal(err)
	}
	saved, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"own", "b.profile.hours_per_month"} {
		if saved.Query().Get(k) != state.Get(k) {
			t.Errorf("the save link %s drops %s", link, k)
		}
	}
	waitText(b, t, `[data-testid="report-new-preview"]`, plural(tr, "report.new.preview.own", 1))
	waitText(b, t, `[data-testid="report-new-preview"]`, ownName)
	waitText(b, t, `[data-testid="report-new-preview"] [data-testid="scenario-changes"]`, "300")
	if err := chromedp.Do(b, chromedp.SendKeys(chromedp.ID("report-title"), "HOSTKEY 与自购"),
		chromedp.Click(chromedp.CSS(`[data-testid="report-create"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="report-table-section"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(b, t, `[data-testid="report-table-section"] [data-testid="scenario-changes"]`, "300")
	waitText(b, t, `main`, ownName)
	page, err := chromedp.Run(b, chromedp.Evaluate[string](`location.pathname`))
	if err != nil {
		t.Fatal(err)
	}

	c := app.Client()
	c.Login(email, pw)
	csv := c.Get(page + "/export.csv").Body
	scenario := tr.T("report.col.scenario_b", "Column", tr.T("calc.result.tco"))
	for _, want := range []string{ownName, scenario} {
		if !strings.Contains(csv, want) {
			t.Errorf("the CSV lacks %q", want)
		}
	}
	f, err := excelize.OpenReader(strings.NewReader(c.Get(page + "/export.xlsx").Body))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := map[string]bool{}
	for _, sh := range f.GetSheetList() {
		rows, err := f.GetRows(sh)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			for _, cell := range row {
				found[ownName] = found[ownName] || strings.Contains(cell, ownName)
				found[scenario] = found[scenario] || cell == scenario
			}
		}
	}
	if !found[ownName] || !found[scenario] {
		t.Errorf("the workbook holds the own option %v and scenario B %v", found[ownName], found[scenario])
	}
}

// TestBrowserCompareSectionsStayOpen: the twelve-line section opened, an
// input of the (unfolded) form changed: the results recalculate and the
// section is open again with its body for the new figures; it closed on
// every change.
func TestBrowserCompareSectionsStayOpen(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	quotes, _ := hostkeyComparison(t, app)
	state := hostkeyState(quotes)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	b := testutil.Browser(t)
	lines := `details[data-testid="section-lines"]`
	first := `[data-testid="compare-table"] tbody tr [data-testid="tco"]`
	if err := chromedp.Do(b, signIn(app, email, pw), chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(app.URL+"/compare?"+state.Encode()),
		chromedp.Click(chromedp.CSS(lines+` summary`)),
		chromedp.WaitVisible(chromedp.CSS(lines+`[open] [data-testid="compare-lines"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="compare-summary"] summary`)),
	); err != nil {
		t.Fatal(err)
	}
	before, err := chromedp.Run(b, chromedp.Evaluate[string](`document.querySelector('`+first+`').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b, chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "300")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(b, chromedp.Poll[bool](`document.querySelector('`+first+`').innerText !== `+"`"+before+"`")); err != nil {
		t.Fatalf("the results did not recalculate: %v", err)
	}
	if _, err := chromedp.Run(b, chromedp.Poll[bool](`!!document.querySelector('`+lines+`[open] [data-testid="compare-lines"]')`)); err != nil {
		t.Errorf("the twelve-line section closed when an input changed: %v", err)
	}
}
