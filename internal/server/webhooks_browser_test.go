package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/webhook"
)

// TestBrowserWebhookPages: an editor registers an endpoint on the
// webhooks page; after a bill's approval is delivered to a receiver that
// fails, its page shows the delivery log with "redeliver". Both pages are
// looked at in both languages at 390 and 1280 px: nothing scrolls
// sideways, and axe-core finds no serious or critical violation.
func TestBrowserWebhookPages(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	defer receiver.Close()
	email, password, _ := app.CreateUser(auth.RoleEditor)
	ctx := testutil.Browser(t)
	if err := testutil.InjectAxe(ctx); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, signIn(app, email, password), chromedp.Navigate(app.URL+"/admin/webhooks"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="webhook-add"]`))); err != nil {
		t.Fatal(err)
	}
	ep, err := app.Store.CreateWebhookEndpoint(context.Background(), user.SystemActor, time.Now(), webhook.Endpoint{
		Kind: webhook.KindGeneric, URL: receiver.URL, Events: []string{webhook.ReportApproved}, Description: "采购系统"})
	if err != nil {
		t.Fatal(err)
	}
	approvedReport(t, app, goldenBillQuote(app, 1), "EUR")
	if _, err := webhook.NewSender(app.Store, webhook.NewClient(true, ""), time.Now, slog.New(slog.NewTextHandler(io.Discard, nil))).
		DeliverDue(context.Background(), time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"zh-CN", "en"} {
		useLanguage(t, ctx, lang)
		for _, width := range []int64{390, 1280} {
			for _, p := range []struct{ name, path, ready string }{
				{"list", "/admin/webhooks", `[data-testid="webhooks"]`},
				{"endpoint", "/admin/webhooks/" + strconv.FormatInt(ep.ID, 10), `[data-testid="webhook-log"]`},
			} {
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+p.path),
					chromedp.WaitVisible(chromedp.CSS(p.ready))); err != nil {
					t.Fatalf("%s %s at %d: %v", lang, p.name, width, err)
				}
				wide, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - window.innerWidth`))
				if err != nil {
					t.Fatal(err)
				}
				if wide > 0 {
					t.Errorf("%s, the webhook %s at %d px, scrolls sideways by %v px", lang, p.name, width, wide)
				}
				testutil.Screenshot(t, ctx, fmt.Sprintf("webhook-%s-%s-%d", p.name, lang, width))
				v, err := testutil.Axe(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range v {
					t.Errorf("%s, the webhook %s at %d px: %s", lang, p.name, width, x)
				}
			}
		}
	}
	waitText(ctx, t, `[data-testid="webhook-log"]`, "503")
}
