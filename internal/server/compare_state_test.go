package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// hiddenFields are the hidden inputs of the form sel finds on a page.
func hiddenFields(t *testing.T, body, sel string) url.Values {
	t.Helper()
	f := document(t, body).Find(sel)
	if f.Length() != 1 {
		t.Fatalf("%d forms %s on the page", f.Length(), sel)
	}
	out := url.Values{}
	f.Find(`input[type="hidden"]`).Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		val, _ := in.Attr("value")
		out.Add(name, val)
	})
	return out
}

// TestCompareSavingAProfileKeepsTheComparison: saving the usage profile
// (and deleting one) returns to the comparison with the quotes still ticked
// and compared, the filters, the order and the report currency as they
// were.
func TestCompareSavingAProfileKeepsTheComparison(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	a := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	b := publishQuote(app, "EUR", "0.5", "", testfactory.AllIncluded())
	c, _ := app.AsUser(auth.RoleAnalyst)
	state := url.Values{"profile.hours_per_month": {"120"}, "profile.months": {"2"}, "profile.instances": {"1"},
		"report_currency": {"EUR"}, "q": {itoa(a), itoa(b)}, "currency": {"EUR"}, "sharing": {"dedicated"},
		"sort": {"tco"}, "dir": {"desc"}}
	page := c.Get("/compare?" + state.Encode())
	if resultRow(t, page.Body, a).Length() != 1 || resultRow(t, page.Body, b).Length() != 1 {
		t.Fatal("the two quotes are not compared to begin with")
	}

	// The save form carries the page state; the reader adds a name.
	posted := hiddenFields(t, page.Body, `form[data-testid="profile-save"]`)
	posted.Set("name", "两台对比")
	r := c.PostForm("/compare/profiles", posted)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d", r.StatusCode)
	}
	loc, err := url.Parse(r.Header.Get("Location"))
	if err != nil || loc.Path != "/compare" {
		t.Fatalf("save returns to %q, want the compare page", r.Header.Get("Location"))
	}
	for k, want := range state {
		if got := loc.Query()[k]; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("the return drops %s: %v, want %v", k, got, want)
		}
	}
	back := c.Get(r.Header.Get("Location"))
	if resultRow(t, back.Body, a).Length() != 1 || resultRow(t, back.Body, b).Length() != 1 {
		t.Fatal("after saving the profile the two quotes are no longer compared")
	}
	doc := document(t, back.Body)
	if !strings.Contains(doc.Find("ul.profiles").Text(), "两台对比") {
		t.Error("the saved profile is not listed")
	}
	if v, _ := doc.Find("#cf-currency").Attr("value"); v != "EUR" {
		t.Errorf("currency filter %q after saving", v)
	}
	if doc.Find(`#cf-sharing option[value="dedicated"][selected]`).Length() != 1 {
		t.Error("sharing filter lost after saving")
	}
	if v, _ := doc.Find("#f-profile-hours_per_month").Attr("value"); v != "120" {
		t.Errorf("hours %q after saving", v)
	}

	// Loading the saved profile elsewhere replaces the profile only.
	state.Set("profile.hours_per_month", "300")
	other := document(t, c.Get("/compare?"+state.Encode()).Body)
	href, _ := other.Find(`ul.profiles a`).First().Attr("href")
	loaded := c.Get(href)
	if v, _ := document(t, loaded.Body).Find("#f-profile-hours_per_month").Attr("value"); v != "120" ||
		resultRow(t, loaded.Body, a).Length() != 1 || resultRow(t, loaded.Body, b).Length() != 1 {
		t.Errorf("loading the profile (%s) shows %q hours, or drops the comparison", href, v)
	}
	state.Set("profile.hours_per_month", "120")

	// A bad name returns to the comparison too, with the problem said.
	posted.Set("name", "")
	if r := c.PostForm("/compare/profiles", posted); r.StatusCode != http.StatusSeeOther ||
		!strings.Contains(r.Header.Get("Location"), "q="+itoa(a)) {
		t.Errorf("a refused save returns to %q, without the comparison", r.Header.Get("Location"))
	}

	// Deleting a profile returns to the comparison as well.
	del := doc.Find(`form[action$="/delete"]`)
	if del.Length() != 1 {
		t.Fatalf("%d delete forms", del.Length())
	}
	action, _ := del.Attr("action")
	r = c.PostForm(action, hiddenFields(t, back.Body, `form[action$="/delete"]`))
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", r.StatusCode)
	}
	after := c.Get(r.Header.Get("Location"))
	if resultRow(t, after.Body, a).Length() != 1 || resultRow(t, after.Body, b).Length() != 1 ||
		strings.Contains(document(t, after.Body).Find("ul.profiles").Text(), "两台对比") {
		t.Fatalf("after deleting the profile (back to %q) the comparison is gone or the profile still listed", r.Header.Get("Location"))
	}
	// A "next" elsewhere is not followed.
	id := someonesProfile(app)
	admin, _ := app.AsUser(auth.RoleAdmin)
	admin.Get("/compare")
	if r := admin.PostForm("/compare/profiles/"+itoa(id)+"/delete", url.Values{"next": {"//evil.example/compare?q=1"}}); r.Header.Get("Location") != "/compare" {
		t.Errorf("delete returns to %q", r.Header.Get("Location"))
	}
}

// tableCurrency is the report currency the comparison table is in ("" when
// there is no table).
func tableCurrency(t *testing.T, app *testutil.App, body string) string {
	t.Helper()
	tr := app.Catalog.Translator("zh-CN")
	for _, cur := range []string{"CNY", "EUR", "USD"} {
		if strings.Contains(body, tr.T("compare.table.title", "Currency", cur)) {
			return cur
		}
	}
	return ""
}

// TestCompareReportCurrencyDefault: with no report currency asked for, a
// comparison is in the quotes' common currency; else in the one the reader
// last asked for (a cookie); else in CNY. Asking for one remembers it.
func TestCompareReportCurrencyDefault(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	eur1 := publishQuote(app, "EUR", "0.471", "", testfactory.AllIncluded())
	eur2 := publishQuote(app, "EUR", "0.5", "", testfactory.AllIncluded())
	usd := publishQuote(app, "USD", "0.40", "", testfactory.AllIncluded())
	c, _ := app.AsUser(auth.RoleAnalyst)
	page := func(currency string, ids ...int64) *testutil.Response {
		q := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}}
		if currency != "" {
			q.Set("report_currency", currency)
		}
		for _, id := range ids {
			q.Add("q", itoa(id))
		}
		return c.Get("/compare?" + q.Encode())
	}

	// All in EUR: EUR, and the currency field stays empty (a default).
	r := page("", eur1, eur2)
	if got := tableCurrency(t, app, r.Body); got != "EUR" {
		t.Fatalf("two EUR quotes, none asked: table in %q, want EUR", got)
	}
	if v, _ := document(t, r.Body).Find("#f-report_currency").Attr("value"); v != "" {
		t.Errorf("the default fills the report currency field with %q", v)
	}
	if ck := c.Cookie("gq_report_currency"); ck != nil {
		t.Errorf("a default is remembered: %+v", ck)
	}
	// The shared link and the report carry the currency shown.
	if u, _ := document(t, r.Body).Find(`[data-testid="compare-share"]`).Attr("data-share-url"); !strings.Contains(u, "report_currency=EUR") {
		t.Errorf("share link %q without the currency shown", u)
	}
	// Mixed, nothing remembered: CNY.
	if got := tableCurrency(t, app, page("", eur1, usd).Body); got != "CNY" {
		t.Fatalf("EUR and USD, none asked or remembered: table in %q, want CNY", got)
	}

	// Asking for one remembers it, in a cookie like the language's.
	r = page("usd", eur1)
	var set *http.Cookie
	for _, ck := range r.Cookies() {
		if ck.Name == "gq_report_currency" {
			set = ck
		}
	}
	if set == nil || set.Value != "USD" || !set.HttpOnly || set.SameSite != http.SameSiteLaxMode ||
		set.Secure != app.Config.TLS || set.Path != "/" || set.MaxAge <= 0 {
		t.Fatalf("report currency cookie %+v: want USD, HttpOnly, SameSite=Lax, Secure=%v, Path=/, kept", set, app.Config.TLS)
	}
	if got := tableCurrency(t, app, r.Body); got != "USD" {
		t.Fatalf("asked USD: table in %q", got)
	}
	// Mixed: the remembered USD.
	if got := tableCurrency(t, app, page("", eur1, usd).Body); got != "USD" {
		t.Fatalf("EUR and USD after choosing USD: table in %q, want USD", got)
	}
	// A common currency still comes first.
	if got := tableCurrency(t, app, page("", eur1, eur2).Body); got != "EUR" {
		t.Fatalf("two EUR quotes after choosing USD: table in %q, want EUR", got)
	}
	// A currency that is not one is said at its field, not remembered.
	r = page("EURO", eur1)
	if !strings.Contains(r.Body, `data-testid="error-report_currency"`) || tableCurrency(t, app, r.Body) != "" {
		t.Error("an unknown report currency is not refused at its field")
	}
	if ck := c.Cookie("gq_report_currency"); ck == nil || ck.Value != "USD" {
		t.Errorf("remembered %+v after a bad currency, want USD", ck)
	}
}

// TestCompareErrorsAtTheTop: mistyped numbers are listed above the form,
// each linking to its field, worded like the quote form's (how to write
// it), said again under the field, and every value stays as typed; with
// htmx the summary and the fields' errors come back to be swapped in out
// of band.
func TestCompareErrorsAtTheTop(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	id := publishQuote(app, "EUR", "0.471", "", testfactory.AllIncluded())
	c, _ := app.AsUser(auth.RoleAnalyst)
	typed := map[string]string{
		"profile.hours_per_month": "２００",
		"profile.months":          "1",
		"profile.instances":       "2.5",
		"profile.mbps":            "1,5",
		"profile.data_disk_gb":    "-3",
	}
	q := url.Values{"q": {itoa(id)}, "report_currency": {"EUR"}}
	for k, v := range typed {
		q.Set(k, v)
	}
	r := c.Get("/compare?" + q.Encode())
	if r.StatusCode != http.StatusOK {
		t.Fatalf("status %d", r.StatusCode)
	}
	summaryAt := strings.Index(r.Body, `data-testid="compare-errors"`)
	formAt := strings.Index(r.Body, `data-testid="compare-form"`)
	if summaryAt < 0 || formAt < 0 || summaryAt > formAt {
		t.Fatalf("the error summary (at %d) is not above the form (at %d)", summaryAt, formAt)
	}
	tr := app.Catalog.Translator("zh-CN")
	want := map[string]string{
		"profile.hours_per_month": tr.T(form.MsgFullWidth),
		"profile.instances":       tr.T(form.MsgInteger),
		"profile.mbps":            tr.T(form.MsgCommaDecimal),
		"profile.data_disk_gb":    tr.T(form.MsgNegative),
	}
	doc := document(t, r.Body)
	summary := doc.Find(`[data-testid="compare-errors"]`)
	for name, msg := range want {
		fid := "f-" + strings.ReplaceAll(name, ".", "-")
		link := summary.Find(`a[href="#` + fid + `"]`)
		if link.Length() != 1 {
			t.Errorf("the summary does not link to #%s", fid)
			continue
		}
		if got := strings.TrimSpace(link.Parent().Find("span").Text()); got != msg {
			t.Errorf("summary for %s: %q, want %q", name, got, msg)
		}
		in := doc.Find("#" + fid)
		if v, _ := in.Attr("value"); v != typed[name] {
			t.Errorf("%s shows %q, want it as typed %q", name, v, typed[name])
		}
		if v, _ := in.Attr("aria-invalid"); v != "true" {
			t.Errorf("%s aria-invalid=%q", name, v)
		}
		desc, _ := in.Attr("aria-describedby")
		if got := strings.TrimSpace(doc.Find("#" + desc).Text()); desc == "" || got != msg {
			t.Errorf("%s is described by #%s %q, want its error %q", name, desc, got, msg)
		}
	}
	if doc.Find(`a[href="#f-profile-months"]`).Length() != 0 {
		t.Error("a field typed right is listed")
	}
	for _, raw := range []string{"类型不对", "可带前导负号", "integer", "decimal"} {
		if strings.Contains(summary.Text(), raw) {
			t.Errorf("the summary says %q", raw)
		}
	}
	// Nothing is compared while the profile has problems, and the old place
	// of the errors (below, in the results) is empty of them.
	if resultRow(t, r.Body, id).Length() != 0 || doc.Find(`#compare-results [data-testid="compare-errors"]`).Length() != 0 {
		t.Error("rows priced, or errors still in the results")
	}

	// With htmx: the form asks for the summary and every field's error out
	// of band, and the response has them.
	oob, _ := doc.Find("#compare-form").Attr("hx-select-oob")
	for _, want := range []string{"#compare-errors", "#f-profile-hours_per_month-error", "#f-profile-data_disk_gb-error", "#f-report_currency-error"} {
		if !strings.Contains(","+oob+",", ","+want+",") {
			t.Errorf("hx-select-oob %q lacks %s", oob, want)
		}
	}
	c.Header.Set("HX-Request", "true")
	h := c.Get("/compare?" + q.Encode())
	hd := document(t, h.Body)
	if strings.Contains(h.Body, "<html") || hd.Find(`#compare-errors [data-testid="compare-errors"]`).Length() != 1 ||
		hd.Find(`#f-profile-mbps-error [data-testid="error-profile.mbps"]`).Length() != 1 {
		t.Fatal("the htmx response lacks the summary or a field's error to swap in")
	}
	// Put right: the summary and the fields' errors are there, empty.
	q.Set("profile.hours_per_month", "200")
	q.Set("profile.instances", "2")
	q.Set("profile.mbps", "1.5")
	q.Set("profile.data_disk_gb", "3")
	ok := document(t, c.Get("/compare?"+q.Encode()).Body)
	if ok.Find("#compare-errors").Length() != 1 || strings.TrimSpace(ok.Find("#compare-errors").Text()) != "" ||
		ok.Find("#f-profile-mbps-error").Length() != 1 || strings.TrimSpace(ok.Find("#f-profile-mbps-error").Text()) != "" {
		t.Fatal("without problems the summary and the fields' errors must be there, empty")
	}
	if ok.Find(`#compare-results [data-testid="row-`+itoa(id)+`"]`).Length() != 1 {
		t.Error("put right, the quote is compared")
	}
	// A yes/no field sent something else: a choice to make, not a type.
	q.Set("profile.resumable", "maybe")
	yn := document(t, c.Get("/compare?"+q.Encode()).Body)
	if got := compactText(yn.Find(`[data-testid="error-profile.resumable"]`)); got != tr.T(form.MsgChoice) {
		t.Errorf("resumable=maybe says %q, want %q", got, tr.T(form.MsgChoice))
	}
}

// compactText is the text of s with its white space squeezed.
func compactText(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }

// TestCompareShareWithoutJavaScript: the share button opens to show the
// whole address of the comparison in a read-only field, ready to copy,
// beside a status for the script to say it copied it.
func TestCompareShareWithoutJavaScript(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	id := publishQuote(app, "EUR", "0.471", "", testfactory.AllIncluded())
	c, _ := app.AsUser(auth.RoleAnalyst)
	r := c.Get(compareURL("200", id))
	doc := document(t, r.Body)
	share := doc.Find(`.page-head details > summary[data-testid="compare-share"]`)
	if share.Length() != 1 {
		t.Fatal("no share button in the page head")
	}
	in := share.Parent().Find(`input[readonly]`)
	v, _ := in.Attr("value")
	if in.Length() != 1 || !strings.HasPrefix(v, app.Config.BaseURL()+"/compare?") || !strings.Contains(v, "q="+itoa(id)) {
		t.Fatalf("the share field holds %q, want the whole address of this comparison", v)
	}
	if u, _ := share.Attr("data-share-url"); app.Config.BaseURL()+u != v {
		t.Errorf("the button copies %q, the field shows %q", u, v)
	}
	if label := doc.Find(`label[for="` + in.AttrOr("id", "") + `"]`); label.Length() != 1 {
		t.Error("the share field has no label")
	}
	status := doc.Find("#" + share.AttrOr("data-share-status", ""))
	if status.AttrOr("role", "") != "status" || status.AttrOr("aria-live", "") == "" {
		t.Error("no status for the copy")
	}
	tr := app.Catalog.Translator("zh-CN")
	if share.AttrOr("data-share-copied", "") != tr.T("compare.share.copied") {
		t.Error("the copied message is not on the button")
	}
}
