package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// TestBrowserCompareErrorsAndShare: a full-width number typed into the
// profile brings the error summary above the form and the field's own
// error in place (htmx, out of band), and putting it right takes both
// away; the share button copies the comparison's address and says so.
func TestBrowserCompareErrorsAndShare(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	a := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	email, pw, _ := app.CreateUser(auth.RoleAnalyst)
	ctx := testutil.Browser(t)
	clipboard := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for _, name := range []string{"clipboard-read", "clipboard-write"} {
			if _, err := cdp.Call(ctx, tg, browser.SetPermission, browser.SetPermissionParams{
				Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: app.URL,
				// The test's tab has a browser context of its own.
				BrowserContextID: chromedp.FromContext(ctx).BrowserContextID}); err != nil {
				return err
			}
		}
		return nil
	})
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		clipboard,
		chromedp.Navigate(app.URL+compareURL("200", a)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="row-`+itoa(a)+`"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="compare-summary"] summary`)),
		chromedp.Clear(chromedp.ID("f-profile-hours_per_month")),
		chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "２００"),
	); err != nil {
		t.Fatal(err)
	}
	tr := app.Catalog.Translator("zh-CN")
	waitText(ctx, t, `#compare-errors [data-testid="compare-errors"]`, tr.T(form.MsgFullWidth))
	waitText(ctx, t, `#f-profile-hours_per_month-error`, tr.T(form.MsgFullWidth))
	above, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
		`!!(document.getElementById("compare-errors").compareDocumentPosition(document.getElementById("compare-form")) & Node.DOCUMENT_POSITION_FOLLOWING)`))
	if err != nil || !above {
		t.Fatalf("the summary is not above the form (%v)", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("f-profile-hours_per_month").getAttribute("aria-invalid") === "true"`)); err != nil {
		t.Fatalf("the field is not marked invalid: %v", err)
	}
	// Put right: both go away, the field is valid again, the row is back.
	// (Clear leaves full-width text behind.)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("f-profile-hours_per_month").value = ""`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("f-profile-hours_per_month"), "300")); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="row-`+itoa(a)+`"] [data-testid="tco"]`, "70.00")
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("compare-errors").textContent.trim() === "" &&
		document.getElementById("f-profile-hours_per_month-error").textContent.trim() === "" &&
		document.getElementById("f-profile-hours_per_month").getAttribute("aria-invalid") === "false"`)); err != nil {
		t.Fatalf("the errors stay after the hours were put right: %v", err)
	}

	// Share: copies the address of what is on screen now (300 h), says so,
	// and does not need to open.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-testid="compare-share"]`))); err != nil {
		t.Fatal(err)
	}
	waitText(ctx, t, `[data-testid="compare-share-status"]`, tr.T("compare.share.copied"))
	copied, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	// The script copies the comparison at the address the reader is at;
	// the field shows it at the site's configured address.
	path, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("[data-share-url]").getAttribute("data-share-url")`))
	if err != nil || copied != app.URL+path || path == "" {
		t.Fatalf("copied %q, want the comparison's address %q (%v)", copied, app.URL+path, err)
	}
	if field, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("compare-share-url").value`)); field != app.Config.BaseURL()+path {
		t.Errorf("the share field shows %q, want %q", field, app.Config.BaseURL()+path)
	}
	if open, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("details.share").open`)); open {
		t.Error("the share box opened although the address was copied")
	}
	for _, part := range []string{app.URL + "/compare?", "profile.hours_per_month=300", "q=" + itoa(a)} {
		if !strings.Contains(copied, part) {
			t.Errorf("copied %q is not this comparison (no %s)", copied, part)
		}
	}
}
