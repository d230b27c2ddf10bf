package compare_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"gpuquote/internal/compare"
	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/tco"
)

var ownDay = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// ownComparison is a hand-made comparison of one EUR rental and two
// own-hardware options: a priced one with every input set and a sampled
// electricity price, and one that could not be priced.
func ownComparison(t *testing.T) *compare.Comparison {
	t.Helper()
	p := tco.Profile{HoursPerMonth: dec("200"), Months: 12, Instances: 1}
	in := compare.Input{Profile: p, ReportCurrency: "EUR", Today: ownDay, Rates: map[string]tco.FX{"CNY": {Rate: dec("0.13"), Date: ownDay.AddDate(0, 0, -2)}}}
	q := quote.Quote{ID: 41, SeriesID: 40, Version: 2, State: quote.Published, PlatformID: 3, PlatformNameZH: "示例云",
		PlatformNameEN: "Example", GPUModelID: 1, GPUVendor: "NVIDIA", GPUName: "RTX 4090", GPUCount: 1, Sharing: "dedicated",
		Currency: "EUR", Hourly: decimal.NewNullDecimal(dec("0.5")), BillingGranularity: "second", PricesIncludeTax: true,
		AsOf: ownDay.AddDate(0, 0, -3), Source: "test"}
	rows := compare.Run([]compare.Candidate{{Quote: q, GPU: market.GPUModel{ID: 1, Vendor: "NVIDIA", Name: "RTX 4090",
		VRAMGB: dec("24"), Interconnect: "pcie"}}}, in)
	v := own.Version{ID: 7, OptionID: 3, Version: 2, Name: "RTX 4090 工作站", GPUModelID: 1, GPUCount: 2, Currency: "CNY",
		PurchasePrice: dec("25000.5"), PurchaseAsOf: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC), PurchaseSource: "JD, 2026-11",
		ResidualPct: dec("20.5"), LifeMonths: 30, PowerLoadW: dec("450.25"), PowerIdleW: dec("60.5"), PUE: dec("1.35"),
		ElectricityRegion: "CN-Beijing", KWhPrice: decimal.NewNullDecimal(dec("0.7")), AlwaysOn: true,
		HostingMonthly: dec("300"), OpsMonthly: dec("150.75"), MaintenancePctPerYear: dec("3.5"), SetupOneOff: dec("800"),
		CapitalRatePerYear: dec("0.05"), PricesIncludeTax: true, TaxRate: decimal.NewNullDecimal(dec("0.13")),
		Notes: "机柜在办公室\n第二行", CreatedBy: 9, CreatedAt: ownDay, CreatedByName: "someone", GPUVendor: "NVIDIA", GPUName: "RTX 4090"}
	e := own.Electricity{KWhPrice: dec("0.6123"), SampleID: 12, Region: "CN-Beijing", AsOf: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), Source: "国网北京"}
	res, err := tco.EvaluateOwn(v.Engine(e.KWhPrice), p, tco.Options{ReportCurrency: "EUR", FXRate: decimal.NewNullDecimal(dec("0.13")),
		FXDate: ownDay.AddDate(0, 0, -2)})
	if err != nil {
		t.Fatal(err)
	}
	priced := compare.OwnRow{OwnCandidate: compare.OwnCandidate{Version: v, Electricity: e}, Priced: true, Result: res,
		Crossings:   []compare.OwnCrossing{{QuoteID: 41, Crossings: tco.Crossings{FromMonth: 31, FromHours: 0}}},
		Sensitivity: []compare.OwnVariant{{Key: "electricity_50", TCO: dec("4100.12")}, {Key: "life_48", TCO: dec("3900")}}}
	broken := compare.OwnRow{OwnCandidate: compare.OwnCandidate{Version: own.Version{ID: 8, OptionID: 4, Version: 1, Name: "no power",
		Currency: "USD", GPUCount: 1, ElectricityRegion: "US-CA"}},
		Errors: []tco.FieldError{{Field: "own.kwh_price", Code: "no_electricity_sample", MessageID: "compare.own.no_electricity",
			Args: map[string]any{"Region": "US-CA"}}}}
	values := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"12"}, "profile.instances": {"1"},
		"report_currency": {"EUR"}, "q": {"41"}, compare.OwnParam: {"7", "99", "8", "7"}}
	return &compare.Comparison{Values: values, In: in, Rows: rows, SortKey: compare.SortTCO, Own: []compare.OwnRow{priced, broken}}
}

// sameValue compares two values field by field, decimals by value and
// times by instant; what differs is reported by path.
func sameValue(t *testing.T, path string, a, b reflect.Value) {
	t.Helper()
	switch x := a.Interface().(type) {
	case decimal.Decimal:
		if !x.Equal(b.Interface().(decimal.Decimal)) {
			t.Errorf("%s: %s, want %s", path, b.Interface(), x)
		}
		return
	case time.Time:
		if !x.Equal(b.Interface().(time.Time)) {
			t.Errorf("%s: %v, want %v", path, b.Interface(), x)
		}
		return
	}
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			sameValue(t, path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
		}
	case reflect.Slice:
		if a.Len() != b.Len() {
			t.Errorf("%s: %d elements, want %d", path, b.Len(), a.Len())
			return
		}
		for i := range a.Len() {
			sameValue(t, path+"[]", a.Index(i), b.Index(i))
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			t.Errorf("%s: %d keys, want %d", path, b.Len(), a.Len())
			return
		}
		for _, k := range a.MapKeys() {
			// Message arguments are kept as the text they render as.
			if got, want := b.MapIndex(k), a.MapIndex(k); !got.IsValid() || got.Elem().String() != want.Elem().String() {
				t.Errorf("%s[%v]: %v, want %v", path, k, got, want)
			}
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			t.Errorf("%s: %v, want %v", path, b.Interface(), a.Interface())
		}
	}
}

// TestFreezeThawOwnKeepsEveryField: own-hardware options frozen into a
// snapshot and read back through JSON, as stored, have every input of the
// option version, the electricity price with its sample, every figure,
// crossing, variant and error they had (docs/RULES.md §11.7); the page
// state keeps each compared version once. A field added to own.Version
// but not to the frozen copy fails here.
func TestFreezeThawOwnKeepsEveryField(t *testing.T) {
	cmp := ownComparison(t)
	// Every field of the test version is set, so none can be lost unseen.
	notInputs := []string{"CreatedBy", "CreatedAt", "CreatedByName"}
	rv := reflect.ValueOf(cmp.Own[0].Version)
	for i := range rv.NumField() {
		if rv.Field(i).IsZero() && !slices.Contains(notInputs, rv.Type().Field(i).Name) {
			t.Fatalf("the test leaves own.Version.%s unset", rv.Type().Field(i).Name)
		}
	}
	raw, err := json.Marshal(compare.Freeze(cmp, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"purchase_price", "kwh_price", "tco", "upfront_cash", "amount", "fx_rate"} {
		if bytes.Contains(raw, []byte(`"`+key+`":0`)) || bytes.Contains(raw, []byte(`"`+key+`":1`)) ||
			bytes.Contains(raw, []byte(`"`+key+`":2`)) {
			t.Errorf("%s is written as a JSON number", key)
		}
	}
	snap, err := report.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Values[compare.OwnParam]; !slices.Equal(got, []string{"7", "8"}) {
		t.Errorf("page state own = %v, want the compared versions once each", got)
	}
	back := compare.ThawOwn(snap)
	want := slices.Clone(cmp.Own)
	for i := range want {
		// The author and the saving time are not inputs; the cost curve
		// is drawn, not frozen.
		want[i].Version.CreatedBy, want[i].Version.CreatedAt, want[i].Version.CreatedByName = 0, time.Time{}, ""
		want[i].Curve = compare.OwnCurve{}
	}
	if len(back) != len(want) {
		t.Fatalf("%d own rows back, want %d", len(back), len(want))
	}
	for i := range want {
		sameValue(t, "own["+want[i].Version.Name+"]", reflect.ValueOf(want[i]), reflect.ValueOf(back[i]))
	}
	if back[0].Result.TCO.IsZero() || len(back[0].Result.Lines) != 7 {
		t.Errorf("the priced option's figures: %+v", back[0].Result)
	}
	// Written again, the snapshot is the same bytes.
	again, _ := json.Marshal(snap)
	if !bytes.Equal(raw, again) {
		t.Error("a snapshot with own options read back writes differently")
	}
}

// TestSnapshotWithoutOwnIsUnchanged: a comparison without own-hardware
// options freezes with no "own" at all, and its exports hold the two
// tables and two sheets they always did (docs/RULES.md §11.1, §11.7).
func TestSnapshotWithoutOwnIsUnchanged(t *testing.T) {
	cmp := ownComparison(t)
	cmp.Own = nil
	snap := compare.Freeze(cmp, nil)
	raw, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(`"own"`)) {
		t.Errorf("a snapshot without own options names them: %s", raw)
	}
	tr := func(id string, _ map[string]any) string { return id }
	name := func(r report.Row) string { return r.Quote.Label }
	doc := report.BuildDocument(snap, nil, tr, name)
	var csvOut, xlsxOut bytes.Buffer
	if err := report.WriteCSV(&csvOut, doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(csvOut.String(), "report.col.own_option") {
		t.Error("the CSV of a report without own options has an own-hardware table")
	}
	if err := report.WriteXLSX(&xlsxOut, doc); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&xlsxOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if sheets := f.GetSheetList(); len(sheets) != 2 {
		t.Errorf("sheets %v, want the summary and the lines only", sheets)
	}

	// With own options: a third sheet and two more CSV tables, written
	// the same bytes every time.
	withOwn := compare.Freeze(ownComparison(t), nil)
	doc = report.BuildDocument(withOwn, nil, tr, name)
	var first []byte
	for i := range 3 {
		var c, x bytes.Buffer
		if err := report.WriteCSV(&c, doc); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteXLSX(&x, doc); err != nil {
			t.Fatal(err)
		}
		both := append(c.Bytes(), x.Bytes()...)
		if i == 0 {
			first = both
			if !strings.Contains(c.String(), "report.col.own_option") || !strings.Contains(c.String(), "RTX 4090 工作站") {
				t.Errorf("the CSV lacks the own-hardware table:\n%s", c.String())
			}
			f, err := excelize.OpenReader(&x)
			if err != nil {
				t.Fatal(err)
			}
			if sheets := f.GetSheetList(); len(sheets) != 3 {
				t.Errorf("sheets %v, want a third for own hardware", sheets)
			}
			f.Close()
		} else if !bytes.Equal(first, both) {
			t.Fatalf("export %d differs from the first", i+1)
		}
	}
}
