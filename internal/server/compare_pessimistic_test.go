package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/user"
)

// TestComparePessimisticNamesWhatItLeavesOut is the worked example of
// docs/RULES.md §13.3 through the compare page, a saved report and its
// export: a quote with all twelve lines unconfirmed, an editors' egress
// reference in EUR, an editors' data-disk reference in USD converted at the
// dated rate, and the market reference for stopped hours from another
// published quote. The pessimistic TCO is 123.70 with a hidden share of
// 23.85 %, and every place that shows it names the two lines no reference
// priced.
func TestComparePessimisticNamesWhatItLeavesOut(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	ctx := context.Background()
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	id := publishQuote(app, "EUR", "0.471", "", nil) // no line answered: all twelve unconfirmed
	var stopped []quote.Line
	for _, l := range testfactory.AllIncluded() {
		if l.Item == "stopped_retention" {
			l.Status, l.Unit, l.UnitPrice = "charged", "per_hour", decimal.NewNullDecimal(decimal.RequireFromString("0.01"))
		}
		stopped = append(stopped, l)
	}
	marketQuote := publishQuote(app, "EUR", "0.6", "", stopped) // charges stopped hours: the market reference
	for _, rp := range []market.ReferencePrice{
		{Item: "egress", Currency: "EUR", Unit: "per_gb", UnitPrice: decimal.RequireFromString("0.05"), AsOf: day, Source: "test"},
		{Item: "data_disk", Currency: "USD", Unit: "per_month", UnitPrice: decimal.RequireFromString("0.02"), AsOf: day, Source: "test"},
	} {
		if _, err := app.Store.CreateReferencePrice(ctx, user.SystemActor, rp); err != nil {
			t.Fatal(err)
		}
	}
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	profile := "&profile.between_runs=keep_stopped&profile.data_disk_gb=500&profile.egress_gb_per_month=300"
	page := analyst.Get(compareURL("200", id) + profile).Body

	// Without a USD → EUR rate the data-disk reference does not exist.
	if got := figure(t, page, id, "tco-pessimistic"); got != "€114.50" { // 94.20 + egress 15.00 + stopped 5.30
		t.Errorf("pessimistic without a rate: %q", got)
	}
	if got := figure(t, page, id, "pessimistic-unpriced"); !strings.Contains(got, "数据盘") {
		t.Errorf("without a rate the data disk is unpriced: %q", got)
	}
	if _, err := app.Store.CreateFXRate(ctx, user.SystemActor, market.FXRate{Base: "USD", Quote: "EUR",
		Rate: decimal.RequireFromString("0.92"), AsOf: day, Source: "test"}); err != nil {
		t.Fatal(err)
	}

	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		tr := app.Catalog.Translator(lang)
		analyst.Header.Set("Accept-Language", string(lang))
		page := analyst.Get(compareURL("200", id) + profile).Body
		for name, want := range map[string]string{
			"tco": "€94.20", "tco-pessimistic": "€123.70", "hidden-share": tr.T("calc.result.percent", "Value", "0.00"),
			"hidden-share-pessimistic": tr.T("compare.share.pessimistic", "Share", tr.T("calc.result.percent", "Value", "23.85")),
			"pessimistic-unpriced": map[i18n.Lang]string{
				i18n.ZH: tr.T("pessimistic.unpriced", "Items", tr.T("item.bundled_addon")+tr.T("list.separator")+tr.T("item.start_stop_schedule")),
				// In an English sentence the names lose their capitals.
				i18n.EN: "Pessimistic TCO excludes bundled add-on, start/stop and scheduling fees: no reference price",
			}[lang],
		} {
			if got := figure(t, page, id, name); got != want {
				t.Errorf("%s: %s = %q, want %q", lang, name, got, want)
			}
		}
		// The matrix (its own section, docs/RULES.md §20.4) names whose
		// reference priced each line.
		lines := sectionOf(t, analyst, page, "lines")
		stoppedCell := lineCell(t, lines, id, "stopped_retention")
		if want := tr.T("reference_source.market", "QuoteID", itoa(marketQuote)); !strings.Contains(stoppedCell, want) {
			t.Errorf("%s: stopped hours cell %q does not name %q", lang, stoppedCell, want)
		}
		if want := tr.T("reference_source.editor"); !strings.Contains(lineCell(t, lines, id, "data_disk"), want) {
			t.Errorf("%s: the data disk is priced by the editors' reference", lang)
		}
	}

	analyst.Header.Del("Accept-Language")

	// Saved as a report: the same figures, the rules that made them, and
	// the export's columns for them.
	form := reportForm("悲观 TCO", "200", id)
	for k, v := range map[string]string{"profile.between_runs": "keep_stopped", "profile.data_disk_gb": "500", "profile.egress_gb_per_month": "300"} {
		form.Set(k, v)
	}
	rid := saveReport(t, analyst, form)
	rep := analyst.Get("/reports/" + itoa(rid)).Body
	if figure(t, rep, id, "tco-pessimistic") != "€123.70" || !strings.Contains(figure(t, rep, id, "pessimistic-unpriced"), "捆绑") {
		t.Errorf("report: pessimistic %q, unpriced %q", figure(t, rep, id, "tco-pessimistic"), figure(t, rep, id, "pessimistic-unpriced"))
	}
	recs := readCSV(t, analyst.Get("/reports/"+itoa(rid)+"/export.csv").Body)
	header, rows := csvTable(recs, "排名")
	tr := app.Catalog.Translator(i18n.ZH)
	share, unpriced := col(header, tr.T("calc.result.hidden_share_pessimistic")), col(header, tr.T("report.col.pessimistic_unpriced"))
	if share < 0 || unpriced < 0 || len(rows) != 1 {
		t.Fatalf("export header %v", header)
	}
	if rows[0][share] != "23.85%" || rows[0][unpriced] != tr.T("item.bundled_addon")+"；"+tr.T("item.start_stop_schedule") {
		t.Errorf("export: share %q, unpriced %q", rows[0][share], rows[0][unpriced])
	}
	// In English the items are joined as English joins them, not with the
	// full-width semicolon.
	analyst.Header.Set("Accept-Language", "en")
	enTr := app.Catalog.Translator(i18n.EN)
	enHeader, enRows := csvTable(readCSV(t, analyst.Get("/reports/"+itoa(rid)+"/export.csv").Body), enTr.T("report.col.rank"))
	if c := col(enHeader, enTr.T("report.col.pessimistic_unpriced")); c < 0 || len(enRows) != 1 ||
		enRows[0][c] != enTr.T("item.bundled_addon")+"; "+enTr.T("item.start_stop_schedule") {
		t.Errorf("English export: unpriced column %d of %v", c, enRows)
	}
	analyst.Header.Del("Accept-Language")
	lh, lrows := csvTable(recs, tr.T("compare.col.quote"))
	src := col(lh, tr.T("calc.result.reference_source"))
	var sources []string
	for _, r := range lrows {
		if src >= 0 && src < len(r) && r[src] != "" {
			sources = append(sources, r[src])
		}
	}
	// A line's unit says what it is a rate of, in the export as on the pages.
	disk, _ := catalog.LookupItem(catalog.ItemDataDisk)
	perGBMonth := tr.T(disk.UnitLabelID(catalog.UnitPerMonth))
	unitCol, itemCol := col(lh, tr.T("calc.line.unit")), col(lh, tr.T("calc.line.item"))
	for _, r := range lrows {
		if r[itemCol] == tr.T("item.data_disk") && r[unitCol] != perGBMonth {
			t.Errorf("export: the data disk's unit is %q, want %q", r[unitCol], perGBMonth)
		}
	}
	editor, _ := app.AsUser(auth.RoleEditor)
	if prices := editor.Get("/prices").Body; !strings.Contains(prices, perGBMonth) {
		t.Errorf("the prices page does not name the data disk's reference per GB per month")
	}
	want := []string{tr.T("reference_source.editor"), tr.T("reference_source.editor"), tr.T("reference_source.market", "QuoteID", itoa(marketQuote))}
	if strings.Join(sources, "|") != strings.Join(want, "|") {
		t.Errorf("line sources %q, want %q", sources, want)
	}
}

// lineCell is the text of one line of a quote in the twelve-line matrix.
func lineCell(t testing.TB, body string, id int64, item string) string {
	t.Helper()
	return strings.TrimSpace(document(t, body).Find(`[data-testid="lines-` + itoa(id) + `"] [data-testid="line-` + item + `"]`).Text())
}
