package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestWordsCountsDatesAndUnits: a count of one reads in the singular, a
// price dated today or yesterday says so, a public-IP count has no
// "(es)", and a data disk priced per month is priced per GB per month.
func TestWordsCountsDatesAndUnits(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	lines := testfactory.AllIncluded()
	lines[5] = quote.Line{Item: "data_disk", Status: "charged", Unit: "per_month", UnitPrice: csvND("0.02"), InWriting: true}
	pid, gid := marketRefs(app)
	q := quote.Quote{PlatformID: pid, GPUModelID: gid, GPUCount: 1, Sharing: "dedicated", Currency: "EUR",
		BillingGranularity: "second", PricesIncludeTax: true, Monthly: decimal.NewNullDecimal(decimal.RequireFromString("70")),
		AsOf: time.Date(reportDay.Year(), reportDay.Month(), reportDay.Day(), 0, 0, 0, 0, time.UTC), Source: "test", Lines: lines}
	d, err := app.Store.CreateQuoteDraft(context.Background(), user.SystemActor, q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := app.Store.PublishQuote(context.Background(), user.SystemActor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := app.AsUser(auth.RoleAnalyst)
	get := func(lang, path string) string {
		t.Helper()
		c.Header.Set("Accept-Language", lang)
		r := c.Get(path)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("[%s] %s: %d", lang, path, r.StatusCode)
		}
		return r.Body
	}
	day := q.AsOf.Format("2006-01-02")
	page := "/quotes/" + itoa(p.ID)
	for lang, want := range map[string][]string{
		"en":    {"Quoted " + day + " (today)", "per GB per month"},
		"zh-CN": {"报价日期 " + day + "（今天）", "每 GB·月"},
	} {
		body := get(lang, page)
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("[%s] quote page lacks %q", lang, w)
			}
		}
		if strings.Contains(body, "0 days ago") || strings.Contains(body, "0 天前") || strings.Contains(body, "per unit per month") {
			t.Errorf("[%s] quote page says 0 days ago or per unit per month", lang)
		}
	}
	clock.Advance(24 * time.Hour)
	if body := get("en", page); !strings.Contains(body, "Quoted "+day+" (yesterday)") {
		t.Error("a day later the quote page does not say yesterday")
	}
	if body := get("zh-CN", page); !strings.Contains(body, "（昨天）") {
		t.Error("a day later the Chinese quote page does not say 昨天")
	}
	clock.Advance(24 * time.Hour)
	if body := get("en", page); !strings.Contains(body, "Quoted "+day+" (2 days ago)") {
		t.Error("two days later the quote page does not say 2 days ago")
	}

	// The report preview of one quote: "1 quote", not "1 quotes".
	form := reportForm("", "200", p.ID)
	form.Del("title")
	preview := get("en", "/reports/new?"+form.Encode())
	if !strings.Contains(preview, "1 quote will be frozen") || strings.Contains(preview, "1 quotes") {
		t.Errorf("report preview: %q", between(preview, `data-testid="report-new-preview"`, "</h2>"))
	}
	if two := get("en", "/reports/new?"+reportForm("", "200", p.ID, publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())).Encode()); !strings.Contains(two, "2 quotes will be frozen") {
		t.Errorf("report preview of two: %q", between(two, `data-testid="report-new-preview"`, "</h2>"))
	}

	// Vendor questions for one public IP: no "address(es)".
	qs := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"profile.public_ips": {"1"}, "quote": {itoa(p.ID)}}
	lines[3] = quote.Line{Item: "public_ip", Status: "unconfirmed"}
	q.Lines = lines
	d, err = app.Store.CreateQuoteDraft(context.Background(), user.SystemActor, q)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := app.Store.PublishQuote(context.Background(), user.SystemActor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	qs.Set("quote", itoa(p2.ID))
	body := get("en", "/compare/questions?"+qs.Encode())
	if !strings.Contains(body, "Public IP addresses we need per instance: 1.") || strings.Contains(body, "(es)") {
		t.Error("the vendor questions do not ask for 1 public IP in words")
	}
}

// TestCalculatorUnitLabelsByItem: the calculator labels a data disk's
// monthly rate per GB per month, in the unit choice and the result.
func TestCalculatorUnitLabelsByItem(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	form := url.Values{"report_currency": {"EUR"}, "quote.currency": {"EUR"}, "quote.gpu_count": {"1"},
		"quote.monthly": {"70"}, "quote.prices_include_tax": {"true"}, "profile.hours_per_month": {"200"},
		"profile.months": {"1"}, "profile.instances": {"1"}, "profile.data_disk_gb": {"500"},
		"quote.lines[5].status": {"charged"}, "quote.lines[5].unit": {"per_month"}, "quote.lines[5].unit_price": {"0.02"}}
	c := app.Client()
	c.Header.Set("Accept-Language", "en")
	r := c.PostForm("/calculator", form)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("calculator: %d", r.StatusCode)
	}
	row := between(r.Body, `data-testid="line-data_disk"`, "</tbody>")
	if !strings.Contains(row, "per GB per month") || strings.Contains(row, "per unit per month") {
		t.Errorf("data disk row: %q", row)
	}
	if n := strings.Count(r.Body, ">per GB per month<"); n < 2 {
		t.Errorf("per GB per month shown %d times, want the choice and the result line", n)
	}
}
