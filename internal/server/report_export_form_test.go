package server_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"gpuquote/internal/auth"
	"gpuquote/internal/report"
	"gpuquote/web"
)

// TestReportExportsAgreeInFormUnderCurrentRules: a report saved under the
// current rules exports the recommended TCOs and the saving among its facts
// as numeric workbook cells, writes hidden shares to the CSV as
// percentages as the page shows them, and no label of either file ends in
// a colon (a 2026.1 report keeps its old bytes: report_rules_test.go).
func TestReportExportsAgreeInFormUnderCurrentRules(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	path := "/reports/" + itoa(saveReport(t, analyst, marketForm("GPU 租用 12 月", a, b)))
	tr := app.Catalog.Translator("zh-CN")
	colon := func(s string) bool { return strings.HasSuffix(s, ":") || strings.HasSuffix(s, "：") }

	// The workbook: the facts' amounts are numbers (72.00, 72.00, 3.00).
	body := analyst.Get(path + "/export.xlsx").Body
	f, err := excelize.OpenReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheets := f.GetSheetList()
	rows, err := f.GetRows(sheets[0], excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{tr.T("calc.result.tco"): "72", tr.T("calc.result.tco_pessimistic"): "72", tr.T("report.summary.savings"): "3",
		// The usage profile's figures are numbers too.
		report.ExportLabel(tr.T(web.ProfileLabelID("profile.hours_per_month"))):     "200",
		report.ExportLabel(tr.T(web.ProfileLabelID("profile.egress_gb_per_month"))): "100"}
	var recommended bool
	for i, row := range rows {
		if len(row) == 0 || row[0] == tr.T("report.col.rank") {
			break // the facts end where the summary table starts
		}
		if colon(row[0]) {
			t.Errorf("workbook fact label %q ends in a colon", row[0])
		}
		recommended = recommended || row[0] == strings.TrimRight(tr.T("report.summary.recommended"), ":：")
		w, ok := want[row[0]]
		if !ok {
			continue
		}
		delete(want, row[0])
		ref, _ := excelize.CoordinatesToCellName(2, i+1)
		typ, err := f.GetCellType(sheets[0], ref)
		if err != nil || (typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber) || !sameNumber(row[1], w) {
			t.Errorf("workbook %s (%s) = %q of type %v, want the number %s (%v)", row[0], ref, row[1], typ, w, err)
		}
	}
	if len(want) != 0 || !recommended {
		t.Errorf("workbook facts lack %v (recommended: %v)", want, recommended)
	}
	for _, sh := range sheets {
		all, _ := f.GetRows(sh)
		for _, row := range all {
			for _, v := range row {
				if v != "" && colon(v) {
					t.Errorf("workbook %s: %q ends in a colon", sh, v)
				}
			}
		}
	}

	// The CSV: shares as percentages (A: 5.00 of 75.00 is 6.67 %).
	recs := readCSV(t, analyst.Get(path+"/export.csv").Body)
	share, pessimistic := -1, -1
	var shares []string
	for _, rec := range recs {
		if len(rec) > 0 && colon(rec[0]) {
			t.Errorf("CSV label %q ends in a colon", rec[0])
		}
		if share < 0 {
			for j, h := range rec {
				if colon(h) {
					t.Errorf("CSV header %q ends in a colon", h)
				}
				switch h {
				case tr.T("calc.result.hidden_share"):
					share = j
				case tr.T("calc.result.hidden_share_pessimistic"):
					pessimistic = j
				}
			}
			continue
		}
		if len(rec) > pessimistic && pessimistic > share {
			shares = append(shares, rec[share], rec[pessimistic])
		}
		if len(rec) == 0 || rec[0] == tr.T("compare.col.quote") {
			break
		}
	}
	if share < 0 || pessimistic < 0 || len(shares) != 4 {
		t.Fatalf("CSV share columns %d, %d; values %q", share, pessimistic, shares)
	}
	if !strings.Contains(strings.Join(shares, " "), "6.67%") {
		t.Errorf("CSV shares %q, want 6.67%% for quote A", shares)
	}
	for _, s := range shares {
		if !strings.HasSuffix(s, "%") {
			t.Errorf("CSV share %q is not a percentage", s)
		}
	}
}

// sameNumber says whether two decimal strings are the same number ("72.00"
// and "72").
func sameNumber(a, b string) bool {
	x, errA := decimal.NewFromString(a)
	y, errB := decimal.NewFromString(b)
	return errA == nil && errB == nil && x.Equal(y)
}
