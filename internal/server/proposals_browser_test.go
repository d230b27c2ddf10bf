package server_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestBrowserProposalPages opens the proposal pages of an analyst (the
// proposal form, the proposal's page, "my proposals") and of an editor
// (the queue, the review page) at a phone's and a desktop's width in both
// languages: nothing scrolls sideways (docs/RULES.md §18.1).
// GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserProposalPages(t *testing.T) {
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	aEmail, aPassword, aID := app.CreateUser(auth.RoleAnalyst)
	eEmail, ePassword, _ := app.CreateUser(auth.RoleEditor)
	q := draftQuote(app)
	q.Label = "RTX 4090 单卡 · 按月预付 · 含 10 Mbps 带宽"
	p, err := app.Store.CreateProposal(ctx, user.Actor{UserID: aID}, q,
		"您好，4090 单卡月付 1,099 元（含税），带宽 10 Mbps 含在内，数据盘 100 GB 免费。\nRegards, sales team, a-very-long-unbroken-word-"+
			"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
		&store.NewAttachment{Filename: "报价单 2026-11 very long file name for the vendor offer.pdf", ContentType: "application/pdf", Data: proposalPDF},
		testutil.NewClock(q.AsOf).Now())
	if err != nil {
		t.Fatal(err)
	}
	run := func(email, password string, pages []struct{ name, path, ready string }) {
		b := testutil.Browser(t)
		if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
			t.Fatal(err)
		}
		for _, lang := range []string{"zh", "en"} {
			htmlLang := map[string]string{"zh": "zh-CN", "en": "en"}[lang]
			if err := chromedp.Do(b, chromedp.Navigate(app.URL+"/quotes"), chromedp.WaitVisible(chromedp.CSS(`[data-testid="lang-`+lang+`"]`)),
				chromedp.Click(chromedp.CSS(`[data-testid="lang-`+lang+`"]`)),
				chromedp.WaitVisible(chromedp.CSS(`html[lang="`+htmlLang+`"] body`))); err != nil {
				t.Fatal(err)
			}
			for _, width := range []int64{390, 1280} {
				for _, pg := range pages {
					if err := chromedp.Do(b, chromedp.EmulateViewport(width, 900), chromedp.Navigate(app.URL+pg.path),
						chromedp.WaitVisible(chromedp.CSS(pg.ready))); err != nil {
						t.Fatalf("%s %s at %d: %v", lang, pg.name, width, err)
					}
					// The whole page, or on the quote page (whose terms list is
					// not this feature's) the proposal panel.
					js := `document.documentElement.scrollWidth > window.innerWidth`
					if pg.name == "quote" {
						js = `(p => [p, ...p.querySelectorAll('*')].some(e => e.getBoundingClientRect().right > window.innerWidth + 1))(document.querySelector('[data-testid="proposal-panel"]'))`
					}
					wide, err := chromedp.Run(b, chromedp.Evaluate[bool](js))
					if err != nil {
						t.Fatal(err)
					}
					if wide {
						t.Errorf("%s %s at %d px scrolls sideways", lang, pg.name, width)
					}
					testutil.Screenshot(t, b, fmt.Sprintf("proposal-%s-%s-%d", pg.name, lang, width))
				}
			}
		}
	}
	run(aEmail, aPassword, []struct{ name, path, ready string }{
		{"form", "/quotes/new", `[data-testid="proposal-form"]`},
		{"quote", "/quotes/" + itoa(p.ID), `[data-testid="proposal-panel"]`},
		{"mine", "/quotes/proposals", `[data-testid="proposals"]`},
	})
	run(eEmail, ePassword, []struct{ name, path, ready string }{
		{"queue", "/quotes/review", `[data-testid="proposals"]`},
		{"review", "/quotes/" + itoa(p.ID) + "/review", `[data-testid="review-publish-form"]`},
	})
}
