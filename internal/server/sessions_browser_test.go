package server_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestBrowserAccountSessions: the account page with its sessions list and
// the token form's password field fits a phone and a desktop in both
// languages without sideways scrolling; "sign out here" works without any
// script and leaves the other sessions (docs/RULES.md §16.5).
func TestBrowserAccountSessions(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	long := "Mozilla/5.0 (Linux; Android 14; SM-S9180 Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) " +
		"Version/4.0 Chrome/124.0.6367.179 Mobile Safari/537.36 MicroMessenger/8.0.49.2600(0x28003133) WeChat/arm64 Weixin NetType/WIFI"
	for _, ua := range []string{uaWindowsFirefox, uaIPhoneWeChat, long} {
		signedInAs(app, email, pw, ua)
	}
	other := signedInAs(app, email, pw, uaLinuxChromium)

	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx, signIn(app, email, pw)); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(ctx,
				chromedp.EmulateViewport(width, 900),
				chromedp.Navigate(app.URL+"/account"),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="sessions"]`)),
			); err != nil {
				t.Fatalf("%s %d: %v", lang, width, err)
			}
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if wide {
				t.Errorf("%s, %d px: the account page scrolls sideways", lang, width)
			}
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid^="session-"][class="session"]').length`))
			if err != nil || n != 5 {
				t.Errorf("%s, %d px: %d sessions listed, want 5 (%v)", lang, width, n, err)
			}
			testutil.Screenshot(t, ctx, fmt.Sprintf("account-sessions-%s-%d", lang, width))
		}
	}

	// "Sign out here": a plain form, no confirmation; the login page follows.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="session-end-self"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="login-form"]`)),
	); err != nil {
		t.Fatal(err)
	}
	flash, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="flash"]`)))
	if err != nil || !strings.Contains(flash, "other sessions go on") {
		t.Errorf("flash %q (%v)", flash, err)
	}
	if r := other.Get("/account"); r.StatusCode != 200 {
		t.Errorf("another browser was signed out: %d", r.StatusCode)
	}
}
