package billfile_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/bill"
	"gpuquote/internal/billcheck"
	"gpuquote/internal/billfile"
	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// fixtureMapping is what a platform's remembered answers know of the
// month fixture: four SKUs and two descriptions, and for the snapshot SKU
// an answer that is no bill item (so its description decides). The spot
// SKU is not among them (x_GpuquoteItem names those rows), nor three
// other SKUs and one description.
func fixtureMapping(kind, key string) (billcheck.Item, bool) {
	known := map[[2]string]billcheck.Item{
		{bill.MappingSKU, "gpu.h100.1x.ondemand"}:                  billcheck.ItemComputeHourly,
		{bill.MappingSKU, "net.egress.internet"}:                   "egress",
		{bill.MappingSKU, "net.ipv4.public"}:                       "public_ip",
		{bill.MappingSKU, "storage.ssd.gb-hour"}:                   "data_disk",
		{bill.MappingDescription, "Snapshot storage, per GB-hour"}: "snapshot",
		{bill.MappingDescription, "Promotional credit"}:            billcheck.ItemOther,
		{bill.MappingSKU, "storage.snapshot.gb-hour"}:              "not-an-item",
	}
	it, ok := known[[2]string{kind, key}]
	return it, ok
}

// TestReadFOCUSMonth reads a month of a GPU platform's FOCUS 1.2 export:
// 202 rows, the mapped ones by item with their exact counts, quantities
// and sums, four keys left for the user, two rows whose contracted cost
// is not price × quantity.
func TestReadFOCUSMonth(t *testing.T) {
	res, errs, err := billfile.ReadFOCUS(bytes.NewReader(readFile(t, "testdata", "focus_1_2_month.csv")), november(t), fixtureMapping)
	if err != nil {
		t.Fatalf("refused: %v %+v", err, errs)
	}
	if len(res.Lines) != 202 || len(res.Sources) != 202 || res.Currency != "USD" {
		t.Fatalf("%d lines, %d sources, currency %q; want 202, 202, USD", len(res.Lines), len(res.Sources), res.Currency)
	}
	type sum struct {
		rows             int
		billed, quantity string
	}
	got := map[billcheck.Item]sum{}
	total := decimal.Decimal{}
	for _, l := range res.Lines {
		s := got[l.Item]
		s.rows++
		s.billed = money.String(money.Add(money.MustParse(orZero(s.billed)), l.Amount))
		s.quantity = money.String(money.Add(money.MustParse(orZero(s.quantity)), l.Quantity))
		got[l.Item] = s
		total = money.Add(total, l.Amount)
	}
	want := map[billcheck.Item]sum{
		billcheck.ItemComputeHourly: {60, "2689.2", "1080"},
		billcheck.ItemComputeSpot:   {10, "72", "60"},
		"egress":                    {30, "2.225", "220.5"},
		"public_ip":                 {30, "7.2", "1440"},
		"data_disk":                 {30, "36", "360000"},
		"snapshot":                  {20, "4.8", "96000"},
		billcheck.ItemOther:         {1, "-25", "0"},
		"":                          {21, "52.68", "450005"}, // the unmapped rows
	}
	for it, w := range want {
		if got[it] != w {
			t.Errorf("%q: %+v, want %+v", it, got[it], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("items %v, want %v", got, want)
	}
	if money.String(total) != "2839.105" {
		t.Errorf("billed in all %s, want 2839.105", money.String(total))
	}
	wantUnmapped := []billfile.Unmapped{
		{Kind: bill.MappingSKU, Key: "support.business.monthly", Description: "Business support plan, November", FirstLine: 182, Rows: 1, Billed: d("49")},
		{Kind: bill.MappingSKU, Key: "storage.object.requests", Description: "Object storage requests, per 10,000", FirstLine: 183, Rows: 15, Billed: d("0.18")},
		{Kind: bill.MappingSKU, Key: "gpu.driver.license", Description: "GPU driver licence, per day", FirstLine: 198, Rows: 4, Billed: d("2")},
		{Kind: bill.MappingDescription, Key: "Bandwidth burst fee", Description: "Bandwidth burst fee", FirstLine: 203, Rows: 1, Billed: d("1.5")},
	}
	if len(res.Unmapped) != len(wantUnmapped) || res.Ready() {
		t.Fatalf("unmapped %+v, want %+v", res.Unmapped, wantUnmapped)
	}
	for i, w := range wantUnmapped {
		u := res.Unmapped[i]
		if u.Kind != w.Kind || u.Key != w.Key || u.Description != w.Description || u.FirstLine != w.FirstLine ||
			u.Rows != w.Rows || !u.Billed.Equal(w.Billed) {
			t.Errorf("unmapped %d: %+v, want %+v", i, u, w)
		}
	}
	if !slices.Equal(res.Inconsistent, []int{86, 87}) {
		t.Errorf("inconsistent lines %v, want [86 87] (egress on days 15 and 16)", res.Inconsistent)
	}
	// Where each item came from: the custom column before any mapping.
	by := map[string]int{}
	for _, s := range res.Sources {
		by[s.By]++
	}
	if by[billfile.FocusItem] != 15 || by[bill.MappingSKU] != 145 || by[bill.MappingDescription] != 21 || by[""] != 21 {
		t.Errorf("items by %v, want 15 by the column, 145 by SKU, 21 by description, 21 unmapped", by)
	}
	if s := res.Sources[0]; s.Line != 2 || s.SkuID != "gpu.h100.1x.ondemand" {
		t.Errorf("first source %+v", s)
	}

	// The user's answers make the lines usable, and they check.
	answers := func(kind, key string) (billcheck.Item, bool) {
		if it, ok := fixtureMapping(kind, key); ok {
			return it, true
		}
		switch key {
		case "support.business.monthly", "gpu.driver.license":
			return billcheck.ItemOther, true
		case "storage.object.requests":
			return "object_storage", true
		case "Bandwidth burst fee":
			return "bandwidth", true
		}
		return "", false
	}
	done := res.Resolve(answers)
	if !done.Ready() || len(done.Lines) != 202 {
		t.Fatalf("resolved: unmapped %+v", done.Unmapped)
	}
	if res.Ready() || res.Lines[180].Item != "" {
		t.Error("Resolve changed the result it was called on")
	}
	if l := done.Lines[181]; l.Item != "object_storage" || done.Sources[181].By != bill.MappingSKU {
		t.Errorf("line 183 resolved to %q by %q", l.Item, done.Sources[181].By)
	}
	q := tco.Quote{Currency: "USD", GPUCount: 1, Hourly: nd("2.49"), BillingGranularity: "hour", PricesIncludeTax: false, TaxRate: nd("0")}
	b := billcheck.Bill{Month: november(t), Currency: done.Currency, Instances: 2, Lines: done.Lines}
	if errs := billcheck.Validate(q, b, billcheck.Options{}); len(errs) != 0 {
		t.Errorf("the lines do not check: %+v", errs)
	}
	r, err := billcheck.Check(q, b, billcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if money.String(r.BilledTotal) != "2839.105" {
		t.Errorf("checked billed total %s", r.BilledTotal)
	}
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// TestReadFOCUSOutsideMonth: a row in December refuses the whole file,
// naming its line; the row ending on December's first instant is
// November's. Columns come in another order and case.
func TestReadFOCUSOutsideMonth(t *testing.T) {
	res, errs, err := billfile.ReadFOCUS(bytes.NewReader(readFile(t, "testdata", "focus_outside_month.csv")), november(t), nil)
	r := refused(t, err)
	if res.Lines != nil || len(errs) != 1 || r.RowErrors != 1 {
		t.Fatalf("lines %v, errors %+v; want none and one", res.Lines, errs)
	}
	e := errs[0]
	if e.Line != 5 || e.ID != billfile.MsgOutside || arg(e, "Line") != 5 || arg(e, "Month") != "2026-11" ||
		arg(e, "Start") != "2026-12-01T00:00:00Z" {
		t.Errorf("error %+v, want line 5 outside 2026-11", e)
	}
	// The same file read for December: every other row is outside.
	dec, _ := billcheck.ParseMonth("2026-12")
	_, errs, _ = billfile.ReadFOCUS(bytes.NewReader(readFile(t, "testdata", "focus_outside_month.csv")), dec, nil)
	var lines []int
	for _, e := range errs {
		lines = append(lines, e.Line)
	}
	if !slices.Equal(lines, []int{2, 3, 4, 6}) {
		t.Errorf("outside December: lines %v, want 2 3 4 6", lines)
	}
}

// focusFile is a small FOCUS file: a header and rows, each row's omitted
// columns the defaults of a fine row.
func focusFile(rows ...map[string]string) string {
	cols := []string{"BilledCost", "BillingCurrency", "ChargePeriodStart", "ChargePeriodEnd", "ChargeCategory",
		"ChargeClass", "ChargeDescription", "ConsumedQuantity", "PricingQuantity", "ContractedUnitPrice",
		"ContractedCost", "SkuId", "x_GpuquoteItem"}
	def := map[string]string{"BilledCost": "1", "BillingCurrency": "USD", "ChargePeriodStart": "2026-11-01T00:00:00Z",
		"ChargePeriodEnd": "2026-11-02T00:00:00Z", "ChargeCategory": "Usage", "ChargeDescription": "GPU hours",
		"ConsumedQuantity": "1", "x_GpuquoteItem": "compute_hourly"}
	var b strings.Builder
	b.WriteString(strings.Join(cols, ",") + "\n")
	for _, r := range rows {
		for i, c := range cols {
			if i > 0 {
				b.WriteString(",")
			}
			v, ok := r[c]
			if !ok {
				v = def[c]
			}
			b.WriteString(v)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestReadFOCUSRowProblems(t *testing.T) {
	cases := []struct {
		name string
		row  map[string]string
		col  string
		id   string
	}{
		{"tax", map[string]string{"ChargeCategory": "Tax"}, "ChargeCategory", billfile.MsgTax},
		{"category", map[string]string{"ChargeCategory": "Refund"}, "ChargeCategory", billfile.MsgCategory},
		{"currency", map[string]string{"BillingCurrency": "EUR"}, "BillingCurrency", billfile.MsgCurrency},
		{"currency code", map[string]string{"BillingCurrency": "EURO"}, "BillingCurrency", "form.error.currency"},
		{"negative quantity", map[string]string{"ConsumedQuantity": "-2"}, "ConsumedQuantity", form.MsgNegative},
		{"negative pricing quantity", map[string]string{"ConsumedQuantity": "", "PricingQuantity": "-2"}, "PricingQuantity", form.MsgNegative},
		{"cost places", map[string]string{"BilledCost": "35.2E-7"}, "BilledCost", form.MsgPlaces(6)},
		{"cost missing", map[string]string{"BilledCost": ""}, "BilledCost", form.MsgRequired},
		{"cost plus sign", map[string]string{"BilledCost": "1E+3"}, "BilledCost", form.MsgNumber},
		{"date", map[string]string{"ChargePeriodStart": "01/11/2026"}, "ChargePeriodStart", billfile.MsgDateTime},
		{"end before start", map[string]string{"ChargePeriodEnd": "2026-10-31T00:00:00Z"}, "ChargePeriodEnd", billfile.MsgPeriod},
		{"before the month", map[string]string{"ChargePeriodStart": "2026-10-31T23:00:00Z"}, "ChargePeriodStart", billfile.MsgOutside},
		{"item", map[string]string{"x_GpuquoteItem": "gpu"}, "x_GpuquoteItem", billfile.MsgItem},
		{"no key", map[string]string{"x_GpuquoteItem": "", "ChargeDescription": ""}, "", billfile.MsgNoKey},
		{"description", map[string]string{"ChargeDescription": strings.Repeat("x", 501)}, "ChargeDescription", form.MsgTooLong},
		{"sku", map[string]string{"SkuId": "a\x01"}, "SkuId", billfile.MsgText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, errs, err := billfile.ReadFOCUS(strings.NewReader(focusFile(map[string]string{}, c.row)), november(t), nil)
			refused(t, err)
			if res.Lines != nil || len(errs) != 1 || errs[0].Line != 3 || errs[0].Column != c.col || errs[0].ID != c.id {
				t.Fatalf("errors %+v, want line 3 %q %s", errs, c.col, c.id)
			}
		})
	}
	_, errs, _ := billfile.ReadFOCUS(strings.NewReader(focusFile(map[string]string{"ChargeCategory": "tax"})), november(t), nil)
	if len(errs) != 1 || arg(errs[0], "Line") != 2 {
		t.Errorf("tax row: %+v", errs)
	}
}

// TestReadFOCUSValues: E notation, dates in the forms read, a credit, the
// quantity's fallbacks, the consistency rule's rounding and exceptions.
func TestReadFOCUSValues(t *testing.T) {
	in := focusFile(
		map[string]string{"BilledCost": "1.5E-3", "ChargePeriodStart": "2026-11-01T00:00:00.000Z", "ChargePeriodEnd": "2026-11-01 01:00:00+00:00"},
		map[string]string{"BilledCost": "-25", "ChargeCategory": "credit", "ConsumedQuantity": "", "PricingQuantity": "", "ChargePeriodStart": "2026-11-01", "ChargePeriodEnd": "2026-12-01"},
		map[string]string{"ConsumedQuantity": "", "PricingQuantity": "3", "ContractedUnitPrice": "0.0033", "ContractedCost": "0.01"},
		map[string]string{"ConsumedQuantity": "2", "PricingQuantity": "3", "ContractedUnitPrice": "0.471", "ContractedCost": "1.41"},
		map[string]string{"PricingQuantity": "3", "ContractedUnitPrice": "0.471", "ContractedCost": "1.42", "ChargeClass": "Correction"},
		map[string]string{"PricingQuantity": "3", "ContractedUnitPrice": "0.471", "ContractedCost": "1.4"},
		map[string]string{"PricingQuantity": "2", "ContractedUnitPrice": "1E1", "ContractedCost": "2E1", "ChargePeriodStart": "2026-11-01T08:00:00+08:00"},
	)
	res, errs, err := billfile.ReadFOCUS(strings.NewReader(in), november(t).Add(36*time.Hour), nil)
	if err != nil {
		t.Fatalf("refused: %v %+v", err, errs)
	}
	sameLines(t, res.Lines, []billcheck.Line{
		{Item: "compute_hourly", Quantity: d("1"), Amount: d("0.0015"), Description: "GPU hours"},
		{Item: "compute_hourly", Quantity: d("0"), Amount: d("-25"), Description: "GPU hours"},
		{Item: "compute_hourly", Quantity: d("3"), Amount: d("1"), Description: "GPU hours"},
		{Item: "compute_hourly", Quantity: d("2"), Amount: d("1"), Description: "GPU hours"},
		{Item: "compute_hourly", Quantity: d("1"), Amount: d("1"), Description: "GPU hours"},
		{Item: "compute_hourly", Quantity: d("1"), Amount: d("1"), Description: "GPU hours"},
		{Item: "compute_hourly", Quantity: d("1"), Amount: d("1"), Description: "GPU hours"},
	})
	// 0.0033 × 3 = 0.0099 → 0.01 matches; 0.471 × 3 = 1.413 → 1.41
	// matches; a correction is not checked; 1.4 is 1.41 to the cent, which
	// does not.
	if !slices.Equal(res.Inconsistent, []int{7}) {
		t.Errorf("inconsistent %v, want [7]", res.Inconsistent)
	}
	if !res.Ready() {
		t.Errorf("unmapped %+v", res.Unmapped)
	}
}

func TestReadFOCUSFileProblems(t *testing.T) {
	cases := []struct {
		name, in string
		ids      []string
	}{
		{"required columns", "BilledCost,SkuId\n1,a\n", []string{"import.error.missing_columns"}},
		{"key columns", "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd\n", []string{billfile.MsgKeyColumns}},
		{"duplicate", "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,SkuId,skuid\n", []string{"import.error.duplicate_columns"}},
		{"no rows", "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,SkuId\n", []string{"import.error.empty"}},
		{"empty", "", []string{"import.error.empty"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := billfile.ReadFOCUS(strings.NewReader(c.in), november(t), nil)
			r := refused(t, err)
			var ids []string
			for _, m := range r.File {
				ids = append(ids, m.ID)
			}
			if !slices.Equal(ids, c.ids) {
				t.Errorf("file problems %v, want %v", ids, c.ids)
			}
		})
	}
	if _, _, err := billfile.ReadFOCUS(strings.NewReader(focusFile(map[string]string{})), time.Time{}, nil); err == nil {
		t.Error("a file read for no month")
	}
}

// TestReadFOCUSMappingAnswers: the SKU's answer before the description's,
// and an answer that is no bill item no answer.
func TestReadFOCUSMappingAnswers(t *testing.T) {
	in := focusFile(
		map[string]string{"x_GpuquoteItem": "", "SkuId": "a", "ChargeDescription": "both"},
		map[string]string{"x_GpuquoteItem": "", "SkuId": "bad", "ChargeDescription": "by description"},
		map[string]string{"x_GpuquoteItem": "", "SkuId": "bad", "ChargeDescription": "nothing"},
	)
	mapping := func(kind, key string) (billcheck.Item, bool) {
		switch kind + ":" + key {
		case "sku:a":
			return "egress", true
		case "description:both", "description:by description":
			return "public_ip", true
		case "sku:bad":
			return "gpu", true
		}
		return "", false
	}
	res, _, err := billfile.ReadFOCUS(strings.NewReader(in), november(t), mapping)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines[0].Item != "egress" || res.Lines[1].Item != "public_ip" || res.Lines[2].Item != "" {
		t.Errorf("items %q %q %q, want egress public_ip and none", res.Lines[0].Item, res.Lines[1].Item, res.Lines[2].Item)
	}
	if len(res.Unmapped) != 1 || res.Unmapped[0].Kind != bill.MappingSKU || res.Unmapped[0].Key != "bad" {
		t.Errorf("unmapped %+v, want the SKU bad", res.Unmapped)
	}
}
