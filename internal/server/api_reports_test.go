package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/report"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/user"
)

// apiMarketCompare is the JSON comparison of marketForm's profile over
// ids, in EUR.
func apiMarketCompare(ids ...int64) map[string]any {
	return map[string]any{"profile": map[string]any{"hours_per_month": "200", "months": 1, "instances": 1,
		"egress_gb_per_month": "100", "snapshot_gb": "50"}, "quotes": ids, "report_currency": "EUR"}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apiErrorCodes reads the field:code pairs of an error answer.
func apiErrorCodes(t *testing.T, body string) []string {
	t.Helper()
	var e struct {
		Errors []struct{ Field, Code string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	for _, x := range e.Errors {
		out = append(out, x.Field+":"+x.Code)
	}
	return out
}

// TestAPICompareSameFiguresAsPage: POST /api/v1/compare answers, byte for
// byte, the snapshot the report form freezes for the same state (the
// figures the compare and report pages show), the same bytes twice; a
// profile's problems, too many quotes and no comparable quote are 422
// naming the fields.
func TestAPICompareSameFiguresAsPage(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	page, _ := app.AsUser(auth.RoleAnalyst)
	id := saveReport(t, page, marketForm("Page", a, b))
	raw, err := app.Store.ReportSnapshot(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := report.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(saved)
	if len(saved.Rows) != 2 || saved.Rows[0].Result == nil {
		t.Fatalf("the page's report compares %d rows", len(saved.Rows))
	}

	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	body := jsonText(t, apiMarketCompare(a, b))
	r1 := apiCall(t, app, http.MethodPost, "/api/v1/compare", token, body)
	r2 := apiCall(t, app, http.MethodPost, "/api/v1/compare", token, body)
	if r1.StatusCode != http.StatusOK {
		t.Fatalf("compare: %d %s", r1.StatusCode, r1.Body)
	}
	if r1.Body != string(want) {
		t.Errorf("the API's comparison differs from the page's report:\napi:  %.400s\npage: %.400s", r1.Body, want)
	}
	if r2.Body != r1.Body {
		t.Error("the same comparison gave different bytes twice")
	}
	var got report.Snapshot
	if err := json.Unmarshal([]byte(r1.Body), &got); err != nil {
		t.Fatal(err)
	}
	for i, row := range got.Rows {
		w := saved.Rows[i].Result
		if row.Result == nil || !row.Result.TCO.Equal(w.TCO) || !row.Result.TCOPessimistic.Equal(w.TCOPessimistic) ||
			row.Result.BreakEvenHours.Valid != w.BreakEvenHours.Valid || !row.Result.BreakEvenHours.Decimal.Equal(w.BreakEvenHours.Decimal) {
			t.Errorf("row %d: figures differ from the page's", i)
		}
	}
	if !strings.Contains(r1.Body, `"tco":"`) {
		t.Error("amounts must be JSON strings")
	}

	// Problems.
	bad := apiMarketCompare(a, b)
	bad["profile"] = map[string]any{"hours_per_month": "-5", "months": 0}
	bad["scenario_b"] = map[string]any{"instances": 0}
	r := apiCall(t, app, http.MethodPost, "/api/v1/compare", token, jsonText(t, bad))
	codes := strings.Join(apiErrorCodes(t, r.Body), " ")
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(codes, "profile.hours_per_month:") ||
		!strings.Contains(codes, "profile.months:") || !strings.Contains(codes, "scenario_b.instances:") {
		t.Errorf("a bad profile: %d %s", r.StatusCode, r.Body)
	}
	many := make([]int64, 21)
	for i := range many {
		many[i] = a + int64(i)*1000
	}
	r = apiCall(t, app, http.MethodPost, "/api/v1/compare", token, jsonText(t, apiMarketCompare(many...)))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"api.reports.error.too_many"`) {
		t.Errorf("21 quotes: %d %s", r.StatusCode, r.Body)
	}
	r = apiCall(t, app, http.MethodPost, "/api/v1/compare", token, jsonText(t, apiMarketCompare(a+b+1000)))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"quotes"`) {
		t.Errorf("no comparable quote: %d %s", r.StatusCode, r.Body)
	}
	r = apiCall(t, app, http.MethodPost, "/api/v1/compare", token, `{"profile": {"hours_per_month": 200}, "quotes": [1]}`)
	if codes := apiErrorCodes(t, r.Body); r.StatusCode != http.StatusUnprocessableEntity || len(codes) != 1 ||
		codes[0] != "profile.hours_per_month:api.write.error.text" {
		t.Errorf("a decimal as a JSON number: %d %s", r.StatusCode, r.Body)
	}
}

// TestAPIReportWorkflow: a report created through the API, submitted by
// its author's token, returned and (as its next revision) approved by a
// finance token, each step audited and on the report's timeline; an
// analyst cannot approve, a read-only token cannot create, another
// analyst cannot see a draft, a step out of turn is 409.
func TestAPIReportWorkflow(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, analystID := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead, user.ScopeReportsWrite)
	readOnly, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	other, _ := apiToken(t, app, auth.RoleAnalyst)
	finance, financeID := apiToken(t, app, auth.RoleFinance, user.ScopeRead, user.ScopeReportsWrite)

	create := apiMarketCompare(a, b)
	create["title"], create["purpose"] = "GPU for LoRA", "One month of fine-tuning."
	r := apiCall(t, app, http.MethodPost, "/api/v1/reports", readOnly, jsonText(t, create))
	if r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, `"insufficient_scope"`) {
		t.Errorf("a read-only token creates: %d %s", r.StatusCode, r.Body)
	}
	noTitle := apiMarketCompare(a, b)
	r = apiCall(t, app, http.MethodPost, "/api/v1/reports", analyst, jsonText(t, noTitle))
	if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"field":"title"`) {
		t.Errorf("no title: %d %s", r.StatusCode, r.Body)
	}
	r = apiCall(t, app, http.MethodPost, "/api/v1/reports", analyst, jsonText(t, create))
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", r.StatusCode, r.Body)
	}
	var made struct {
		ID       int64  `json:"id"`
		Status   string `json:"status"`
		Author   struct{ ID int64 }
		Snapshot report.Snapshot `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(r.Body), &made); err != nil {
		t.Fatal(err)
	}
	if made.Status != report.Draft || made.Author.ID != analystID || len(made.Snapshot.Rows) != 2 {
		t.Fatalf("created: %s", r.Body)
	}
	path := "/api/v1/reports/" + itoa(made.ID)
	if head := reportRow(t, app, made.ID); head.Title != "GPU for LoRA" || head.Status != report.Draft {
		t.Errorf("stored: %+v", head)
	}
	if r := apiCall(t, app, http.MethodGet, path, other, ""); r.StatusCode != http.StatusNotFound {
		t.Errorf("another analyst reads the draft: %d", r.StatusCode)
	}
	if r := apiCall(t, app, http.MethodGet, "/api/v1/reports", other, ""); strings.Contains(r.Body, `"id":`+itoa(made.ID)+`,`) {
		t.Errorf("another analyst's list shows the draft: %s", r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, path+"/approve", finance, `{}`); r.StatusCode != http.StatusNotFound {
		t.Errorf("finance approves a draft it cannot see: %d", r.StatusCode)
	}
	if r := apiCall(t, app, http.MethodPost, path+"/submit", analyst, ""); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `"status":"submitted"`) {
		t.Fatalf("submit: %d %s", r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, path+"/submit", analyst, ""); r.StatusCode != http.StatusConflict {
		t.Errorf("submit twice: %d %s", r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, path+"/approve", analyst, `{}`); r.StatusCode != http.StatusForbidden {
		t.Errorf("the analyst approves: %d %s", r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, path+"/return", finance, `{"comment": "  "}`); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `"field":"comment"`) {
		t.Errorf("return without a comment: %d %s", r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, path+"/return", finance, `{"comment": "Add the egress."}`); r.StatusCode != http.StatusOK ||
		!strings.Contains(r.Body, `"status":"returned"`) || !strings.Contains(r.Body, `"decision_comment":"Add the egress."`) {
		t.Fatalf("return: %d %s", r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, path+"/approve", finance, ""); r.StatusCode != http.StatusConflict {
		t.Errorf("approve a returned report: %d %s", r.StatusCode, r.Body)
	}

	// The next revision, approved.
	create["revise_of"] = made.ID
	r = apiCall(t, app, http.MethodPost, "/api/v1/reports", analyst, jsonText(t, create))
	if r.StatusCode != http.StatusCreated || !strings.Contains(r.Body, `"revision":2`) {
		t.Fatalf("revise: %d %s", r.StatusCode, r.Body)
	}
	var rev struct{ ID int64 }
	_ = json.Unmarshal([]byte(r.Body), &rev)
	revPath := "/api/v1/reports/" + itoa(rev.ID)
	if r := apiCall(t, app, http.MethodPost, revPath+"/submit", analyst, "{}"); r.StatusCode != http.StatusOK {
		t.Fatalf("submit the revision: %d %s", r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, revPath+"/approve", finance, `{"comment": "OK"}`); r.StatusCode != http.StatusOK ||
		!strings.Contains(r.Body, `"status":"approved"`) {
		t.Fatalf("approve: %d %s", r.StatusCode, r.Body)
	}

	// The timeline and the audit log have every step.
	r = apiCall(t, app, http.MethodGet, revPath, analyst, "")
	var got struct {
		Status string `json:"status"`
		Events []struct {
			Action  string `json:"action"`
			Actor   struct{ ID int64 }
			Comment string `json:"comment"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(r.Body), &got); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, e := range got.Events {
		who := "analyst"
		if e.Actor.ID == financeID {
			who = "finance"
		}
		steps = append(steps, e.Action+"/"+who)
	}
	if want := "created/analyst submitted/analyst returned/finance created/analyst revised/analyst submitted/analyst approved/finance"; got.Status != report.Approved ||
		strings.Join(steps, " ") != want {
		t.Errorf("timeline %q (status %s), want %q", strings.Join(steps, " "), got.Status, want)
	}
	var audited string
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT string_agg(action || '/' || actor_id, ' ' ORDER BY id)
		FROM audit_log WHERE entity = 'report' AND entity_id IN ($1, $2)`, itoa(made.ID), itoa(rev.ID)).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	an, fi := itoa(analystID), itoa(financeID)
	if want := "report.create/" + an + " report.submit/" + an + " report.return/" + fi + " report.create/" + an +
		" report.submit/" + an + " report.approve/" + fi; audited != want {
		t.Errorf("audit %q, want %q", audited, want)
	}
	// An ETag revalidates.
	if etag := r.Header.Get("ETag"); etag == "" {
		t.Error("no ETag")
	} else if r := apiCall(t, app, http.MethodGet, revPath, analyst, "", "If-None-Match", etag); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", r.StatusCode)
	}
}

// TestAPIReportListPages: the list pages through every report the caller
// may see, newest first, each once; another's drafts are not in it.
func TestAPIReportListPages(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	analyst, _ := apiToken(t, app, auth.RoleAnalyst)
	other, _ := apiToken(t, app, auth.RoleAnalyst)
	create := apiMarketCompare(a, b)
	var mine []int64
	for i := range 5 {
		create["title"] = "R" + itoa(int64(i))
		r := apiCall(t, app, http.MethodPost, "/api/v1/reports", analyst, jsonText(t, create))
		var x struct{ ID int64 }
		_ = json.Unmarshal([]byte(r.Body), &x)
		mine = append(mine, x.ID)
		if i%2 == 0 {
			apiCall(t, app, http.MethodPost, "/api/v1/reports/"+itoa(x.ID)+"/submit", analyst, "")
		}
	}
	list := func(token string) []int64 {
		var ids []int64
		cursor := ""
		for range 10 {
			r := apiCall(t, app, http.MethodGet, "/api/v1/reports?limit=2&cursor="+cursor, token, "")
			var p struct {
				Items      []struct{ ID int64 }
				NextCursor string `json:"next_cursor"`
			}
			if err := json.Unmarshal([]byte(r.Body), &p); err != nil || r.StatusCode != http.StatusOK {
				t.Fatalf("%d %s", r.StatusCode, r.Body)
			}
			for _, it := range p.Items {
				ids = append(ids, it.ID)
			}
			if cursor = p.NextCursor; cursor == "" {
				return ids
			}
		}
		t.Fatal("the list does not end")
		return nil
	}
	if got, want := list(analyst), []int64{mine[4], mine[3], mine[2], mine[1], mine[0]}; jsonText(t, got) != jsonText(t, want) {
		t.Errorf("the author's list %v, want %v", got, want)
	}
	if got, want := list(other), []int64{mine[4], mine[2], mine[0]}; jsonText(t, got) != jsonText(t, want) {
		t.Errorf("another analyst's list %v, want the submitted %v", got, want)
	}
	if r := apiCall(t, app, http.MethodGet, "/api/v1/reports?cursor=xyz", analyst, ""); r.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad cursor: %d", r.StatusCode)
	}
}

// TestAPIRecordTrialCheck: the trial's author records a check (201, the
// verdict after it); another analyst gets 403 in the error shape, saying
// who may record; a bad state is 422.
func TestAPIRecordTrialCheck(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	gpu := trialGPU(app, "GeForce RTX 3090", true, market.GPUPerf{Precision: "fp32", NominalTFLOPS: decimal.RequireFromString("35.6")})
	author, authorID := apiToken(t, app, auth.RoleAnalyst, user.ScopeTrialsWrite)
	tr := openTrialBy(app, trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, gpu.ID), authorID)
	other, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeTrialsWrite)
	path := "/api/v1/trials/" + itoa(tr.ID) + "/checks"
	before := trialSnapshot(t, app, tr.ID)

	r := apiCall(t, app, http.MethodPost, path, other, `{"check": 1, "state": "pass"}`, "Accept-Language", "en")
	if r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, `"code":"forbidden"`) {
		t.Errorf("another analyst: %d %s", r.StatusCode, r.Body)
	}
	for _, body := range []string{`{"check": 1, "state": "maybe"}`, `{"check": 99, "state": "pass"}`, `{"check": 1, "state": "fail"}`, `{"check": "1"}`} {
		if r := apiCall(t, app, http.MethodPost, path, author, body); r.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", body, r.StatusCode, r.Body)
		}
	}
	if after := trialSnapshot(t, app, tr.ID); after != before {
		t.Errorf("refused writes changed the trial: %s → %s", before, after)
	}
	r = apiCall(t, app, http.MethodPost, path, author, `{"check": 1, "state": "fail", "measured": "20 GB"}`)
	if r.StatusCode != http.StatusCreated || !strings.Contains(r.Body, `"verdict":"exit"`) || !strings.Contains(r.Body, `"measured":"20 GB"`) {
		t.Errorf("record: %d %s", r.StatusCode, r.Body)
	}
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM trial_check_results WHERE trial_id = $1 AND state = 'fail'`, tr.ID).Scan(&n); err != nil || n != 1 {
		t.Errorf("stored results: %d %v", n, err)
	}
}
