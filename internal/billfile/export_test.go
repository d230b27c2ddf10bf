package billfile_test

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/billfile"
	"gpuquote/internal/catalog"
	"gpuquote/internal/i18n"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
)

// checked is golden bill 1 with three more lines: a credit, a vendor's
// description that a spreadsheet would run as a formula, and an amount to
// six places, checked against its quote with a reference price for the
// data disk.
func checked(t *testing.T) billcheck.Result {
	t.Helper()
	q, b := golden1()
	b.Lines = append(b.Lines,
		billcheck.Line{Item: billcheck.ItemOther, Quantity: d("0"), Amount: d("-5"), Description: "Promotional credit"},
		billcheck.Line{Item: billcheck.ItemOther, Quantity: d("1"), Amount: d("1"), Description: "=HYPERLINK(\"x\")"},
		billcheck.Line{Item: billcheck.Item(catalog.ItemEgress), Quantity: d("0.5"), Amount: d("0.014321"), Description: ""},
	)
	r, err := billcheck.Check(q, b, billcheck.Options{ReferencePrices: []tco.ReferencePrice{
		{Item: catalog.ItemDataDisk, Unit: catalog.UnitPerMonth, UnitPrice: d("0.045")}}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func translator(t *testing.T, l i18n.Lang) report.Translate {
	t.Helper()
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	return c.Translator(l).TMap
}

func writeDocument(t *testing.T, doc report.Document) (csvOut, xlsxOut []byte) {
	t.Helper()
	var c, x bytes.Buffer
	if err := report.WriteCSV(&c, doc); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteXLSX(&x, doc); err != nil {
		t.Fatal(err)
	}
	return c.Bytes(), x.Bytes()
}

// TestDocument: the bill's CSV reads facts, lines, totals, every label
// and word in the reader's language, amounts exact, a formula guarded;
// the CSV and the workbook are the same bytes each time.
func TestDocument(t *testing.T) {
	res := checked(t)
	meta := billfile.DocumentMeta{ReportNumber: "R-2026-0007", Quote: "HOSTKEY R9700 hourly (v3)", Instances: 1}
	doc := billfile.Document(res, meta, translator(t, i18n.EN))
	csv1, xlsx1 := writeDocument(t, doc)
	csv2, xlsx2 := writeDocument(t, billfile.Document(res, meta, translator(t, i18n.EN)))
	if !bytes.Equal(csv1, csv2) || !bytes.Equal(xlsx1, xlsx2) {
		t.Fatal("two exports of one check differ")
	}
	want := "\ufeffReport,R-2026-0007\r\n" +
		"Quote,HOSTKEY R9700 hourly (v3)\r\n" +
		"Month,2026-11\r\n" +
		"Currency,EUR\r\n" +
		"Instances,1\r\n" +
		"Exchange rate (quote currency to bill currency),1\r\n" +
		"Tax basis,Quote and bill on the same tax basis\r\n" +
		"\r\n" +
		"Line,Item,Description,Quantity,Billed,Expected,Free allowance used,Variance,Verdict,Reference expected\r\n" +
		"1,Compute, pay as you go (hours),GPU hours,200,94.2,94.20,,0,Matches the quote,\r\n"
	got := string(csv1)
	// The first line's item holds a comma, so it is quoted.
	want = strings.Replace(want, "1,Compute, pay as you go (hours)", "1,\"Compute, pay as you go (hours)\"", 1)
	if !strings.HasPrefix(got, want) {
		t.Errorf("CSV starts\n%s\nwant\n%s", got, want)
	}
	for _, line := range []string{
		"2,Public IP,Public IP,1,3.5,3.00,0,0.5,Overcharged,\r\n",
		"3,Egress traffic,Internet egress,120,1.2,0.00,,1.2,Charged though included,\r\n",
		"4,Data disk,Data disk 100 GB,100,4,,,,Hidden cost appeared,4.50\r\n",
		"5,Other,Promotional credit,0,-5,,,,Not in the quote,\r\n",
		"6,Other,\"'=HYPERLINK(\"\"x\"\")\",1,1,,,,Not in the quote,\r\n",
		"7,Egress traffic,,0.5,0.014321,0.00,,0.014321,Charged though included,\r\n",
		"\r\nTotal,Amount\r\nBilled,98.914321\r\nExpected,97.20\r\nOvercharged,1.714321\r\nUndercharged,0\r\nNot in the quote,0\r\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("CSV lacks %q:\n%s", line, got)
		}
	}

	// In Chinese every label and word is the catalog's: nothing missing.
	zh := billfile.Document(res, meta, translator(t, i18n.ZH))
	for _, s := range allText(zh) {
		if strings.Contains(s, "[") {
			t.Errorf("zh-CN export shows a missing message: %q", s)
		}
	}
	for _, s := range allText(doc) {
		if strings.Contains(s, "[bill") {
			t.Errorf("en export shows a missing message: %q", s)
		}
	}

	f, err := excelize.OpenReader(bytes.NewReader(xlsx1))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if sheets := f.GetSheetList(); !slices.Equal(sheets, []string{"Bill check", "Totals"}) {
		t.Errorf("sheets %v", sheets)
	}
	if v, _ := f.GetCellValue("Bill check", "E10"); v != "94.2" {
		t.Errorf("first billed amount in the workbook %q, want 94.2", v)
	}
}

// TestDocumentToTheCent: a bill billed to the cent shows its billed
// amounts and variances to the cent.
func TestDocumentToTheCent(t *testing.T) {
	q, b := golden1()
	res, err := billcheck.Check(q, b, billcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := writeDocument(t, billfile.Document(res, billfile.DocumentMeta{}, translator(t, i18n.EN)))
	for _, line := range []string{"1,\"Compute, pay as you go (hours)\",GPU hours,200,94.20,94.20,,0.00,Matches the quote,\r\n",
		"Billed,102.90\r\n", "Overcharged,1.70\r\n"} {
		if !strings.Contains(string(out), line) {
			t.Errorf("CSV lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(string(out), "Instances") {
		t.Error("the instances row is written though not given")
	}
}

func allText(d report.Document) []string {
	var out []string
	for _, m := range d.Meta {
		out = append(out, m[0], m[1])
	}
	out = append(out, d.SummaryName, d.LinesName)
	for _, tb := range []report.Table{d.Summary, d.Lines} {
		out = append(out, tb.Header...)
		for _, r := range tb.Rows {
			for _, c := range r {
				out = append(out, c.String())
			}
		}
	}
	return out
}

var focusMeta = billfile.FocusMeta{ProviderName: "HOSTKEY", BillingAccountID: "R-2026-0007", BillingAccountName: "Research lab"}

// TestWriteFOCUS: the export is FOCUS 1.2 with every mandatory column,
// the same bytes each time, and reads back through ReadFOCUS as the bill
// it was made from, without a mapping and without an inconsistent row.
func TestWriteFOCUS(t *testing.T) {
	res := checked(t)
	var a, b bytes.Buffer
	if err := billfile.WriteFOCUS(&a, res, focusMeta); err != nil {
		t.Fatal(err)
	}
	if err := billfile.WriteFOCUS(&b, res, focusMeta); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two FOCUS exports of one check differ")
	}
	back, errs, err := billfile.ReadFOCUS(bytes.NewReader(a.Bytes()), res.Month, nil)
	if err != nil {
		t.Fatalf("refused: %v %+v", err, errs)
	}
	_, bill := golden1()
	sameLines(t, back.Lines, append(bill.Lines,
		billcheck.Line{Item: billcheck.ItemOther, Quantity: d("0"), Amount: d("-5"), Description: "Promotional credit"},
		billcheck.Line{Item: billcheck.ItemOther, Quantity: d("1"), Amount: d("1"), Description: "=HYPERLINK(\"x\")"},
		billcheck.Line{Item: "egress", Quantity: d("0.5"), Amount: d("0.014321")}))
	if back.Currency != "EUR" || !back.Ready() || len(back.Inconsistent) != 0 {
		t.Errorf("read back: currency %s, unmapped %+v, inconsistent %v", back.Currency, back.Unmapped, back.Inconsistent)
	}

	rows, err := csv.NewReader(bytes.NewReader(a.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := rows[0]
	for _, col := range []string{"BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency", "BillingPeriodEnd",
		"BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargePeriodEnd", "ChargePeriodStart",
		"ContractedCost", "EffectiveCost", "InvoiceIssuerName", "ListCost", "PricingQuantity", "PricingUnit", "ProviderName",
		"PublisherName", "ServiceCategory", "ServiceName"} {
		if !slices.Contains(header, col) {
			t.Errorf("the export lacks FOCUS 1.2's mandatory %s", col)
		}
	}
	row := func(i int) map[string]string {
		m := map[string]string{}
		for j, c := range header {
			m[c] = rows[i][j]
		}
		return m
	}
	for i, want := range []map[string]string{
		{"BilledCost": "94.2", "ContractedCost": "94.2", "ContractedUnitPrice": "0.471", "ConsumedQuantity": "200",
			"ConsumedUnit": "Hours", "PricingUnit": "Hours", "ChargeCategory": "Usage", "ChargePeriodStart": "2026-11-01T00:00:00Z",
			"ChargePeriodEnd": "2026-12-01T00:00:00Z", "BillingPeriodEnd": "2026-12-01T00:00:00Z", "ServiceCategory": "Compute",
			"ServiceName": "Compute", "ProviderName": "HOSTKEY", "PublisherName": "HOSTKEY", "InvoiceIssuerName": "HOSTKEY",
			"BillingAccountId": "R-2026-0007", "x_GpuquoteItem": "compute_hourly", "x_GpuquoteVerdict": "match",
			"x_GpuquoteExpectedCost": "94.2", "x_GpuquoteVariance": "0", "x_GpuquoteReferenceCost": "", "ChargeClass": ""},
		{"BilledCost": "3.5", "ContractedCost": "3", "ContractedUnitPrice": "3", "PricingUnit": "IP-Months",
			"ServiceCategory": "Networking", "x_GpuquoteVerdict": "overcharged", "x_GpuquoteVariance": "0.5"},
		{"BilledCost": "1.2", "ContractedCost": "0", "ContractedUnitPrice": "", "PricingUnit": "GB",
			"x_GpuquoteVerdict": "charged_though_included"},
		{"BilledCost": "4", "ContractedCost": "4", "ContractedUnitPrice": "", "PricingUnit": "GB-Months",
			"ServiceCategory": "Storage", "x_GpuquoteExpectedCost": "", "x_GpuquoteReferenceCost": "4.5",
			"x_GpuquoteVerdict": "hidden_cost_appeared"},
		{"BilledCost": "-5", "ChargeCategory": "Credit", "ConsumedQuantity": "", "ConsumedUnit": "", "PricingQuantity": "0",
			"PricingUnit": "Units", "ServiceCategory": "Other", "ContractedCost": "-5", "ListCost": "-5", "EffectiveCost": "-5"},
		{"ChargeDescription": "'=HYPERLINK(\"x\")"},
	} {
		got := row(i + 1)
		for k, v := range want {
			if got[k] != v {
				t.Errorf("row %d %s = %q, want %q", i+1, k, got[k], v)
			}
		}
	}

	if err := billfile.WriteFOCUS(&a, res, billfile.FocusMeta{ProviderName: "HOSTKEY"}); err != billfile.ErrFocusMeta {
		t.Errorf("export without a billing account: %v", err)
	}
}

// TestWriteFOCUSUnits: each item's FOCUS unit, and a unit price only
// where price × quantity is the contracted cost in the bill's currency.
func TestWriteFOCUSUnits(t *testing.T) {
	q := tco.Quote{Currency: "CNY", GPUCount: 1, Monthly: nd("3000"), PricesIncludeTax: true, Lines: []tco.Line{
		{Item: catalog.ItemDataDisk, Status: catalog.StatusCharged, Unit: catalog.UnitPerDay, UnitPrice: nd("0.01"), FreeAllowance: d("50")},
		{Item: catalog.ItemStoppedRetention, Status: catalog.StatusCharged, Unit: catalog.UnitPerHour, UnitPrice: nd("0.10")},
		{Item: catalog.ItemStartStopSchedule, Status: catalog.StatusCharged, Unit: catalog.UnitPerEvent, UnitPrice: nd("1")},
		{Item: catalog.ItemBundledAddon, Status: catalog.StatusCharged, Unit: catalog.UnitFlatMonth, UnitPrice: nd("50")},
		{Item: catalog.ItemBandwidth, Status: catalog.StatusCharged, Unit: catalog.UnitPerHour, UnitPrice: nd("0.2")},
		{Item: catalog.ItemDataMigration, Status: catalog.StatusCharged, Unit: catalog.UnitOneOff, UnitPrice: nd("99")},
	}}
	m, _ := billcheck.ParseMonth("2026-02")
	b := billcheck.Bill{Month: m, Currency: "CNY", PricesIncludeTax: true, Instances: 1, Lines: []billcheck.Line{
		{Item: billcheck.ItemComputeMonthly, Quantity: d("1"), Amount: d("3000")},
		{Item: "data_disk", Quantity: d("6000"), Amount: d("46")},
		{Item: "stopped_retention", Quantity: d("10"), Amount: d("1")},
		{Item: "start_stop_schedule", Quantity: d("3"), Amount: d("3")},
		{Item: "bundled_addon", Quantity: d("1"), Amount: d("50")},
		{Item: "bandwidth", Quantity: d("672"), Amount: d("134.4")},
		{Item: "data_migration", Quantity: d("1"), Amount: d("99")},
		{Item: billcheck.ItemComputeYearly, Quantity: d("1"), Amount: d("1")},
	}}
	res, err := billcheck.Check(q, b, billcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := billfile.WriteFOCUS(&out, res, focusMeta); err != nil {
		t.Fatal(err)
	}
	rows, _ := csv.NewReader(&out).ReadAll()
	col := func(name string) int { return slices.Index(rows[0], name) }
	var units, prices []string
	for _, r := range rows[1:] {
		units = append(units, r[col("PricingUnit")])
		prices = append(prices, r[col("ContractedUnitPrice")])
	}
	if want := []string{"Months", "GB-Days", "Hours", "Events", "Months", "Mbps-Hours", "Units", "Years"}; !slices.Equal(units, want) {
		t.Errorf("units %v, want %v", units, want)
	}
	// The data disk took its allowance, and the yearly price is not the
	// quote's: no unit price there.
	if want := []string{"3000", "", "0.1", "1", "50", "0.2", "99", ""}; !slices.Equal(prices, want) {
		t.Errorf("unit prices %v, want %v", prices, want)
	}
	if rows[1][col("ChargePeriodEnd")] != "2026-03-01T00:00:00Z" {
		t.Errorf("February ends %s", rows[1][col("ChargePeriodEnd")])
	}
}
