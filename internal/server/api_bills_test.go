package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/billcheck"
	"gpuquote/internal/market"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// The bill check API (POST /api/v1/bills/check): a quote as the
// evaluation API takes it and a vendor's bill for one month, answered line
// by line by the quote's rules, stored nowhere.

const billCheckPath = "/api/v1/bills/check"

// goldenBill1 is the first golden bill (docs/RULES.md §23.7): an EUR quote,
// hourly 0.471 by the second, the public IP charged 3.00 a month, egress
// included, the data disk unconfirmed, and its bill for November 2026.
const goldenBill1 = `{
  "quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "billing_granularity": "second",
            "prices_include_tax": true,
            "lines": [{"item": "public_ip", "status": "charged", "unit": "per_month", "unit_price": "3.00"},
                      {"item": "egress", "status": "included"},
                      {"item": "data_disk", "status": "unconfirmed"}]},
  "bill": {"month": "2026-11", "currency": "EUR", "prices_include_tax": true, "instances": 1,
           "lines": [{"item": "compute_hourly", "quantity": "200", "amount": "94.20", "description": "RTX 4090 on demand"},
                     {"item": "public_ip", "quantity": "1", "amount": "3.50"},
                     {"item": "egress", "quantity": "120", "amount": "1.20"},
                     {"item": "data_disk", "quantity": "100", "amount": "4.00"}]}}`

// goldenBill2 is the second: a CNY quote by the minute, the data disk
// charged 0.01 a GB-day over 50 GB free, stopped retention 0.10 an hour.
const goldenBill2 = `{
  "quote": {"currency": "CNY", "gpu_count": 1, "hourly": "1.98", "billing_granularity": "minute",
            "prices_include_tax": true,
            "lines": [{"item": "data_disk", "status": "charged", "unit": "per_day", "unit_price": "0.01", "free_allowance": "50"},
                      {"item": "stopped_retention", "status": "charged", "unit": "per_hour", "unit_price": "0.10"}]},
  "bill": {"month": "2026-11", "currency": "CNY", "prices_include_tax": true,
           "lines": [{"item": "compute_hourly", "quantity": "312.5", "amount": "618.75"},
                     {"item": "data_disk", "quantity": "6000", "amount": "45.00"},
                     {"item": "stopped_retention", "quantity": "417.5", "amount": "41.75"}]}}`

// goldenBill3 is the third: a CNY quote of 3000 a month before 6 % tax,
// billed with tax; amount is what the vendor billed.
func goldenBill3(amount string) string {
	return `{
  "quote": {"currency": "CNY", "gpu_count": 1, "monthly": "3000", "prices_include_tax": false, "tax_rate": "0.06"},
  "bill": {"month": "2026-11", "currency": "CNY", "prices_include_tax": true,
           "lines": [{"item": "compute_monthly", "quantity": "1", "amount": "` + amount + `"}]}}`
}

// billLine is a checked line's figures as the golden bills state them: ""
// for null.
type billLine struct {
	expected, allowance, variance, verdict string
}

// billAnswer is the part of an answer the golden bills state.
type billAnswer struct {
	Month    string `json:"month"`
	Days     int    `json:"days"`
	Currency string `json:"currency"`
	FXRate   string `json:"fx_rate"`
	Lines    []struct {
		Item              string  `json:"item"`
		Billed            string  `json:"billed"`
		Expected          *string `json:"expected"`
		Allowance         *string `json:"allowance"`
		Variance          *string `json:"variance"`
		Verdict           string  `json:"verdict"`
		ReferenceExpected *string `json:"reference_expected"`
	} `json:"lines"`
	BilledTotal      string `json:"billed_total"`
	ExpectedTotal    string `json:"expected_total"`
	OverchargeTotal  string `json:"overcharge_total"`
	UnderchargeTotal string `json:"undercharge_total"`
	UnquotedTotal    string `json:"unquoted_total"`
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkBill posts body to the bill check and reads its 200 answer.
func checkBill(t *testing.T, app *testutil.App, body string) billAnswer {
	t.Helper()
	r := apiCall(t, app, http.MethodPost, billCheckPath, "", body, "Accept-Language", "en")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", cc)
	}
	var a billAnswer
	if err := json.Unmarshal([]byte(r.Body), &a); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
	return a
}

// wantBill compares an answer's lines and its five totals (billed,
// expected, overcharge, undercharge, unquoted) with the golden figures,
// to the cent.
func wantBill(t *testing.T, a billAnswer, lines []billLine, totals [5]string) {
	t.Helper()
	if a.Month != "2026-11" || a.Days != 30 || a.FXRate != "1" {
		t.Errorf("month %s, %d days, fx_rate %s; want 2026-11, 30, 1", a.Month, a.Days, a.FXRate)
	}
	if len(a.Lines) != len(lines) {
		t.Fatalf("%d lines, want %d", len(a.Lines), len(lines))
	}
	for i, w := range lines {
		l := a.Lines[i]
		got := billLine{orEmpty(l.Expected), orEmpty(l.Allowance), orEmpty(l.Variance), l.Verdict}
		if got != w {
			t.Errorf("line %d (%s): %+v, want %+v", i, l.Item, got, w)
		}
	}
	got := [5]string{a.BilledTotal, a.ExpectedTotal, a.OverchargeTotal, a.UnderchargeTotal, a.UnquotedTotal}
	if got != totals {
		t.Errorf("totals (billed, expected, over, under, unquoted) %v, want %v", got, totals)
	}
}

// TestBillCheckAPIGoldenBills: the three golden bills of docs/RULES.md
// §23.7 through the HTTP API, every line's expected amount, allowance,
// variance and verdict and the five totals to the cent.
func TestBillCheckAPIGoldenBills(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)

	a := checkBill(t, app, goldenBill1)
	wantBill(t, a, []billLine{
		{"94.20", "", "0.00", "match"},
		{"3.00", "0", "0.50", "overcharged"},
		{"0.00", "", "1.20", "charged_though_included"},
		{"", "", "", "hidden_cost_appeared"},
	}, [5]string{"102.90", "97.20", "1.70", "0.00", "4.00"})
	if a.Currency != "EUR" {
		t.Errorf("currency %s", a.Currency)
	}

	// 312.5 h × 1.98; 6000 GB-days less 50 × 1 × 30 free = 4500 × 0.01;
	// 417.5 h × 0.10.
	wantBill(t, checkBill(t, app, goldenBill2), []billLine{
		{"618.75", "", "0.00", "match"},
		{"45.00", "1500", "0.00", "match"},
		{"41.75", "0", "0.00", "match"},
	}, [5]string{"705.50", "705.50", "0.00", "0.00", "0.00"})

	// 3000 before tax, billed with 6 % tax: 3180.00.
	wantBill(t, checkBill(t, app, goldenBill3("3180.00")), []billLine{{"3180.00", "", "0.00", "match"}},
		[5]string{"3180.00", "3180.00", "0.00", "0.00", "0.00"})
	wantBill(t, checkBill(t, app, goldenBill3("3000.00")), []billLine{{"3180.00", "", "-180.00", "undercharged"}},
		[5]string{"3000.00", "3180.00", "0.00", "-180.00", "0.00"})

	// A billed amount of more places than the cent is answered exactly.
	a = checkBill(t, app, goldenBill3("3180.004"))
	if l := a.Lines[0]; l.Billed != "3180.004" || orEmpty(l.Variance) != "0.004" || l.Verdict != "match" || a.BilledTotal != "3180.004" {
		t.Errorf("billed 3180.004: %+v, total %s", l, a.BilledTotal)
	}
}

// TestBillCheckAPINamesEveryField: a month that does not exist, an
// unknown item, a negative quantity and a missing amount are refused at
// once, each at its path with its code, in Chinese by default and in
// English on request, the two wordings different.
func TestBillCheckAPINamesEveryField(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	body := `{
  "quote": {"currency": "EUR", "gpu_count": 1, "hourly": "0.471", "billing_granularity": "second", "prices_include_tax": true},
  "bill": {"month": "2026-13", "currency": "EUR", "prices_include_tax": true,
           "lines": [{"item": "compute_hourly", "quantity": "200", "amount": "94.20"},
                     {"item": "gpu_rent", "quantity": "1", "amount": "1.00"},
                     {"item": "egress", "quantity": "-5", "amount": "0"},
                     {"item": "public_ip", "quantity": "1"}]}}`
	want := map[string]string{
		"bill.month":             "invalid_month",
		"bill.lines[1].item":     "unknown_bill_item",
		"bill.lines[2].quantity": "negative",
		"bill.lines[3].amount":   "required",
	}
	messages := map[string]map[string]string{}
	for _, lang := range []string{"", "zh-CN", "en"} {
		var header []string
		if lang != "" {
			header = []string{"Accept-Language", lang}
		}
		r := apiCall(t, app, http.MethodPost, billCheckPath, "", body, header...)
		if r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%q: %d %s", lang, r.StatusCode, r.Body)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%q: Cache-Control %q", lang, cc)
		}
		got := map[string]string{}
		messages[lang] = map[string]string{}
		for _, e := range apiErrorsOf(t, r).Errors {
			got[e.Field] = e.Code
			messages[lang][e.Field] = e.Message
			if strings.TrimSpace(e.Message) == "" {
				t.Errorf("%q: %s has no message", lang, e.Field)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v, want exactly %v", lang, got, want)
		}
	}
	han := regexp.MustCompile(`\p{Han}`)
	for field := range want {
		zh, en := messages["zh-CN"][field], messages["en"][field]
		if messages[""][field] != zh {
			t.Errorf("%s: the default %q is not the Chinese %q", field, messages[""][field], zh)
		}
		if zh == en || !han.MatchString(zh) || han.MatchString(en) {
			t.Errorf("%s: zh-CN %q and en %q", field, zh, en)
		}
	}
	if m := messages["en"]["bill.lines[1].item"]; !strings.Contains(m, "gpu_rent") {
		t.Errorf("the unknown item is not named: %q", m)
	}

	// The body's own problems are the evaluation API's: a decimal sent as
	// a number, a field the bill does not have, a bill missing whole.
	for _, tc := range []struct{ body, field, code string }{
		{strings.Replace(goldenBill1, `"amount": "3.50"`, `"amount": 3.50`, 1), "bill.lines[1].amount", "decimal_as_number"},
		{strings.Replace(goldenBill1, `"instances": 1`, `"instance": 1`, 1), "bill.instance", "unknown_field"},
		{`{"quote": {"currency": "EUR", "gpu_count": 1, "monthly": "70", "prices_include_tax": true}}`, "bill", "required"},
	} {
		r := apiCall(t, app, http.MethodPost, billCheckPath, "", tc.body, "Accept-Language", "en")
		if r.StatusCode != http.StatusUnprocessableEntity || !hasFieldError(apiErrorsOf(t, r), tc.field, tc.code) {
			t.Errorf("%s %s: %d %s", tc.field, tc.code, r.StatusCode, r.Body)
		}
	}
}

// TestBillCheckAPIUsesTheRateOfTheMonthsLastDay: a CNY quote checked
// against a EUR bill without fx_rate is converted at the server's rate in
// force on the month's last day (not a later one); reference prices in the
// quote's currency price the unconfirmed line the same way; a month before
// any rate held is refused naming fx_rate.
func TestBillCheckAPIUsesTheRateOfTheMonthsLastDay(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	for _, r := range []market.FXRate{
		{Base: "CNY", Quote: "EUR", Rate: decimal.RequireFromString("0.128"), AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{Base: "CNY", Quote: "EUR", Rate: decimal.RequireFromString("0.13"), AsOf: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)},
		{Base: "CNY", Quote: "EUR", Rate: decimal.RequireFromString("0.2"), AsOf: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
	} {
		r.Source = "test"
		if _, err := st.CreateFXRate(context.Background(), user.SystemActor, r); err != nil {
			t.Fatal(err)
		}
	}
	app := testutil.NewAppOn(t, st)
	body := func(month string) string {
		return `{"quote": {"currency": "CNY", "gpu_count": 1, "monthly": "3000", "prices_include_tax": false, "tax_rate": "0.06"},
  "reference_prices": [{"item": "data_disk", "unit": "per_month", "unit_price": "0.5"}],
  "bill": {"month": "` + month + `", "currency": "EUR", "prices_include_tax": true,
           "lines": [{"item": "compute_monthly", "quantity": "1", "amount": "413.40"},
                     {"item": "data_disk", "quantity": "100", "amount": "6.00"}]}}`
	}
	// 3000 × 1.06 × 0.13 = 413.40; 0.5 × 100 × 1.06 × 0.13 = 6.89.
	a := checkBill(t, app, body("2026-11"))
	if a.FXRate != "0.13" || a.Currency != "EUR" || len(a.Lines) != 2 {
		t.Fatalf("%+v, want fx_rate 0.13 (the rate of 30 November)", a)
	}
	if l := a.Lines[0]; orEmpty(l.Expected) != "413.40" || l.Verdict != "match" {
		t.Errorf("compute: %+v", l)
	}
	if l := a.Lines[1]; orEmpty(l.ReferenceExpected) != "6.89" || l.Expected != nil || l.Verdict != "hidden_cost_appeared" {
		t.Errorf("data disk: %+v", l)
	}
	r := apiCall(t, app, http.MethodPost, billCheckPath, "", body("2026-10"), "Accept-Language", "en")
	if r.StatusCode != http.StatusUnprocessableEntity || !hasFieldError(apiErrorsOf(t, r), "fx_rate", "fx_rate_required") {
		t.Errorf("October, before any rate: %d %s", r.StatusCode, r.Body)
	}
	// A rate sent is used as sent.
	sent := strings.Replace(body("2026-10"), `"reference_prices"`, `"fx_rate": "0.13", "reference_prices"`, 1)
	if a := checkBill(t, app, sent); a.FXRate != "0.13" || orEmpty(a.Lines[0].Expected) != "413.40" {
		t.Errorf("sent rate: %+v", a)
	}
}

// TestBillCheckAPIExamplesAreItsAnswers: the example request of the
// description answers exactly the example answer beside it, and docs/API.md
// shows that answer under its bill check example, so neither can drift
// from what the server says.
func TestBillCheckAPIExamplesAreItsAnswers(t *testing.T) {
	t.Parallel()
	doc, err := testutil.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	op := doc.Paths.Value(billCheckPath).Post
	req, err := json.Marshal(op.RequestBody.Value.Content.Get("application/json").Example)
	if err != nil {
		t.Fatal(err)
	}
	want := op.Responses.Status(http.StatusOK).Value.Content.Get("application/json").Example
	app := testutil.NewApp(t)
	r := apiCall(t, app, http.MethodPost, billCheckPath, "", string(req))
	var got any
	if err := json.Unmarshal([]byte(r.Body), &got); err != nil || r.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", r.StatusCode, r.Body)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the description's example answer:\n%v\nthe server's:\n%s", want, r.Body)
	}

	// The request is golden bill 1, and so is the guide's example.
	var golden any
	if err := json.Unmarshal([]byte(goldenBill1), &golden); err != nil {
		t.Fatal(err)
	}
	var sent any
	if err := json.Unmarshal(req, &sent); err != nil || !reflect.DeepEqual(sent, golden) {
		t.Errorf("the description's example request is not golden bill 1: %s", req)
	}
	guide, err := os.ReadFile(filepath.Join("..", "..", "docs", "API.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(guide), "\n## Checking a bill\n")
	if !ok {
		t.Fatal("docs/API.md has no section “Checking a bill”")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	m := regexp.MustCompile("(?s)```sh\n.*?--data '(.*?)'.*?```.*?```json\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("the guide's bill check section has no sh example followed by a json answer")
	}
	var guideReq, guideAnswer any
	if err := json.Unmarshal([]byte(m[1]), &guideReq); err != nil || !reflect.DeepEqual(guideReq, golden) {
		t.Errorf("the guide's request is not golden bill 1 (%v): %s", err, m[1])
	}
	if err := json.Unmarshal([]byte(m[2]), &guideAnswer); err != nil || !reflect.DeepEqual(guideAnswer, got) {
		t.Errorf("the guide shows (%v):\n%s\nthe server answers:\n%s", err, m[2], r.Body)
	}
}

// TestBillCheckItemsAndVerdictsAreDescribed: the description's bill items
// and verdicts are billcheck's, in its order.
func TestBillCheckItemsAndVerdictsAreDescribed(t *testing.T) {
	t.Parallel()
	doc, err := testutil.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	var items, verdicts []any
	for _, it := range billcheck.Items() {
		items = append(items, string(it))
	}
	for _, v := range billcheck.Verdicts {
		verdicts = append(verdicts, string(v))
	}
	for _, c := range []struct {
		schema, prop string
		want         []any
	}{
		{"BillCheckLine", "item", items}, {"BillCheckResultLine", "item", items}, {"BillCheckResultLine", "verdict", verdicts},
	} {
		if got := schemas[c.schema].Value.Properties[c.prop].Value.Enum; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s.%s: %v, want %v", c.schema, c.prop, got, c.want)
		}
	}
}
