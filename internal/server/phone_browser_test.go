package server_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/sample"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// outside is what outsideView finds.
type outside struct {
	Wide bool     `json:"wide"`
	Out  []string `json:"out"`
}

// outsideView is a script that lists the elements matched by sel whose box
// leaves the viewport or, when in is set, the box of their closest
// ancestor matching in; and says whether the page scrolls sideways.
func outsideView(sel, in string) string {
	return `(() => {
	const vw = document.documentElement.clientWidth, out = [];
	for (const e of document.querySelectorAll(` + "`" + sel + "`" + `)) {
		const r = e.getBoundingClientRect();
		if (r.width === 0) continue;
		const box = ` + "`" + in + "`" + ` ? e.closest(` + "`" + in + "`" + `).getBoundingClientRect() : {left: 0, right: vw};
		if (r.left < box.left - 0.5 || r.right > box.right + 0.5) {
			out.push((e.closest('tr') && e.closest('tr').dataset.testid || '') + ' ' + e.tagName.toLowerCase() + ' "' +
				e.textContent.trim().slice(0, 20) + '" ' + Math.round(r.left) + '..' + Math.round(r.right) + ' in ' + Math.round(box.left) + '..' + Math.round(box.right));
		}
	}
	return {wide: document.documentElement.scrollWidth > window.innerWidth, out: out};
})()`
}

// TestBrowserQuotesReadOnAPhone: at 390 px, in both languages, the quote
// list's buttons wrap inside the page for an analyst (export, own
// proposals, propose) and an editor (export, import, enter), and a quote's
// twelve lines read as one card per line, every cell inside the card and
// each item's name on one or two lines; at 1280 px the lines stay a table
// (docs/RULES.md §21.2).
func TestBrowserQuotesReadOnAPhone(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p := testfactory.Platform(t, app.Store, market.Platform{})
	g := testfactory.GPUModel(t, app.Store, market.GPUModel{})
	d, err := app.Store.CreateQuoteDraft(t.Context(), user.SystemActor, testutil.FullQuote(p.ID, g.ID, time.Now().UTC()))
	if err != nil {
		t.Fatal(err)
	}
	q := testfactory.Publish(t, app.Store, d).ID
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleEditor} {
		email, pw, _ := app.CreateUser(role)
		ctx := testutil.Browser(t)
		if err := chromedp.Do(ctx, signIn(app, email, pw)); err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"zh-CN", "en"} {
			useLanguage(t, ctx, lang)
			where := fmt.Sprintf("/quotes as %s in %s at 390 px", role, lang)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(app.URL+"/quotes"),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="quotes-export"]`))); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			m, err := chromedp.Run(ctx, chromedp.Evaluate[outside](outsideView(`.page-head .btn`, "")))
			if err != nil {
				t.Fatal(err)
			}
			if m.Wide || len(m.Out) > 0 {
				t.Errorf("%s: scrolls sideways %v, buttons outside the screen: %s", where, m.Wide, strings.Join(m.Out, "; "))
			}
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("quotes-%s-%s-390", role, lang), `.page-head`)
			if role != auth.RoleAnalyst {
				continue
			}

			where = fmt.Sprintf("a quote's lines in %s at 390 px", lang)
			if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/quotes/"+itoa(q)),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="quote-lines"]`))); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			m, err = chromedp.Run(ctx, chromedp.Evaluate[outside](outsideView(`[data-testid="quote-lines"] tbody :is(th, td)`, ".table-wrap")))
			if err != nil {
				t.Fatal(err)
			}
			if m.Wide || len(m.Out) > 0 {
				t.Errorf("%s: scrolls sideways %v; cells outside the box: %s", where, m.Wide, strings.Join(m.Out, "; "))
			}
			tall, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="quote-lines"] tbody tr')].map(tr => {
				const name = tr.firstElementChild, lh = parseFloat(getComputedStyle(name).lineHeight);
				return Math.round(name.getBoundingClientRect().height / lh) > 2 ? tr.dataset.testid + ' ' + Math.round(name.getBoundingClientRect().width) + ' px wide' : '';
			}).filter(Boolean)`))
			if err != nil {
				t.Fatal(err)
			}
			if len(tall) > 0 {
				t.Errorf("%s: item names on more than two lines: %s", where, strings.Join(tall, "; "))
			}
			testutil.ViewportScreenshot(t, ctx, "quote-lines-"+lang+"-390", `[data-testid="quote-lines"]`)

			where = fmt.Sprintf("a quote's lines in %s at 1280 px", lang)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(app.URL+"/quotes/"+itoa(q)),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="quote-lines"]`))); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector('[data-testid="quote-lines"] thead th').checkVisibility()`)); err != nil || !shown {
				t.Errorf("%s: the column headings are not shown (%v)", where, err)
			}
			testutil.ViewportScreenshot(t, ctx, "quote-lines-"+lang+"-1280", `[data-testid="quote-lines"]`)
		}
	}
}

// chartText is what the charts on a page measure: how many texts they
// hold and the smallest any of them is drawn on screen, in CSS pixels.
type chartText struct {
	Texts    int     `json:"texts"`
	Smallest float64 `json:"smallest"`
	Where    string  `json:"where"`
}

const measureChartText = `(() => {
	let n = 0, smallest = 1e9, where = '';
	for (const svg of document.querySelectorAll('svg.chart')) {
		const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
		for (const t of svg.querySelectorAll('text')) {
			n++;
			const px = parseFloat(getComputedStyle(t).fontSize) * scale;
			if (px < smallest) { smallest = px; where = (svg.querySelector('title') || {}).textContent + ': "' + t.textContent.slice(0, 20) + '"'; }
		}
	}
	return {texts: n, smallest: Math.round(smallest * 10) / 10, where: where};
})()`

// TestBrowserChartTextStaysReadable: the compare page's and a saved
// report's charts of the sample market's four HOSTKEY offers, and the price
// history's, draw no text smaller than 11 px on screen at 390 and at 1280
// px, in both languages; where the screen is narrower than a chart, the
// chart scrolls in its box (docs/RULES.md §21.2).
func TestBrowserChartTextStaysReadable(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	if err := sample.LoadMarket(t.Context(), app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	var platform, gpu int64
	if err := app.Store.ExportQuotes(t.Context(), store.QuoteFilter{Query: "HOSTKEY"}, func(q quote.Quote) error {
		ids = append(ids, q.ID)
		platform, gpu = q.PlatformID, q.GPUModelID
		return nil
	}); err != nil || len(ids) != 4 {
		t.Fatalf("sample HOSTKEY quotes: %d, %v", len(ids), err)
	}
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	c := app.Client()
	c.Login(email, pw)
	report := saveReport(t, c, reportForm("charts", "200", ids...))
	pages := map[string]string{"compare": compareURL("200", ids...), "report": "/reports/" + itoa(report),
		"history": "/history?platform=" + itoa(platform) + "&gpu=" + itoa(gpu)}
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, pw)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			for _, name := range []string{"compare", "report", "history"} {
				where := fmt.Sprintf("%s in %s at %d px", name, lang, width)
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+pages[name]),
					chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] svg.chart`))); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				m, err := chromedp.Run(ctx, chromedp.Evaluate[chartText](measureChartText))
				if err != nil {
					t.Fatal(err)
				}
				if m.Texts == 0 || m.Smallest < 11 {
					t.Errorf("%s: the smallest of %d chart texts is %.1f px on screen (%s); want 11 px or more", where, m.Texts, m.Smallest, m.Where)
				}
				wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
				if err != nil || wide {
					t.Errorf("%s: the page scrolls sideways (%v)", where, err)
				}
				testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("charts-%s-%s-%d", name, lang, width), `svg.chart`)
			}
		}
	}
}

// sortSeen is what the compare page shows of its sort orders: the
// legend's visible text, the sort links a reader can see and whether the
// results' headings are shown.
type sortSeen struct {
	Legend   string   `json:"legend"`
	Links    []string `json:"links"`
	Headings bool     `json:"headings"`
}

// TestBrowserCompareSaysHowToSort: where the results are cards (390 px)
// their headings are not shown, so the legend does not say to click one
// and the sort orders are links a reader sees, which sort; at 1280 px the
// legend says to click a heading and the headings sort. In both
// languages (docs/RULES.md §21.2).
func TestBrowserCompareSaysHowToSort(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ids := []int64{publishQuote(app, "EUR", "0.471", "284", nil), publishQuote(app, "EUR", "0.5", "118", nil)}
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, pw)); err != nil {
		t.Fatal(err)
	}
	// Seen: rendered, and not inside a box clipped away for screen
	// readers only (the cards' headings).
	const read = `(() => {
		const seen = e => {
			if (!e.checkVisibility({visibilityProperty: true})) return false;
			for (let a = e; a; a = a.parentElement) if (getComputedStyle(a).clip === 'rect(0px, 0px, 0px, 0px)') return false;
			return true;
		};
		return {legend: [...document.querySelectorAll('section:has([data-testid="compare-table"]) > p.hint')].map(p => p.innerText).join(' '),
			links: [...document.querySelectorAll('a[href*="sort="]')].filter(seen).map(a => a.innerText.trim()),
			headings: seen(document.querySelector('[data-testid="compare-table"] thead th'))};
	})()`
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		click := app.Catalog.Translator(i18n.Lang(lang)).T("compare.legend.sort_headings")
		for _, width := range []int64{390, 1280} {
			where := fmt.Sprintf("%s at %d px", lang, width)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+compareURL("200", ids...)),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="compare-table"]`))); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			s, err := chromedp.Run(ctx, chromedp.Evaluate[sortSeen](read))
			if err != nil {
				t.Fatal(err)
			}
			if s.Headings != strings.Contains(s.Legend, click) {
				t.Errorf("%s: headings shown %v, but the legend says %q", where, s.Headings, s.Legend)
			}
			if len(s.Links) < 5 {
				t.Errorf("%s: the sort orders a reader sees: %q; want each of the five", where, s.Links)
				continue
			}
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("compare-sort-%s-%d", lang, width), `[data-testid="compare-table"]`)
			// The last order a reader sees, the break-even hours, sorts.
			if !strings.Contains(s.Links[len(s.Links)-1], app.Catalog.Translator(i18n.Lang(lang)).T("calc.result.break_even_hours")) {
				t.Errorf("%s: the last sort order seen is %q, not the break-even hours", where, s.Links[len(s.Links)-1])
				continue
			}
			link := `[data-testid="sort-card-break_even"]`
			if s.Headings {
				link = `[data-testid="sort-break_even"]`
			}
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(link)),
				chromedp.WaitReady(chromedp.CSS(`th:not([aria-sort="none"]) [data-testid="sort-break_even"]`))); err != nil {
				t.Errorf("%s: the break-even order did not sort: %v", where, err)
			}
		}
	}
}

// selectsCut is a script that lists the calculator's line selects too
// narrow for one of their choices (the width a select of that one choice
// takes), and the lines' table wider than its box.
const selectsCut = `(() => {
	const out = [], t = document.querySelector('[data-testid="calc-lines"] table');
	for (const sel of t.querySelectorAll('select')) {
		for (const o of sel.options) {
			const c = sel.cloneNode(false);
			c.appendChild(o.cloneNode(true));
			c.style.width = 'auto';
			c.style.minWidth = '0';
			sel.parentElement.appendChild(c);
			const need = c.getBoundingClientRect().width;
			c.remove();
			if (need > sel.getBoundingClientRect().width + 0.5) {
				out.push(sel.id + ' "' + o.text + '" needs ' + Math.round(need) + ' px, has ' + Math.round(sel.getBoundingClientRect().width));
				break;
			}
		}
	}
	const box = t.closest('.table-wrap');
	if (box.scrollWidth > box.clientWidth) out.push('the table is ' + box.scrollWidth + ' px wide in a ' + box.clientWidth + ' px box');
	return out;
})()`

// TestBrowserCalculatorUnitsShowWhole: at 1280 px, beside the result, the
// calculator's twelve lines show every choice of their status and unit
// selects whole ("每 Mbps·月", not "每 Mb…"), and all five controls of a
// line without scrolling, in both languages (docs/RULES.md §21.2).
func TestBrowserCalculatorUnitsShowWhole(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(app.URL+"/calculator")); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(app.URL+"/calculator"),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="calc-lines"] select`))); err != nil {
			t.Fatal(err)
		}
		cut, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](selectsCut))
		if err != nil {
			t.Fatal(err)
		}
		if len(cut) > 0 {
			t.Errorf("%s at 1280 px: %s", lang, strings.Join(cut, "; "))
		}
		testutil.ViewportScreenshot(t, ctx, "calculator-lines-"+lang+"-1280", `[data-testid="calc-lines"] table`)
	}
}
