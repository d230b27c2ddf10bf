package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// navMeasure is what the header measures of itself: its height, the
// navigation entries shown and hidden, how many rows the shown main entries
// take, and whether the page scrolls sideways.
type navMeasure struct {
	Header   int      `json:"header"`
	Shown    []string `json:"shown"`
	Hidden   []string `json:"hidden"`
	MainRows int      `json:"mainRows"`
	Wide     bool     `json:"wide"`
	Over     []string `json:"over"`
}

const measureNav = `(() => {
	const seen = e => e.checkVisibility({visibilityProperty: true});
	const links = [...document.querySelectorAll('nav a[data-testid^="nav-"]')];
	const main = links.filter(a => !a.closest('.nav-group') && seen(a));
	return {header: Math.round(document.querySelector('.site-header').getBoundingClientRect().height),
		shown: links.filter(seen).map(a => a.dataset.testid), hidden: links.filter(a => !seen(a)).map(a => a.dataset.testid),
		mainRows: new Set(main.map(a => Math.round(a.getBoundingClientRect().top))).size,
		wide: document.documentElement.scrollWidth > window.innerWidth,
		over: [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5).slice(0, 6).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))};
})()`

// TestBrowserNavigationFolds: with scripts off, an admin's navigation (the
// most entries: the main ones, the finance inbox, the editors' group and
// the administration's) is at 390 px one folded menu under a header of two
// short rows, whose toggle shows every main entry and the groups; at 1280
// px the main entries are one row under the site's name and the tools, and
// each group opens under its name (docs/RULES.md §21.2). In both languages.
func TestBrowserNavigationFolds(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleAdmin)
	ctx := testutil.Browser(t)
	noJS := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	if err := chromedp.Do(ctx, noJS, signIn(app, email, pw)); err != nil {
		t.Fatal(err)
	}
	measure := func(where string) navMeasure {
		t.Helper()
		m, err := chromedp.Run(ctx, chromedp.Evaluate[navMeasure](measureNav))
		if err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if m.Wide {
			t.Errorf("%s: the page scrolls sideways: %v", where, m.Over)
		}
		return m
	}
	groups := []string{"nav-prices", "nav-dashboard", "nav-electricity", "nav-proposal-queue", "nav-users", "nav-audit"}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		// A phone: the menu is folded; its toggle opens it.
		where := lang + " at 390 px"
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(app.URL+"/"),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="brand"]`))); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if m := measure(where); m.Header > 130 || len(m.Shown) != 0 {
			t.Errorf("%s: the header is %d px tall (at most 130) and shows %v before the menu is opened", where, m.Header, m.Shown)
		}
		testutil.Screenshot(t, ctx, "nav-"+lang+"-390")
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="site-menu-toggle"]').length`)); err != nil || n != 1 {
			t.Errorf("%s: %d menu toggles (%v), want 1", where, n, err)
		} else {
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="site-menu-toggle"]`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav-quotes"]`))); err != nil {
				t.Fatalf("%s: the menu does not open: %v", where, err)
			}
			m := measure(where)
			if want := 10; len(m.Shown) != want || strings.Join(m.Hidden, " ") != strings.Join(groups, " ") {
				t.Errorf("%s, menu open: shows %v, hides %v; want the %d main entries shown and the groups' folded", where, m.Shown, m.Hidden, want)
			}
			if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="menu-group-admin"] summary`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav-audit"]`))); err != nil {
				t.Errorf("%s: the administration's group does not open: %v", where, err)
			}
			testutil.Screenshot(t, ctx, "nav-open-"+lang+"-390")
		}

		// A desktop: the main entries in one row, the groups folded.
		where = lang + " at 1280 px"
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(app.URL+"/"),
			chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] [data-testid="brand"]`))); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		m := measure(where)
		if len(m.Shown) != 10 || m.MainRows != 1 || m.Header > 110 {
			t.Errorf("%s: %d entries shown (%v) in %d rows, header %d px; want the 10 main entries in one row under the site's name, at most 110 px", where,
				len(m.Shown), m.Shown, m.MainRows, m.Header)
		}
		if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="menu-group-editing"] summary').length`)); err != nil || n != 1 {
			t.Errorf("%s: %d editors' groups (%v), want 1", where, n, err)
			continue
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="menu-group-editing"] summary`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="nav-dashboard"]`))); err != nil {
			t.Errorf("%s: the editors' group does not open: %v", where, err)
		}
		if m = measure(where); m.Header > 110 {
			t.Errorf("%s: the open group pushes the header to %d px; it should open over the page", where, m.Header)
		}
		testutil.Screenshot(t, ctx, fmt.Sprintf("nav-open-%s-1280", lang))
	}
}
