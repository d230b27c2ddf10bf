package server_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
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
