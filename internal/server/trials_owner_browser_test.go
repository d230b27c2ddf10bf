package server_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/trial"
	"gpuquote/web"
)

// trialLayout is what a trial page measures of itself: its width against
// the viewport, the write forms shown, and the read-only line.
type trialLayout struct {
	ScrollWidth int      `json:"scrollWidth"`
	Viewport    int      `json:"viewport"`
	Wide        []string `json:"wide"`
	Forms       int      `json:"forms"`
	ReadOnly    string   `json:"readOnly"`
	OlderOpen   bool     `json:"olderOpen"`
}

const measureTrial = `(() => {
	const vw = document.documentElement.clientWidth;
	const wide = [];
	for (const e of document.querySelectorAll('body *')) {
		const box = e.parentElement && e.parentElement.closest('.table-wrap, pre');
		if (wide.length >= 5 || (box && getComputedStyle(box).overflowX === 'auto')) continue;
		const r = e.getBoundingClientRect();
		if (r.right > vw + 0.5 && r.width > 0) wide.push(e.tagName.toLowerCase() + '.' + e.className + ' ' + Math.round(r.right));
	}
	const ro = document.querySelector('[data-testid="trial-readonly"]');
	const older = document.querySelector('[data-testid="pastes-older"]');
	return {scrollWidth: document.documentElement.scrollWidth, viewport: vw, wide: wide,
		forms: document.querySelectorAll('form[method="post"][action^="/trials/"]').length,
		readOnly: ro ? ro.textContent.trim() : '', olderOpen: !!older && older.open};
})()`

// TestBrowserTrialPageForReadersAndOwners: a trial with more pastes than
// the page shows open and a measurement by someone else, at phone and
// desktop widths in both languages. A finance user sees no write form and
// the line saying who may record; the author sees the forms; the page
// never scrolls sideways, and the older pastes open without a script
// (docs/RULES.md §16.3).
func TestBrowserTrialPageForReadersAndOwners(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	authorEmail, authorPW, authorID := app.CreateUser(auth.RoleAnalyst)
	tr := openTrialBy(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID), authorID)
	author := app.Client()
	author.Login(authorEmail, authorPW)
	base := "/trials/" + itoa(tr.ID)
	long := throttledRTX3090 + strings.Repeat("0, NVIDIA GeForce RTX 3090, 24576 MiB, 21034 MiB, 40.12 W, 350.00 W, 420 MHz, 2100 MHz, 100 %, 48, 0x0000000000000008\n", 120)
	for i := range trial.OpenPastes + 2 {
		out := throttledRTX3090
		if i == trial.OpenPastes+1 {
			out = long // the newest: its text is cut on the page
		}
		if r := author.PostForm(base+"/nvidia-smi", url.Values{"output": {out}}); r.StatusCode != 303 {
			t.Fatalf("paste %d: %d", i, r.StatusCode)
		}
	}
	if r := author.PostForm(base+"/performance", url.Values{"precision": {"fp32"}, "measured": {"30"}, "benchmark": {"sgemm 8192³"}}); r.StatusCode != 303 {
		t.Fatalf("measurement: %d", r.StatusCode)
	}
	_, strangerID := app.AsUser(auth.RoleAnalyst)
	if _, err := app.Store.Pool().Exec(context.Background(), `
		INSERT INTO trial_perf (trial_id, platform_id, gpu_model_id, precision, measured_tflops, benchmark, nominal_tflops, basis,
			basis_tflops, ratio, ratio_to_nominal, threshold_tflops, below, message, note, recorded_by)
		SELECT trial_id, platform_id, gpu_model_id, precision, 10, 'unknown', nominal_tflops, basis, basis_tflops, 0.280898, 0.280898,
			threshold_tflops, true, message, 'recorded before trials had owners', $2
		FROM trial_perf WHERE trial_id = $1`, tr.ID, strangerID); err != nil {
		t.Fatal(err)
	}
	readerEmail, readerPW, _ := app.CreateUser(auth.RoleFinance)

	for _, who := range []struct {
		name, email, pw string
		forms           int
	}{{"reader", readerEmail, readerPW, 0}, {"author", authorEmail, authorPW, 30 + 2}} {
		ctx := testutil.Browser(t)
		if err := chromedp.Do(ctx, signIn(app, who.email, who.pw)); err != nil {
			t.Fatal(err)
		}
		for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
			tr8 := app.Catalog.Translator(lang)
			useLanguage(t, ctx, string(lang))
			for _, width := range []int64{390, 1280} {
				height := int64(844)
				if width > 390 {
					height = 720
				}
				where := fmt.Sprintf("%s, %s, %d px", who.name, lang, width)
				if err := chromedp.Do(ctx,
					chromedp.EmulateViewport(width, height),
					chromedp.Navigate(app.URL+base),
					chromedp.WaitVisible(chromedp.CSS(`[data-testid="trial-nvsmi"]`)),
				); err != nil {
					t.Fatalf("%s: %v", where, err)
				}
				m, err := chromedp.Run(ctx, chromedp.Evaluate[trialLayout](measureTrial))
				if err != nil {
					t.Fatal(err)
				}
				if m.ScrollWidth > m.Viewport {
					t.Errorf("%s: the page is %d px wide in a %d px viewport (%s)", where, m.ScrollWidth, m.Viewport, strings.Join(m.Wide, "; "))
				}
				if m.Forms != who.forms {
					t.Errorf("%s: %d write forms, want %d", where, m.Forms, who.forms)
				}
				wantRO := ""
				if who.name == "reader" {
					wantRO = web.TrialWriters(tr8, tr.CreatedByName)
				}
				if m.ReadOnly != wantRO {
					t.Errorf("%s: read-only line %q, want %q", where, m.ReadOnly, wantRO)
				}
				if m.OlderOpen {
					t.Errorf("%s: the older pastes are not folded", where)
				}
				for part, sel := range map[string]string{"top": `[data-testid="trial-title"]`, "paste": `[data-testid="nvsmi-budget"]`,
					"perf": `[data-testid="trial-perf"]`} {
					testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("trial-%s-%s-%d-%s", who.name, lang, width, part), sel)
				}
			}
			// The older pastes unfold on a click, no script needed.
			if err := chromedp.Do(ctx,
				chromedp.Click(chromedp.CSS(`[data-testid="pastes-older"] > summary`)),
				chromedp.WaitVisible(chromedp.CSS(`[data-testid="pastes-older"] .trial-paste`)),
			); err != nil {
				t.Fatalf("%s, %s: the older pastes do not unfold: %v", who.name, lang, err)
			}
			testutil.ViewportScreenshot(t, ctx, fmt.Sprintf("trial-%s-%s-pastes", who.name, lang), `[data-testid="pastes-older"]`)
		}
	}
}
