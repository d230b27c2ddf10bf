package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// reportDay is the day report tests run on.
var reportDay = time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)

// reportApp is an app whose clock stands on reportDay.
func reportApp(t *testing.T) (*testutil.App, *testutil.Clock) {
	t.Helper()
	clock := testutil.NewClock(reportDay)
	return reportAppOn(t, testutil.Store(t), clock), clock
}

// reportAppOn is a report test's server over st: one more server process
// on the same database, with the same clock.
func reportAppOn(t *testing.T, st *store.Store, clock *testutil.Clock) *testutil.App {
	t.Helper()
	// Sessions outlast the days the tests move the clock over.
	long := func(d *server.Deps) { d.Config.SessionIdle, d.Config.SessionMax = 1000*time.Hour, 1000*time.Hour }
	return testutil.NewAppOn(t, st, withClock(clock), long)
}

// reportForm is the "save as report" form for a comparison of ids at the
// given hours per month (one instance, one month, EUR).
func reportForm(title, hours string, ids ...int64) url.Values {
	f := url.Values{"title": {title}, "purpose": {"LoRA 微调，一个月"}, "profile.hours_per_month": {hours},
		"profile.months": {"1"}, "profile.instances": {"1"}, "report_currency": {"EUR"}}
	for _, id := range ids {
		f.Add("q", itoa(id))
	}
	return f
}

var reportPath = regexp.MustCompile(`^/reports/(\d+)$`)

// saveReport saves a report as c and returns its id.
func saveReport(t *testing.T, c *testutil.Client, form url.Values) int64 {
	t.Helper()
	r := c.PostForm("/reports", form)
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("save report: status %d, location %q", r.StatusCode, r.Header.Get("Location"))
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

// reportRow reads a report's status from the database.
func reportRow(t *testing.T, app *testutil.App, id int64) report.Report {
	t.Helper()
	r, err := app.Store.ReportHead(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// postStatus posts an action and returns the status.
func postStatus(c *testutil.Client, path string, form url.Values) int {
	if form == nil {
		form = url.Values{}
	}
	return c.PostForm(path, form).StatusCode
}

// xlsxCells reads every cell value of every sheet of a workbook, as
// "sheet!A1=value" lines.
func xlsxCells(t *testing.T, body string) []string {
	t.Helper()
	f, err := excelize.OpenReader(strings.NewReader(body), excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatalf("open xlsx: %v", err)
	}
	defer f.Close()
	var out []string
	for _, sh := range f.GetSheetList() {
		rows, err := f.GetRows(sh, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range rows {
			for j, v := range row {
				if v != "" {
					ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
					out = append(out, sh+"!"+ref+"="+v)
				}
			}
		}
	}
	return out
}

// readCSV parses an export (after its BOM).
func readCSV(t *testing.T, body string) [][]string {
	t.Helper()
	if !strings.HasPrefix(body, "\ufeff") {
		t.Fatal("the CSV must start with a UTF-8 BOM")
	}
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(body, "\ufeff")))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// csvTable returns the rows of the CSV table whose header starts with
// first: the records after it with as many fields (the reader skips the
// blank line between tables).
func csvTable(recs [][]string, first string) (header []string, rows [][]string) {
	for i, rec := range recs {
		if len(rec) > 2 && rec[0] == first {
			for _, r := range recs[i+1:] {
				if len(r) != len(rec) {
					break
				}
				rows = append(rows, r)
			}
			return rec, rows
		}
	}
	return nil, nil
}

func col(header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	return -1
}

// reportMarket publishes the two quotes of the report tests: A (EUR,
// 0.471/h or 70/month, egress charged 0.05/GB, snapshots unconfirmed with
// a 0.1/GB·month reference price) and B (USD 0.40/h, all included, priced
// at a dated 0.9 rate), and returns their ids.
func reportMarket(t *testing.T, app *testutil.App) (a, b int64) {
	t.Helper()
	ctx := context.Background()
	lines := testfactory.AllIncluded()
	lines[1] = quote.Line{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: csvND("0.05"), InWriting: true}
	lines[8] = quote.Line{Item: "snapshot", Status: "unconfirmed"}
	a = publishQuote(app, "EUR", "0.471", "70", lines)
	b = publishQuote(app, "USD", "0.40", "", testfactory.AllIncluded())
	if _, err := app.Store.CreateFXRate(ctx, user.SystemActor, market.FXRate{Base: "USD", Quote: "EUR",
		Rate: decimal.RequireFromString("0.9"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.CreateReferencePrice(ctx, user.SystemActor, market.ReferencePrice{Item: "snapshot", Currency: "EUR",
		Unit: "per_month", UnitPrice: decimal.RequireFromString("0.1"), AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// marketForm is reportForm for the report market's usage: 200 h, 100 GB
// egress and 50 GB of snapshots a month.
func marketForm(title string, ids ...int64) url.Values {
	f := reportForm(title, "200", ids...)
	f.Set("profile.egress_gb_per_month", "100")
	f.Set("profile.snapshot_gb", "50")
	return f
}

// TestReportStaysFrozenAndRecomputes: a saved report's page, CSV and
// workbook are byte-identical (the workbook cell by cell) after a quote it
// used gets a new version and its exchange rate a newer dated sample;
// "recompute" makes a new report with the new figures, linked to the old
// one, naming what changed.
func TestReportStaysFrozenAndRecomputes(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	ctx := context.Background()
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	id := saveReport(t, analyst, marketForm("GPU 租用 12 月", a, b))
	path := "/reports/" + itoa(id)
	savedSnapshot, err := app.Store.ReportSnapshot(ctx, id)
	if err != nil {
		t.Fatal(err)
	}

	first := analyst.Get(path) // shows the one-time "saved" message
	if first.StatusCode != http.StatusOK || !strings.Contains(first.Body, `data-testid="flash"`) {
		t.Fatalf("report page: %d", first.StatusCode)
	}
	view := analyst.Get(path)
	csvBody := analyst.Get(path + "/export.csv")
	xlsx := analyst.Get(path + "/export.xlsx")
	if csvBody.StatusCode != http.StatusOK || xlsx.StatusCode != http.StatusOK {
		t.Fatalf("exports: %d %d", csvBody.StatusCode, xlsx.StatusCode)
	}
	cells := xlsxCells(t, xlsx.Body)

	// The figures (docs/RULES.md §1.3, ledger rounding): A monthly 70.00 + egress
	// 100 GB × 0.05 = 75.00, pessimistic + snapshots 50 GB × 0.1 = 80.00;
	// B 200 h × 0.40 USD × 0.9 = 72.00 EUR. B is recommended, 3.00 cheaper.
	for _, f := range []struct {
		id         int64
		name, want string
	}{{a, "tco", "€75.00"}, {a, "tco-pessimistic", "€80.00"}, {b, "tco", "€72.00"}} {
		if got := figure(t, view.Body, f.id, f.name); got != f.want {
			t.Errorf("report page: quote %d %s = %q, want %s", f.id, f.name, got, f.want)
		}
	}
	for _, want := range []string{
		`data-testid="report-summary-tco">€72.00<`,
		`data-testid="report-summary-savings">€3.00<`, "1 USD = 0.9 EUR", `data-testid="report-rules">` + tco.RulesVersion + `<`,
		`data-testid="report-figures-date">2026-12-01<`, `data-testid="report-number">`,
	} {
		if !strings.Contains(view.Body, want) {
			t.Errorf("report page lacks %s", want)
		}
	}
	if !strings.Contains(view.Body, "R-2026-0001") {
		t.Error("the first report of 2026 is R-2026-0001")
	}

	// A new version of quote A (cheaper), a newer USD → EUR rate, and the
	// platform renamed: all after the report was saved.
	draft, err := app.Store.NewQuoteVersion(ctx, user.SystemActor, a)
	if err != nil {
		t.Fatal(err)
	}
	draft.Hourly, draft.Monthly = csvND("0.5"), csvND("60")
	draft, err = app.Store.UpdateQuoteDraft(ctx, user.SystemActor, draft)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := app.Store.PublishQuote(ctx, user.SystemActor, draft.ID, draft.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.CreateFXRate(ctx, user.SystemActor, market.FXRate{Base: "USD", Quote: "EUR",
		Rate: decimal.RequireFromString("0.95"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Source: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.Pool().Exec(ctx, `UPDATE platforms SET name_zh = '改名云', name_en = 'Renamed Cloud'`); err != nil {
		t.Fatal(err)
	}
	// The live comparison does see the new data.
	live := analyst.Get(compareURL("200", a2.ID, b) + "&profile.egress_gb_per_month=100&profile.snapshot_gb=50")
	if figure(t, live.Body, b, "tco") != "€76.00" || figure(t, live.Body, a2.ID, "tco") != "€65.00" {
		t.Fatal("the comparison with today's data prices B at 0.95 (76.00) and A's new version at 60 + 5 = 65.00")
	}

	// Read back through a fresh server process on the same database: the
	// first server keeps what it drew of the report, so only a server that
	// has never seen it can show that the stored report renders the same.
	fresh := analyst.On(reportAppOn(t, app.Store, clock))
	if again := fresh.Get(path); again.Body != view.Body {
		t.Errorf("the report page changed after new prices:\n%s", firstDiff(view.Body, again.Body))
	}
	if again := fresh.Get(path + "/export.csv"); again.Body != csvBody.Body {
		t.Errorf("the CSV changed after new prices:\n%s", firstDiff(csvBody.Body, again.Body))
	}
	if again := xlsxCells(t, fresh.Get(path+"/export.xlsx").Body); strings.Join(again, "\n") != strings.Join(cells, "\n") {
		t.Errorf("the workbook changed after new prices:\n%s", firstDiff(strings.Join(cells, "\n"), strings.Join(again, "\n")))
	}

	// Recompute: a new draft report, linked, with today's figures and the
	// differences per quote.
	r := analyst.PostForm(path+"/recompute", url.Values{})
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("recompute: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	newID, _ := strconv.ParseInt(m[1], 10, 64)
	nr := reportRow(t, app, newID)
	if nr.RecomputedFromID != id || nr.Number != "R-2026-0002" || nr.Status != report.Draft {
		t.Fatalf("recomputed report: %+v", nr)
	}
	page := analyst.Get("/reports/" + itoa(newID)).Body
	changes := between(page, `data-testid="report-changes"`, "</section>")
	if figure(t, page, a2.ID, "tco") != "€65.00" || figure(t, page, b, "tco") != "€76.00" {
		t.Error("the recomputed report prices A's new version at 65.00 and B at 0.95 (76.00)")
	}
	for _, want := range []string{`data-testid="report-summary-tco">€65.00<`, "1 USD = 0.95 EUR"} {
		if !strings.Contains(page, want) {
			t.Errorf("recomputed report lacks %s", want)
		}
	}
	for _, want := range []string{"€75.00", "€65.00", "−€10.00", "€80.00", "€70.00", "€72.00", "€76.00", "+€4.00",
		"1 USD = 0.9 EUR", "1 USD = 0.95 EUR", "2026-11-30", "2026-12-01"} {
		if !strings.Contains(changes, want) {
			t.Errorf("changes lack %q", want)
		}
	}
	if n := strings.Count(changes, `class="new"`); n < 5 {
		t.Errorf("want at least 5 changed values (version, 2 TCOs of A, rate and TCO of B…), got %d", n)
	}
	// Which quote versions changed: A from version 1 to 2, B unchanged.
	verA := between(changes, `-version">`, "</td>")
	if !strings.Contains(verA, "→") {
		t.Errorf("A's version change is shown: %s", verA)
	}
	if !strings.Contains(page, `data-testid="report-recomputed-from"`) || !strings.Contains(analyst.Get(path).Body, `data-testid="report-recomputed-into"`) {
		t.Error("the two reports link to each other")
	}
	// The old report is as it was.
	if snap, err := app.Store.ReportSnapshot(ctx, id); err != nil || reportRow(t, app, id).Status != report.Draft || string(snap) != string(savedSnapshot) {
		t.Error("the old report changed")
	}
}

// firstDiff shows where two texts first differ.
func firstDiff(a, b string) string {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			lo := max(0, i-120)
			return fmt.Sprintf("before: …%s…\nafter:  …%s…", a[lo:min(len(a), i+120)], b[lo:min(len(b), i+120)])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(a), len(b))
}

// TestReportExportsAgreeToTheCent: the page, the CSV and the workbook show
// the same figures; every summary row adds up (compute + hidden + one-off
// = TCO) and the lines of each quote add up to its hidden and one-off
// costs; the workbook's money cells are numbers with a 2-decimal format.
func TestReportExportsAgreeToTheCent(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	c := publishQuote(app, "EUR", "1.237", "", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	form := marketForm("=1+1 三家对比", a, b, c)
	form.Set("profile.migration_gb", "333")
	form.Set("profile.months", "7")
	id := saveReport(t, analyst, form)
	path := "/reports/" + itoa(id)
	view := analyst.Get(path).Body
	csvResp := analyst.Get(path + "/export.csv")
	if ct := csvResp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") ||
		!strings.Contains(csvResp.Header.Get("Content-Disposition"), "R-2026-0001.csv") {
		t.Fatalf("CSV headers: %q %q", ct, csvResp.Header.Get("Content-Disposition"))
	}
	recs := readCSV(t, csvResp.Body)
	tr := app.Catalog.Translator("zh-CN")
	if recs[1][0] != tr.T("report.field.title") || recs[1][1] != "'=1+1 三家对比" {
		t.Errorf("a title that looks like a formula is guarded: %q", recs[1])
	}
	header, rows := csvTable(recs, tr.T("report.col.rank"))
	if len(rows) != 3 {
		t.Fatalf("want 3 summary rows, got %d", len(rows))
	}
	ci := func(id string) int { return col(header, tr.T(id)) }
	iName, iCompute, iHidden, iOneOff, iTCO, iPess := ci("compare.col.quote"), ci("calc.result.compute"), ci("calc.result.hidden"),
		ci("calc.result.one_off"), ci("calc.result.tco"), ci("calc.result.tco_pessimistic")
	lheader, lines := csvTable(recs, tr.T("compare.col.quote"))
	iLAmount, iLRef := col(lheader, tr.T("report.col.amount")), col(lheader, tr.T("report.col.reference_amount"))
	if len(lines) != 36 {
		t.Fatalf("want 3 × 12 lines, got %d", len(lines))
	}
	d := decimal.RequireFromString
	for _, r := range rows {
		sum := d(r[iCompute]).Add(d(r[iHidden])).Add(d(r[iOneOff]))
		if !sum.Equal(d(r[iTCO])) {
			t.Errorf("%s: %s + %s + %s ≠ %s", r[iName], r[iCompute], r[iHidden], r[iOneOff], r[iTCO])
		}
		for _, i := range []int{iCompute, iHidden, iOneOff, iTCO, iPess} {
			if !regexp.MustCompile(`^\d+\.\d\d$`).MatchString(r[i]) {
				t.Errorf("money %q is not written with two decimals", r[i])
			}
		}
		lineSum, refSum := decimal.Zero, decimal.Zero
		for _, l := range lines {
			if l[0] == r[iName] {
				lineSum = lineSum.Add(d(l[iLAmount]))
				if l[iLRef] != "" {
					refSum = refSum.Add(d(l[iLRef]))
				}
			}
		}
		if !lineSum.Equal(d(r[iHidden]).Add(d(r[iOneOff]))) {
			t.Errorf("%s: lines add up to %s, hidden + one-off = %s + %s", r[iName], lineSum, r[iHidden], r[iOneOff])
		}
		if !d(r[iTCO]).Add(refSum).Equal(d(r[iPess])) {
			t.Errorf("%s: TCO %s + reference amounts %s ≠ pessimistic %s", r[iName], r[iTCO], refSum, r[iPess])
		}
		// The page shows the same amount, formatted.
		if !strings.Contains(view, "€"+money2(r[iTCO])+"<") {
			t.Errorf("page lacks TCO %s of %s", r[iTCO], r[iName])
		}
	}

	// The workbook: same digits, numeric cells, 2-decimal formats.
	xb := analyst.Get(path + "/export.xlsx").Body
	f, err := excelize.OpenReader(strings.NewReader(xb))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	// … and the availability the comparison showed (docs/RULES.md §18.2).
	if len(sheets) != 3 || sheets[0] != tr.T("report.sheet.summary") || sheets[1] != tr.T("report.sheet.lines") ||
		sheets[2] != tr.T("availability.csv.table") {
		t.Fatalf("sheets %v", sheets)
	}
	xrows, err := f.GetRows(sheets[0], excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	hdr := -1
	for i, r := range xrows {
		if len(r) > 0 && r[0] == tr.T("report.col.rank") {
			hdr = i
		}
	}
	if hdr < 0 {
		t.Fatal("no summary table in the workbook")
	}
	for n, r := range rows {
		for _, i := range []int{iCompute, iHidden, iOneOff, iTCO, iPess} {
			ref, _ := excelize.CoordinatesToCellName(i+1, hdr+2+n)
			raw, _ := f.GetCellValue(sheets[0], ref, excelize.Options{RawCellValue: true})
			if !d(raw).Equal(d(r[i])) {
				t.Errorf("%s: workbook %s, CSV %s", ref, raw, r[i])
			}
			typ, err := f.GetCellType(sheets[0], ref)
			if err != nil || (typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset) {
				t.Errorf("%s is not a number cell (%v, %v)", ref, typ, err)
			}
			shown, _ := f.GetCellValue(sheets[0], ref)
			if want := money2(r[i]); shown != want {
				t.Errorf("%s shows %q, want %q (2-decimal number format)", ref, shown, want)
			}
			style, _ := f.GetCellStyle(sheets[0], ref)
			st, err := f.GetStyle(style)
			if err != nil || st.CustomNumFmt == nil || *st.CustomNumFmt != "#,##0.00" {
				t.Errorf("%s: number format %+v (%v)", ref, st, err)
			}
		}
	}
	lrows, err := f.GetRows(sheets[1], excelize.Options{RawCellValue: true})
	if err != nil || len(lrows) != 37 {
		t.Fatalf("lines sheet: %d rows (%v)", len(lrows), err)
	}
	for i, l := range lines {
		if got := lrows[i+1][iLAmount]; !d(got).Equal(d(l[iLAmount])) {
			t.Errorf("line %d amount: workbook %s, CSV %s", i, got, l[iLAmount])
		}
	}
}

// money2 groups a plain two-decimal amount as the page shows it.
func money2(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, ch := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String() + "." + frac
}

// TestReportWorkflowByRole walks every transition with every role:
// authors submit, retitle and delete their own drafts only; only finance or
// admin approve or return, never their own report; returning needs a
// comment; a returned report is revised as a new revision; every step is
// in the audit log and the timeline.
func TestReportWorkflowByRole(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	analyst, analystID := app.AsUser(auth.RoleAnalyst)
	other, _ := app.AsUser(auth.RoleAnalyst)
	finance, _ := app.AsUser(auth.RoleFinance)
	finance2, _ := app.AsUser(auth.RoleFinance)
	editor, _ := app.AsUser(auth.RoleEditor)
	admin, _ := app.AsUser(auth.RoleAdmin)
	anon := app.Client()
	form := reportForm("试用一个月", "200", q)

	// Every role can author.
	for _, c := range []*testutil.Client{editor, finance, admin} {
		saveReport(t, c, form)
	}
	if got := anon.PostForm("/reports", form).StatusCode; got != http.StatusUnauthorized {
		t.Errorf("anonymous save: %d", got)
	}

	id := saveReport(t, analyst, form)
	p := "/reports/" + itoa(id)
	// A draft is its author's: others do not see it, admins see but may not act.
	for _, c := range []*testutil.Client{other, finance, editor} {
		if got := c.Get(p).StatusCode; got != http.StatusNotFound {
			t.Errorf("someone else's draft: %d", got)
		}
		if got := postStatus(c, p+"/submit", nil); got != http.StatusNotFound {
			t.Errorf("submit someone else's draft: %d", got)
		}
	}
	if got := admin.Get(p).StatusCode; got != http.StatusOK {
		t.Errorf("admin reads a draft: %d", got)
	}
	for _, step := range []string{"/submit", "/delete"} {
		if got := postStatus(admin, p+step, nil); got != http.StatusForbidden {
			t.Errorf("admin %s on someone else's draft: %d", step, got)
		}
	}
	if got := postStatus(admin, p+"/retitle", url.Values{"title": {"x"}}); got != http.StatusForbidden {
		t.Errorf("admin retitles someone else's draft: %d", got)
	}
	// Finance cannot decide on a draft.
	if got := postStatus(finance, p+"/approve", nil); got != http.StatusNotFound {
		t.Errorf("approve a draft (invisible to finance): %d", got)
	}
	if got := postStatus(admin, p+"/approve", nil); got != http.StatusConflict {
		t.Errorf("approve a draft: %d", got)
	}
	// The author retitles (an empty title is refused, with the form back).
	r := analyst.PostForm(p+"/retitle", url.Values{"title": {"  "}, "purpose": {"x"}})
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-title"`) {
		t.Errorf("empty title: %d", r.StatusCode)
	}
	if got := postStatus(analyst, p+"/retitle", url.Values{"title": {"试用一个月（修订）"}, "purpose": {"新用途"}}); got != http.StatusSeeOther {
		t.Errorf("retitle: %d", got)
	}
	if rr := reportRow(t, app, id); rr.Title != "试用一个月（修订）" || rr.Purpose != "新用途" {
		t.Errorf("retitled: %q %q", rr.Title, rr.Purpose)
	}
	// The author submits; then it can no longer be retitled, deleted or submitted again.
	if got := postStatus(analyst, p+"/submit", nil); got != http.StatusSeeOther {
		t.Fatalf("submit: %d", got)
	}
	for _, step := range []string{"/submit", "/delete"} {
		if got := postStatus(analyst, p+step, nil); got != http.StatusConflict {
			t.Errorf("%s after submitting: %d", step, got)
		}
	}
	if got := postStatus(analyst, p+"/retitle", url.Values{"title": {"late"}}); got != http.StatusConflict {
		t.Errorf("retitle after submitting: %d", got)
	}
	// Submitted reports are visible to everyone signed in.
	for _, c := range []*testutil.Client{other, finance, editor} {
		if got := c.Get(p).StatusCode; got != http.StatusOK {
			t.Errorf("submitted report: %d", got)
		}
	}
	// Who may decide: not analysts or editors (route policy), not the author.
	for _, c := range []*testutil.Client{analyst, other, editor} {
		for _, step := range []string{"/approve", "/return"} {
			if got := postStatus(c, p+step, url.Values{"comment": {"x"}}); got != http.StatusForbidden {
				t.Errorf("%s by a non-finance user: %d", step, got)
			}
		}
	}
	// Return needs a comment: 422 with the form, nothing changes.
	audits := countRows(t, app, "audit_log")
	r = finance.PostForm(p+"/return", url.Values{"comment": {"   "}})
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-comment"`) {
		t.Errorf("return without a comment: %d", r.StatusCode)
	}
	if reportRow(t, app, id).Status != report.Submitted || countRows(t, app, "audit_log") != audits {
		t.Error("a refused return changed something")
	}
	if got := postStatus(finance, p+"/return", url.Values{"comment": {"请改用 12 个月的用量重算"}}); got != http.StatusSeeOther {
		t.Fatalf("return: %d", got)
	}
	if rr := reportRow(t, app, id); rr.Status != report.Returned || rr.DecisionComment != "请改用 12 个月的用量重算" {
		t.Fatalf("returned: %+v", rr)
	}
	// Decided reports are final.
	if got := postStatus(finance2, p+"/approve", nil); got != http.StatusConflict {
		t.Errorf("approve a returned report: %d", got)
	}
	// Only the author revises; the revision keeps the number, revision 2.
	if got := postStatus(other, p+"/revise", url.Values{"title": {"x"}, "data": {"same"}}); got != http.StatusForbidden {
		t.Errorf("revise someone else's report: %d", got)
	}
	r = analyst.PostForm(p+"/revise", url.Values{"title": {"试用一个月"}, "purpose": {"按意见重算"}, "data": {"today"}})
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("revise: %d", r.StatusCode)
	}
	revID, _ := strconv.ParseInt(m[1], 10, 64)
	rev, old := reportRow(t, app, revID), reportRow(t, app, id)
	if rev.Number != old.Number || rev.Revision != 2 || rev.PreviousRevisionID != id || rev.Status != report.Draft {
		t.Fatalf("revision: %+v", rev)
	}
	if old.Status != report.Returned || old.NextRevisionID != revID {
		t.Errorf("the returned report stays returned and names its revision: %+v", old)
	}
	if got := postStatus(analyst, p+"/revise", url.Values{"title": {"again"}, "data": {"same"}}); got != http.StatusConflict {
		t.Errorf("a second revision of the same report: %d", got)
	}
	// The revision goes through the workflow; admin approves with a comment.
	rp := "/reports/" + itoa(revID)
	if got := postStatus(analyst, rp+"/submit", nil); got != http.StatusSeeOther {
		t.Fatalf("submit revision: %d", got)
	}
	if got := postStatus(admin, rp+"/approve", url.Values{"comment": {"同意"}}); got != http.StatusSeeOther {
		t.Fatalf("admin approves: %d", got)
	}
	page := analyst.Get(rp).Body
	if !strings.Contains(page, `data-testid="report-status">已批准<`) || !strings.Contains(page, `data-testid="report-approver">`) {
		t.Error("approved report names its approver")
	}
	// Nobody decides on their own report, not even finance or admin.
	for _, c := range []*testutil.Client{finance, admin} {
		own := saveReport(t, c, form)
		op := "/reports/" + itoa(own)
		if got := postStatus(c, op+"/submit", nil); got != http.StatusSeeOther {
			t.Fatalf("submit own: %d", got)
		}
		for _, step := range []string{"/approve", "/return"} {
			if got := postStatus(c, op+step, url.Values{"comment": {"自己批"}}); got != http.StatusForbidden {
				t.Errorf("%s own report: %d", step, got)
			}
		}
		if body := c.Get(op).Body; !strings.Contains(body, `data-testid="report-own-pending"`) || strings.Contains(body, `data-testid="report-approve"`) {
			t.Error("the author sees no approve button, and why")
		}
		if got := postStatus(finance2, op+"/approve", nil); got != http.StatusSeeOther {
			t.Errorf("another finance user approves: %d", got)
		}
	}
	// A draft is deleted by its author only, and then gone.
	del := saveReport(t, analyst, form)
	if got := postStatus(other, "/reports/"+itoa(del)+"/delete", nil); got != http.StatusNotFound {
		t.Errorf("delete someone else's draft: %d", got)
	}
	if got := postStatus(analyst, "/reports/"+itoa(del)+"/delete", nil); got != http.StatusSeeOther {
		t.Errorf("delete draft: %d", got)
	}
	if got := analyst.Get("/reports/" + itoa(del)).StatusCode; got != http.StatusNotFound {
		t.Errorf("deleted draft: %d", got)
	}

	// Every step is audited and on the timeline, by whom and from → to.
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE entity = 'report' AND entity_id = $1`,
		itoa(id)).Scan(&n); err != nil || n != 4 { // create, retitle, submit, return
		t.Errorf("audit rows of the first report: %d (%v)", n, err)
	}
	events, err := app.Store.ReportEvents(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range events {
		got = append(got, e.Action+":"+e.FromStatus+">"+e.ToStatus)
	}
	want := "created:>draft retitled:draft>draft submitted:draft>submitted returned:submitted>returned revised:returned>returned"
	if strings.Join(got, " ") != want {
		t.Errorf("timeline %q, want %q", strings.Join(got, " "), want)
	}
	if events[0].ActorID != analystID || events[3].Comment != "请改用 12 个月的用量重算" {
		t.Errorf("timeline actors and comments: %+v", events)
	}
	timeline := between(analyst.Get(p).Body, `data-testid="report-timeline"`, "</section>")
	if strings.Count(timeline, `data-testid="report-event" data-revision="1"`) != 5 || !strings.Contains(timeline, "请改用 12 个月的用量重算") {
		t.Errorf("timeline on the page: %s", timeline)
	}
}

// TestReportConcurrentApproveAndReturn: an approve and a return of the
// same report reach the database at the same moment (both held on the
// row's lock until they are both waiting); exactly one wins, the other is
// told so (409), and the report, its timeline and the audit log record
// only the winner.
func TestReportConcurrentApproveAndReturn(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	ctx := context.Background()
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	f1, _ := app.AsUser(auth.RoleFinance)
	f2, _ := app.AsUser(auth.RoleFinance)
	for round := range 3 {
		id := saveReport(t, analyst, reportForm(fmt.Sprintf("并发 %d", round), "200", q))
		p := "/reports/" + itoa(id)
		if got := postStatus(analyst, p+"/submit", nil); got != http.StatusSeeOther {
			t.Fatalf("submit: %d", got)
		}
		f1.Get(p)
		f2.Get(p)
		// Hold the row so both requests queue on it, then let go.
		lock, err := app.Store.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lock.Exec(ctx, `SELECT 1 FROM reports WHERE id = $1 FOR UPDATE`, id); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		bodies := make([]string, 2)
		errs := make([]error, 2)
		for i, call := range []struct {
			c    *testutil.Client
			path string
		}{{f1, p + "/approve"}, {f2, p + "/return"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i], bodies[i], errs[i] = rawPost(app, call.c, call.path, url.Values{"comment": {"并发测试"}})
			}()
		}
		waitForLockWaiters(t, app, 2)
		if err := lock.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		won := 0
		for i, s := range statuses {
			switch s {
			case http.StatusSeeOther:
				won++
			case http.StatusConflict:
				// The loser sees the report as the winner left it, and why.
				if !strings.Contains(bodies[i], `data-testid="report-conflict"`) {
					t.Error("the losing decision is not told why")
				}
			default:
				t.Errorf("status %d", s)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: statuses %v: exactly one decision must win", round, statuses)
		}
		rr := reportRow(t, app, id)
		var decisions, audits int
		if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM report_events WHERE report_id = $1 AND action IN ('approved', 'returned')`, id).Scan(&decisions); err != nil {
			t.Fatal(err)
		}
		if err := app.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE entity = 'report' AND entity_id = $1 AND action IN ('report.approve', 'report.return')`, itoa(id)).Scan(&audits); err != nil {
			t.Fatal(err)
		}
		wantStatus := report.Approved
		if statuses[1] == http.StatusSeeOther {
			wantStatus = report.Returned
		}
		if rr.Status != wantStatus || decisions != 1 || audits != 1 {
			t.Errorf("round %d: status %s (want %s), %d decision events, %d audit rows", round, rr.Status, wantStatus, decisions, audits)
		}
	}
}

// rawPost posts a form with the client's cookies and CSRF token from any
// goroutine (the test client's helpers fail the test from the test
// goroutine only).
func rawPost(app *testutil.App, c *testutil.Client, path string, form url.Values) (int, string, error) {
	form.Set("_csrf", c.CSRF)
	req, err := http.NewRequest(http.MethodPost, app.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.String(), err
}

// waitForLockWaiters waits until n sessions of this test's database wait
// on a row lock.
func waitForLockWaiters(t *testing.T, app *testutil.App, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var waiting int
		if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the requests never both waited on the report's row")
}

// TestReportSaveFormAndValidation: the compare page links to the save
// form with its state; a missing title or an empty comparison is refused
// with the form (422) and nothing saved.
func TestReportSaveFormAndValidation(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	c, _ := app.AsUser(auth.RoleAnalyst)
	cmp := c.Get(compareURL("200", q))
	link := between(cmp.Body, `data-testid="report-save"`, "</section>")
	href := strings.ReplaceAll(between(link, `href="`, `"`), "&amp;", "&")
	if !strings.HasPrefix(href, "/reports/new?") || !strings.Contains(href, "q="+itoa(q)) || !strings.Contains(href, "profile.hours_per_month=200") {
		t.Fatalf("save link %q", href)
	}
	page := c.Get(href)
	if page.StatusCode != http.StatusOK || !strings.Contains(page.Body, `data-testid="report-new-preview"`) ||
		!strings.Contains(page.Body, `name="q" value="`+itoa(q)+`"`) || !strings.Contains(page.Body, "€70.00") {
		t.Fatalf("save form: %d", page.StatusCode)
	}
	before := countRows(t, app, "reports")
	r := c.PostForm("/reports", reportForm("", "200", q))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-title"`) ||
		!strings.Contains(r.Body, `name="q" value="`+itoa(q)+`"`) {
		t.Errorf("no title: %d", r.StatusCode)
	}
	r = c.PostForm("/reports", reportForm("没有报价", "200"))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="report-new-problems"`) {
		t.Errorf("no quotes: %d", r.StatusCode)
	}
	r = c.PostForm("/reports", reportForm("用量不对", "999", q))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="report-new-problems"`) {
		t.Errorf("bad profile: %d", r.StatusCode)
	}
	if countRows(t, app, "reports") != before || countRows(t, app, "report_counters") != 0 {
		t.Error("a refused save left rows behind")
	}
	// The English page speaks English.
	c.Header.Set("Accept-Language", "en")
	c.Get("/") // no cookie yet: Accept-Language decides
	id := saveReport(t, c, reportForm("Trial month", "200", q))
	en := c.Get("/reports/" + itoa(id)).Body
	if !strings.Contains(en, "Recommended:") || containsHan(between(en, `data-testid="report-summary"`, "</section>")) {
		t.Error("the English report page has Chinese in its summary")
	}
}

// TestReportListFiltersAndInbox: the list filters by status, author, date,
// platform and amount, pages, and never shows others' drafts; the inbox
// lists submitted reports, oldest first, to finance only.
func TestReportListFiltersAndInbox(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded()) // 70.00 at 200 h
	other := testfactory.Platform(app.T, app.Store, market.Platform{})
	_, gid := marketRefs(app)
	q2d, err := app.Store.CreateQuoteDraft(context.Background(), user.SystemActor, quote.Quote{PlatformID: other.ID, GPUModelID: gid,
		GPUCount: 1, Sharing: "dedicated", Currency: "EUR", Hourly: csvND("2"), BillingGranularity: "second", PricesIncludeTax: true,
		AsOf: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC), Source: "test", Lines: testfactory.AllIncluded()})
	if err != nil {
		t.Fatal(err)
	}
	q2p, err := app.Store.PublishQuote(context.Background(), user.SystemActor, q2d.ID, q2d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	q2 := q2p.ID // 400.00 at 200 h
	alice, _ := app.AsUser(auth.RoleAnalyst)
	bob, bobID := app.AsUser(auth.RoleAnalyst)
	finance, _ := app.AsUser(auth.RoleFinance)

	cheap := saveReport(t, alice, reportForm("便宜", "200", q))
	clock.Advance(48 * time.Hour)
	dear := saveReport(t, bob, reportForm("贵", "200", q2))
	postStatus(bob, "/reports/"+itoa(dear)+"/submit", nil)
	draft := saveReport(t, bob, reportForm("草稿", "200", q2))
	clock.Advance(time.Hour)
	postStatus(alice, "/reports/"+itoa(cheap)+"/submit", nil)

	listed := func(c *testutil.Client, query string) []int64 {
		t.Helper()
		r := c.Get("/reports?" + query)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("list %q: %d", query, r.StatusCode)
		}
		var ids []int64
		for _, m := range regexp.MustCompile(`data-testid="report-(\d+)"`).FindAllStringSubmatch(r.Body, -1) {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			ids = append(ids, id)
		}
		return ids
	}
	same := func(got []int64, want ...int64) bool { return fmt.Sprint(got) == fmt.Sprint(want) }
	if got := listed(alice, ""); !same(got, dear, cheap) {
		t.Errorf("alice sees %v (not bob's draft), want %v", got, []int64{dear, cheap})
	}
	if got := listed(bob, ""); !same(got, draft, dear, cheap) {
		t.Errorf("bob sees %v", got)
	}
	if got := listed(bob, "status=draft"); !same(got, draft) {
		t.Errorf("status filter: %v", got)
	}
	if got := listed(finance, "author="+itoa(bobID)); !same(got, dear) {
		t.Errorf("author filter: %v", got)
	}
	if got := listed(finance, "platform="+itoa(other.ID)); !same(got, dear) {
		t.Errorf("platform filter: %v", got)
	}
	if got := listed(finance, "min=100"); !same(got, dear) {
		t.Errorf("amount ≥ 100: %v", got)
	}
	if got := listed(finance, "max=70.00&currency=eur"); !same(got, cheap) {
		t.Errorf("amount ≤ 70 in EUR: %v", got)
	}
	if got := listed(finance, "from=2026-12-03&to=2026-12-03"); !same(got, dear) {
		t.Errorf("date filter: %v", got)
	}
	if got := listed(finance, "to=2026-12-01"); !same(got, cheap) {
		t.Errorf("date to: %v", got)
	}
	if r := finance.Get("/reports?min=abc&from=yesterday"); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `data-testid="error-min"`) || !strings.Contains(r.Body, `data-testid="error-from"`) {
		t.Errorf("bad filters: %d", r.StatusCode)
	}
	// The inbox: submitted reports, oldest submission first; finance only.
	inbox := finance.Get("/reports/inbox")
	ids := regexp.MustCompile(`data-testid="report-(\d+)"`).FindAllStringSubmatch(inbox.Body, -1)
	if inbox.StatusCode != http.StatusOK || len(ids) != 2 || ids[0][1] != itoa(dear) || ids[1][1] != itoa(cheap) {
		t.Errorf("inbox: %d %v", inbox.StatusCode, ids)
	}
	if !regexp.MustCompile(`data-testid="nav-report-inbox"\s+aria-current="page"`).MatchString(inbox.Body) ||
		regexp.MustCompile(`data-testid="nav-reports"\s+aria-current="page"`).MatchString(inbox.Body) {
		t.Error("the inbox, not the report list, is the current navigation entry")
	}
	if got := alice.Get("/reports/inbox").StatusCode; got != http.StatusForbidden {
		t.Errorf("analyst inbox: %d", got)
	}
	if !strings.Contains(finance.Get("/").Body, `data-testid="nav-report-inbox"`) || strings.Contains(alice.Get("/").Body, `data-testid="nav-report-inbox"`) {
		t.Error("the inbox is in finance's navigation only")
	}

	// Pagination: 25 a page.
	ctx := context.Background()
	for i := range 30 {
		if _, err := app.Store.CreateReport(ctx, user.Actor{UserID: bobID}, reportDay, report.NewReport{Title: fmt.Sprintf("批量 %d", i),
			Snapshot: []byte(`{"version":1}`), SnapshotVersion: 1, RulesVersion: "2026.1", FiguresDate: reportDay, ReportCurrency: "EUR",
			QuoteCount: 1}); err != nil {
			t.Fatal(err)
		}
	}
	page1 := bob.Get("/reports")
	page2 := bob.Get("/reports?page=2")
	if c1, c2 := len(regexp.MustCompile(`data-testid="report-\d+"`).FindAllString(page1.Body, -1)),
		len(regexp.MustCompile(`data-testid="report-\d+"`).FindAllString(page2.Body, -1)); c1 != 25 || c2 != 8 || !strings.Contains(page1.Body, `data-testid="pager"`) {
		t.Errorf("pages of 25: %d + %d", c1, c2)
	}
}

// someonesReport saves a report as a fresh analyst and takes it to status
// (draft, submitted, or returned by a fresh finance user).
func someonesReport(a *testutil.App, status string) int64 {
	a.T.Helper()
	c, _ := a.AsUser(auth.RoleAnalyst)
	r := c.PostForm("/reports", reportForm("someone's report", "200", publishedQuote(a)))
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		a.T.Fatalf("save report: %d", r.StatusCode)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	if status == report.Draft {
		return id
	}
	if got := postStatus(c, "/reports/"+m[1]+"/submit", nil); got != http.StatusSeeOther {
		a.T.Fatalf("submit: %d", got)
	}
	if status == report.Returned || status == report.Approved {
		f, _ := a.AsUser(auth.RoleFinance)
		step := "/return"
		if status == report.Approved {
			step = "/approve"
		}
		if got := postStatus(f, "/reports/"+m[1]+step, url.Values{"comment": {"again"}}); got != http.StatusSeeOther {
			a.T.Fatalf("%s: %d", step, got)
		}
	}
	return id
}

// someonesBill is the page of a bill a finance user checked on someone's
// approved report.
func someonesBill(a *testutil.App) string {
	a.T.Helper()
	id := someonesReport(a, report.Approved)
	snap, err := a.Store.ReportSnapshot(context.Background(), id)
	if err != nil {
		a.T.Fatal(err)
	}
	s, err := report.Decode(snap)
	if err != nil || len(s.Rows) == 0 {
		a.T.Fatalf("snapshot: %v", err)
	}
	q := s.Rows[0].Quote
	f, _ := a.AsUser(auth.RoleFinance)
	r := f.PostForm("/reports/"+itoa(id)+"/bills", url.Values{"quote": {itoa(q.ID)}, "month": {"2026-11"},
		"currency": {q.Currency}, "instances": {"1"}, "prices_include_tax": {"yes"}, "action": {"typed"}, "rows": {"1"},
		"line-0-item": {"compute_hourly"}, "line-0-quantity": {"10"}, "line-0-amount": {"9.99"}})
	if r.StatusCode != http.StatusSeeOther {
		a.T.Fatalf("check a bill: %d", r.StatusCode)
	}
	return r.Header.Get("Location")
}

// TestReportReviseFromComparison: the author of a returned report reopens
// its comparison, changes it (twelve months instead of one) and saves it
// as the report's next revision from the save form.
func TestReportReviseFromComparison(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	finance, _ := app.AsUser(auth.RoleFinance)
	id := saveReport(t, analyst, reportForm("一个月", "200", q))
	p := "/reports/" + itoa(id)
	postStatus(analyst, p+"/submit", nil)
	if got := postStatus(finance, p+"/return", url.Values{"comment": {"请按 12 个月计算"}}); got != http.StatusSeeOther {
		t.Fatalf("return: %d", got)
	}
	page := analyst.Get(p).Body
	m := regexp.MustCompile(`href="(/compare\?[^"]*)" data-testid="report-revise-compare"`).FindStringSubmatch(page)
	if m == nil || !strings.Contains(strings.ReplaceAll(m[1], "&amp;", "&"), "revise_of="+itoa(id)) {
		href := ""
		if m != nil {
			href = m[1]
		}
		t.Fatalf("the returned report links back to its comparison for revising: %q", href)
	}
	// The comparison's form keeps the report it revises through every
	// change (it lost it on the first one).
	href := strings.ReplaceAll(m[1], "&amp;", "&")
	cmp := document(t, analyst.Get(href).Body)
	if v, _ := cmp.Find(`#compare-form input[name="revise_of"]`).Attr("value"); v != itoa(id) {
		t.Errorf("the comparison's form carries revise_of %q, want %d", v, id)
	}
	// The comparison changed to twelve months, then saved from the form.
	form := reportForm("十二个月", "200", q)
	form.Set("profile.months", "12")
	newForm := analyst.Get("/reports/new?" + form.Encode() + "&revise_of=" + itoa(id))
	if !strings.Contains(newForm.Body, `<option value="`+itoa(id)+`" selected`) {
		t.Fatal("the save form offers the returned report, chosen")
	}
	form.Set("revise_of", itoa(id))
	revID := saveReport(t, analyst, form)
	rev := reportRow(t, app, revID)
	if rev.Revision != 2 || rev.PreviousRevisionID != id || rev.Number != reportRow(t, app, id).Number {
		t.Fatalf("revision %+v", rev)
	}
	// 12 months of 70.00 monthly.
	if body := analyst.Get("/reports/" + itoa(revID)).Body; !strings.Contains(body, `data-testid="report-summary-tco">€840.00<`) ||
		!strings.Contains(body, `data-testid="report-previous"`) {
		t.Error("the revision has the new figures and links to the returned one")
	}
	// Someone else cannot make a revision of it.
	other, _ := app.AsUser(auth.RoleAnalyst)
	if got := other.PostForm("/reports", form).StatusCode; got != http.StatusForbidden {
		t.Errorf("someone else revises through the form: %d", got)
	}
}

// TestReportExportsFollowTheStatus: a report's files are drawn once and
// kept, but a status change, a decision or a new title shows in the next
// download, in the reader's language, and two readers in two languages
// each get their own.
func TestReportExportsFollowTheStatus(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	finance, _ := app.AsUser(auth.RoleFinance)
	id := saveReport(t, analyst, marketForm("缓存测试", a, b))
	csvPath, xlsxPath := "/reports/"+itoa(id)+"/export.csv", "/reports/"+itoa(id)+"/export.xlsx"
	zh := app.Catalog.Translator("zh-CN")
	has := func(c *testutil.Client, path, want string) bool {
		t.Helper()
		r := c.Get(path)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, r.StatusCode)
		}
		if strings.HasSuffix(path, ".xlsx") {
			return strings.Contains(strings.Join(xlsxCells(t, r.Body), "\n"), want)
		}
		return strings.Contains(r.Body, want)
	}
	for _, p := range []string{csvPath, xlsxPath} {
		if !has(analyst, p, zh.T("report.status.draft")) {
			t.Fatalf("%s: the draft's status is missing", p)
		}
	}
	if st := postStatus(analyst, "/reports/"+itoa(id)+"/retitle", url.Values{"title": {"新标题"}, "purpose": {"同上"}}); st != http.StatusSeeOther {
		t.Fatalf("retitle: %d", st)
	}
	if st := postStatus(analyst, "/reports/"+itoa(id)+"/submit", nil); st != http.StatusSeeOther {
		t.Fatalf("submit: %d", st)
	}
	if st := postStatus(finance, "/reports/"+itoa(id)+"/approve", url.Values{"comment": {"同意采购"}}); st != http.StatusSeeOther {
		t.Fatalf("approve: %d", st)
	}
	for _, p := range []string{csvPath, xlsxPath} {
		for _, want := range []string{zh.T("report.status.approved"), "新标题", "同意采购"} {
			if !has(analyst, p, want) {
				t.Errorf("%s after the approval: %q missing (a stale file?)", p, want)
			}
		}
	}
	english := app.Client()
	english.Header.Set("Accept-Language", "en")
	english.HTTP.Jar = analyst.HTTP.Jar
	if want := app.Catalog.Translator("en").T("report.status.approved"); !has(english, csvPath, want) {
		t.Errorf("an English reader gets the Chinese file (no %q)", want)
	}
}

// TestReportCompression: pages are gzipped for clients that accept it;
// workbooks, zip files already, are sent as they are.
func TestReportCompression(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	id := saveReport(t, analyst, marketForm("压缩", a, b))
	analyst.HTTP.Transport = &http.Transport{DisableCompression: true} // see the encoding as sent
	analyst.Header.Set("Accept-Encoding", "gzip")
	if r := analyst.Get("/reports/" + itoa(id)); r.StatusCode != http.StatusOK || r.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("report page: %d, Content-Encoding %q, want gzip", r.StatusCode, r.Header.Get("Content-Encoding"))
	}
	r := analyst.Get("/reports/" + itoa(id) + "/export.xlsx")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(r.Body, "PK") {
		t.Errorf("workbook: %d, Content-Encoding %q, want a plain zip", r.StatusCode, r.Header.Get("Content-Encoding"))
	}
}

// TestReportTableKeptPerLanguage: the report's table, lines and charts are
// rendered once per report and language and kept (docs/RULES.md §20.2):
// read in Chinese, in English and in Chinese again through one server, each
// page is byte for byte what a server that never drew the report shows in
// that language, and the two languages' tables differ.
func TestReportTableKeptPerLanguage(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	id := saveReport(t, analyst, marketForm("按语言保留", a, b))
	path := "/reports/" + itoa(id)
	analyst.Get(path) // the one-time "saved" message
	english := app.Client()
	english.Header.Set("Accept-Language", "en")
	english.HTTP.Jar = analyst.HTTP.Jar
	table := func(body string) string {
		return between(body, `data-testid="report-table-section"`, `data-testid="report-inputs"`)
	}
	var seen []string
	for i, c := range []*testutil.Client{analyst, english, analyst, english} {
		kept := c.Get(path)
		fresh := c.On(reportAppOn(t, app.Store, clock)).Get(path)
		if kept.StatusCode != http.StatusOK || kept.Body != fresh.Body {
			t.Errorf("read %d: the kept page differs from a fresh server's:\n%s", i, firstDiff(fresh.Body, kept.Body))
		}
		seen = append(seen, table(kept.Body))
	}
	if seen[0] == "" || seen[0] == seen[1] || seen[0] != seen[2] || seen[1] != seen[3] {
		t.Error("the Chinese and English tables should differ, and each stay the same")
	}
	if !strings.Contains(seen[1], "Break-even") && !strings.Contains(seen[1], "break-even") {
		t.Errorf("the English table is not in English: %.300s", seen[1])
	}
}
