package server_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/form"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/web"
)

// The data API's market writes (docs/RULES.md §19.4).

// qwToday is the clock of these tests.
var qwToday = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

func qwApp(t testing.TB) *testutil.App {
	return testutil.NewApp(t, func(d *server.Deps) { d.Now = func() time.Time { return qwToday } })
}

// qwRefs adds a platform and a GPU model and returns their ids.
func qwRefs(t testing.TB, a *testutil.App) (platformID, gpuID int64) {
	t.Helper()
	ctx := context.Background()
	if err := a.Store.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('写入云', 'Write Host', 'EUR') RETURNING id`).Scan(&platformID); err != nil {
		t.Fatal(err)
	}
	if err := a.Store.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'Write 4090', 24) RETURNING id`).Scan(&gpuID); err != nil {
		t.Fatal(err)
	}
	return platformID, gpuID
}

// qwQuote is a quote body with several charged and unknown lines: the
// platform by name, the GPU model by id, counts as integers, flags as
// booleans, null for "not given".
func qwQuote(gpuID int64) map[string]any {
	return map[string]any{
		"platform": "Write Host", "gpu_model_id": gpuID, "label": "4090 单卡, API", "gpu_count": 1, "sharing": "dedicated",
		"cpu_cores": 16, "currency": "eur", "hourly": "0.471", "monthly": "284.5", "billing_granularity": "second",
		"prices_include_tax": false, "tax_rate": "0.06", "deposit_refundable": false, "balance_withdrawable": nil,
		"as_of": "2026-11-20", "source": "https://write.example/pricing",
		"lines": map[string]any{
			"egress":            map[string]any{"status": "charged", "unit": "per_gb", "unit_price": "0.8", "free_allowance": "20", "in_writing": true, "note": "over 20 GB"},
			"stopped_retention": map[string]any{"status": "charged", "unit_price": "0.000001"},
			"public_ip":         map[string]any{"status": "included", "in_writing": true},
			"snapshot":          map[string]any{"status": "unconfirmed"},
			"bandwidth":         nil,
		},
	}
}

func qwJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type qwRef struct {
	ID       int64  `json:"id"`
	SeriesID int64  `json:"series_id"`
	Version  int    `json:"version"`
	State    string `json:"state"`
	URL      string `json:"url"`
}

// qwCreated reads a 201 answer's quote reference.
func qwCreated(t testing.TB, res *testutil.Response) qwRef {
	t.Helper()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("status %d, want 201: %s", res.StatusCode, res.Body)
	}
	var ref qwRef
	if err := json.Unmarshal([]byte(res.Body), &ref); err != nil {
		t.Fatal(err)
	}
	if ref.URL != "/api/v1/quotes/"+itoa(ref.ID) || res.Header.Get("Location") != ref.URL {
		t.Errorf("url %q, Location %q", ref.URL, res.Header.Get("Location"))
	}
	return ref
}

type qwErrors struct {
	Errors []struct {
		Field, Code, Message string
	} `json:"errors"`
}

// qwRefused checks an error answer's status and returns its errors by
// field.
func qwRefused(t testing.TB, res *testutil.Response, status int) map[string][2]string {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, res.Body)
	}
	var body qwErrors
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil {
		t.Fatal(err)
	}
	out := map[string][2]string{}
	for _, e := range body.Errors {
		out[e.Field] = [2]string{e.Code, e.Message}
	}
	return out
}

// qwCounts counts what a write leaves behind.
func qwCounts(t testing.TB, a *testutil.App) [6]int {
	t.Helper()
	var n [6]int
	err := a.Store.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM quotes), (SELECT count(*) FROM quote_lines),
		(SELECT count(*) FROM audit_log), (SELECT count(*) FROM reference_prices), (SELECT count(*) FROM fx_rates),
		(SELECT count(*) FROM notifications)`).Scan(&n[0], &n[1], &n[2], &n[3], &n[4], &n[5])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// qwAudit lists the actions audited for entity id, oldest first, that
// actor wrote.
func qwAudit(t testing.TB, a *testutil.App, entity string, id, actor int64) []string {
	t.Helper()
	rows, err := a.Store.Pool().Query(context.Background(),
		`SELECT action FROM audit_log WHERE entity = $1 AND entity_id = $2 AND actor_id = $3 ORDER BY id`, entity, itoa(id), actor)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func qwMoney(s string) string {
	return web.FormatMoney(i18n.ZH, decimal.NewNullDecimal(decimal.RequireFromString(s)), "EUR")
}

// TestAPIPublishQuoteReadBackThroughPageAndCSV: an editor's token publishes
// a quote at once; the quote page and the CSV export show what was sent,
// and the audit log has the pages' two entries (docs/RULES.md §19.4).
func TestAPIPublishQuoteReadBackThroughPageAndCSV(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	_, gpuID := qwRefs(t, app)
	token, editorID := apiToken(t, app, auth.RoleEditor)
	ref := qwCreated(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", token, qwJSON(t, qwQuote(gpuID))))
	if ref.State != quote.Published || ref.Version != 1 || ref.SeriesID != ref.ID {
		t.Fatalf("ref %+v", ref)
	}

	analyst, _ := app.AsUser(auth.RoleAnalyst)
	page := analyst.Get("/quotes/" + itoa(ref.ID))
	if page.StatusCode != http.StatusOK {
		t.Fatalf("quote page: %d", page.StatusCode)
	}
	d, err := goquery.NewDocumentFromReader(strings.NewReader(page.Body))
	if err != nil {
		t.Fatal(err)
	}
	terms := d.Find(`[data-testid="quote-terms"]`).Text()
	for _, want := range []string{qwMoney("0.471"), qwMoney("284.5")} {
		if !strings.Contains(terms, want) {
			t.Errorf("quote page terms lack %q: %s", want, terms)
		}
	}
	if got := d.Find(`[data-testid="line-egress"]`).Text(); !strings.Contains(got, qwMoney("0.8")) || !strings.Contains(got, "over 20 GB") {
		t.Errorf("egress line: %s", got)
	}
	if got := d.Find(`[data-testid="line-stopped_retention"]`).Text(); !strings.Contains(got, qwMoney("0.000001")) {
		t.Errorf("stopped retention line: %s", got)
	}
	if title := d.Find(`[data-testid="quote-title"]`).Text(); !strings.Contains(title, "4090 单卡, API") {
		t.Errorf("title %q", title)
	}
	if !strings.Contains(page.Body, "2026-11-20") {
		t.Error("as_of not on the page")
	}

	res := analyst.Get("/quotes/export.csv")
	recs, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(res.Body, "\ufeff"))).ReadAll()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("export: %d %v", res.StatusCode, err)
	}
	i := slices.IndexFunc(recs, func(r []string) bool { return r[0] == itoa(ref.ID) })
	if i < 1 {
		t.Fatalf("quote %d not in the export", ref.ID)
	}
	row := map[string]string{}
	for j, h := range recs[0] {
		row[h] = recs[i][j]
	}
	for k, v := range map[string]string{"state": "published", "version": "1", "platform": "写入云", "gpu_model": "NVIDIA Write 4090",
		"label": "4090 单卡, API", "gpu_count": "1", "cpu_cores": "16", "currency": "EUR", "hourly": "0.471", "monthly": "284.5",
		"billing_granularity": "second", "prices_include_tax": "false", "tax_rate": "0.06", "deposit_refundable": "false",
		"balance_withdrawable": "", "as_of": "2026-11-20", "source": "https://write.example/pricing",
		"egress.status": "charged", "egress.unit": "per_gb", "egress.unit_price": "0.8", "egress.free_allowance": "20",
		"egress.in_writing": "true", "stopped_retention.status": "charged", "stopped_retention.unit": "per_hour",
		"stopped_retention.unit_price": "0.000001", "public_ip.status": "included", "public_ip.in_writing": "true",
		"snapshot.status": "unconfirmed", "bandwidth.status": "unconfirmed"} {
		if row[k] != v {
			t.Errorf("CSV %s = %q, want %q", k, row[k], v)
		}
	}

	if got := qwAudit(t, app, "quote", ref.ID, editorID); !slices.Equal(got, []string{"quote.create", "quote.publish"}) {
		t.Errorf("audit %v", got)
	}
}

// TestAPIPublishQuoteVersion: the next version through the API archives
// the published one and keeps the series' history; an old version, an
// unknown id and a series with a draft in progress are refused, with
// nothing written.
func TestAPIPublishQuoteVersion(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	_, gpuID := qwRefs(t, app)
	token, editorID := apiToken(t, app, auth.RoleEditor)
	v1 := qwCreated(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", token, qwJSON(t, qwQuote(gpuID))))
	body := qwQuote(gpuID)
	body["hourly"] = "0.499"
	v2 := qwCreated(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes/"+itoa(v1.ID)+"/versions", token, qwJSON(t, body)))
	if v2.SeriesID != v1.SeriesID || v2.Version != 2 || v2.State != quote.Published || v2.ID == v1.ID {
		t.Fatalf("v2 %+v after v1 %+v", v2, v1)
	}
	ctx := context.Background()
	old, err := app.Store.QuoteByID(ctx, v1.ID)
	if err != nil || old.State != quote.Archived || old.Hourly.Decimal.String() != "0.471" {
		t.Fatalf("old version: %s %s %v", old.State, old.Hourly.Decimal, err)
	}
	cur, err := app.Store.QuoteByID(ctx, v2.ID)
	if err != nil || cur.PredecessorID != v1.ID || cur.Hourly.Decimal.String() != "0.499" || len(cur.Lines) != 12 {
		t.Fatalf("new version: pred %d hourly %s lines %d %v", cur.PredecessorID, cur.Hourly.Decimal, len(cur.Lines), err)
	}
	hist, err := app.Store.QuoteVersions(ctx, v1.SeriesID)
	if err != nil || len(hist) != 2 || hist[0].ID != v2.ID || hist[1].ID != v1.ID {
		t.Fatalf("history %+v %v", hist, err)
	}
	if got := qwAudit(t, app, "quote", v2.ID, editorID); !slices.Equal(got, []string{"quote.new_version", "quote.publish"}) {
		t.Errorf("audit %v", got)
	}

	before := qwCounts(t, app)
	// The archived version is not the base of the next.
	qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes/"+itoa(v1.ID)+"/versions", token, qwJSON(t, body)), http.StatusConflict)
	qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes/99999999/versions", token, qwJSON(t, body)), http.StatusNotFound)
	if after := qwCounts(t, app); after != before {
		t.Errorf("a refused version wrote: %v → %v", before, after)
	}
	// A draft in progress on the pages: publish or delete it first.
	draft, err := app.Store.NewQuoteVersion(ctx, user.SystemActor, v2.ID)
	if err != nil {
		t.Fatal(err)
	}
	analyst, _ := apiToken(t, app, auth.RoleAnalyst)
	before = qwCounts(t, app)
	errs := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes/"+itoa(v2.ID)+"/versions", token, qwJSON(t, body),
		"Accept-Language", "en"), http.StatusConflict)
	if e := errs[""]; e[0] != "conflict" || !strings.Contains(e[1], itoa(draft.ID)) {
		t.Errorf("draft conflict: %v", errs)
	}
	// An analyst's token never publishes.
	qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes/"+itoa(v2.ID)+"/versions", analyst, qwJSON(t, body)), http.StatusForbidden)
	if after := qwCounts(t, app); after != before {
		t.Errorf("a refused version wrote: %v → %v", before, after)
	}
}

// TestAPIQuoteWriteRefusals: an analyst's token, an editor's token without
// quotes:write, bad fields (every one named, in zh-CN by default and in
// English on request) and malformed bodies are refused, and nothing is
// written.
func TestAPIQuoteWriteRefusals(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	_, gpuID := qwRefs(t, app)
	editor, _ := apiToken(t, app, auth.RoleEditor)
	readOnly, _ := apiToken(t, app, auth.RoleEditor, user.ScopeRead)
	analyst, _ := apiToken(t, app, auth.RoleAnalyst)
	good := qwJSON(t, qwQuote(gpuID))
	before := qwCounts(t, app)

	if e := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", analyst, good), http.StatusForbidden); e[""][0] != "forbidden" {
		t.Errorf("analyst: %v", e)
	}
	if e := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", readOnly, good), http.StatusForbidden); e[""][0] != "insufficient_scope" {
		t.Errorf("read-only token: %v", e)
	}

	bad := qwQuote(gpuID)
	bad["hourly"] = "1,5"         // not a decimal
	bad["monthly"] = 284          // a JSON number
	bad["gpu_count"] = 1.5        // not a whole number
	bad["sharing"] = "whole"      // not a choice
	bad["as_of"] = "2027-01-05"   // after today
	bad["platform"] = "Nowhere"   // unknown
	bad["prices_include_tax"] = 1 // not a flag
	bad["lines"] = map[string]any{"egress": map[string]any{"status": "charged"}, "snapshot": map[string]any{"status": "included", "unit_price": "1"}}
	want := map[string]string{
		"hourly": "form.error.comma_decimal", "monthly": "api.write.error.decimal", "gpu_count": "api.write.error.integer",
		"sharing": "form.error.choice", "as_of": "form.error.future", "platform": "",
		"prices_include_tax": "api.write.error.flag", "lines.egress.unit_price": quote.MsgPriceRequired,
		"lines.snapshot.unit_price": quote.MsgPriceNotCharged,
	}
	msgs := map[i18n.Lang]map[string][2]string{}
	for _, lang := range []i18n.Lang{i18n.ZH, i18n.EN} {
		var hdr []string
		if lang == i18n.EN {
			hdr = []string{"Accept-Language", "en"}
		}
		errs := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", editor, qwJSON(t, bad), hdr...), http.StatusUnprocessableEntity)
		msgs[lang] = errs
		if len(errs) != len(want) {
			t.Errorf("%s: fields %v, want %v", lang, errs, want)
		}
		tr := app.Catalog.Translator(lang)
		for field, code := range want {
			e, ok := errs[field]
			switch {
			case !ok:
				t.Errorf("%s: no error for %s", lang, field)
			case code != "" && e[0] != code:
				t.Errorf("%s: %s code %q, want %q", lang, field, e[0], code)
			case code != "" && e[1] != tr.T(code):
				t.Errorf("%s: %s message %q, want %q", lang, field, e[1], tr.T(code))
			}
		}
	}
	for field := range want {
		if zh, en := msgs[i18n.ZH][field][1], msgs[i18n.EN][field][1]; zh == "" || zh == en {
			t.Errorf("%s: zh-CN %q, en %q", field, zh, en)
		}
	}

	// Malformed bodies: an unknown field, an unknown item or line field
	// and lines not an object are named by their paths; trailing data and
	// a body that is no object are the body's.
	for _, b := range []struct{ body, field, code string }{
		{strings.Replace(good, `"label"`, `"labels"`, 1), "labels", "api.error.field_unknown"},
		{strings.Replace(good, `"egress"`, `"egres"`, 1), "lines.egres", "api.error.field_unknown"},
		{strings.Replace(good, `"over 20 GB"`, `"x","colour":"red"`, 1), "lines.egress.colour", "api.error.field_unknown"},
		{strings.Replace(good, `"label"`, `"label":"x","label"`, 1), "label", "api.error.field_duplicate"},
		{good[:len(good)-1] + `,"lines":{}}`, "lines", "api.error.field_duplicate"},
		{good + `{}`, "", "api.error.json"},
		{`[]`, "", "api.error.json"},
	} {
		if e := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", editor, b.body), http.StatusUnprocessableEntity); e[b.field][0] != b.code || len(e) != 1 {
			t.Errorf("%.60s…: %v, want %s naming %q", b.body, e, b.code, b.field)
		}
	}
	arr := qwQuote(gpuID)
	arr["lines"] = []any{map[string]any{"item": "egress"}}
	if e := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", editor, qwJSON(t, arr)),
		http.StatusUnprocessableEntity); e["lines"][0] != "api.error.type.object" || len(e) != 1 {
		t.Errorf("lines as an array: %v", e)
	}
	// Text the database cannot store is the field's problem, as a form's
	// is refused by the input guard.
	for _, bad := range []string{"a\u0000b", "a\u0001b", "a\u007fb"} {
		nul := qwQuote(gpuID)
		nul["notes"] = bad
		if e := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", editor, qwJSON(t, nul)), http.StatusUnprocessableEntity); e["notes"][0] != "api.error.text" {
			t.Errorf("notes %q: %v", bad, e)
		}
	}

	if after := qwCounts(t, app); after != before {
		t.Errorf("a refused write wrote: %v → %v", before, after)
	}
}

// TestAPIProposeQuote: a proposal through the API, with the vendor's
// message, is in the editors' review queue and the editors are told; a
// missing message is named.
func TestAPIProposeQuote(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	_, gpuID := qwRefs(t, app)
	editor, editorID := app.AsUser(auth.RoleEditor)
	token, analystID := apiToken(t, app, auth.RoleAnalyst, user.ScopeQuotesWrite)

	body := qwQuote(gpuID)
	before := qwCounts(t, app)
	errs := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/proposals", token, qwJSON(t, body)), http.StatusUnprocessableEntity)
	if errs["vendor_message"][0] != "proposal.error.message_required" || len(errs) != 1 {
		t.Errorf("no message: %v", errs)
	}
	body["vendor_message"] = strings.Repeat("x", 20001)
	errs = qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/proposals", token, qwJSON(t, body)), http.StatusUnprocessableEntity)
	if errs["vendor_message"][0] != "proposal.error.message_too_long" || !strings.Contains(errs["vendor_message"][1], "20000") {
		t.Errorf("long message: %v", errs)
	}
	if after := qwCounts(t, app); after != before {
		t.Errorf("a refused proposal wrote: %v → %v", before, after)
	}

	body["vendor_message"] = "  HOSTKEY sales: 0.471 EUR/h, egress 0.8/GB over 20 GB.  "
	ref := qwCreated(t, apiCall(t, app, http.MethodPost, "/api/v1/proposals", token, qwJSON(t, body)))
	if ref.State != quote.Proposed || ref.Version != 1 {
		t.Fatalf("ref %+v", ref)
	}
	queue := editor.Get("/quotes/review")
	if queue.StatusCode != http.StatusOK || !strings.Contains(queue.Body, `data-testid="proposal-`+itoa(ref.ID)+`"`) {
		t.Errorf("review queue: %d, proposal %d not listed", queue.StatusCode, ref.ID)
	}
	if r := editor.Get("/quotes/" + itoa(ref.ID) + "/review"); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, "HOSTKEY sales") {
		t.Errorf("review page: %d", r.StatusCode)
	}
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM notifications
		WHERE user_id = $1 AND kind = 'quote_proposed' AND entity_id = $2 AND actor_id = $3`, editorID, ref.ID, analystID).Scan(&n); err != nil || n != 1 {
		t.Errorf("editor notified %d times (%v)", n, err)
	}
	if got := qwAudit(t, app, "quote", ref.ID, analystID); !slices.Equal(got, []string{"quote.propose"}) {
		t.Errorf("audit %v", got)
	}
}

// TestAPIReferencePriceAndFXRate: reference prices and exchange rates
// through the prices page's readers and store calls, refusals included.
func TestAPIReferencePriceAndFXRate(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	token, editorID := apiToken(t, app, auth.RoleEditor)
	analyst, _ := apiToken(t, app, auth.RoleAnalyst)

	price := map[string]any{"item": "egress", "currency": "cny", "unit": "per_gb", "unit_price": "0.80", "as_of": "2026-11-21",
		"source": "written answer in ticket #1234"}
	before := qwCounts(t, app)
	qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/reference-prices", analyst, qwJSON(t, price)), http.StatusForbidden)
	bad := map[string]any{"item": "egress", "currency": "CNY", "unit": "per_month", "unit_price": 0.8, "as_of": "2026-11-21"}
	errs := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/reference-prices", token, qwJSON(t, bad), "Accept-Language", "en"),
		http.StatusUnprocessableEntity)
	if errs["unit"][0] != "prices.error.unit_not_allowed" || errs["unit_price"][0] != "api.write.error.decimal" ||
		errs["source"][0] != "form.required" || len(errs) != 3 {
		t.Errorf("bad price: %v", errs)
	}
	if after := qwCounts(t, app); after != before {
		t.Errorf("a refused price wrote: %v → %v", before, after)
	}
	res := apiCall(t, app, http.MethodPost, "/api/v1/reference-prices", token, qwJSON(t, price))
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("price: %d %s", res.StatusCode, res.Body)
	}
	var got struct {
		ID                                            int64
		Item, Currency, Unit, UnitPrice, AsOf, Source string
	}
	var raw map[string]any
	_ = json.Unmarshal([]byte(res.Body), &raw)
	if err := json.Unmarshal([]byte(res.Body), &got); err != nil {
		t.Fatal(err)
	}
	if got.ID == 0 || got.Item != "egress" || got.Currency != "CNY" || got.Unit != "per_gb" || raw["unit_price"] != "0.8" ||
		raw["as_of"] != "2026-11-21" || got.Source != "written answer in ticket #1234" {
		t.Errorf("stored price %s", res.Body)
	}
	if a := qwAudit(t, app, "reference_price", got.ID, editorID); !slices.Equal(a, []string{"reference_price.create"}) {
		t.Errorf("audit %v", a)
	}
	// The same item, currency, unit and day again: the page's problem.
	errs = qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/reference-prices", token, qwJSON(t, price)), http.StatusUnprocessableEntity)
	if errs["as_of"][0] != "prices.reference.exists" {
		t.Errorf("duplicate price: %v", errs)
	}

	rate := map[string]any{"base": "usd", "quote": "CNY", "rate": "7.1234567891", "as_of": "2026-11-21", "source": "bank"}
	before = qwCounts(t, app)
	qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/fx-rates", analyst, qwJSON(t, rate)), http.StatusForbidden)
	errs = qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/fx-rates", token,
		`{"base":"CNY","quote":"CNY","rate":7.1,"as_of":"2026-11-21","source":"bank"}`), http.StatusUnprocessableEntity)
	if errs["quote"][0] != "prices.error.same_currency" || errs["rate"][0] != "api.write.error.decimal" || len(errs) != 2 {
		t.Errorf("bad rate: %v", errs)
	}
	if e := qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/fx-rates", token, `{"base":"USD","when":"today"}`),
		http.StatusUnprocessableEntity); e["when"][0] != "api.error.field_unknown" {
		t.Errorf("unknown field: %v", e)
	}
	if after := qwCounts(t, app); after != before {
		t.Errorf("a refused rate wrote: %v → %v", before, after)
	}
	res = apiCall(t, app, http.MethodPost, "/api/v1/fx-rates", token, qwJSON(t, rate))
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("rate: %d %s", res.StatusCode, res.Body)
	}
	_ = json.Unmarshal([]byte(res.Body), &raw)
	if raw["base_currency"] != "USD" || raw["quote_currency"] != "CNY" || raw["rate"] != "7.1234567891" || raw["as_of"] != "2026-11-21" {
		t.Errorf("stored rate %s", res.Body)
	}
	if a := qwAudit(t, app, "fx_rate", int64(raw["id"].(float64)), editorID); !slices.Equal(a, []string{"fx_rate.create"}) {
		t.Errorf("audit %v", a)
	}
	errs = qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/fx-rates", token, qwJSON(t, rate)), http.StatusUnprocessableEntity)
	if errs["as_of"][0] != "prices.fx.exists" {
		t.Errorf("duplicate rate: %v", errs)
	}
}

// TestAPIPublishIsOneTransaction: a failure at the last step of publishing
// (its audit entry) leaves no draft, line or audit entry behind, for a new
// quote and for a new version (docs/RULES.md §19.4).
func TestAPIPublishIsOneTransaction(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	_, gpuID := qwRefs(t, app)
	token, _ := apiToken(t, app, auth.RoleEditor)
	v1 := qwCreated(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", token, qwJSON(t, qwQuote(gpuID))))
	if _, err := app.Owner().Pool().Exec(context.Background(), `
		CREATE FUNCTION qw_refuse_publish() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.action = 'quote.publish' THEN RAISE EXCEPTION 'refused for the test'; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER qw_refuse_publish BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION qw_refuse_publish();`); err != nil {
		t.Fatal(err)
	}
	before := qwCounts(t, app)
	qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes", token, qwJSON(t, qwQuote(gpuID))), http.StatusInternalServerError)
	qwRefused(t, apiCall(t, app, http.MethodPost, "/api/v1/quotes/"+itoa(v1.ID)+"/versions", token, qwJSON(t, qwQuote(gpuID))),
		http.StatusInternalServerError)
	if after := qwCounts(t, app); after != before {
		t.Errorf("a failed publication left rows behind: %v → %v", before, after)
	}
	if q, err := app.Store.QuoteByID(context.Background(), v1.ID); err != nil || q.State != quote.Published {
		t.Errorf("the published version changed: %s %v", q.State, err)
	}
}

// TestAPIQuoteInputsHaveOneType: a quote sent to the API takes each value
// in the one JSON type its description names (docs/RULES.md §19.4): a
// count as a JSON integer, a yes/no as a JSON boolean, a platform or GPU
// model by name or alias as a string (platform, gpu_model) or by id as an
// integer (platform_id, gpu_model_id). The strings "1" and "true" and an
// id under the name's field are each their field's problem; both a name
// and an id is refused; an unknown id is named under the id's field; and
// a proposal accepts every name the availability API accepts
// (TestAvailabilityAPINamesAsQuotesDo).
func TestAPIQuoteInputsHaveOneType(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	platformID, gpuID := qwRefs(t, app)
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeQuotesWrite)
	propose := func(change map[string]any) map[string][2]string {
		t.Helper()
		body := qwQuote(gpuID)
		body["vendor_message"] = "HOSTKEY sales"
		for k, v := range change {
			if v == "-" {
				delete(body, k)
				continue
			}
			body[k] = v
		}
		res := apiCall(t, app, http.MethodPost, "/api/v1/proposals", token, qwJSON(t, body), "Accept-Language", "en")
		if res.StatusCode == http.StatusCreated {
			return nil
		}
		return qwRefused(t, res, http.StatusUnprocessableEntity)
	}
	for _, c := range []struct {
		name   string
		change map[string]any
		want   map[string]string // field → code; nil: accepted
	}{
		{"as described", nil, nil},
		{"platform by id", map[string]any{"platform": "-", "platform_id": platformID}, nil},
		{"GPU model by name", map[string]any{"gpu_model_id": "-", "gpu_model": "NVIDIA Write 4090"}, nil},
		{"count as a string", map[string]any{"gpu_count": "1"}, map[string]string{"gpu_count": "api.write.error.integer"}},
		{"flag as a string", map[string]any{"prices_include_tax": "false"}, map[string]string{"prices_include_tax": "api.write.error.flag"}},
		{"line flag as a string", map[string]any{"lines": map[string]any{"public_ip": map[string]any{"status": "included", "in_writing": "true"}}},
			map[string]string{"lines.public_ip.in_writing": "api.write.error.flag"}},
		{"id under the name", map[string]any{"platform": platformID}, map[string]string{"platform": "api.write.error.ref"}},
		{"id as a string", map[string]any{"gpu_model_id": itoa(gpuID)}, map[string]string{"gpu_model_id": "api.write.error.integer"}},
		{"name and id", map[string]any{"platform_id": platformID}, map[string]string{"platform": "api.write.error.ref_both"}},
		{"unknown id", map[string]any{"platform": "-", "platform_id": 99999999}, map[string]string{"platform_id": quote.MsgUnknownPlatform}},
		{"neither", map[string]any{"platform": "-"}, map[string]string{"platform": form.MsgRequired}},
	} {
		got := propose(c.change)
		if len(got) != len(c.want) {
			t.Errorf("%s: errors %v, want %v", c.name, got, c.want)
			continue
		}
		for field, code := range c.want {
			if got[field][0] != code || got[field][1] == "" {
				t.Errorf("%s: %s %v, want %s", c.name, field, got[field], code)
			}
		}
	}
}
