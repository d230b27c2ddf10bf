package server_test

import (
	"net/url"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestOwnCrossingPastTheMachinesLife: owning beats a ¥1.98/h rental at
// 200 h a month only from month 59, past the machine's 36-month life; the
// comparison and the saved report say so beside the month, in both
// languages (docs/RULES.md §17.2).
func TestOwnCrossingPastTheMachinesLife(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	rental := publishQuote(app, "CNY", "1.98", "", testfactory.AllIncluded())
	c, uid := app.AsUser(auth.RoleAnalyst)
	vid := createOwn(app, uid, goldenOwnVersion(app, "RTX 4090 工作站"), false)
	page := compareOwnURL("200", "12", rental, vid)
	crossing := `[data-testid="own-crossing-` + itoa(rental) + `"]`
	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		tr := app.Catalog.Translator(lang)
		c.Header.Set("Accept-Language", string(lang))
		got := strings.TrimSpace(document(t, c.Get(page).Body).Find(crossing).Text())
		if want := tr.T("compare.own.from_month", "Month", "59", "Hours", "200") + tr.T("own.crossing.past_life", "Life", 36); !strings.Contains(got, want) {
			t.Errorf("%s: the crossing says %q, want %q", lang, got, want)
		}
	}
	c.Header.Del("Accept-Language")
	u, _ := url.Parse(page)
	form := u.Query()
	form.Set("title", "自购与租用")
	rep := c.Get("/reports/" + itoa(saveReport(t, c, form))).Body
	if want := app.Catalog.Translator(i18n.ZH).T("own.crossing.past_life", "Life", 36); !strings.Contains(rep, want) {
		t.Errorf("the report does not say the crossing lies past the machine's life (%q)", want)
	}
}

// TestCompareSaysWhyTheCurrency: EUR offers beside a CNY own option, no
// report currency asked for: the amounts are in the default currency and
// the page says why; asking for one, or comparing one currency, says
// nothing (docs/RULES.md §8.2).
func TestCompareSaysWhyTheCurrency(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	eur := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	c, uid := app.AsUser(auth.RoleAnalyst)
	vid := createOwn(app, uid, goldenOwnVersion(app, "RTX 4090 工作站"), false)
	tr := app.Catalog.Translator(i18n.ZH)
	note := `[data-testid="compare-currency-note"]`
	st := url.Values{"profile.hours_per_month": {"100"}, "profile.months": {"1"}, "profile.instances": {"1"}, "q": {itoa(eur)}, "own": {itoa(vid)}}
	got := strings.TrimSpace(document(t, c.Get("/compare?"+st.Encode()).Body).Find(note).Text())
	if want := tr.T("compare.currency.mixed", "Currency", "CNY", "Currencies", "CNY"+tr.T("list.separator")+"EUR"); got != want {
		t.Errorf("mixed currencies, none asked for: the note says %q, want %q", got, want)
	}
	st.Set("report_currency", "EUR")
	if n := document(t, c.Get("/compare?"+st.Encode()).Body).Find(note).Length(); n != 0 {
		t.Errorf("a report currency asked for still gets the note")
	}
	st.Del("report_currency")
	st.Del("own")
	if n := document(t, c.Get("/compare?"+st.Encode()).Body).Find(note).Length(); n != 0 {
		t.Errorf("one currency compared gets the note")
	}
}

// TestCompareBarsShowTheOwnOptions: an own option ticked beside a rental
// has its bar in the cost make-up chart, as it has its line on the cost
// curves (docs/RULES.md §8.6); it had only the line.
func TestCompareBarsShowTheOwnOptions(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	rental := publishQuote(app, "CNY", "1.98", "", testfactory.AllIncluded())
	c, uid := app.AsUser(auth.RoleAnalyst)
	vid := createOwn(app, uid, goldenOwnVersion(app, "RTX 4090 工作站"), false)
	d := document(t, c.Get(compareOwnURL("200", "12", rental, vid)).Body)
	name := app.Catalog.Translator(i18n.ZH).T("compare.own.legend", "Name", "RTX 4090 工作站")
	for _, chart := range []string{"chart-curves", "chart-bars"} {
		if svg, _ := d.Find(`[data-testid="` + chart + `"] svg`).Html(); !strings.Contains(svg, name) {
			t.Errorf("the %s chart does not show the own option %q", chart, name)
		}
	}
}
