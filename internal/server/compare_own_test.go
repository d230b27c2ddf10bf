package server_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/tco"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/web"
)

// goldenOwnVersion is docs/RULES.md §17.1's worked example: a 25,000 CNY
// server, 20 % residual over 36 months, 450 W at 0.6 CNY/kWh, nothing else.
func goldenOwnVersion(a *testutil.App, name string) own.Version {
	return own.Version{Name: name, GPUModelID: testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID, GPUCount: 1, Currency: "CNY",
		PurchasePrice: decimal.RequireFromString("25000"), PurchaseAsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		PurchaseSource: "guide", ResidualPct: decimal.RequireFromString("20"), LifeMonths: 36,
		PowerLoadW: decimal.RequireFromString("450"), PUE: decimal.RequireFromString("1"),
		KWhPrice: decimal.NewNullDecimal(decimal.RequireFromString("0.6")), PricesIncludeTax: true}
}

// createOwn stores v as a new option of actor uid and returns its version
// id.
func createOwn(a *testutil.App, uid int64, v own.Version, shared bool) int64 {
	a.T.Helper()
	return testfactory.OwnOption(a.T, a.Store, uid, v, shared).Current.ID
}

func compareOwnURL(hours, months string, quoteID int64, ownIDs ...int64) string {
	q := url.Values{"profile.hours_per_month": {hours}, "profile.months": {months}, "profile.instances": {"1"},
		"report_currency": {"CNY"}, "q": {itoa(quoteID)}}
	for _, id := range ownIDs {
		q.Add("own", itoa(id))
	}
	return "/compare?" + q.Encode()
}

// TestCompareOwnGolden: a ticked own option shows exactly tco.EvaluateOwn's
// seven lines, tco 7314.67 and upfront 25000.00 for 200 h × 12 months, and
// beside the 1.98 CNY/h rental owning is cheaper from hour 325 and from
// month 59 (docs/RULES.md §8.6).
func TestCompareOwnGolden(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, uid := app.AsUser(auth.RoleAnalyst)
	rental := publishQuote(app, "CNY", "1.98", "", testfactory.AllIncluded())
	vid := createOwn(app, uid, goldenOwnVersion(app, "golden box"), false)

	r := c.Get(compareOwnURL("200", "12", rental, vid))
	if r.StatusCode != http.StatusOK {
		t.Fatalf("compare: %d", r.StatusCode)
	}
	body := html.UnescapeString(r.Body)
	row := section(t, body, `data-testid="own-row-`+itoa(vid)+`"`, `</article>`)
	res, err := tco.EvaluateOwn(goldenOwnVersion(app, "x").Engine(decimal.RequireFromString("0.6")),
		tco.Profile{HoursPerMonth: decimal.RequireFromString("200"), Months: 12, Instances: 1}, tco.Options{ReportCurrency: "CNY"})
	if err != nil {
		t.Fatal(err)
	}
	if res.TCO.StringFixed(2) != "7314.67" || res.UpfrontCash.StringFixed(2) != "25000.00" {
		t.Fatalf("engine: tco %s upfront %s", res.TCO, res.UpfrontCash)
	}
	m := func(d decimal.Decimal) string { return web.FormatMoney(i18n.ZH, decimal.NewNullDecimal(d), "CNY") }
	for _, l := range res.Lines {
		if !strings.Contains(row, `data-testid="own-line-`+string(l.Item)+`"`) || !strings.Contains(row, m(l.Amount)) {
			t.Errorf("line %s %s missing", l.Item, m(l.Amount))
		}
	}
	for _, want := range []string{m(res.TCO), m(res.UpfrontCash), "7,314.67", "25,000.00",
		`data-testid="own-crossing-` + itoa(rental) + `" data-month="59" data-hours="325"`,
		"从第 59 个月起自购更省", "每月使用 325 小时起自购更省",
		`data-testid="own-variant-life_24"`, "对总拥有成本影响最大：折旧期 24 个月。"} {
		if !strings.Contains(row, want) {
			t.Errorf("own row lacks %q:\n%s", want, row)
		}
	}
	if !strings.Contains(body, `data-testid="chart-your-hours" data-hours="200"`) || !strings.Contains(body, `class="curve-own"`) {
		t.Error("the cost curves lack the own line or the profile's hours")
	}
	if !strings.Contains(body, `value="`+itoa(vid)+`" checked id="cand-own-`+itoa(vid)+`"`) {
		t.Error("the option is not listed ticked")
	}
}

// TestCompareOwnPrivateOptionNotPriced: another analyst's private option
// is neither listed nor priced, even when its version id is in the page
// state; its author still sees it priced.
func TestCompareOwnPrivateOptionNotPriced(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	author, uid := app.AsUser(auth.RoleAnalyst)
	other, _ := app.AsUser(auth.RoleAnalyst)
	rental := publishQuote(app, "CNY", "1.98", "", testfactory.AllIncluded())
	vid := createOwn(app, uid, goldenOwnVersion(app, "secret box"), false)
	u := compareOwnURL("200", "12", rental, vid)

	r := other.Get(u)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("compare: %d", r.StatusCode)
	}
	if strings.Contains(r.Body, "secret box") || strings.Contains(r.Body, `data-testid="own-row-`) || strings.Contains(r.Body, "7,314.67") {
		t.Error("another analyst's private option is shown or priced")
	}
	if r := author.Get(u); !strings.Contains(r.Body, `data-testid="own-row-`+itoa(vid)+`"`) {
		t.Error("the author does not see the option priced")
	}
}

// section is body from the first occurrence of start to the next end.
func section(t *testing.T, body, start, end string) string {
	t.Helper()
	i := strings.Index(body, start)
	if i < 0 {
		t.Fatalf("no %s in page", start)
	}
	j := strings.Index(body[i:], end)
	if j < 0 {
		return body[i:]
	}
	return body[i : i+j]
}
