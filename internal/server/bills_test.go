package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/bill"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// goldenBillQuote publishes the quote of golden bill n (docs/RULES.md
// §23.7) and returns its id.
func goldenBillQuote(a *testutil.App, n int) int64 {
	a.T.Helper()
	pid, gid := marketRefs(a)
	lines := testfactory.AllIncluded()
	q := quote.Quote{PlatformID: pid, GPUModelID: gid, BillingGranularity: "second", PricesIncludeTax: true}
	switch n {
	case 1: // EUR 0.471/h; public IP 3.00 a month; egress included in writing; data disk unconfirmed
		q.Currency, q.Hourly, q.Label = "EUR", testfactory.ND("0.471"), "golden 1"
		lines[3] = quote.Line{Item: "public_ip", Status: "charged", Unit: "per_month", UnitPrice: csvND("3.00")}
		lines[5] = quote.Line{Item: "data_disk", Status: "unconfirmed"}
	case 2: // CNY 1.98/h by the minute; data disk 0.01 a GB-day, 50 free; stopped 0.10 an hour
		q.Currency, q.Hourly, q.BillingGranularity, q.Label = "CNY", testfactory.ND("1.98"), "minute", "golden 2"
		lines[5] = quote.Line{Item: "data_disk", Status: "charged", Unit: "per_day", UnitPrice: csvND("0.01"), FreeAllowance: decimal.New(50, 0)}
		lines[10] = quote.Line{Item: "stopped_retention", Status: "charged", Unit: "per_hour", UnitPrice: csvND("0.10")}
	case 3: // CNY 3000 a month excluding tax at 6 %
		q.Currency, q.Monthly, q.PricesIncludeTax, q.TaxRate, q.Label = "CNY", testfactory.ND("3000"), false, decimal.RequireFromString("0.06"), "golden 3"
	case 4: // USD 2.49/h, for the FOCUS fixture's bill
		q.Currency, q.Hourly, q.TaxRate, q.Label = "USD", testfactory.ND("2.49"), decimal.RequireFromString("0.08"), "focus"
		lines[1] = quote.Line{Item: "egress", Status: "charged", Unit: "per_gb", UnitPrice: csvND("0.01"), FreeAllowance: decimal.New(100, 0)}
	}
	q.Lines = lines
	return testfactory.Published(a.T, a.Store, q).ID
}

// approvedReport saves a report of quote id (200 h, one month, in the
// quote's currency) as a new analyst, has a new finance user approve it,
// and returns the report, the author's client and finance's.
func approvedReport(t *testing.T, a *testutil.App, id int64, currency string) (int64, *testutil.Client, *testutil.Client) {
	t.Helper()
	author, _ := a.AsUser(auth.RoleAnalyst)
	f := reportForm("Bills "+currency, "200", id)
	f.Set("report_currency", currency)
	rid := saveReport(t, author, f)
	if got := postStatus(author, "/reports/"+itoa(rid)+"/submit", nil); got != http.StatusSeeOther {
		t.Fatalf("submit: %d", got)
	}
	finance, _ := a.AsUser(auth.RoleFinance)
	if got := postStatus(finance, "/reports/"+itoa(rid)+"/approve", url.Values{"comment": {"ok"}}); got != http.StatusSeeOther {
		t.Fatalf("approve: %d", got)
	}
	return rid, author, finance
}

// billForm is the check-a-bill form for quote id and month, with typed
// lines of "item quantity amount".
func billForm(id int64, month, currency string, includeTax bool, lines ...string) url.Values {
	f := url.Values{"quote": {itoa(id)}, "month": {month}, "currency": {currency}, "instances": {"1"},
		"prices_include_tax": {"yes"}, "action": {"typed"}, "rows": {strconv.Itoa(max(6, len(lines)))}}
	if !includeTax {
		f.Set("prices_include_tax", "no")
	}
	for i, l := range lines {
		p := strings.Fields(l)
		f.Set("line-"+strconv.Itoa(i)+"-item", p[0])
		f.Set("line-"+strconv.Itoa(i)+"-quantity", p[1])
		f.Set("line-"+strconv.Itoa(i)+"-amount", p[2])
		if len(p) > 3 {
			f.Set("line-"+strconv.Itoa(i)+"-description", strings.Join(p[3:], " "))
		}
	}
	return f
}

var billPath = regexp.MustCompile(`^/reports/\d+/bills/(\d+)$`)

// postBill posts the form and returns the stored bill's page path.
func postBill(t *testing.T, c *testutil.Client, reportID int64, f url.Values) string {
	t.Helper()
	r := c.PostForm("/reports/"+itoa(reportID)+"/bills", f)
	if r.StatusCode != http.StatusSeeOther || !billPath.MatchString(r.Header.Get("Location")) {
		t.Fatalf("check bill: %d %q\n%s", r.StatusCode, r.Header.Get("Location"), errorsOf(r.Body))
	}
	return r.Header.Get("Location")
}

var errorTexts = regexp.MustCompile(`data-testid="(?:error-[^"]*|bill-file-problem)"[^>]*>([^<]*)<`)

// errorsOf lists a form page's error texts.
func errorsOf(body string) string {
	var out []string
	for _, m := range errorTexts.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return strings.Join(out, "; ")
}

// testids returns the text of each element with data-testid id, in order.
func testids(body, id string) []string {
	re := regexp.MustCompile(`data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>([^<]*)<`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		out = append(out, strings.TrimSpace(m[1]))
	}
	return out
}

func countBills(t *testing.T, a *testutil.App) int {
	t.Helper()
	var n int
	if err := a.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM bills`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBillGoldenThroughPageAndCSV: the three golden bills of
// docs/RULES.md §23.7, checked on approved reports through the form, show
// to the cent on the bill's page and in its CSV; a corrected bill is the
// next revision and the first says it is not the latest.
func TestBillGoldenThroughPageAndCSV(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	type want struct {
		verdicts                []string
		billed, expected, over  string
		unquoted, under, budget string
	}
	cases := []struct {
		n          int
		currency   string
		includeTax bool
		lines      []string
		want       want
	}{
		{1, "EUR", true, []string{"compute_hourly 200 94.20 GPU hours", "public_ip 1 3.50", "egress 120 1.20", "data_disk 100 4.00"},
			want{[]string{"overcharged", "charged_though_included", "hidden_cost_appeared"}, "102.90", "97.20", "1.70", "4.00", "", "above_pessimistic"}},
		{2, "CNY", true, []string{"compute_hourly 312.5 618.75", "data_disk 6000 45.00", "stopped_retention 417.5 41.75"},
			want{nil, "705.50", "705.50", "0.00", "0.00", "", "above_pessimistic"}},
		{3, "CNY", true, []string{"compute_monthly 1 3180.00"},
			want{nil, "3,180.00", "3,180.00", "0.00", "0.00", "", "within_confirmed"}},
	}
	for _, tc := range cases {
		qid := goldenBillQuote(app, tc.n)
		rid, _, finance := approvedReport(t, app, qid, tc.currency)
		path := postBill(t, finance, rid, billForm(qid, "2026-11", tc.currency, tc.includeTax, tc.lines...))
		page := finance.Get(path)
		if page.StatusCode != http.StatusOK {
			t.Fatalf("golden %d: page %d", tc.n, page.StatusCode)
		}
		for id, w := range map[string]string{"bill-total-billed": tc.want.billed, "bill-total-expected": tc.want.expected,
			"bill-total-overcharge": tc.want.over, "bill-total-unquoted": tc.want.unquoted} {
			if got := testids(page.Body, id); len(got) != 1 || !strings.HasSuffix(got[0], w) {
				t.Errorf("golden %d: %s %q, want …%s", tc.n, id, got, w)
			}
		}
		var problems []string
		for _, v := range regexp.MustCompile(`data-testid="bill-line" data-verdict="([a-z_]+)"`).FindAllStringSubmatch(page.Body, -1) {
			if v[1] != "match" {
				problems = append(problems, v[1])
			}
		}
		if strings.Join(problems, ",") != strings.Join(tc.want.verdicts, ",") {
			t.Errorf("golden %d: verdicts other than match %v, want %v", tc.n, problems, tc.want.verdicts)
		}
		if !strings.Contains(page.Body, `data-verdict="`+tc.want.budget+`"`) {
			t.Errorf("golden %d: budget verdict is not %s", tc.n, tc.want.budget)
		}
		// The CSV holds the same figures: the totals table, to the cent.
		csvBody := finance.Get(path + "/export.csv")
		if csvBody.StatusCode != http.StatusOK || !strings.Contains(csvBody.Header.Get("Content-Disposition"), "-2026-11-r1.csv") {
			t.Fatalf("golden %d: csv %d %q", tc.n, csvBody.StatusCode, csvBody.Header.Get("Content-Disposition"))
		}
		recs := readCSV(t, csvBody.Body)
		totals := map[string]string{}
		for _, r := range recs {
			if len(r) == 2 {
				totals[r[0]] = r[1]
			}
		}
		zh := app.Catalog.Translator("zh-CN")
		for id, w := range map[string]string{"billfile.total.billed": tc.want.billed, "billfile.total.expected": tc.want.expected,
			"billfile.total.overcharge": tc.want.over, "billfile.total.unquoted": tc.want.unquoted} {
			if got := totals[zh.T(id)]; got != strings.ReplaceAll(w, ",", "") {
				t.Errorf("golden %d: CSV %s = %q, want %s (%v)", tc.n, zh.T(id), got, w, recs)
			}
		}
		if again := finance.Get(path + "/export.csv"); again.Body != csvBody.Body {
			t.Errorf("golden %d: the CSV differs between two downloads", tc.n)
		}
		if tc.n != 3 {
			continue
		}
		// Golden 3, corrected: billed 3000.00 instead is undercharged −180.00.
		id := billPath.FindStringSubmatch(path)[1]
		if form := finance.Get("/reports/" + itoa(rid) + "/bills/new?correct=" + id); !strings.Contains(form.Body, `value="3180"`) {
			t.Errorf("the correction form does not carry the bill's lines")
		}
		f := billForm(qid, "2026-11", "CNY", true, "compute_monthly 1 3000.00")
		f.Set("correct", id)
		f.Set("note", "账单金额更正")
		second := postBill(t, finance, rid, f)
		page = finance.Get(second)
		if got := testids(page.Body, "bill-line-variance"); len(got) != 1 || got[0] != "−¥180.00" {
			t.Errorf("corrected golden 3: variance %q, want −¥180.00", got)
		}
		if got := testids(page.Body, "bill-revision"); len(got) != 1 || got[0] != "2" {
			t.Errorf("corrected: revision %q, want 2", got)
		}
		if old := finance.Get(path); !strings.Contains(old.Body, `data-testid="bill-not-latest"`) {
			t.Error("the first revision does not say it is not the latest")
		}
		// The report lists the month once, its latest revision.
		rep := finance.Get("/reports/" + itoa(rid))
		if n := strings.Count(rep.Body, `data-testid="report-bill-month"`); n != 1 || !strings.Contains(rep.Body, second) {
			t.Errorf("the report lists %d months, want the corrected one", n)
		}
	}
}

// TestBillFormRefusesAndKeepsWhatWasTyped: a month that is none, a line
// without an amount and a negative quantity are named field by field in
// both languages, every value stays, nothing is stored; who may check a
// bill; a bill of a report not yet approved is refused.
func TestBillFormRefusesAndKeepsWhatWasTyped(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	qid := goldenBillQuote(app, 1)
	rid, author, finance := approvedReport(t, app, qid, "EUR")
	f := billForm(qid, "2026-13", "EUR", true, "compute_hourly -3 94.20", "public_ip 1 3.50 IP")
	f.Set("line-1-amount", "")
	for _, lang := range []string{"zh-CN", "en"} {
		finance.Header.Set("Accept-Language", lang)
		finance.Get("/lang?x") // a page in that language for the token
		r := finance.PostForm("/reports/"+itoa(rid)+"/bills", f)
		if r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s: %d, want 422", lang, r.StatusCode)
		}
		tr := app.Catalog.Translator(i18n.Lang(lang))
		for field, id := range map[string]string{"month": "err.tco.invalid_month", "line-1-amount": "form.required"} {
			if !strings.Contains(r.Body, `data-testid="error-`+field+`">`+tr.T(id)) {
				t.Errorf("%s: %s does not say %q", lang, field, tr.T(id))
			}
		}
		if !strings.Contains(r.Body, `value="2026-13"`) || !strings.Contains(r.Body, `value="IP"`) || !strings.Contains(r.Body, `value="-3"`) {
			t.Errorf("%s: what was typed is not kept", lang)
		}
	}
	// The month right, the quantity is still negative: the engine names it.
	f.Set("month", "2026-11")
	f.Set("line-1-amount", "3.50")
	r := finance.PostForm("/reports/"+itoa(rid)+"/bills", f)
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-line-0-quantity"`) {
		t.Fatalf("negative quantity: %d %s", r.StatusCode, errorsOf(r.Body))
	}
	if n := countBills(t, app); n != 0 {
		t.Fatalf("%d bills stored by refused forms", n)
	}
	// Others may read, not check; the author may check.
	other, _ := app.AsUser(auth.RoleAnalyst)
	if r := other.Get("/reports/" + itoa(rid) + "/bills/new"); r.StatusCode != http.StatusForbidden {
		t.Errorf("another analyst opens the form: %d", r.StatusCode)
	}
	if r := other.PostForm("/reports/"+itoa(rid)+"/bills", billForm(qid, "2026-11", "EUR", true, "compute_hourly 1 1")); r.StatusCode != http.StatusForbidden {
		t.Errorf("another analyst posts a bill: %d", r.StatusCode)
	}
	path := postBill(t, author, rid, billForm(qid, "2026-11", "EUR", true, "compute_hourly 200 94.20"))
	if r := other.Get(path); r.StatusCode != http.StatusOK {
		t.Errorf("another analyst reads the bill: %d", r.StatusCode)
	}
	// A submitted report takes no bill.
	draft := saveReport(t, author, reportForm("not yet", "200", qid))
	if r := author.Get("/reports/" + itoa(draft) + "/bills/new"); r.StatusCode != http.StatusForbidden {
		t.Errorf("a draft's bill form: %d", r.StatusCode)
	}
	// "More rows" adds six and keeps what was typed.
	more := billForm(qid, "2026-11", "EUR", true, "compute_hourly 200 94.20")
	more.Set("action", "more")
	r = finance.PostForm("/reports/"+itoa(rid)+"/bills", more)
	if r.StatusCode != http.StatusOK || strings.Count(r.Body, `data-testid="bill-form-line"`) != 12 || !strings.Contains(r.Body, `value="94.20"`) {
		t.Errorf("more rows: %d, %d rows", r.StatusCode, strings.Count(r.Body, `data-testid="bill-form-line"`))
	}
}

// TestBillOverchargeNotifiesAndShowsTheLetter: finance stores golden bill
// 1; the author is told of the 1.70 overcharge; the letter lists the
// overcharge and the included egress with the quote's written answer, in
// both languages.
func TestBillOverchargeNotifiesAndShowsTheLetter(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	qid := goldenBillQuote(app, 1)
	rid, author, finance := approvedReport(t, app, qid, "EUR")
	path := postBill(t, finance, rid, billForm(qid, "2026-11", "EUR", true, "compute_hourly 200 94.20", "public_ip 1 3.50 公网IP",
		"egress 120 1.20", "data_disk 100 4.00"))
	n := author.Get("/notifications")
	if !strings.Contains(n.Body, "R-2026-0001 的 2026-11 账单多收 1.70 EUR") {
		t.Errorf("the author's notices do not name the overcharge")
	}
	open := regexp.MustCompile(`action="(/notifications/\d+/open)"`).FindStringSubmatch(n.Body)
	if open == nil {
		t.Fatal("no notice to open")
	}
	if r := author.PostForm(open[1], nil); r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != path {
		t.Errorf("opening the notice: %d to %q, want the bill %s", r.StatusCode, r.Header.Get("Location"), path)
	}
	letter := finance.Get(path + "/letter")
	zh := testids(letter.Body, "bill-letter-text-zh-CN")
	en := testids(letter.Body, "bill-letter-text-en")
	if len(zh) != 1 || len(en) != 1 {
		t.Fatalf("letters: %d zh, %d en", len(zh), len(en))
	}
	for _, w := range []string{"多收 €0.50", "€3.50", "€3.00", "出网流量", "已包含", "合计多收 €1.70"} {
		if !strings.Contains(zh[0], w) {
			t.Errorf("the Chinese letter lacks %q:\n%s", w, zh[0])
		}
	}
	for _, w := range []string{"€0.50 too much", "Included", "In all €1.70 overcharged"} {
		if !strings.Contains(en[0], w) {
			t.Errorf("the English letter lacks %q:\n%s", w, en[0])
		}
	}
	if strings.Contains(zh[0], "数据盘") {
		t.Error("the letter names the hidden cost, which the quote never priced")
	}
	page := finance.Get(path)
	if !strings.Contains(page.Body, "本可发现它的问题") || !strings.Contains(page.Body, "请问是否另行收费") {
		t.Error("the hidden cost does not show the question that would have caught it")
	}
	if !strings.Contains(page.Body, "€3.00 每个 IP·月") {
		t.Error("the public IP line does not show the quote's rule")
	}
	for _, kind := range []string{"export.xlsx", "focus.csv"} {
		a, b := finance.Get(path+"/"+kind), finance.Get(path+"/"+kind)
		if a.StatusCode != http.StatusOK || a.Body != b.Body || len(a.Body) == 0 {
			t.Errorf("%s: %d, same bytes %v", kind, a.StatusCode, a.Body == b.Body)
		}
	}
	focus := finance.Get(path + "/focus.csv").Body
	if !strings.HasPrefix(focus, "BilledCost,") || !strings.Contains(focus, "x_GpuquoteVerdict") || !strings.Contains(focus, "overcharged") {
		t.Errorf("the FOCUS export:\n%s", focus)
	}
}

// postFile posts the bill form with a file, as a browser does.
func postFile(t *testing.T, c *testutil.Client, app *testutil.App, reportID int64, f url.Values, name string, data []byte) *testutil.Response {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if c.CSRF == "" {
		c.Get("/reports/" + itoa(reportID) + "/bills/new")
	}
	f.Set("_csrf", c.CSRF)
	for k, vs := range f {
		for _, v := range vs {
			_ = w.WriteField(k, v)
		}
	}
	if data != nil {
		fw, err := w.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(data)
	}
	_ = w.Close()
	req, err := http.NewRequest(http.MethodPost, app.URL+"/reports/"+itoa(reportID)+"/bills", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Do(req)
}

// TestBillImportsFOCUS: the FOCUS fixture (202 rows of November 2026)
// asks which item its four unknown SKUs and descriptions are; answered,
// the file is read again with the answers, stored whole, and the answers
// are remembered: the next import asks nothing. A file with a December
// row is refused whole, naming its line; nothing is stored.
func TestBillImportsFOCUS(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	qid := goldenBillQuote(app, 4)
	rid, _, finance := approvedReport(t, app, qid, "USD")
	data, err := os.ReadFile("../billfile/testdata/focus_1_2_month.csv")
	if err != nil {
		t.Fatal(err)
	}
	f := url.Values{"quote": {itoa(qid)}, "month": {"2026-11"}, "currency": {"USD"}, "instances": {"2"},
		"prices_include_tax": {"no"}, "action": {"import"}, "format": {"focus"}, "rows": {"6"}}
	r := postFile(t, finance, app, rid, f, "november.csv", data)
	asked := regexp.MustCompile(`name="(map-\d+)-key" value="([^"]*)"`).FindAllStringSubmatch(r.Body, -1)
	if r.StatusCode != http.StatusOK || len(asked) < 10 {
		t.Fatalf("first import: %d, asked %d (%s)", r.StatusCode, len(asked), errorsOf(r.Body))
	}
	if n := countBills(t, app); n != 0 {
		t.Fatalf("%d bills stored before the SKUs were answered", n)
	}
	m := regexp.MustCompile(`name="file_text" value="([^"]*)"`).FindStringSubmatch(r.Body)
	if m == nil {
		t.Fatal("the file is not carried back with the questions")
	}
	if back, err := base64.StdEncoding.DecodeString(m[1]); err != nil || !bytes.Equal(back, data) {
		t.Fatal("the file carried back is not the file")
	}
	answer := url.Values{}
	for k, v := range f {
		answer[k] = v
	}
	answer.Set("file_text", m[1])
	answer.Set("file_name", "november.csv")
	answer.Set("unmapped", strconv.Itoa(len(asked)))
	kinds := regexp.MustCompile(`name="(map-\d+)-kind" value="([^"]*)"`).FindAllStringSubmatch(r.Body, -1)
	for i, a := range asked {
		answer.Set(a[1]+"-key", a[2])
		answer.Set(a[1]+"-kind", kinds[i][2])
		item := "other"
		switch {
		case strings.Contains(a[2], "h100") || strings.Contains(a[2], "gpu.") && strings.Contains(a[2], "hour"):
			item = "compute_hourly"
		case strings.Contains(a[2], "egress"):
			item = "egress"
		}
		answer.Set(a[1], item)
	}
	r = postFile(t, finance, app, rid, answer, "", nil)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("answered import: %d %s", r.StatusCode, errorsOf(r.Body))
	}
	b, err := app.Store.Bill(context.Background(), billID(t, r.Header.Get("Location")))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines) != 202 || b.Source != bill.SourceFOCUS || b.Filename != "november.csv" || b.Currency != "USD" ||
		b.Totals.Billed.String() != "2839.105" {
		t.Errorf("stored: %d lines, %s, %q, %s, billed %s", len(b.Lines), b.Source, b.Filename, b.Currency, b.Totals.Billed)
	}
	// Remembered: the same file again asks nothing.
	r = postFile(t, finance, app, rid, f, "november.csv", data)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("second import: %d, asked again: %v", r.StatusCode, strings.Contains(r.Body, "bill-unmapped"))
	}
	// A December row refuses the file, naming its line.
	before := countBills(t, app)
	out, err := os.ReadFile("../billfile/testdata/focus_outside_month.csv")
	if err != nil {
		t.Fatal(err)
	}
	r = postFile(t, finance, app, rid, f, "two-months.csv", out)
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "2026-11") ||
		!regexp.MustCompile(`第 \d+ 行`).MatchString(r.Body) {
		t.Errorf("a file with a row outside the month: %d %s", r.StatusCode, errorsOf(r.Body))
	}
	if n := countBills(t, app); n != before {
		t.Errorf("the refused file stored %d bills", n-before)
	}
}

func billID(t *testing.T, path string) int64 {
	t.Helper()
	m := billPath.FindStringSubmatch(path)
	if m == nil {
		t.Fatalf("not a bill's page: %q", path)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	return id
}

// TestBillMappingsKeptByEditors: an editor adds a platform's mapping,
// changes it and forgets it, each audited; a FOCUS import of that platform
// then asks again. Others may not open the page.
func TestBillMappingsKeptByEditors(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	pid, _ := marketRefs(app)
	editor, _ := app.AsUser(auth.RoleEditor)
	page := "/platforms/" + itoa(pid) + "/bill-mappings"
	if r := editor.Get(page); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="bill-mappings-empty"`) {
		t.Fatalf("empty page: %d", r.StatusCode)
	}
	if r := editor.PostForm(page, url.Values{"kind": {"sku"}, "key": {" "}, "item": {"egress"}}); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `data-testid="error-key"`) {
		t.Errorf("a blank key: %d", r.StatusCode)
	}
	for _, item := range []string{"egress", "public_ip"} {
		if r := editor.PostForm(page, url.Values{"kind": {"sku"}, "key": {"net.out"}, "item": {item}}); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("save %s: %d", item, r.StatusCode)
		}
	}
	ms, err := app.Store.BillMappings(context.Background(), pid)
	if err != nil || len(ms) != 1 || ms[0].Item != "public_ip" {
		t.Fatalf("mappings %+v %v, want net.out = public_ip", ms, err)
	}
	if r := editor.Get(page); !strings.Contains(r.Body, "net.out") || strings.Count(r.Body, `data-testid="bill-mapping"`) != 1 {
		t.Error("the page does not list the mapping")
	}
	if r := editor.PostForm(page+"/delete", url.Values{"kind": {"sku"}, "key": {"net.out"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("forget: %d", r.StatusCode)
	}
	var audited int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE action LIKE 'bill_mapping.%'`).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if audited != 3 {
		t.Errorf("%d audited changes, want 3 (two saves, one delete)", audited)
	}
	if ms, _ := app.Store.BillMappings(context.Background(), pid); len(ms) != 0 {
		t.Errorf("still mapped: %+v", ms)
	}
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	if r := analyst.Get(page); r.StatusCode != http.StatusForbidden {
		t.Errorf("an analyst opens the mappings: %d", r.StatusCode)
	}
}
