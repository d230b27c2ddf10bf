package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestBrowserHomeInBothLanguages loads the home page in Chromium, switches
// the language with the header's form, and screenshots both.
func TestBrowserHomeInBothLanguages(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := testutil.Browser(t)
	var title, lang, h1 string
	var err error
	if err = chromedp.Do(ctx, chromedp.Navigate(app.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="home"]`))); err != nil {
		t.Fatal(err)
	}
	if h1, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	if lang, err = chromedp.Run(ctx, chromedp.Evaluate[string]("document.documentElement.lang")); err != nil {
		t.Fatal(err)
	}
	if lang != "zh-CN" || !strings.Contains(h1, "总成本") {
		t.Fatalf("default page: lang %q, h1 %q; want Chinese", lang, h1)
	}
	testutil.Screenshot(t, ctx, "home-zh")

	if err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="lang-en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] [data-testid="home"]`))); err != nil {
		t.Fatal(err)
	}
	if h1, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	if title, err = chromedp.Run(ctx, chromedp.Title()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h1, "total cost") || !strings.Contains(title, "gpuquote") {
		t.Fatalf("English page: h1 %q, title %q", h1, title)
	}
	testutil.Screenshot(t, ctx, "home-en")

	// The choice sticks (cookie) and can be switched back.
	if err = chromedp.Do(ctx, chromedp.Navigate(app.URL+"/login"), chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] [data-testid="login-form"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="lang-zh"]`)), chromedp.WaitVisible(chromedp.CSS(`html[lang="zh-CN"] [data-testid="login-form"]`))); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserLoginLogout signs in through the form, sees the user's name in
// the header, and signs out.
func TestBrowserLoginLogout(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleFinance)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(app.URL+"/account"), // protected: goes to the login page
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), pw),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="account-name"]`)),
	); err != nil {
		t.Fatal(err)
	}
	who, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="current-user"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(who, "Test finance") {
		t.Fatalf("header shows %q, want the user's name", who)
	}
	testutil.Screenshot(t, ctx, "account")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="logout"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="flash"]`)),
	); err != nil {
		t.Fatal(err)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="current-user"]').length`))
	if err != nil || n != 0 {
		t.Fatalf("still signed in after logout (%d, %v)", n, err)
	}
}

// signIn fills in and sends the sign-in form, and waits for the home page.
func signIn(app *testutil.App, email, password string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(app.URL+"/login"),
		chromedp.SendKeys(chromedp.ID("email"), email),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="home"]`)),
	)
}

// useLanguage makes the browser ask for lang (zh-CN or en) from its next
// page on, as the language switch does.
func useLanguage(t *testing.T, ctx context.Context, lang string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie = "gq_lang=`+lang+`; path=/"`)); err != nil {
		t.Fatal(err)
	}
}

// compareTicking signs in and ticks ids on the compare page, in EUR.
func compareTicking(app *testutil.App, email, password string, ids []int64) []chromedp.Action[chromedp.Void] {
	steps := []chromedp.Action[chromedp.Void]{
		signIn(app, email, password),
		chromedp.Navigate(app.URL + "/compare"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="compare-form"]`)),
		chromedp.SetValue(chromedp.ID("f-report_currency"), "EUR"),
	}
	for _, id := range ids {
		steps = append(steps, chromedp.Click(chromedp.ID("cand-q-"+itoa(id))))
	}
	return steps
}

// fitPage is a page a browser test opens at a phone's and a desktop's
// width: its path, the part it waits for, and whether the screenshot keeps
// only the view around that part (long pages) or the whole page.
type fitPage struct {
	name, path, ready string
	part              bool
}

// pagesFit opens each page in zh-CN and en at 390 and 1280 px wide (the
// browser signed in as whoever should see them): none may scroll sideways.
// Each is kept as a screenshot named prefix-name-lang-width.
func pagesFit(t *testing.T, b context.Context, app *testutil.App, prefix string, pages []fitPage) {
	t.Helper()
	for _, lang := range []string{"zh-CN", "en"} {
		if err := chromedp.Do(b, chromedp.Navigate(app.URL+pages[0].path), chromedp.WaitVisible(chromedp.CSS(pages[0].ready))); err != nil {
			t.Fatal(err)
		}
		useLanguage(t, b, lang)
		for _, width := range []int64{390, 1280} {
			for _, p := range pages {
				if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+p.path),
					chromedp.WaitVisible(chromedp.CSS(`html[lang="`+lang+`"] `+p.ready))); err != nil {
					t.Fatalf("%s %s at %d: %v", lang, p.name, width, err)
				}
				wide, err := chromedp.Run(b, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
				if err != nil {
					t.Fatal(err)
				}
				if wide {
					t.Errorf("%s %s at %d px scrolls sideways", lang, p.name, width)
				}
				name := fmt.Sprintf("%s-%s-%s-%d", prefix, p.name, lang, width)
				if p.part {
					testutil.ViewportScreenshot(t, b, name, p.ready)
				} else {
					testutil.Screenshot(t, b, name)
				}
			}
		}
	}
}

// publishSample4090s publishes a full RTX 4090 quote (testutil.FullQuote,
// dated today) on each sample platform named, in order, after
// sample.LoadMarket; it returns the quotes' and the platforms' ids and the
// GPU model's.
func publishSample4090s(t *testing.T, app *testutil.App, platformsZH ...string) (quoteIDs, platformIDs []int64, gpu int64) {
	t.Helper()
	ctx := context.Background()
	if err := app.Store.Pool().QueryRow(ctx, `SELECT id FROM gpu_models WHERE name = 'GeForce RTX 4090'`).Scan(&gpu); err != nil {
		t.Fatal(err)
	}
	for _, name := range platformsZH {
		var pid int64
		if err := app.Store.Pool().QueryRow(ctx, `SELECT id FROM platforms WHERE name_zh = $1`, name).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		d, err := app.Store.CreateQuoteDraft(ctx, user.SystemActor, testutil.FullQuote(pid, gpu, time.Now().UTC()))
		if err != nil {
			t.Fatal(err)
		}
		p, err := app.Store.PublishQuote(ctx, user.SystemActor, d.ID, d.LockVersion)
		if err != nil {
			t.Fatal(err)
		}
		quoteIDs, platformIDs = append(quoteIDs, p.ID), append(platformIDs, pid)
	}
	return quoteIDs, platformIDs, gpu
}
