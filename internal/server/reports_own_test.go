package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/user"
)

// ownFigure is the text of a figure of an own-hardware option on a report
// page.
func ownFigure(t *testing.T, body string, versionID int64, name string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(doc.Find(`[data-testid="own-` + itoa(versionID) + `"] [data-testid="` + name + `"]`).First().Text())
}

// TestReportFreezesOwnHardware: a report saved with an own-hardware option
// (own=<version id> in the form) shows, on its page and in its CSV and
// workbook, the option's seven lines, totals and inputs; they stay byte
// for byte the same, read through a server that never saw the report,
// after the option gets a new version and its region a new electricity
// sample; recomputing prices the option's new version with today's sample
// (docs/RULES.md §11.7).
func TestReportFreezesOwnHardware(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	ctx := context.Background()
	a, b := reportMarket(t, app)
	analyst, uid := app.AsUser(auth.RoleAnalyst)
	sample, err := app.Store.CreateElectricityPrice(ctx, user.SystemActor, own.ElectricityPrice{Region: "DE", Currency: "EUR",
		KWhPrice: decimal.RequireFromString("0.30"), AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Source: "Bundesnetzagentur"})
	if err != nil {
		t.Fatal(err)
	}
	v1 := own.Version{Name: "Workstation im Büro", GPUModelID: testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID, GPUCount: 1, Currency: "EUR",
		PurchasePrice: decimal.RequireFromString("3000"), PurchaseAsOf: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		PurchaseSource: "shop offer", LifeMonths: 36, PowerLoadW: decimal.RequireFromString("500"), PUE: decimal.RequireFromString("1"),
		ElectricityRegion: "DE", HostingMonthly: decimal.RequireFromString("20"), PricesIncludeTax: true}
	opt, err := app.Store.CreateOwnOption(ctx, user.Actor{UserID: uid}, v1, false)
	if err != nil {
		t.Fatal(err)
	}
	vid := opt.Current.ID
	form := marketForm("GPU 租用还是自购", a, b)
	form.Set("own", itoa(vid))
	id := saveReport(t, analyst, form)
	path := "/reports/" + itoa(id)
	analyst.Get(path) // the one-time "saved" message

	view := analyst.Get(path)
	csvBody := analyst.Get(path + "/export.csv")
	xlsx := analyst.Get(path + "/export.xlsx")
	if view.StatusCode != http.StatusOK || csvBody.StatusCode != http.StatusOK || xlsx.StatusCode != http.StatusOK {
		t.Fatalf("report: %d %d %d", view.StatusCode, csvBody.StatusCode, xlsx.StatusCode)
	}
	// 200 h, one month: depreciation 3000 ÷ 36 = 83.33, electricity
	// 200 h × 0.5 kW × 0.30 = 30.00, hosting 20.00: 133.33; per GPU-hour
	// 133.33 ÷ 200 = 0.6667; cash up front 3,000.00.
	for name, want := range map[string]string{"own-tco": "€133.33", "own-upfront": "€3,000.00", "own-effective": "€0.6667"} {
		if got := ownFigure(t, view.Body, vid, name); got != want {
			t.Errorf("report page: own %s = %q, want %s", name, got, want)
		}
	}
	for _, want := range []string{"Bundesnetzagentur", "编号 " + itoa(sample.ID), "€83.33", "€30.00", "shop offer", "2026-11-02"} {
		if !strings.Contains(between(view.Body, `data-testid="report-own"`, "</section>"), want) {
			t.Errorf("the own-hardware section lacks %q", want)
		}
	}
	header, rows := csvTable(readCSV(t, csvBody.Body), "自购硬件方案")
	if len(rows) != 1 || rows[0][col(header, "确认 TCO")] != "133.33" || rows[0][col(header, "折旧")] != "83.33" ||
		rows[0][col(header, "电价样本编号")] != itoa(sample.ID) || rows[0][col(header, "购置价（每台服务器）")] != "3000" {
		t.Errorf("CSV own-hardware table %v %v", header, rows)
	}
	cells := xlsxCells(t, xlsx.Body)
	if !strings.Contains(strings.Join(cells, "\n"), "自购硬件!") || !strings.Contains(strings.Join(cells, "\n"), "=133.33") {
		t.Errorf("the workbook has no own-hardware sheet with the TCO: %v", cells)
	}

	// The option gets a cheaper version 2 and its region a dearer sample.
	v2 := v1
	v2.PurchasePrice = decimal.RequireFromString("2000")
	opt2, err := app.Store.NewOwnOptionVersion(ctx, user.Actor{UserID: uid}, opt.ID, 1, v2)
	if err != nil {
		t.Fatal(err)
	}
	sample2, err := app.Store.CreateElectricityPrice(ctx, user.SystemActor, own.ElectricityPrice{Region: "DE", Currency: "EUR",
		KWhPrice: decimal.RequireFromString("0.50"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Source: "Tarif 2027"})
	if err != nil {
		t.Fatal(err)
	}

	fresh := analyst.On(reportAppOn(t, app.Store, clock))
	if again := fresh.Get(path); again.Body != view.Body {
		t.Errorf("the report page changed after the option and the electricity did:\n%s", firstDiff(view.Body, again.Body))
	}
	if again := fresh.Get(path + "/export.csv"); again.Body != csvBody.Body {
		t.Errorf("the CSV changed:\n%s", firstDiff(csvBody.Body, again.Body))
	}
	if again := xlsxCells(t, fresh.Get(path+"/export.xlsx").Body); strings.Join(again, "\n") != strings.Join(cells, "\n") {
		t.Errorf("the workbook changed:\n%s", firstDiff(strings.Join(cells, "\n"), strings.Join(again, "\n")))
	}

	// Recompute: version 2 with today's sample: 2000 ÷ 36 = 55.56,
	// 100 kWh × 0.50 = 50.00, hosting 20.00: 125.56.
	r := analyst.PostForm(path+"/recompute", url.Values{})
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("recompute: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	newID, _ := strconv.ParseInt(m[1], 10, 64)
	page := analyst.Get("/reports/" + itoa(newID)).Body
	if got := ownFigure(t, page, opt2.Current.ID, "own-tco"); got != "€125.56" {
		t.Errorf("recomputed own TCO = %q, want €125.56 (version 2, today's sample)", got)
	}
	if !strings.Contains(page, "编号 "+itoa(sample2.ID)) {
		t.Error("the recomputed report names today's electricity sample")
	}
	// Its list of changes names the option's version change, the
	// electricity it was priced with before and now, and the TCO change:
	// 125.56 − 133.33 = −7.77.
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(between(page, `data-testid="report-changes"`, "</section>")))
	if err != nil {
		t.Fatal(err)
	}
	cell := func(name string) string {
		return strings.Join(strings.Fields(doc.Find(`[data-testid="own-change-0`+name+`"]`).Text()), " ")
	}
	if name := cell(""); !strings.Contains(name, "Workstation im Büro") {
		t.Errorf("the changes list no own-hardware option: %q", name)
	}
	for name, want := range map[string]string{
		"-version":     "第 1 版 · 2026-11-02 → 第 2 版 · 2026-11-02",
		"-electricity": "每千瓦时 €0.30：DE 2026-11-01 的样本（Bundesnetzagentur） → 每千瓦时 €0.50：DE 2026-12-01 的样本（Tarif 2027）",
		"-tco":         "€133.33 → €125.56−€7.77", // the delta is a line of its own
	} {
		if got := cell(name); got != want {
			t.Errorf("own change%s = %q, want %q", name, got, want)
		}
	}
	if n := doc.Find(`[data-testid="own-change-0"] .new`).Length(); n != 3 {
		t.Errorf("want the version, electricity and TCO shown as changed, got %d", n)
	}
}
