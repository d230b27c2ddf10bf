package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/facts"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// compareSections are the compare page's sections loaded when opened
// (docs/RULES.md §20.4), with what each shows once loaded.
var compareSections = []struct{ key, body string }{
	{"lines", `[data-testid="compare-lines"]`},
	{"facts", `[data-testid="compare-facts"]`},
	{"availability", `[data-testid="compare-availability"]`},
}

// sectionPath is the address the compare page in body gives section key:
// its details' hx-get, which its link in the body repeats for a browser
// without JavaScript.
func sectionPath(t testing.TB, body, key string) string {
	t.Helper()
	d := document(t, body).Find(`details[data-testid="section-` + key + `"]`)
	if d.Length() != 1 {
		t.Fatalf("the compare page has %d %s sections", d.Length(), key)
	}
	get, _ := d.Attr("hx-get")
	href, _ := d.Find(`.sbody a[data-testid="section-open"]`).Attr("href")
	if get == "" || get != href {
		t.Fatalf("%s: hx-get %q, link %q", key, get, href)
	}
	return get
}

// sectionOf is section key of the compare page in body, fetched as a
// browser without htmx does: its own page.
func sectionOf(t testing.TB, c *testutil.Client, body, key string) string {
	t.Helper()
	r := c.Get(sectionPath(t, body, key))
	if r.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d", key, r.StatusCode)
	}
	return r.Body
}

// htmxGet fetches path as htmx does.
func htmxGet(t testing.TB, app *testutil.App, c *testutil.Client, path string) *testutil.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, app.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("HX-Request", "true")
	return c.Do(req)
}

// TestCompareSectionsLoadOnDemand: the compare page holds none of the
// twelve-line matrix, the facts matrix or the availability, only a closed
// section for each naming how many quotes it shows, at the address of the
// shared link's state. Each address serves its section: the same figures a
// report of the same comparison shows, a page of its own (title, link back)
// without htmx and the fragment with it, the same body in both. Nothing
// priced gives the section's empty state (docs/RULES.md §20.4).
func TestCompareSectionsLoadOnDemand(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	none := trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID)
	pid, gid := marketRefs(app)
	availCompareRecords(t, app, market.PlatformGPU{PlatformID: pid, GPUModelID: gid})
	testfactory.Fact(app.T, app.Store, pid, facts.StateKept, facts.Yes)
	c, _ := app.AsUser(auth.RoleAnalyst)
	form := marketForm("分段加载", a, b, none)
	state := url.Values{}
	for k, vs := range form {
		if k != "title" && k != "purpose" {
			state[k] = vs
		}
	}
	page := c.Get("/compare?" + state.Encode())
	if page.StatusCode != http.StatusOK || figure(t, page.Body, a, "tco") == "" {
		t.Fatalf("compare: %d", page.StatusCode)
	}
	for _, gone := range []string{`data-testid="compare-lines"`, `data-testid="compare-facts"`, `data-testid="compare-availability"`,
		`data-testid="lines-`, `data-testid="avail-row-`, `facts-matrix`, `matrix-wrap`} {
		if strings.Contains(page.Body, gone) {
			t.Errorf("the compare page still holds %s", gone)
		}
	}
	pd := document(t, page.Body)
	share, _ := pd.Find(`[data-testid="compare-share"]`).Attr("data-share-url")
	_, shareQuery, _ := strings.Cut(share, "?")
	if shareQuery == "" {
		t.Fatalf("no share link: %q", share)
	}
	for _, s := range compareSections {
		d := pd.Find(`details[data-testid="section-` + s.key + `"]`)
		if _, open := d.Attr("open"); open || d.AttrOr("hx-trigger", "") != "toggle once" || d.Find("summary h2").Length() != 1 {
			t.Errorf("%s: not a closed section loaded once opened", s.key)
		}
		if n := d.AttrOr("data-count", ""); n != "3" || !strings.Contains(d.Find("summary").Text(), "3 份报价") {
			t.Errorf("%s: counts %q quotes, says %q", s.key, n, d.Find("summary").Text())
		}
		if p := sectionPath(t, page.Body, s.key); p != "/compare/"+s.key+"?"+shareQuery {
			t.Errorf("%s: address %q, want the share link's state %q", s.key, p, shareQuery)
		}
	}

	// The same figures as the report of the same comparison shows inline.
	rep := c.Get("/reports/" + itoa(saveReport(t, c, form))).Body
	lines := sectionOf(t, c, page.Body, "lines")
	avail := sectionOf(t, c, page.Body, "availability")
	for _, id := range []int64{a, b, none} {
		got := document(t, lines).Find(`[data-testid="compare-lines"] [data-testid="lines-` + itoa(id) + `"]`)
		want := document(t, rep).Find(`[data-testid="report-lines-table"] [data-testid="lines-` + itoa(id) + `"]`)
		if got.Length() != 1 || want.Length() != 1 {
			t.Fatalf("quote %d: %d rows in the section, %d in the report", id, got.Length(), want.Length())
		}
		if g, w := collapse(got.Text()), collapse(want.Text()); g != w {
			t.Errorf("quote %d's lines:\n%s\nthe report's:\n%s", id, g, w)
		}
		for _, days := range []int{30, 90} {
			// Each quote's platform × GPU model entry (one per pair).
			g := availText(t, avail, `[data-testid="compare-availability"] [data-quotes~="`+itoa(id)+`"]`, days)
			w := availText(t, rep, `[data-testid="report-availability"] [data-quotes~="`+itoa(id)+`"]`, days)
			if g == "" || g != w {
				t.Errorf("quote %d, %d days: %q, the report %q", id, days, g, w)
			}
		}
	}
	if got := lineCell(t, lines, a, "snapshot"); !strings.Contains(got, "€") {
		t.Errorf("the unconfirmed snapshot line names no reference amount: %q", got)
	}
	fd := document(t, sectionOf(t, c, page.Body, "facts"))
	if v := fd.Find(`[data-testid="compare-fact-` + itoa(pid) + `-state_kept"]`); v.AttrOr("data-value", "") != "yes" {
		t.Errorf("facts: state kept %q", v.AttrOr("data-value", ""))
	}

	// A page of its own without htmx, the fragment with it: the same body.
	tr := app.Catalog.Translator("zh-CN")
	for _, s := range compareSections {
		path := sectionPath(t, page.Body, s.key)
		full, frag := c.Get(path), htmxGet(t, app, c, path)
		for _, r := range []*testutil.Response{full, frag} {
			if r.StatusCode != http.StatusOK || !strings.Contains(r.Header.Get("Vary"), "HX-Request") {
				t.Fatalf("%s: status %d, Vary %q", s.key, r.StatusCode, r.Header.Get("Vary"))
			}
		}
		fullDoc, fragDoc := document(t, full.Body), document(t, frag.Body)
		title := tr.T(map[string]string{"lines": "compare.lines.title", "facts": "facts.compare.title",
			"availability": "availability.heading"}[s.key])
		if !strings.Contains(full.Body, "<html") || !strings.Contains(fullDoc.Find("title").Text(), title) ||
			strings.TrimSpace(fullDoc.Find("h1").Text()) != title {
			t.Errorf("%s: not a page titled %q", s.key, title)
		}
		if back := fullDoc.Find(`a[data-testid="section-back"]`).AttrOr("href", ""); back != share {
			t.Errorf("%s: links back to %q, want %q", s.key, back, share)
		}
		if strings.Contains(frag.Body, "<html") || fragDoc.Find(".sbody "+s.body).Length() != 1 {
			t.Errorf("%s: the fragment is a page, or holds no %s", s.key, s.body)
		}
		fb, _ := goquery.OuterHtml(fullDoc.Find(".sbody"))
		gb, _ := goquery.OuterHtml(fragDoc.Find(".sbody"))
		if fb == "" || fb != gb {
			t.Errorf("%s: the page's and the fragment's bodies differ", s.key)
		}
	}

	// Nothing priced: no quote, a profile error, an unknown report
	// currency. The page shows no section; each address its empty state.
	for name, st := range map[string]url.Values{
		"no quote":        {"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}},
		"a profile error": {"profile.hours_per_month": {"999"}, "profile.months": {"1"}, "profile.instances": {"1"}, "q": {itoa(a)}},
		"no currency":     {"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}, "q": {itoa(a)}, "report_currency": {"XYZ"}},
	} {
		if p := c.Get("/compare?" + st.Encode()); p.StatusCode != http.StatusOK || strings.Contains(p.Body, `data-testid="section-`) {
			t.Errorf("%s: compare %d, or a section shown", name, p.StatusCode)
		}
		for _, s := range compareSections {
			for _, r := range []*testutil.Response{c.Get("/compare/" + s.key + "?" + st.Encode()), htmxGet(t, app, c, "/compare/"+s.key+"?"+st.Encode())} {
				d := document(t, r.Body)
				if r.StatusCode != http.StatusOK || d.Find(`.sbody [data-testid="section-empty"]`).Length() != 1 || d.Find(s.body).Length() != 0 {
					t.Errorf("%s, %s: status %d, not the empty state", name, s.key, r.StatusCode)
				}
			}
		}
	}
}

// collapse is s with its runs of white space made one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
