package web

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/compare"
	"gpuquote/internal/form"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
	"gpuquote/internal/trial"
)

// Component tests: a component renders its view model in a language and
// the test reads the HTML with goquery by data-testid, as a reader would
// find it, without a server or a database.

var testCatalog = func() *i18n.Catalog {
	c, err := i18n.Load()
	if err != nil {
		panic(err)
	}
	return c
}()

// render renders c in lang and parses the result.
func render(t *testing.T, lang i18n.Lang, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	ctx := i18n.WithTranslator(context.Background(), testCatalog.Translator(lang))
	if err := c.Render(ctx, &buf); err != nil {
		t.Fatalf("render: %v", err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if strings.Contains(buf.String(), "[") && strings.Contains(buf.String(), "]") {
		// A missing message renders as [id]: every text must exist.
		doc.Find("body *").Each(func(_ int, s *goquery.Selection) {
			if own := s.Contents().Not("*").Text(); strings.HasPrefix(strings.TrimSpace(own), "[") && strings.Contains(own, ".") {
				t.Errorf("untranslated text %q", strings.TrimSpace(own))
			}
		})
	}
	return doc
}

// byID finds the one element with data-testid id.
func byID(t *testing.T, doc *goquery.Document, id string) *goquery.Selection {
	t.Helper()
	s := doc.Find(`[data-testid="` + id + `"]`)
	if s.Length() != 1 {
		t.Fatalf("%d elements with data-testid %q", s.Length(), id)
	}
	return s
}

func text(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(dec(s)) }

var today = time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)

// TestLayoutShowsTheNavigationItIsGiven: the layout draws exactly the
// entries the server kept for the reader (their route policies decide),
// and marks the most specific one as the current page.
func TestLayoutShowsTheNavigationItIsGiven(t *testing.T) {
	p := Page{Title: "x", Path: "/reports/inbox", User: &User{ID: 1, Name: "Fin"},
		Nav: []NavItem{NavItems[0], NavItems[7], NavItems[8]}}
	doc := render(t, i18n.EN, Layout(p))
	if n := doc.Find(`nav [data-testid^="nav-"]`).Length(); n != 3 {
		t.Fatalf("%d navigation entries, want 3", n)
	}
	if _, ok := byID(t, doc, "nav-report-inbox").Attr("aria-current"); !ok {
		t.Error("the inbox is not the current page")
	}
	if _, ok := byID(t, doc, "nav-reports").Attr("aria-current"); ok {
		t.Error("the report list is marked current inside the inbox")
	}
	if doc.Find(`[data-testid="nav-prices"]`).Length() != 0 {
		t.Error("an entry the reader was not given is drawn")
	}
}

// TestFieldErrorsAreTranslatedWithTheirArguments: a form problem names its
// bounds in the reader's language, beside its field.
func TestFieldErrorsAreTranslatedWithTheirArguments(t *testing.T) {
	r := form.Values(url.Values{"tdp_w": {"0"}, "name": {"H200"}})
	r.Int("tdp_w", 1, 1000000, false)
	f := GPUFormTyped(0, r.Raw)
	f.Errors = r.Errs
	for lang, want := range map[i18n.Lang]string{i18n.EN: "Enter a number from 1 to 1,000,000.", i18n.ZH: "请输入 1 到 1,000,000 之间的数。"} {
		doc := render(t, lang, GPUFormPage(f))
		if got := text(byID(t, doc, "error-tdp_w")); got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
		if v, _ := doc.Find(`input[name="tdp_w"]`).Attr("aria-invalid"); v != "true" {
			t.Errorf("%s: the input is not marked invalid", lang)
		}
		byID(t, doc, "form-errors")
	}
}

// hostkey is the guides' HOSTKEY tier with its custom package price.
func hostkey() quote.Quote {
	q := quote.Quote{ID: 7, SeriesID: 7, Version: 1, State: quote.Published, PlatformNameEN: "HOSTKEY", PlatformNameZH: "HOSTKEY",
		GPUVendor: "AMD", GPUName: "Radeon AI PRO R9700", GPUCount: 1, Sharing: "dedicated", Currency: "EUR",
		Hourly: nd("0.471"), Monthly: nd("284"), BillingGranularity: "second", PricesIncludeTax: true,
		AsOf: today.AddDate(0, 0, -3), Source: "https://hostkey.example/gpu"}
	for _, it := range catalog.Items {
		q.Lines = append(q.Lines, quote.Line{Item: string(it.Key), Status: "included", InWriting: true})
	}
	return q
}

// TestQuotePageShowsBreakEvenAndExamples: the engine's figures for the
// quote alone, as its page shows them (the guides' 602.97 h and the
// 50 / 200 / 730 h examples).
func TestQuotePageShowsBreakEvenAndExamples(t *testing.T) {
	q := hostkey()
	ex, err := quote.Examples(q, today)
	if err != nil {
		t.Fatal(err)
	}
	v := NewQuoteDetailView(testCatalog.Translator(i18n.EN), QuoteRecords{Quote: q, Examples: ex, Today: today,
		Versions: []quote.Version{{ID: 7, Version: 1, State: quote.Published, AsOf: q.AsOf, Currency: "EUR", Hourly: q.Hourly}}})
	doc := render(t, i18n.EN, QuoteDetail(v))
	if got := text(byID(t, doc, "break-even-hours")); !strings.Contains(got, "602.97") {
		t.Errorf("break-even %q", got)
	}
	rows := byID(t, doc, "quote-examples").Find("tbody tr")
	var got []string
	rows.Each(func(_ int, r *goquery.Selection) { got = append(got, text(r.Find("td").Eq(1))) })
	if strings.Join(got, " | ") != "€23.55 | €94.20 | €343.83" {
		t.Errorf("hourly examples %q", got)
	}
	if text(byID(t, doc, "quote-title")) != "HOSTKEY · AMD Radeon AI PRO R9700 × 1" {
		t.Errorf("title %q", text(byID(t, doc, "quote-title")))
	}
}

// TestQuoteTermsFollowTheFieldList: the quote page shows each fact by its
// kind — amounts in the quote's currency, choices by label, "not stated"
// where a choice may be open — and leaves out a tax rate for prices that
// include tax.
func TestQuoteTermsFollowTheFieldList(t *testing.T) {
	q := hostkey()
	q.TaxRate = dec("0.06")
	q.Deposit = nd("100")
	q.SLAAvailabilityPct = nd("99.9")
	money := func(d decimal.NullDecimal) string { return FormatMoney(i18n.EN, d, q.Currency) }
	terms := map[string]QuoteTerm{}
	for _, term := range QuoteTerms(q, money) {
		terms[term.LabelID] = term
	}
	want := map[string]string{"calc.quote.hourly": "€0.471", "calc.quote.deposit": "€100.00",
		"quote.field.sla_availability_pct": "99.9", "calc.quote.commitment_months": "0"}
	for label, value := range want {
		if terms[label].Value != value {
			t.Errorf("%s: %q, want %q", label, terms[label].Value, value)
		}
	}
	wantIDs := map[string]string{"quote.field.invoice_type": "calc.unstated", "calc.quote.deposit_refundable": "calc.unstated",
		"calc.quote.sharing": "sharing.dedicated", "calc.quote.billing_granularity": "granularity.second",
		"calc.quote.prices_include_tax": "calc.tax.included"}
	for label, id := range wantIDs {
		if terms[label].ValueID != id {
			t.Errorf("%s: %q, want %q", label, terms[label].ValueID, id)
		}
	}
	if _, shown := terms["calc.quote.tax_rate"]; shown {
		t.Error("a tax rate is shown for prices that include tax")
	}
	q.PricesIncludeTax = false
	for _, term := range QuoteTerms(q, money) {
		if term.LabelID == "calc.quote.tax_rate" && term.Value != "0.06" {
			t.Errorf("tax rate %q", term.Value)
		}
	}
}

// TestQuoteFormHasEveryField: the entry form lays out every field of a
// quote exactly once, in its group, and the twelve lines.
func TestQuoteFormHasEveryField(t *testing.T) {
	sections, lines := QuoteForm(quote.Values(hostkey()), nil, nil, nil)
	v := QuoteFormView{IsNew: true, Action: "/quotes", Sections: sections, Lines: lines}
	doc := render(t, i18n.ZH, QuoteFormPage(v))
	for _, f := range quote.Fields {
		if n := doc.Find(`[name="` + f.Name + `"]`).Length(); n != 1 {
			t.Errorf("%d inputs named %s", n, f.Name)
		}
	}
	for _, it := range catalog.Items {
		byID(t, doc, "line-"+string(it.Key))
	}
	if v, _ := doc.Find(`[name="hourly"]`).Attr("value"); v != "0.471" {
		t.Errorf("hourly shows %q", v)
	}
}

// TestPlatformPageSaysHowLongItOperated: years by calendar year, worded
// per language.
func TestPlatformPageSaysHowLongItOperated(t *testing.T) {
	since, yes := 2021, true
	p := market.Platform{ID: 3, NameZH: "示例云", NameEN: "Example Cloud", Currency: "CNY", OperatingSince: &since, MLPS3: &yes}
	v := NewPlatformView(p, today, false)
	for lang, want := range map[i18n.Lang]string{i18n.EN: "Since 2021, about 5 years"} {
		doc := render(t, lang, Platform(v))
		if got := text(byID(t, doc, "platform-years")); !strings.Contains(got, want) {
			t.Errorf("%s: %q", lang, got)
		}
		if doc.Find(`[data-testid="platform-edit"]`).Length() != 0 {
			t.Errorf("%s: an edit link for a reader who may not edit", lang)
		}
	}
}

// TestGPUPageWordsOpenRanges: one end of a range reads "at most".
func TestGPUPageWordsOpenRanges(t *testing.T) {
	max := 700
	g := market.GPUModel{ID: 2, Vendor: "NVIDIA", Name: "H200", VRAMGB: dec("141"), Interconnect: "nvlink", LoadPowerMaxW: &max,
		Perf: []market.GPUPerf{{Precision: "tf32", NominalTFLOPS: dec("494.7"), NominalSource: "datasheet"}}}
	tr := testCatalog.Translator(i18n.ZH)
	doc := render(t, i18n.ZH, GPU(NewGPUView(g, tr, true)))
	if got := text(byID(t, doc, "gpu-load-power")); !strings.Contains(got, "不高于 700") {
		t.Errorf("load power %q", got)
	}
	if got := text(byID(t, doc, "gpu-perf")); !strings.Contains(got, "TF32") || !strings.Contains(got, "494.7") {
		t.Errorf("perf row %q", got)
	}
	byID(t, doc, "gpu-edit")
}

// TestTrialPageNamesTheExitAndItsEvidence: a failed day-1 check is the
// exit reason with the evidence that decided it; the latest recording of a
// check is its state, the older ones its history.
func TestTrialPageNamesTheExitAndItsEvidence(t *testing.T) {
	at := today.Add(10 * time.Hour)
	in := TrialRecords{Today: today,
		Trial: trial.Trial{ID: 4, PlatformNameEN: "AutoDL", GPUVendor: "NVIDIA", GPUName: "RTX 3090", QuoteGPUCount: 1,
			StartedOn: today, Verdict: trial.Exit},
		Results: []trial.Result{
			{ID: 1, Check: 1, State: trial.Pass, RecordedAt: at},
			{ID: 2, Check: 1, State: trial.Fail, Measured: "RTX 3080", RecordedAt: at.Add(time.Minute)},
			{ID: 3, Check: 11, State: trial.Pass, RecordedAt: at}}}
	v := NewTrialView(testCatalog.Translator(i18n.EN), in)
	if len(v.ExitReasons) != 1 || v.ExitReasons[0].Number != 1 || !strings.Contains(strings.Join(v.ExitReasons[0].Evidence, " "), "RTX 3080") {
		t.Fatalf("exit reasons %+v", v.ExitReasons)
	}
	doc := render(t, i18n.EN, Trial(v))
	check := byID(t, doc, "check-1")
	if !strings.Contains(text(check), "RTX 3080") {
		t.Errorf("check 1 does not show its latest recording: %q", text(check))
	}
	if v.Phases[0].Checks[0].Latest.State != "fail" || len(v.Phases[0].Checks[0].History) != 1 {
		t.Errorf("check 1: latest %s, history %d", v.Phases[0].Checks[0].Latest.State, len(v.Phases[0].Checks[0].History))
	}
}

// TestCompareTableShowsEachRowsFigures: the comparison's rows as the
// table shows them, from the engine's rows (the compare page and a saved
// report draw the same table): the cheaper offer marked, its chosen mode
// and TCO in the report currency, and a ruled-out offer greyed with its
// reason.
func TestCompareTableShowsEachRowsFigures(t *testing.T) {
	a, b := hostkey(), hostkey()
	b.ID, b.SeriesID, b.Monthly = 8, 8, nd("70")
	spot := hostkey()
	spot.ID, spot.SeriesID, spot.Hourly, spot.Monthly, spot.SpotHourly = 9, 9, decimal.NullDecimal{}, decimal.NullDecimal{}, nd("0.2")
	gpu := market.GPUModel{ID: 1, Vendor: "AMD", Name: "Radeon AI PRO R9700", VRAMGB: dec("32")}
	in := compare.Input{Profile: tco.Profile{HoursPerMonth: dec("200"), Months: 1, Instances: 1}, ReportCurrency: "EUR", Today: today}
	rows := compare.Run([]compare.Candidate{{Quote: a, GPU: gpu}, {Quote: b, GPU: gpu}, {Quote: spot, GPU: gpu}}, in)
	compare.Sort(rows, compare.SortTCO, false)
	var v CompareView
	tr := testCatalog.Translator(i18n.EN)
	CompareTable(tr, &v, rows, in, url.Values{}, compare.SortTCO, false)
	v.Page = Page{Title: "Compare"}
	doc := render(t, i18n.EN, Compare(v))
	for _, f := range []struct{ row, name, want string }{{"row-7", "tco", "€94.20"}, {"row-8", "tco", "€70.00"}, {"row-8", "chosen", "Monthly"}} {
		if got := text(byID(t, doc, f.row).Find(`[data-testid="` + f.name + `"]`)); !strings.Contains(got, f.want) {
			t.Errorf("%s %s: %q, want %q", f.row, f.name, got, f.want)
		}
	}
	if got := text(byID(t, doc, "row-9")); !strings.Contains(got, tr.T(compare.ReasonSpotOnly)) {
		t.Errorf("the spot-only offer does not say why it is out: %q", got)
	}
	order := doc.Find(`[data-testid="compare-table"] tbody[data-testid^="row-"]`).Map(func(_ int, s *goquery.Selection) string {
		id, _ := s.Attr("data-testid")
		return id
	})
	if strings.Join(order, ",") != "row-8,row-7,row-9" {
		t.Errorf("table order %v", order)
	}
}
