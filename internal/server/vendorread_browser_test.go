package server_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"gpuquote/internal/auth"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// TestBrowserReadVendorMessage: in Chinese, an analyst pastes an
// AutoDL-style message into the proposal form and presses "read": the form
// comes back filled, each filled field saying its phrase and the list
// under the form naming them; the analyst corrects the monthly price,
// fills the source and presses Enter, which proposes (never reads again);
// an editor publishes the proposal, and the published quote holds the
// message's hourly price and the analyst's correction (docs/RULES.md
// §22.11). The read form is looked at in both languages at 390 and
// 1280 px: the summary first, nothing scrolling sideways, and axe-core
// finds no serious or critical violation on it.
func TestBrowserReadVendorMessage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	aEmail, aPassword, _ := app.CreateUser(auth.RoleAnalyst)
	eEmail, ePassword, _ := app.CreateUser(auth.RoleEditor)
	analyst := testutil.Browser(t)
	if err := testutil.InjectAxe(analyst); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(analyst, signIn(app, aEmail, aPassword)); err != nil {
		t.Fatal(err)
	}
	read := func() error {
		return chromedp.Do(analyst, chromedp.Navigate(app.URL+"/quotes/new"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="proposal-form"]`)),
			chromedp.SendKeys(chromedp.CSS(`#f-vendor_message`), autodlMessage),
			chromedp.Click(chromedp.CSS(`[data-testid="read-vendor"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="vendor-reading"]`)))
	}

	for _, lang := range []string{"en", "zh-CN"} {
		useLanguage(t, analyst, lang)
		for _, width := range []int64{390, 1280} {
			if err := chromedp.Do(analyst, chromedp.EmulateViewport(width, 900)); err != nil {
				t.Fatal(err)
			}
			if err := read(); err != nil {
				t.Fatalf("%s at %d: %v", lang, width, err)
			}
			got, err := chromedp.Run(analyst, chromedp.Evaluate[[]float64](`(() => {
				const s = document.querySelector('[data-testid="reading-summary"]').getBoundingClientRect();
				return [document.documentElement.scrollWidth - window.innerWidth, s.top];
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			if got[0] > 0 {
				t.Errorf("%s at %d px: the read form scrolls sideways by %v px", lang, width, got[0])
			}
			if got[1] > 600 {
				t.Errorf("%s at %d px: what was read is announced %v px down a 900 px screen", lang, width, got[1])
			}
			testutil.Screenshot(t, analyst, fmt.Sprintf("vendor-read-%s-%d", lang, width))
			if width == 1280 {
				v, err := testutil.Axe(analyst)
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range v {
					t.Errorf("%s, the read form: %s", lang, x)
				}
			}
		}
	}

	// Chinese, at a desktop's width: the filled form, its marks and list.
	values, err := chromedp.Run(analyst, chromedp.Evaluate[map[string]string](`(() => {
		const f = document.querySelector('[data-testid="proposal-form"]');
		const v = n => f.elements[n].value;
		const sel = n => f.elements[n].selectedOptions[0].textContent.trim();
		return {hourly: v("hourly"), monthly: v("monthly"), currency: v("currency"), platform: sel("platform"),
			gpu: sel("gpu_model"), granularity: v("billing_granularity"), disk: v("data_disk.unit_price"),
			source: document.querySelector('[data-testid="source-hourly"]').textContent,
			list: document.querySelector('[data-testid="vendor-reading"]').textContent};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"hourly": "1.98", "monthly": "1150", "currency": "CNY", "platform": "AutoDL 算力云",
		"gpu": "NVIDIA GeForce RTX 4090", "granularity": "second", "disk": "0.01"} {
		if values[k] != want {
			t.Errorf("the read form's %s is %q, want %q", k, values[k], want)
		}
	}
	if !strings.Contains(values["source"], "来自消息") || !strings.Contains(values["source"], "¥1.98/小时") {
		t.Errorf("the hourly price's source: %q", values["source"])
	}
	for _, want := range []string{"从消息中读取的内容", "按小时单价", "¥1,150", "数据盘"} {
		if !strings.Contains(values["list"], want) {
			t.Errorf("the list under the form does not name %q: %.600s", want, values["list"])
		}
	}

	// The analyst corrects the monthly price, names the source and presses
	// Enter in the label: that proposes.
	if err := chromedp.Do(analyst,
		chromedp.SetValue(chromedp.CSS(`[data-testid="proposal-form"] [name="monthly"]`), "1100"),
		chromedp.SetValue(chromedp.CSS(`[data-testid="proposal-form"] [name="source"]`), "AutoDL 客服消息"),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="proposal-form"] [name="label"]`), "4090 按量"+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="not-reviewed"]`))); err != nil {
		t.Fatal(err)
	}
	proposalURL, err := chromedp.Run(analyst, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}

	editor := testutil.Browser(t)
	if err := chromedp.Do(editor, signIn(app, eEmail, ePassword),
		chromedp.Navigate(proposalURL+"/review"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="review-publish-form"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="review-publish"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="review-publish-form"]`))); err != nil {
		t.Fatal(err)
	}
	var hourly, monthly, label, granularity, state string
	if err := app.Store.Pool().QueryRow(ctx, `SELECT hourly::text, monthly::text, label, billing_granularity, state FROM quotes
		WHERE label = '4090 按量' ORDER BY id DESC LIMIT 1`).Scan(&hourly, &monthly, &label, &granularity, &state); err != nil {
		t.Fatal(err)
	}
	if state != "published" || hourly != "1.980000" && hourly != "1.98" || monthly != "1100.000000" && monthly != "1100" || granularity != "second" {
		t.Errorf("published: state %s, hourly %s, monthly %s, granularity %s", state, hourly, monthly, granularity)
	}
}
