package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/trial"
	"gpuquote/web"
)

// trialSnapshot reads everything a write to trial id could change: its
// recordings, its row and the audit log.
func trialSnapshot(t *testing.T, app *testutil.App, id int64) string {
	t.Helper()
	var s string
	if err := app.Store.Pool().QueryRow(context.Background(), `
		SELECT concat_ws(' | ',
			(SELECT count(*) FROM trial_check_results WHERE trial_id = $1),
			(SELECT count(*) FROM trial_pastes WHERE trial_id = $1),
			(SELECT count(*) FROM trial_perf WHERE trial_id = $1),
			(SELECT count(*) FROM audit_log),
			(SELECT verdict || ' ' || decided || ' ' || updated_at FROM trials WHERE id = $1))`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTrialWritesAreTheAuthorsEditorsAndAdmins: a trial is written to by
// the user who opened it, editors and admins (docs/RULES.md §16.3). A
// finance user and another analyst get 403 on every write route, valid
// form or not, with a page saying who may record, and nothing changes;
// their trial page has no forms and says who may record.
func TestTrialWritesAreTheAuthorsEditorsAndAdmins(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	author, authorID := app.AsUser(auth.RoleAnalyst)
	tr := openTrialBy(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID), authorID)
	authorName := tr.CreatedByName
	finance, _ := app.AsUser(auth.RoleFinance)
	other, _ := app.AsUser(auth.RoleAnalyst)
	editor, _ := app.AsUser(auth.RoleEditor)
	admin, _ := app.AsUser(auth.RoleAdmin)
	base := "/trials/" + itoa(tr.ID)
	writes := []struct {
		path  string
		valid url.Values
		bad   url.Values
	}{
		{base + "/checks", url.Values{"check": {"1"}, "state": {"pass"}}, url.Values{"check": {"1"}, "state": {"fail"}}},
		{base + "/nvidia-smi", url.Values{"output": {throttledRTX3090}}, url.Values{"output": {"not nvidia-smi"}}},
		{base + "/performance", url.Values{"precision": {"fp32"}, "measured": {"30"}, "benchmark": {"sgemm"}}, url.Values{"precision": {"fp8"}}},
	}
	zh, en := app.Catalog.Translator(i18n.ZH), app.Catalog.Translator(i18n.EN)

	for name, c := range map[string]*testutil.Client{"finance": finance, "another analyst": other} {
		before := trialSnapshot(t, app, tr.ID)
		for _, w := range writes {
			for _, form := range []url.Values{w.valid, w.bad} {
				r := c.PostForm(w.path, form)
				if r.StatusCode != http.StatusForbidden {
					t.Errorf("%s posts %s %v: %d, want 403", name, w.path, form, r.StatusCode)
				}
				if want := web.TrialWriters(zh, authorName); !strings.Contains(r.Body, want) || !strings.Contains(r.Body, zh.T("trials.forbidden.read")) {
					t.Errorf("%s posts %s: the 403 page does not say who may record (%q)", name, w.path, want)
				}
			}
		}
		c.Header.Set("Accept-Language", "en")
		r := c.PostForm(writes[1].path, writes[1].valid)
		c.Header.Del("Accept-Language")
		if want := web.TrialWriters(en, authorName); r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, want) {
			t.Errorf("%s in English: %d, the page lacks %q", name, r.StatusCode, want)
		}
		if after := trialSnapshot(t, app, tr.ID); after != before {
			t.Errorf("%s's refused writes changed the trial: %s → %s", name, before, after)
		}
		body := trialPage(t, c, tr.ID)
		for _, form := range []string{`data-testid="nvsmi-form"`, `data-testid="perf-form"`, `data-testid="check-1-form"`, `action="/trials/`} {
			if strings.Contains(body, form) {
				t.Errorf("%s's trial page has the write form %s", name, form)
			}
		}
		if !strings.Contains(body, `data-testid="trial-readonly">`+web.TrialWriters(zh, authorName)+"<") {
			t.Errorf("%s's trial page does not say who may record", name)
		}
	}

	// The author, an editor and an admin write; the author's page has the
	// forms and no read-only line.
	for name, c := range map[string]*testutil.Client{"author": author, "editor": editor, "admin": admin} {
		before := trialSnapshot(t, app, tr.ID)
		for _, w := range writes {
			if r := c.PostForm(w.path, w.valid); r.StatusCode != http.StatusSeeOther {
				t.Errorf("%s posts %s: %d, want 303\n%s", name, w.path, r.StatusCode, r.Body)
			}
		}
		if after := trialSnapshot(t, app, tr.ID); after == before {
			t.Errorf("%s's writes changed nothing", name)
		}
	}
	body := trialPage(t, author, tr.ID)
	if !strings.Contains(body, `data-testid="nvsmi-form"`) || !strings.Contains(body, `data-testid="perf-form"`) ||
		!strings.Contains(body, `data-testid="check-1-form"`) || strings.Contains(body, `data-testid="trial-readonly"`) {
		t.Error("the author's trial page lacks its forms or says it is read-only")
	}
	var recorders int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(DISTINCT recorded_by) FROM trial_perf WHERE trial_id = $1`, tr.ID).Scan(&recorders); err != nil || recorders != 3 {
		t.Errorf("measurements by %d recorders (%v), want the author, the editor and the admin", recorders, err)
	}
}

// TestTrialEvidenceBudget: a trial keeps at most 20 pastes and 5 MiB of
// pasted text (docs/RULES.md §16.3); a paste beyond either is refused with
// 422 and a message giving the budget and its use, and nothing of it is
// stored.
func TestTrialEvidenceBudget(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	q := trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID)
	editor, _ := app.AsUser(auth.RoleEditor)
	zh := app.Catalog.Translator(i18n.ZH)

	// 20 pastes: the 21st is refused.
	tr := routeTrialOf(app, q)
	for i := range trial.MaxPastes {
		if r := editor.PostForm("/trials/"+itoa(tr)+"/nvidia-smi", url.Values{"output": {throttledRTX3090}}); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("paste %d: %d", i+1, r.StatusCode)
		}
	}
	before := trialSnapshot(t, app, tr)
	r := editor.PostForm("/trials/"+itoa(tr)+"/nvidia-smi", url.Values{"output": {throttledRTX3090}})
	used := int64(trial.MaxPastes * len(throttledRTX3090))
	want := web.TrialBudgetRefused(zh, trial.Use{Pastes: 20, Bytes: used}, int64(len(throttledRTX3090)))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `data-testid="error-output">`+want+"<") {
		t.Fatalf("the 21st paste: %d, want 422 saying %q", r.StatusCode, want)
	}
	if !strings.Contains(want, "20") || !strings.Contains(want, "5 MiB") {
		t.Errorf("the refusal does not name the budget: %q", want)
	}
	if after := trialSnapshot(t, app, tr); after != before {
		t.Errorf("the refused paste changed the trial: %s → %s", before, after)
	}
	page := trialPage(t, editor, tr)
	if !strings.Contains(between(page, `data-testid="nvsmi-budget"`, "</p>"), zh.T("trials.budget.full")) {
		t.Error("a full budget is not said beside the paste form")
	}

	// 5 MiB: five pastes already hold all but 200 bytes of it (stored as
	// older versions would have). A paste of 95 bytes fits; the next
	// does not.
	tr = routeTrialOf(app, q)
	ctx := context.Background()
	for i, n := range []int{1 << 20, 1 << 20, 1 << 20, 1 << 20, 1<<20 - 200} {
		if _, err := app.Store.Pool().Exec(ctx, `INSERT INTO trial_pastes (trial_id, output, format, samples) VALUES ($1, repeat('x', $2), 'csv', 1)`,
			tr, n); err != nil {
			t.Fatalf("paste %d: %v", i, err)
		}
	}
	small := "0, NVIDIA GeForce RTX 3090, 24576 MiB, 5 MiB, 21.50 W, 350.00 W, 210 MHz, 2100 MHz, 0 %, 30, 0x0\n"
	if r := editor.PostForm("/trials/"+itoa(tr)+"/nvidia-smi", url.Values{"output": {small}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("a %d-byte paste within the last 200 bytes: %d\n%s", len(small), r.StatusCode, between(r.Body, `data-testid="error-output"`, "</p>"))
	}
	before = trialSnapshot(t, app, tr)
	r = editor.PostForm("/trials/"+itoa(tr)+"/nvidia-smi", url.Values{"output": {throttledRTX3090}})
	want = web.TrialBudgetRefused(zh, trial.Use{Pastes: 6, Bytes: 5<<20 - 200 + int64(len(small))}, int64(len(throttledRTX3090)))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, want) {
		t.Fatalf("a paste past 5 MiB: %d, want 422 saying %q\n%s", r.StatusCode, want, between(r.Body, `data-testid="error-output"`, "</p>"))
	}
	if after := trialSnapshot(t, app, tr); after != before {
		t.Errorf("the refused paste changed the trial: %s → %s", before, after)
	}
}

// routeTrialOf opens a trial of quote q as the system (no author).
func routeTrialOf(app *testutil.App, q int64) int64 { return openTrial(app, q).ID }

// pasteMark is the first line of the i-th paste of a test.
func pasteMark(i int) string { return fmt.Sprintf("# paste %02d\n", i) }

// pageBound is the most a trial page may weigh however much evidence the
// trial holds (docs/RULES.md §16.3).
const pageBound = 200 << 10

// TestTrialPageWithFullEvidenceStaysSmall: a trial holding its whole
// budget — 20 pastes of 256 KiB, 5 MiB — and five check recordings with
// 200,000 characters of output each gives a page under pageBound: the
// three newest pastes show 8,000 characters each, the older ones are
// folded without text, and every whole output is one link away, as plain
// text.
func TestTrialPageWithFullEvidenceStaysSmall(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	tr := openTrial(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID)).ID
	reader, _ := app.AsUser(auth.RoleFinance)
	ctx := context.Background()
	line := strings.Repeat("0, NVIDIA GeForce RTX 3090, 24576 MiB, 21034 MiB, 40.12 W, 350.00 W, 420 MHz, 2100 MHz, 100 %, 48, 0x8\n", 1)
	text := strings.Repeat(line, (trial.MaxPasteBytes/trial.MaxPastes)/len(line)+1)[:trial.MaxPasteBytes/trial.MaxPastes]
	var ids []int64
	for i := range trial.MaxPastes {
		var id int64
		if err := app.Store.Pool().QueryRow(ctx, `INSERT INTO trial_pastes (trial_id, output, format, samples, checks) VALUES ($1, $2, 'csv', 2000,
			'[{"key":"power","trial_check":11,"outcome":"fail","id":"verify.check.power.fail","args":{"Draw":"40.12"}}]') RETURNING id`,
			tr, pasteMark(i)+text[len(pasteMark(i)):]).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	var result int64
	for i := range 5 {
		if err := app.Store.Pool().QueryRow(ctx, `INSERT INTO trial_check_results (trial_id, check_no, state, output) VALUES ($1, $2, 'fail', repeat('y', 200000))
			RETURNING id`, tr, 12+i).Scan(&result); err != nil {
			t.Fatal(err)
		}
	}
	editor, _ := app.AsUser(auth.RoleEditor)
	for name, c := range map[string]*testutil.Client{"a reader": reader, "an editor (with the forms)": editor} {
		r := c.Get("/trials/" + itoa(tr))
		if r.StatusCode != http.StatusOK {
			t.Fatalf("page: %d", r.StatusCode)
		}
		t.Logf("the page of a trial with 20 pastes (5 MiB) and 5 outputs of 200,000 characters, for %s: %d bytes", name, len(r.Body))
		if len(r.Body) > pageBound {
			t.Fatalf("the page for %s is %d bytes, over %d", name, len(r.Body), pageBound)
		}
	}
	r := reader.Get("/trials/" + itoa(tr))
	doc := document(t, r.Body)
	if all, folded := doc.Find(".trial-paste").Length(), doc.Find(`details[data-testid="pastes-older"] .trial-paste`).Length(); all != trial.MaxPastes ||
		folded != trial.MaxPastes-trial.OpenPastes {
		t.Fatalf("%d pastes on the page, %d of them folded; want %d and %d", all, folded, trial.MaxPastes, trial.MaxPastes-trial.OpenPastes)
	}
	for i, id := range ids {
		link := `href="/trials/` + itoa(tr) + `/pastes/` + itoa(id) + `"`
		if !strings.Contains(r.Body, link) {
			t.Errorf("paste %d has no link to its whole output", i)
		}
		shown := strings.Contains(r.Body, pasteMark(i))
		if want := i >= trial.MaxPastes-trial.OpenPastes; shown != want {
			t.Errorf("paste %d (of 20, oldest first): text shown %v, want %v", i, shown, want)
		}
	}
	whole := reader.Get("/trials/" + itoa(tr) + "/pastes/" + itoa(ids[0]))
	if whole.StatusCode != http.StatusOK || len(whole.Body) != trial.MaxPasteBytes/trial.MaxPastes || !strings.HasPrefix(whole.Body, pasteMark(0)) ||
		whole.Header.Get("Content-Type") != "text/plain; charset=utf-8" || whole.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("the whole paste: %d, %d bytes, %q, %q", whole.StatusCode, len(whole.Body), whole.Header.Get("Content-Type"),
			whole.Header.Get("X-Content-Type-Options"))
	}
	if !strings.Contains(r.Body, `href="/trials/`+itoa(tr)+`/results/`+itoa(result)+`/output"`) {
		t.Error("a long check output has no link to its whole text")
	}
	if out := reader.Get("/trials/" + itoa(tr) + "/results/" + itoa(result) + "/output"); out.StatusCode != http.StatusOK || len(out.Body) != 200000 {
		t.Errorf("the whole check output: %d, %d bytes", out.StatusCode, len(out.Body))
	}
	// Another trial's paste is not this trial's.
	other := openTrial(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID)).ID
	if r := reader.Get("/trials/" + itoa(other) + "/pastes/" + itoa(ids[0])); r.StatusCode != http.StatusNotFound {
		t.Errorf("another trial's paste: %d, want 404", r.StatusCode)
	}
}

// TestTrialPerformanceOfOthersDoesNotFlagComparisons: only measurements
// recorded by the trial's author, an editor or an admin feed comparisons
// (docs/RULES.md §16.3). A newer failing measurement someone else
// recorded — stored directly, as before trials had owners — flags
// nothing; the author's own failing one does.
func TestTrialPerformanceOfOthersDoesNotFlagComparisons(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 4090", false, trialBF16("132", ""))
	measuredOn := trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID)
	other := trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID)
	author, authorID := app.AsUser(auth.RoleAnalyst)
	_, strangerID := app.AsUser(auth.RoleAnalyst)
	tr := openTrialBy(app, measuredOn, authorID)
	path := "/trials/" + itoa(tr.ID) + "/performance"
	cmp := compareURL("200", measuredOn, other)
	const flag = "实测性能低于参考值的 85%"

	// The author's 130 of 132: per reference 1.0000 ÷ 0.984848 = 1.0154.
	if r := author.PostForm(path, url.Values{"precision": {"bf16"}, "measured": {"130"}, "benchmark": {"matmul"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("the author's measurement: %d", r.StatusCode)
	}
	// A stranger's 50 of 132, newer.
	var strangers int64
	if err := app.Store.Pool().QueryRow(context.Background(), `
		INSERT INTO trial_perf (trial_id, platform_id, gpu_model_id, precision, measured_tflops, benchmark, nominal_tflops, basis,
			basis_tflops, ratio, ratio_to_nominal, threshold_tflops, below, message, recorded_by)
		SELECT trial_id, platform_id, gpu_model_id, precision, 50, 'fake', nominal_tflops, basis, basis_tflops, 0.378787, 0.378787,
			threshold_tflops, true, message, $2
		FROM trial_perf WHERE trial_id = $1 RETURNING id`, tr.ID, strangerID).Scan(&strangers); err != nil {
		t.Fatal(err)
	}
	row := rowText(t, author.Get(cmp).Body, measuredOn)
	if strings.Contains(row, flag) || !strings.Contains(row, "1.0154") {
		t.Fatalf("a stranger's measurement decides the comparison:\n%s", row)
	}
	body := trialPage(t, author, tr.ID)
	if !strings.Contains(body, `data-testid="perf-untrusted-`+itoa(strangers)+`"`) {
		t.Error("the stranger's measurement is not marked as unused on the trial page")
	}
	if strings.Count(body, `data-testid="perf-untrusted-`) != 1 {
		t.Error("the author's measurement is marked as unused")
	}

	// The author's own failing measurement flags it: 100 of 132 = 75.76 %.
	if r := author.PostForm(path, url.Values{"precision": {"bf16"}, "measured": {"100"}, "benchmark": {"matmul"}}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("the author's second measurement: %d", r.StatusCode)
	}
	row = rowText(t, author.Get(cmp).Body, measuredOn)
	if !strings.Contains(row, flag) || !strings.Contains(row, "1.3200") {
		t.Fatalf("the author's failing measurement does not flag the comparison:\n%s", row)
	}
}
