package server_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/web"
)

// TestBreakEvenSaysWhyAndTheCommitment: an offer with one price says in the
// break-even column why it has none, and an offer whose monthly price binds
// for 12 months says so wherever its break-even is shown — the quote page
// no longer tells a reader monthly pays above 531.38 h when the comparison
// finds hourly cheaper even at 730 h for one month (docs/RULES.md §4.6).
func TestBreakEvenSaysWhyAndTheCommitment(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	hourlyOnly := publishQuote(app, "CNY", "1.88", "", testfactory.AllIncluded())
	monthlyOnly := publishQuote(app, "CNY", "", "999", testfactory.AllIncluded())
	pid, gid := marketRefs(app)
	committed := testfactory.Published(t, app.Store, quote.Quote{PlatformID: pid, GPUModelID: gid, Currency: "CNY",
		Hourly: testfactory.ND("1.88"), Monthly: testfactory.ND("999"), CommitmentMonths: 12, Lines: testfactory.AllIncluded(),
		Label: "12-month minimum"}).ID
	c, _ := app.AsUser(auth.RoleAnalyst)
	for _, lang := range []string{"zh-CN", "en"} {
		c.Header.Set("Accept-Language", lang)
		tr := app.Catalog.Translator(i18n.Lang(lang))
		r := c.Get(strings.Replace(compareURL("730", hourlyOnly, monthlyOnly, committed), "EUR", "CNY", 1))
		d, err := goquery.NewDocumentFromReader(strings.NewReader(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		cell := func(id int64) string {
			return strings.TrimSpace(d.Find(`[data-testid="row-` + itoa(id) + `"] [data-testid="break-even"]`).Text())
		}
		for id, want := range map[int64]string{
			hourlyOnly:  tr.T("compare.break_even.hourly_only"),
			monthlyOnly: tr.T("compare.break_even.monthly_only"),
			committed:   tr.T("compare.break_even.commitment", "Months", 12),
		} {
			if !strings.Contains(cell(id), want) {
				t.Errorf("%s: quote %d's break-even says %q, want %q", lang, id, cell(id), want)
			}
		}
		page := c.Get("/quotes/" + itoa(committed)).Body
		if strings.Contains(page, tr.T("quote.detail.breakeven.explain", "Hours", "531.38")) {
			t.Errorf("%s: the quote page says monthly pays above 531.38 h although monthly binds for 12 months", lang)
		}
		if want := tr.T("quote.detail.breakeven.commitment", "Hours", "531.38", "Months", 12, "Total", web.FormatMoney(i18n.Lang(lang), testfactory.ND("11988"), "CNY")); !strings.Contains(page, want) {
			t.Errorf("%s: the quote page does not say %q", lang, want)
		}
	}
}
