package server_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/verify"
)

// TestBrowserTrialPasteOfAPowerCappedCard: the guide's RTX 3090 at ~40 W
// and 420 MHz under full load, this time with the software power cap on at
// the stock 350 W limit. Check 11 fails with one voice: every line of it in
// the paste fails, and none says the card runs at its rated power.
func TestBrowserTrialPasteOfAPowerCappedCard(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	email, pw, analystID := app.CreateUser(auth.RoleAnalyst)
	tr := openTrialBy(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID), analystID)
	ctx := testutil.Browser(t)
	if err := chromedp.Do(ctx,
		signIn(app, email, pw),
		chromedp.Navigate(app.URL+"/trials/"+itoa(tr.ID)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="nvsmi-capture"]`)),
	); err != nil {
		t.Fatal(err)
	}
	testutil.ViewportScreenshot(t, ctx, "trial-nvsmi-capture-steps", `[data-testid="nvsmi-capture"]`)
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID("nvsmi-output"), verifyFixture(t, "rtx3090_sw_power_cap.csv")),
		chromedp.Click(chromedp.CSS(`[data-testid="nvsmi-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="check-11"][data-state="fail"]`)),
	); err != nil {
		t.Fatal(err)
	}
	zh := app.Catalog.Translator("zh-CN")
	waitText(ctx, t, `[data-testid="trial-verdict"]`, zh.T("trials.verdict.concerns"))
	waitText(ctx, t, `[data-testid="trial-concerns"]`, "40.12 W")
	waitText(ctx, t, `[data-testid="trial-concerns"]`, "420 MHz")
	waitText(ctx, t, `[data-testid="trial-concerns"]`, "sw_power_cap")
	outcomes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-testid="trial-nvsmi"] tr'))
		.filter(tr => tr.querySelector('a[href="#check-11"]')).map(tr => tr.dataset.outcome)`))
	if err != nil || len(outcomes) != 3 {
		t.Fatalf("check 11 has %d lines in the paste (%v), want 3: power, SM clock, throttle reasons", len(outcomes), err)
	}
	for i, o := range outcomes {
		if o != "fail" {
			t.Errorf("check 11 line %d is %q: one check, one verdict", i+1, o)
		}
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-testid="trial-nvsmi"]`)))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "并未被限功耗") || strings.Contains(text, "额定功耗下满载运行") {
		t.Errorf("the paste still says the card runs at its rated power:\n%s", text)
	}
	testutil.Screenshot(t, ctx, "trial-power-capped-rtx3090")
	testutil.ViewportScreenshot(t, ctx, "trial-power-capped-rtx3090-verdict", `[data-testid="trial-verdict"]`)
	testutil.ViewportScreenshot(t, ctx, "trial-power-capped-rtx3090-paste", `[data-testid^="paste-checks-"]`)
}

// healthyRTX3090Idle and healthyRTX3090Load are the trial page's two
// captures of a healthy RTX 3090: idle, then under a burn-in at its stock
// power limit (the software power cap on, as at rated power).
const (
	healthyRTX3090Idle = `0, NVIDIA GeForce RTX 3090, 24576, 1, 21.37, 350.00, 210, 2100, 0, 31, 0x0000000000000001
0, NVIDIA GeForce RTX 3090, 24576, 1, 20.98, 350.00, 210, 2100, 0, 31, 0x0000000000000001
0, NVIDIA GeForce RTX 3090, 24576, 1, 21.12, 350.00, 210, 2100, 1, 31, 0x0000000000000001
`
	healthyRTX3090Load = `0, NVIDIA GeForce RTX 3090, 24576, 22870, 341.56, 350.00, 1740, 2100, 100, 71, 0x0000000000000004
0, NVIDIA GeForce RTX 3090, 24576, 22870, 346.02, 350.00, 1725, 2100, 100, 72, 0x0000000000000004
0, NVIDIA GeForce RTX 3090, 24576, 22870, 344.87, 350.00, 1740, 2100, 99, 72, 0x0000000000000004
`
)

// TestTrialPageAsksForIdleAndLoadInOnePaste: the page says up front what
// to capture (the command to copy, idle and under load) and which
// header-less column orders it reads; one paste of both captures decides
// checks 6 and 10 (idle samples) and 11 (samples under load) at once.
func TestTrialPageAsksForIdleAndLoadInOnePaste(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	analyst, analystID := app.AsUser(auth.RoleAnalyst)
	tr := openTrialBy(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID), analystID)

	capture := between(trialPage(t, analyst, tr.ID), `data-testid="nvsmi-capture"`, `data-testid="nvsmi-form"`)
	command := "nvidia-smi --query-gpu=" + verify.Query() + " --format=csv -l 1"
	for _, want := range []string{`data-testid="nvsmi-command-idle">` + command + "<", `data-testid="nvsmi-command-load">` + command + "<",
		"空闲时", "满载时", "# load", "csv,noheader,nounits"} {
		if !strings.Contains(html.UnescapeString(capture), want) {
			t.Errorf("the paste section lacks %q:\n%s", want, capture)
		}
	}
	for _, order := range verify.NoHeaderOrderList() {
		if !strings.Contains(capture, "<code>"+order+"</code>") {
			t.Errorf("the paste section does not list the column order %s", order)
		}
	}
	if !strings.HasPrefix(verify.Query(), "index,") {
		t.Errorf("the page's command does not query index first: %s", verify.Query())
	}

	paste := "# idle\n" + healthyRTX3090Idle + "# load\n" + healthyRTX3090Load
	r := analyst.PostForm("/trials/"+itoa(tr.ID)+"/nvidia-smi", url.Values{"output": {paste}})
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("paste: %d\n%s", r.StatusCode, r.Body)
	}
	body := trialPage(t, analyst, tr.ID)
	for _, n := range []int{1, 2, 6, 10, 11} {
		if !strings.Contains(checkItem(body, n), `data-state="pass"`) {
			t.Errorf("check %d did not pass from one paste of both captures:\n%s", n, checkItem(body, n))
		}
	}
	if !strings.Contains(body, "6 个采样") {
		t.Error("the paste does not show its 6 samples")
	}
}

// TestVerifyAPIHeaderlessColumnOrders: five header-less rows of one card
// with index first are five samples of GPU 0 (so the idle-noise check
// can fail); a row in no accepted order is refused with the orders.
func TestVerifyAPIHeaderlessColumnOrders(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	seedRTX3090(t, app)
	c, _ := app.AsUser(auth.RoleEditor)
	c.Header.Set("Accept-Language", "en")
	post := func(text string) *testutil.Response {
		req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/verify/nvidia-smi?gpu_model="+url.QueryEscape("NVIDIA GeForce RTX 3090"),
			strings.NewReader(text))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("X-CSRF-Token", c.CSRF)
		return c.Do(req)
	}

	r := post(verifyFixture(t, "rtx4090_noheader_nounits_index.csv"))
	if r.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", r.StatusCode, r.Body)
	}
	var body verifyBody
	decodeJSON(t, r, &body)
	if body.Format != "csv_noheader" || len(body.Samples) != 5 {
		t.Fatalf("format %s, %d samples", body.Format, len(body.Samples))
	}
	for i, s := range body.Samples {
		if string(s["gpu"]) != "0" || string(s["sample"]) != itoa(int64(i)) {
			t.Errorf("row %d is sample %s of GPU %s, want sample %d of GPU 0", i+1, s["sample"], s["gpu"], i)
		}
	}
	for _, ch := range body.Checks {
		if ch.Key == verify.CheckIdleNoise && (ch.Outcome != "fail" || !strings.Contains(ch.Reason, "4 of 5 samples")) {
			t.Errorf("idle noise: %s %q, want a failure over 4 of 5 samples", ch.Outcome, ch.Reason)
		}
	}

	// One reading short (the throttle reasons left out), and a row of
	// three columns: both refused with the accepted orders.
	for text, code := range map[string]string{
		"0, NVIDIA GeForce RTX 3090, 24576, 1, 21.37, 350.00, 210, 2100, 0, 31\n": "verify.parse.bad_value_noheader",
		"0, NVIDIA GeForce RTX 3090, 24576\n":                                     "verify.parse.columns_noheader",
	} {
		r := post(text)
		if r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("status %d: %s", r.StatusCode, r.Body)
		}
		var errs struct {
			Errors []struct {
				Code   string   `json:"code"`
				Line   int      `json:"line"`
				Msg    string   `json:"message"`
				Orders []string `json:"accepted_column_orders"`
			} `json:"errors"`
		}
		if err := json.Unmarshal([]byte(r.Body), &errs); err != nil || len(errs.Errors) != 1 {
			t.Fatalf("%v: %s", err, r.Body)
		}
		e := errs.Errors[0]
		want := verify.NoHeaderOrderList()
		if e.Code != code || e.Line != 1 || len(e.Orders) != len(want) {
			t.Fatalf("error %+v, want %s on line 1 with %d orders", e, code, len(want))
		}
		for i, o := range want {
			if e.Orders[i] != o || !strings.Contains(e.Msg, o) {
				t.Errorf("%s order %d: %q in the list, message %q; want %q in both", code, i, e.Orders[i], e.Msg, o)
			}
		}
	}
}
