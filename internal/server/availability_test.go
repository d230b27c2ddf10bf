package server_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/avail"
	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// availabilityPath is the records page of a fresh platform × GPU model.
func availabilityPath(a *testutil.App) string {
	return "/availability?platform=" + itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID) + "&gpu=" + itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)
}

// availabilityForm is a valid record of an attempt on a fresh platform ×
// GPU model, named directly.
func availabilityForm(a *testutil.App) url.Values {
	return url.Values{"platform": {itoa(testfactory.Platform(a.T, a.Store, market.Platform{}).ID)}, "gpu_model": {itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)},
		"attempted_at": {"2026-01-10T13:30"}, "gpu_count": {"2"}, "obtained": {"true"}, "wait_minutes": {"12"}, "note": {"route test"}}
}

// availRecords is every stored record's (quote, trial, obtained, created_by)
// in id order.
func availRecords(t *testing.T, app *testutil.App) []string {
	t.Helper()
	rows, err := app.Store.Pool().Query(context.Background(), `SELECT coalesce(quote_id, 0), coalesce(trial_id, 0), obtained,
		coalesce(created_by, 0), gpu_count, wait_minutes, attempted_at FROM availability_records ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var q, tr, by int64
		var ok bool
		var n, w int
		var at time.Time
		if err := rows.Scan(&q, &tr, &ok, &by, &n, &w, &at); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join([]string{itoa(q), itoa(tr), strconv.FormatBool(ok), itoa(by), strconv.Itoa(n), strconv.Itoa(w),
			at.UTC().Format(time.RFC3339)}, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// availText is the text of a window's statistics inside the element sel
// of body.
func availText(t *testing.T, body, sel string, days int) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Find(sel + ` [data-testid="avail-` + strconv.Itoa(days) + `"] dd`)
	if s.Length() != 1 {
		t.Fatalf("%s: %d windows of %d days", sel, s.Length(), days)
	}
	return strings.Join(strings.Fields(s.Text()), " ")
}

// TestAvailabilityFormsOnQuoteAndTrialPages: the quote page and the trial
// page show their platform × GPU model's statistics and a form that keeps
// the quote or trial it came from; a posted attempt is stored for the
// signed-in user, audited, and counted on the page it returns to; a form
// with problems is shown again with every problem and nothing stored; a
// form without its CSRF token and an anonymous one are refused
// (docs/RULES.md §18.2).
func TestAvailabilityFormsOnQuoteAndTrialPages(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC))
	app := reportAppOn(t, testutil.Store(t), clock)
	p, g := testfactory.Platform(app.T, app.Store, market.Platform{}), testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	qid := trialQuote(app, p.ID, g.ID)
	tr := openTrial(app, qid)
	c, uid := app.AsUser(auth.RoleFinance)

	page := c.Get("/quotes/" + itoa(qid))
	if page.StatusCode != http.StatusOK || !strings.Contains(page.Body, `data-testid="availability-panel"`) ||
		!strings.Contains(page.Body, `name="quote_id" value="`+itoa(qid)+`"`) {
		t.Fatalf("quote page: %d, no availability form with its quote", page.StatusCode)
	}
	if got := availText(t, page.Body, `[data-testid="availability-panel"]`, 90); got != "暂无记录" {
		t.Errorf("quote page before any record: %q", got)
	}
	list := `href="/availability?gpu=` + itoa(g.ID) + `&amp;platform=` + itoa(p.ID) + `"`
	if !strings.Contains(page.Body, list) {
		t.Errorf("the quote page does not link the records page %s", list)
	}
	audits := countRows(t, app, "audit_log")
	r := c.PostForm("/availability", url.Values{"quote_id": {itoa(qid)}, "attempted_at": {"2026-11-30T13:05"}, "gpu_count": {"2"},
		"obtained": {"true"}, "wait_minutes": {"12"}, "note": {"晚高峰排队"}})
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/quotes/"+itoa(qid)+"#availability" {
		t.Fatalf("record from the quote page: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	if countRows(t, app, "audit_log") != audits+1 {
		t.Error("the record is not audited")
	}
	page = c.Get("/quotes/" + itoa(qid))
	if got := availText(t, page.Body, `[data-testid="availability-panel"]`, 30); got != "1 次尝试中 1 次拿到卡（100.0 %），等待中位数 12 分钟" {
		t.Errorf("quote page after one record: %q", got)
	}

	page = c.Get("/trials/" + itoa(tr.ID))
	if page.StatusCode != http.StatusOK || !strings.Contains(page.Body, `name="trial_id" value="`+itoa(tr.ID)+`"`) ||
		strings.Contains(between(page.Body, `data-testid="availability-form"`, "</form>"), `name="quote_id"`) {
		t.Fatalf("trial page: %d, no availability form with its trial alone", page.StatusCode)
	}
	r = c.PostForm("/availability", url.Values{"trial_id": {itoa(tr.ID)}, "attempted_at": {"2026-11-29T01:00:00"}, "gpu_count": {"1"},
		"obtained": {"false"}, "wait_minutes": {"45"}})
	if r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != "/trials/"+itoa(tr.ID)+"#availability" {
		t.Fatalf("record from the trial page: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	page = c.Get("/trials/" + itoa(tr.ID))
	if got := availText(t, page.Body, `[data-testid="availability-panel"]`, 90); got != "2 次尝试中 1 次拿到卡（50.0 %），等待中位数 12 分钟" {
		t.Errorf("trial page after two records: %q", got)
	}
	want := []string{
		itoa(qid) + " 0 true " + itoa(uid) + " 2 12 2026-11-30T13:05:00Z",
		itoa(qid) + " " + itoa(tr.ID) + " false " + itoa(uid) + " 1 45 2026-11-29T01:00:00Z",
	}
	if got := availRecords(t, app); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("stored records:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Every problem at once, the form as typed, nothing stored. The
	// server's day is 2026-12-01; the latest day on Earth is still
	// 2026-12-01 at 09:30 UTC, so 2026-12-02 is the future.
	bad := url.Values{"quote_id": {itoa(qid)}, "attempted_at": {"2026-12-02T00:00"}, "gpu_count": {"1025"}, "wait_minutes": {"1.5"},
		"note": {"保留我"}}
	r = c.PostForm("/availability", bad)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad record: %d", r.StatusCode)
	}
	for _, s := range []string{`data-testid="error-attempted_at"`, `data-testid="error-gpu_count"`, `data-testid="error-wait_minutes"`,
		`data-testid="error-obtained"`, "尝试时间不能晚于今天。", `value="1.5"`, "保留我", `name="quote_id" value="` + itoa(qid) + `"`} {
		if !strings.Contains(r.Body, s) {
			t.Errorf("the refused form lacks %s", s)
		}
	}
	bad = url.Values{"platform": {itoa(p.ID)}, "gpu_model": {itoa(g.ID)}, "attempted_at": {"1999-12-31T23:59"}, "gpu_count": {"0"},
		"obtained": {"true"}, "wait_minutes": {"100001"}}
	if r = c.PostForm("/availability", bad); r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, "尝试时间不能早于 2000 年。") {
		t.Errorf("a record before 2000: %d", r.StatusCode)
	}
	// A draft quote is named by nobody's record.
	d := draftQuote(app)
	if r = c.PostForm("/availability", url.Values{"quote_id": {itoa(d.ID)}, "attempted_at": {"2026-11-30T13:05"}, "gpu_count": {"1"},
		"obtained": {"true"}, "wait_minutes": {"0"}}); r.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a record of a draft: %d", r.StatusCode)
	}
	good := url.Values{"quote_id": {itoa(qid)}, "attempted_at": {"2026-11-30T13:05"}, "gpu_count": {"1"}, "obtained": {"true"},
		"wait_minutes": {"0"}}
	if r = c.PostRaw("/availability", good); r.StatusCode != http.StatusForbidden {
		t.Errorf("without its CSRF token: %d, want 403", r.StatusCode)
	}
	if r = app.Client().PostForm("/availability", good); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous: %d, want 401", r.StatusCode)
	}
	if got := availRecords(t, app); len(got) != 2 {
		t.Fatalf("refused forms stored records: %v", got)
	}

	// The records page lists both, newest attempt first, with where they came from.
	page = c.Get("/availability?platform=" + itoa(p.ID) + "&gpu=" + itoa(g.ID))
	if page.StatusCode != http.StatusOK {
		t.Fatalf("records page: %d", page.StatusCode)
	}
	first, second := strings.Index(page.Body, "2026-11-30 13:05 UTC"), strings.Index(page.Body, "2026-11-29 01:00 UTC")
	if first < 0 || second < 0 || first > second || !strings.Contains(page.Body, "晚高峰排队") ||
		!strings.Contains(page.Body, `href="/trials/`+itoa(tr.ID)+`"`) {
		t.Errorf("records page: %d %d", first, second)
	}
	for _, q := range []string{"platform=" + itoa(p.ID) + "&gpu=99999999", "platform=abc&gpu=" + itoa(g.ID), ""} {
		if r := c.Get("/availability?" + q); r.StatusCode != http.StatusNotFound {
			t.Errorf("records page of %q: %d, want 404", q, r.StatusCode)
		}
	}
}

// availAPIErrors is the API's 422 body.
type availAPIErrors struct {
	Errors []struct {
		Field   string `json:"field"`
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"errors"`
}

// TestAvailabilityAPI: POST /api/v1/availability with an API token or a
// session stores the record (201 with it); problems are 422 in the
// evaluate API's shape, in the request's language; anonymous callers are
// refused and nothing is stored (docs/RULES.md §18.2).
func TestAvailabilityAPI(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p, g := testfactory.Platform(app.T, app.Store, market.Platform{}), testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	c, uid := app.AsUser(auth.RoleAnalyst)
	token := createToken(t, c, "ops box", testutil.Password(auth.RoleAnalyst))
	post := func(token, lang, body string) *testutil.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, app.URL+"/api/v1/availability", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if lang != "" {
			req.Header.Set("Accept-Language", lang)
		}
		return app.Client().Do(req)
	}
	body := `{"platform_id": ` + itoa(p.ID) + `, "gpu_model_id": ` + itoa(g.ID) + `, "attempted_at": "2026-03-01T22:30:00+08:00",
		"gpu_count": 8, "obtained": false, "wait_minutes": 90, "note": "sold out 售罄"}`
	r := post(token, "en", body)
	if r.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %s", r.StatusCode, r.Body)
	}
	var rec avail.Record
	if err := json.Unmarshal([]byte(r.Body), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.ID == 0 || rec.PlatformID != p.ID || rec.GPUModelID != g.ID || rec.GPUCount != 8 || rec.Obtained || rec.WaitMinutes != 90 ||
		rec.Note != "sold out 售罄" || rec.CreatedBy != uid || !rec.AttemptedAt.Equal(time.Date(2026, 3, 1, 14, 30, 0, 0, time.UTC)) {
		t.Errorf("stored record %+v", rec)
	}

	bad := `{"platform_id": ` + itoa(p.ID) + `, "gpu_model_id": ` + itoa(g.ID) + `, "attempted_at": "yesterday", "gpu_count": 0,
		"obtained": null, "wait_minutes": -1, "note": null}`
	for _, lang := range []string{"en", "zh-CN"} {
		r := post(token, lang, bad)
		if r.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("%s: bad record %d %s", lang, r.StatusCode, r.Body)
		}
		var e availAPIErrors
		if err := json.Unmarshal([]byte(r.Body), &e); err != nil {
			t.Fatal(err)
		}
		tr := app.Catalog.Translator(i18n.Lang(lang))
		var fields []string
		for _, x := range e.Errors {
			fields = append(fields, x.Field)
			if x.Code == "" || x.Message == "" || x.Message != tr.T(x.Code) && x.Field != "gpu_count" && x.Field != "wait_minutes" && x.Field != "obtained" {
				t.Errorf("%s: %+v", lang, x)
			}
		}
		if strings.Join(fields, ",") != "attempted_at,gpu_count,obtained,wait_minutes" {
			t.Errorf("%s: fields %v", lang, fields)
		}
		if e.Errors[0].Message != tr.T("availability.error.attempted_at") {
			t.Errorf("%s: %q", lang, e.Errors[0].Message)
		}
	}
	r = post(token, "zh-CN", bad)
	if !strings.Contains(r.Body, "请输入日期和时间") {
		t.Errorf("zh-CN messages: %s", r.Body)
	}
	// The pair must exist; a body that is no JSON object says so, and so
	// does a value of another JSON type than the one described.
	for _, b := range []string{`{"platform_id": 99999999, "gpu_model_id": ` + itoa(g.ID) + `, "attempted_at": "2026-03-01T10:00", "gpu_count": 1, "obtained": true, "wait_minutes": 0}`,
		`[1, 2]`, `not json`, `{"gpu_count": 1} {}`, `{"obtained": "maybe"}`, `{"wait_minutes": 2.5}`, `{"platform": ` + itoa(p.ID) + `}`} {
		if r := post(token, "en", b); r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(r.Body, `"errors":[{"field":`) {
			t.Errorf("%s: %d %s", b, r.StatusCode, r.Body)
		}
	}
	// A session works too; nobody anonymous records.
	if r := post("", "en", body); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous: %d", r.StatusCode)
	}
	if r := post(auth.NewAPIToken(), "en", body); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("unknown token: %d", r.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/availability", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", c.CSRF)
	if r := c.Do(req); r.StatusCode != http.StatusCreated {
		t.Errorf("session: %d %s", r.StatusCode, r.Body)
	}
	if got := availRecords(t, app); len(got) != 2 {
		t.Errorf("records %v", got)
	}
}

// availCompareRecords stores the attempts on pair whose statistics the
// compare and report tests expect on 2026-12-01: its 30 days are
// 2026-11-02 … 2026-12-01 and its 90 days 2026-09-03 … 2026-12-01 (UTC).
//
//	30 days: 10 ✓, 60 ✗, 15 ✓ → 2 of 3 = 66.666… → 66.7 %, median (10 + 15) ÷ 2 = 12.5
//	90 days: + 30 ✓, 20 ✓ → 4 of 5 = 80.0 %, median of 10 15 20 30 = (15 + 20) ÷ 2 = 17.5
func availCompareRecords(t *testing.T, app *testutil.App, pair market.PlatformGPU) {
	t.Helper()
	for _, r := range []struct {
		at       string
		obtained bool
		wait     int
	}{
		{"2026-12-01T08:00:00Z", true, 10},
		{"2026-11-02T00:00:00Z", false, 60}, // the 30 days' first instant
		{"2026-11-20T12:00:00Z", true, 15},
		{"2026-11-01T23:59:59Z", true, 30},   // 90 days only
		{"2026-09-03T00:00:00Z", true, 20},   // the 90 days' first instant
		{"2026-09-02T23:59:59Z", false, 999}, // before both
	} {
		at, _ := time.Parse(time.RFC3339, r.at)
		if _, err := app.Store.CreateAvailabilityRecord(context.Background(), user.SystemActor, avail.Input{PlatformID: pair.PlatformID,
			GPUModelID: pair.GPUModelID, AttemptedAt: at, GPUCount: 1, Obtained: r.obtained, WaitMinutes: r.wait}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCompareShowsAvailabilityAndFilters: each priced row of the compare
// page's availability section (docs/RULES.md §20.4) shows its platform ×
// GPU model's 30 and 90 days (hand-computed in
// availCompareRecords) or "no records"; the avail filter keeps quotes whose
// 90 days' exact success rate reaches the minimum (80 % keeps 4 of 5) and
// leaves out those without records (docs/RULES.md §18.2).
func TestCompareShowsAvailabilityAndFilters(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	a, b := reportMarket(t, app)
	none := trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID)
	pid, gid := marketRefs(app)
	availCompareRecords(t, app, market.PlatformGPU{PlatformID: pid, GPUModelID: gid})
	c, _ := app.AsUser(auth.RoleAnalyst)
	base := "/compare?report_currency=EUR&profile.hours_per_month=200&profile.months=1&profile.instances=1&q=" + itoa(a) + "&q=" + itoa(b) + "&q=" + itoa(none)
	page := c.Get(base)
	if page.StatusCode != http.StatusOK {
		t.Fatalf("compare: %d", page.StatusCode)
	}
	// The availability is its own section, loaded when opened
	// (docs/RULES.md §20.4).
	page.Body = sectionOf(t, c, page.Body, "availability")
	for _, tc := range []struct {
		id   int64
		days int
		want string
	}{
		{a, 30, "3 次尝试中 2 次拿到卡（66.7 %），等待中位数 12.5 分钟"},
		{a, 90, "5 次尝试中 4 次拿到卡（80.0 %），等待中位数 17.5 分钟"},
		{none, 30, "暂无记录"},
		{none, 90, "暂无记录"},
	} {
		if got := availText(t, page.Body, `[data-testid="avail-row-`+itoa(tc.id)+`"]`, tc.days); got != tc.want {
			t.Errorf("quote %d, %d days: %q, want %q", tc.id, tc.days, got, tc.want)
		}
	}
	// a and b are offers of one platform × GPU model: its record is shown
	// once, naming both (it repeated itself for every quote).
	d := document(t, page.Body)
	if n := d.Find(`[data-testid^="avail-row-"]`).Length(); n != 2 {
		t.Errorf("%d availability entries for two platform × GPU models", n)
	}
	if q, _ := d.Find(`[data-testid="avail-row-` + itoa(a) + `"]`).Attr("data-quotes"); q != itoa(a)+" "+itoa(b) {
		t.Errorf("the pair's entry covers quotes %q, want %d and %d", q, a, b)
	}
	c.PostForm("/lang", url.Values{"lang": {"en"}})
	page = c.Get(base)
	page.Body = sectionOf(t, c, page.Body, "availability")
	if got := availText(t, page.Body, `[data-testid="avail-row-`+itoa(a)+`"]`, 90); got != "4 of 5 attempts obtained GPUs (80.0 %), median wait 17.5 min" {
		t.Errorf("en: %q", got)
	}
	if got := availText(t, page.Body, `[data-testid="avail-row-`+itoa(none)+`"]`, 90); got != "no records" {
		t.Errorf("en: %q", got)
	}

	for _, tc := range []struct {
		avail string
		want  map[int64]bool
	}{
		{"", map[int64]bool{a: true, b: true, none: true}},
		{"50", map[int64]bool{a: true, b: true, none: false}},
		{"80", map[int64]bool{a: true, b: true, none: false}},
		{"100", map[int64]bool{a: false, b: false, none: false}},
		{"79", map[int64]bool{a: true, b: true, none: true}}, // not an offered rate: no filter
	} {
		r := c.Get(base + "&avail=" + tc.avail)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("avail=%s: %d", tc.avail, r.StatusCode)
		}
		for id, want := range tc.want {
			if got := strings.Contains(r.Body, `data-testid="cand-`+itoa(id)+`"`); got != want {
				t.Errorf("avail=%s: candidate %d listed %v, want %v", tc.avail, id, got, want)
			}
		}
		if tc.avail == "80" && !strings.Contains(r.Body, `<option value="80" selected>`) {
			t.Error("the filter does not show what was asked for")
		}
	}
}

// TestReportFreezesAvailability: a report freezes each row's availability
// as the compare page showed it; its page, CSV and workbook say the same
// after more attempts are recorded, read through a server that never saw
// the report; recomputing counts the new attempts (docs/RULES.md §18.2).
func TestReportFreezesAvailability(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	a, b := reportMarket(t, app)
	none := trialQuote(app, testfactory.Platform(app.T, app.Store, market.Platform{}).ID, testfactory.GPUModel(app.T, app.Store, market.GPUModel{}).ID)
	pid, gid := marketRefs(app)
	pair := market.PlatformGPU{PlatformID: pid, GPUModelID: gid}
	availCompareRecords(t, app, pair)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	form := marketForm("可用性报告", a, b, none)
	id := saveReport(t, analyst, form)
	path := "/reports/" + itoa(id)
	analyst.Get(path) // the one-time "saved" message
	view := analyst.Get(path)
	csvBody := analyst.Get(path + "/export.csv")
	xlsx := analyst.Get(path + "/export.xlsx")
	if view.StatusCode != http.StatusOK || csvBody.StatusCode != http.StatusOK || xlsx.StatusCode != http.StatusOK {
		t.Fatalf("report: %d %d %d", view.StatusCode, csvBody.StatusCode, xlsx.StatusCode)
	}
	sec := `[data-testid="report-availability"] [data-quotes~="`
	if got := availText(t, view.Body, sec+itoa(a)+`"]`, 30); got != "3 次尝试中 2 次拿到卡（66.7 %），等待中位数 12.5 分钟" {
		t.Errorf("report page, 30 days: %q", got)
	}
	if got := availText(t, view.Body, sec+itoa(none)+`"]`, 90); got != "暂无记录" {
		t.Errorf("report page, no records: %q", got)
	}
	header, rows := csvTable(readCSV(t, csvBody.Body), "平台")
	if col(header, "等待中位数（分钟）") < 0 || len(rows) != 4 {
		t.Fatalf("CSV availability table %v %v", header, rows)
	}
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r[2:], " "))
	}
	if want := "2026-12-01 30 3 2 66.7 12.5|2026-12-01 90 5 4 80 17.5|2026-12-01 30 0 0  |2026-12-01 90 0 0  "; strings.Join(got, "|") != want {
		t.Errorf("CSV availability rows\n%q\nwant\n%q", strings.Join(got, "|"), want)
	}
	cells := strings.Join(xlsxCells(t, xlsx.Body), "\n")
	if !strings.Contains(cells, "可用性!A1=平台") || !strings.Contains(cells, "可用性!H3=17.5") {
		t.Errorf("the workbook has no availability sheet: %s", cells)
	}

	// A failure today and a success in October: the frozen report stays.
	for _, r := range []avail.Input{
		{AttemptedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Obtained: false, WaitMinutes: 5},
		{AttemptedAt: time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC), Obtained: true, WaitMinutes: 1},
	} {
		r.PlatformID, r.GPUModelID, r.GPUCount = pid, gid, 1
		if _, err := app.Store.CreateAvailabilityRecord(context.Background(), user.SystemActor, r); err != nil {
			t.Fatal(err)
		}
	}
	fresh := analyst.On(reportAppOn(t, app.Store, clock))
	if again := fresh.Get(path); again.Body != view.Body {
		t.Errorf("the report page changed after new records:\n%s", firstDiff(view.Body, again.Body))
	}
	if again := fresh.Get(path + "/export.csv"); again.Body != csvBody.Body {
		t.Errorf("the CSV changed:\n%s", firstDiff(csvBody.Body, again.Body))
	}
	if again := strings.Join(xlsxCells(t, fresh.Get(path+"/export.xlsx").Body), "\n"); again != cells {
		t.Errorf("the workbook changed:\n%s", firstDiff(cells, again))
	}

	// Recomputed: 30 days 2 of 4 = 50.0 %; 90 days 5 of 7 = 71.428… → 71.4 %,
	// median of 1 10 15 20 30 = 15.
	r := analyst.PostForm(path+"/recompute", url.Values{})
	m := reportPath.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("recompute: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	page := analyst.Get("/reports/" + m[1]).Body
	if got := availText(t, page, sec+itoa(a)+`"]`, 30); got != "4 次尝试中 2 次拿到卡（50.0 %），等待中位数 12.5 分钟" {
		t.Errorf("recomputed, 30 days: %q", got)
	}
	if got := availText(t, page, sec+itoa(a)+`"]`, 90); got != "7 次尝试中 5 次拿到卡（71.4 %），等待中位数 15 分钟" {
		t.Errorf("recomputed, 90 days: %q", got)
	}
}

// TestAvailabilityAPINamesAsQuotesDo: the availability API names a
// platform and a GPU model as the quote and proposal API does: by Chinese
// or English name or alias (platform), by "Vendor Name", name or alias
// (gpu_model), case aside, or by id (platform_id, gpu_model_id); every
// name a proposal accepts, a record accepts (docs/RULES.md §19.5). A name
// that is none is its field's problem with the nearest name suggested;
// both a name and an id, or an unknown id, are refused naming the field.
func TestAvailabilityAPINamesAsQuotesDo(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	p := testfactory.Platform(app.T, app.Store, market.Platform{NameZH: "别名云", NameEN: "Alias Cloud", Aliases: []string{"AC"}})
	g := testfactory.GPUModel(app.T, app.Store, market.GPUModel{Vendor: "NVIDIA", Name: "GeForce RTX 5090", Aliases: []string{"5090"}})
	token, _ := apiToken(t, app, auth.RoleAnalyst)
	record := func(ref map[string]any) *testutil.Response {
		t.Helper()
		body := map[string]any{"attempted_at": "2026-03-01T10:00:00Z", "gpu_count": 1, "obtained": true, "wait_minutes": 3}
		maps.Copy(body, ref)
		b, _ := json.Marshal(body)
		return apiCall(t, app, http.MethodPost, "/api/v1/availability", token, string(b), "Accept-Language", "en")
	}
	propose := func(ref map[string]any) *testutil.Response {
		t.Helper()
		body := map[string]any{"gpu_count": 1, "sharing": "dedicated", "currency": "CNY", "hourly": "2", "billing_granularity": "hour",
			"prices_include_tax": true, "as_of": "2026-03-01", "source": "vendor", "vendor_message": "sales"}
		maps.Copy(body, ref)
		b, _ := json.Marshal(body)
		return apiCall(t, app, http.MethodPost, "/api/v1/proposals", token, string(b), "Accept-Language", "en")
	}
	for _, ref := range []map[string]any{
		{"platform": "别名云", "gpu_model": "NVIDIA GeForce RTX 5090"},
		{"platform": "alias cloud", "gpu_model": "GeForce RTX 5090"},
		{"platform": "AC", "gpu_model": "5090"},
		{"platform_id": p.ID, "gpu_model_id": g.ID},
	} {
		if r := propose(ref); r.StatusCode != http.StatusCreated {
			t.Errorf("proposal %v: %d %s", ref, r.StatusCode, r.Body)
		}
		r := record(ref)
		if r.StatusCode != http.StatusCreated {
			t.Errorf("record %v: %d %s", ref, r.StatusCode, r.Body)
			continue
		}
		var rec avail.Record
		if err := json.Unmarshal([]byte(r.Body), &rec); err != nil || rec.PlatformID != p.ID || rec.GPUModelID != g.ID {
			t.Errorf("record %v: %+v %v", ref, rec, err)
		}
	}
	for _, c := range []struct {
		ref         map[string]any
		field, code string
	}{
		{map[string]any{"platform": "Alias Clod", "gpu_model": "5090"}, "platform", quote.MsgUnknownPlatformSuggest},
		{map[string]any{"platform": "AC", "gpu_model": "Quantum 9000"}, "gpu_model", quote.MsgUnknownGPU},
		{map[string]any{"platform": "AC", "platform_id": p.ID, "gpu_model": "5090"}, "platform", "api.write.error.ref_both"},
		{map[string]any{"platform_id": 99999999, "gpu_model": "5090"}, "platform_id", avail.MsgUnknownRef},
	} {
		r := record(c.ref)
		var e availAPIErrors
		if err := json.Unmarshal([]byte(r.Body), &e); err != nil || r.StatusCode != http.StatusUnprocessableEntity || len(e.Errors) != 1 ||
			e.Errors[0].Field != c.field || e.Errors[0].Code != c.code {
			t.Errorf("%v: %d %s, want %s on %s", c.ref, r.StatusCode, r.Body, c.code, c.field)
		}
	}
	if r := record(map[string]any{"platform": "Alias Clod", "gpu_model": "5090"}); !strings.Contains(r.Body, "Alias Cloud") {
		t.Errorf("no suggestion: %s", r.Body)
	}
}
