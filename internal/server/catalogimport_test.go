package server_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/skycatalog"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// The catalog import's days: the first import, the second (the clock's
// today is the day after).
var (
	catalogDay1  = time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	catalogDay2  = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	catalogToday = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
)

// catalogFile is a real SkyPilot catalog file (internal/skycatalog's
// testdata; its README names where each comes from).
func catalogFile(t testing.TB, cloud string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "skycatalog", "testdata", "skypilot", cloud, "vms.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withPrices is a copy of file with the Price of every row of each
// instance type changed.
func withPrices(t testing.TB, file []byte, prices map[string]string) []byte {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(rows[0], "Price")
	changed := 0
	for _, r := range rows[1:] {
		if p, ok := prices[r[0]]; ok {
			r[col] = p
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no row changed")
	}
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// catalogWorld is a platform that bills by the second and the GPU models
// some of RunPod's cards are known by (their catalog names as aliases).
type catalogWorld struct {
	app      *testutil.App
	platform market.Platform
	h100     market.GPUModel
}

func newCatalogWorld(t *testing.T) *catalogWorld {
	t.Helper()
	app := testutil.NewApp(t, func(d *server.Deps) { d.Now = func() time.Time { return catalogToday } })
	w := &catalogWorld{app: app}
	w.platform = testfactory.Platform(t, app.Store, market.Platform{NameZH: "RunPod 云", NameEN: "RunPod", Currency: "USD",
		BillingGranularities: []string{"second"}})
	w.h100 = testfactory.GPUModel(t, app.Store, market.GPUModel{Name: "H100 SXM", VRAMGB: testfactory.D("80"), Aliases: []string{"H100-SXM"}})
	for _, g := range []market.GPUModel{
		{Name: "H200 SXM 141GB", VRAMGB: testfactory.D("141"), Aliases: []string{"H200-SXM"}},
		{Name: "L40S", VRAMGB: testfactory.D("48")},
		{Name: "A100 SXM4 80GB", VRAMGB: testfactory.D("80"), Aliases: []string{"A100-80GB-SXM", "A100-80GB"}},
	} {
		testfactory.GPUModel(t, app.Store, g)
	}
	return w
}

// importForm is a valid form for the platform, dated day.
func (w *catalogWorld) importForm(day time.Time) map[string]string {
	return map[string]string{"platform": itoa(w.platform.ID), "as_of": day.Format(time.DateOnly),
		"source":  "https://github.com/skypilot-org/skypilot-catalog/blob/0727c2b/catalogs/v7/runpod/vms.csv",
		"sharing": "dedicated", "billing_granularity": ""}
}

// catalogPost posts the import form with file (nil: no file part) as a
// browser does, multipart.
func catalogPost(t testing.TB, a *testutil.App, c *testutil.Client, fields map[string]string, file []byte) *testutil.Response {
	t.Helper()
	if c.CSRF == "" {
		c.Get("/login")
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if err := mw.WriteField("_csrf", c.CSRF); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		if err := mw.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if file != nil {
		fw, err := mw.CreateFormFile("file", "vms.csv")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(file); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, a.URL+"/quotes/import/skypilot", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.Do(req)
}

var catalogImportPath = regexp.MustCompile(`^/quotes/import/skypilot/(\d+)$`)

// importCatalog imports file on day and returns the import's page path.
func (w *catalogWorld) importCatalog(t *testing.T, c *testutil.Client, file []byte, day time.Time) string {
	t.Helper()
	res := catalogPost(t, w.app, c, w.importForm(day), file)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !catalogImportPath.MatchString(loc) {
		t.Fatalf("import: status %d, location %q\n%s", res.StatusCode, loc, res.Body)
	}
	return loc
}

// publishForm is the page's publish form as a browser sends it: every
// ticked box and every hidden field.
func publishForm(t *testing.T, body string) (action string, form url.Values) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	f := doc.Find(`form[data-testid="catalog-publish-form"]`)
	if f.Length() != 1 {
		t.Fatalf("%d publish forms", f.Length())
	}
	action, _ = f.Attr("action")
	form = url.Values{}
	f.Find("input").Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		value, _ := in.Attr("value")
		typ, _ := in.Attr("type")
		if typ == "checkbox" {
			if _, checked := in.Attr("checked"); !checked {
				return
			}
		}
		form.Add(name, value)
	})
	return action, form
}

// count runs a count query on the app's database.
func rowCount(t *testing.T, a *testutil.App, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := a.Store.Pool().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// catalogText is the text of the element with data-testid id.
func catalogText(doc *goquery.Document, id string) string {
	text, _ := testID(doc, id)
	return text
}

// TestCatalogImportThenChangedImport is the whole round: RunPod's catalog
// (1,175 rows) imported on one day makes drafts, which are published in
// one step; a copy with three prices changed, imported a month later,
// makes versions of those three alone; publishing them gives their series
// two dated samples in the price history.
func TestCatalogImportThenChangedImport(t *testing.T) {
	t.Parallel()
	w := newCatalogWorld(t)
	app := w.app
	editor, editorID := app.AsUser(auth.RoleEditor)
	zh := app.Catalog.Translator("zh-CN")
	file := catalogFile(t, "runpod")

	if res := editor.Get("/quotes/import/skypilot"); res.StatusCode != http.StatusOK || !strings.Contains(res.Body, `data-testid="catalog-form"`) {
		t.Fatalf("form: %d", res.StatusCode)
	}
	page := w.importCatalog(t, editor, file, catalogDay1)
	res := editor.Get(page)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("import page: %d", res.StatusCode)
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(res.Body))
	// Known by alias: A100-80GB, A100-80GB-SXM, H100-SXM, H200-SXM and
	// L40S, four sizes each; the other cards' 575 rows are passed over.
	for id, want := range map[string]string{
		"catalog-rows":          zh.T("catalog.summary.rows.other", "Count", 1175),
		"catalog-folded":        zh.T("catalog.summary.folded.other", "Count", 1128, "Offers", "47"),
		"catalog-unknown-count": zh.T("catalog.summary.unknown.other", "Count", 675, "Names", "7"),
		"catalog-new":           zh.T("catalog.summary.new.other", "Count", 20),
		"catalog-changed":       zh.T("catalog.summary.changed.other", "Count", 0),
		"catalog-unchanged":     zh.T("catalog.summary.unchanged.other", "Count", 0),
	} {
		if got := catalogText(doc, id); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	// Each name not known is listed with the nearest known one.
	if r := catalogText(doc, "unknown-H100"); !strings.Contains(r, "H100 SXM") {
		t.Errorf("unknown H100 row: %q", r)
	}
	if n := doc.Find(`[data-testid="catalog-drafts-table"] tbody tr[data-state="draft"]`).Length(); n != 20 {
		t.Errorf("%d draft rows, want 20", n)
	}
	drafts := rowCount(t, app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND state = 'draft' AND as_of = $2 AND currency = 'USD'
		AND created_by = $3`, w.platform.ID, catalogDay1, editorID)
	lines := rowCount(t, app, `SELECT count(*) FROM quote_lines l JOIN quotes q ON q.id = l.quote_id
		WHERE q.platform_id = $1 AND l.status = 'unconfirmed' AND NOT l.in_writing`, w.platform.ID)
	if drafts != 20 || lines != 240 {
		t.Errorf("%d drafts of the day, %d unconfirmed lines; want 20 and 240", drafts, lines)
	}
	var h100v1 int64
	var hourly, spot, region, granularity, sharing string
	var cpu, gpus int
	if err := app.Store.Pool().QueryRow(context.Background(), `
		SELECT id, hourly::text, spot_hourly::text, region, billing_granularity, sharing, cpu_cores, gpu_count
		FROM quotes WHERE platform_id = $1 AND label = '1x_H100-SXM_SECURE'`, w.platform.ID).
		Scan(&h100v1, &hourly, &spot, &region, &granularity, &sharing, &cpu, &gpus); err != nil {
		t.Fatal(err)
	}
	if hourly != "2.990000" || spot != "2.690000" || region != "CA, CZ, IS, NL, NO, RO, SE, US" || granularity != "second" ||
		sharing != "dedicated" || cpu != 20 || gpus != 1 {
		t.Errorf("1x H100 SXM draft: %s %s %q %s %s %d %d", hourly, spot, region, granularity, sharing, cpu, gpus)
	}
	if n := rowCount(t, app, `SELECT count(*) FROM audit_log WHERE action = 'catalog.import' AND actor_id = $1`, editorID); n != 1 {
		t.Errorf("%d import audit entries", n)
	}

	// Publish all, in one step; pressing again publishes nothing.
	action, form := publishForm(t, res.Body)
	if len(form["quote"]) != 20 {
		t.Fatalf("%d drafts ticked, want all 20", len(form["quote"]))
	}
	pub := editor.PostRaw(action, form)
	if pub.StatusCode != http.StatusSeeOther || pub.Header.Get("Location") != page {
		t.Fatalf("publish: %d %s", pub.StatusCode, pub.Header.Get("Location"))
	}
	if n := rowCount(t, app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND state = 'published'`, w.platform.ID); n != 20 {
		t.Fatalf("%d published, want 20", n)
	}
	again := editor.PostRaw(action, form)
	if again.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish again: %d", again.StatusCode)
	}
	if res := editor.Get(page); !strings.Contains(res.Body, zh.T("catalog.flash.nothing")) {
		t.Error("a second press does not say there was nothing to publish")
	}
	if n := rowCount(t, app, `SELECT count(*) FROM quotes WHERE platform_id = $1`, w.platform.ID); n != 20 {
		t.Errorf("%d quotes after publishing twice, want 20", n)
	}
	if n := rowCount(t, app, `SELECT count(*) FROM audit_log WHERE action = 'catalog.publish'`); n != 1 {
		t.Errorf("%d publish audit entries, want 1", n)
	}

	// A month later, three prices changed.
	changed := withPrices(t, file, map[string]string{"1x_H100-SXM_SECURE": "2.79", "2x_L40S_SECURE": "0.99", "8x_A100-80GB_SECURE": "11.52"})
	page2 := w.importCatalog(t, editor, changed, catalogDay2)
	res = editor.Get(page2)
	doc, _ = goquery.NewDocumentFromReader(strings.NewReader(res.Body))
	for id, want := range map[string]string{
		"catalog-new":       zh.T("catalog.summary.new.other", "Count", 0),
		"catalog-changed":   zh.T("catalog.summary.changed.other", "Count", 3),
		"catalog-unchanged": zh.T("catalog.summary.unchanged.other", "Count", 17),
	} {
		if got := catalogText(doc, id); got != want {
			t.Errorf("second import %s: %q, want %q", id, got, want)
		}
	}
	rows := doc.Find(`[data-testid="catalog-drafts-table"] tbody tr`)
	if rows.Length() != 3 {
		t.Fatalf("%d rows on the second import's page, want 3", rows.Length())
	}
	var h100v2 int64
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT id FROM quotes WHERE predecessor_id = $1 AND version = 2 AND state = 'draft'`,
		h100v1).Scan(&h100v2); err != nil {
		t.Fatal(err)
	}
	// Old → new price where a previous version exists.
	if got := catalogText(doc, "draft-"+itoa(h100v2)); !strings.Contains(got, "2.99") || !strings.Contains(got, "2.79") ||
		!strings.Contains(got, "→") {
		t.Errorf("changed row: %q", got)
	}
	action, form = publishForm(t, res.Body)
	if pub := editor.PostRaw(action, form); pub.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish the changes: %d", pub.StatusCode)
	}
	if n := rowCount(t, app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND state = 'published'`, w.platform.ID); n != 20 {
		t.Errorf("%d current quotes, want 20", n)
	}
	if n := rowCount(t, app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND state = 'archived'`, w.platform.ID); n != 3 {
		t.Errorf("%d archived versions, want 3", n)
	}

	// The changed series' history has both days: two rows, two points.
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	hist := analyst.Get("/history?platform=" + itoa(w.platform.ID) + "&gpu=" + itoa(w.h100.ID))
	if hist.StatusCode != http.StatusOK {
		t.Fatalf("history: %d", hist.StatusCode)
	}
	hdoc, _ := goquery.NewDocumentFromReader(strings.NewReader(hist.Body))
	if r := catalogText(hdoc, "sample-"+itoa(h100v1)); !strings.Contains(r, "2026-11-02") || !strings.Contains(r, "1x_H100-SXM_SECURE") {
		t.Errorf("first sample: %q", r)
	}
	if r := catalogText(hdoc, "sample-"+itoa(h100v2)); !strings.Contains(r, "2026-12-01") || !strings.Contains(r, "1x_H100-SXM_SECURE") {
		t.Errorf("second sample: %q", r)
	}
	charts := svgs(t, hist.Body)
	// The H100 SXM's four sizes on day 1, the 1x again on day 2: five
	// points, two of them on the changed series' line.
	if len(charts) == 0 || strings.Count(charts[0], "<circle") != 5 {
		t.Fatalf("hourly chart: %v", charts)
	}
	twoDays := 0
	for _, g := range regexp.MustCompile(`(?s)<g class="chart-series[^"]*">.*?</g>`).FindAllString(charts[0], -1) {
		if strings.Count(g, "<circle") == 2 && strings.Contains(g, "<polyline") && strings.Contains(g, "2026-11-02") &&
			strings.Contains(g, "2026-12-01") {
			twoDays++
		}
	}
	if twoDays != 1 {
		t.Errorf("%d chart lines with a point on each day, want 1: %s", twoDays, charts[0])
	}

	// The same file again: nothing changed, nothing made.
	page3 := w.importCatalog(t, editor, changed, catalogDay2)
	doc3, _ := goquery.NewDocumentFromReader(strings.NewReader(editor.Get(page3).Body))
	if got := catalogText(doc3, "catalog-unchanged"); got != zh.T("catalog.summary.unchanged.other", "Count", 20) {
		t.Errorf("third import: %q", got)
	}
	if doc3.Find(`[data-testid="catalog-no-drafts"]`).Length() != 1 {
		t.Error("an import that changed nothing lists drafts")
	}
	if n := rowCount(t, app, `SELECT count(*) FROM quotes WHERE platform_id = $1`, w.platform.ID); n != 23 {
		t.Errorf("%d versions in all, want 23", n)
	}
}

// TestCatalogImportPublishesOnlyWhatIsTicked: a draft left unticked stays
// a draft; a draft changed after the page was read stops the whole step.
func TestCatalogImportPublishesOnlyWhatIsTicked(t *testing.T) {
	t.Parallel()
	w := newCatalogWorld(t)
	editor, _ := w.app.AsUser(auth.RoleEditor)
	page := w.importCatalog(t, editor, catalogFile(t, "runpod"), catalogDay1)
	action, form := publishForm(t, editor.Get(page).Body)
	ids := form["quote"]
	kept := ids[0]
	form["quote"] = ids[1:]

	// Someone saves the second draft meanwhile: its lock version moves.
	ctx := context.Background()
	second, err := strconv.ParseInt(ids[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	d, err := w.app.Store.QuoteByID(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	d.Notes = "checked by phone"
	if _, err := w.app.Store.UpdateQuoteDraft(ctx, user.SystemActor, d); err != nil {
		t.Fatal(err)
	}
	if res := editor.PostRaw(action, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", res.StatusCode)
	}
	if n := rowCount(t, w.app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND state = 'published'`, w.platform.ID); n != 0 {
		t.Fatalf("%d published although a draft changed after the page was read", n)
	}
	if !strings.Contains(editor.Get(page).Body, w.app.Catalog.Translator("zh-CN").T("catalog.flash.conflict")) {
		t.Error("the conflict is not said")
	}

	// Read again: the second draft's new lock version; the first unticked.
	action, form = publishForm(t, editor.Get(page).Body)
	form["quote"] = slices.DeleteFunc(form["quote"], func(id string) bool { return id == kept })
	if res := editor.PostRaw(action, form); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish: %d", res.StatusCode)
	}
	if n := rowCount(t, w.app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND state = 'published'`, w.platform.ID); n != 19 {
		t.Errorf("%d published, want 19", n)
	}
	if n := rowCount(t, w.app, `SELECT count(*) FROM quotes WHERE id = $1 AND state = 'draft'`, kept); n != 1 {
		t.Error("the unticked draft did not stay a draft")
	}
	// The page still offers it.
	_, form = publishForm(t, editor.Get(page).Body)
	if !slices.Equal(form["quote"], []string{kept}) {
		t.Errorf("offered %v, want only %s", form["quote"], kept)
	}

	// A series with a draft waiting is left alone by the next import.
	page2 := w.importCatalog(t, editor, withPrices(t, catalogFile(t, "runpod"), map[string]string{"1x_A100-80GB_SECURE": "1.55"}), catalogDay2)
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(editor.Get(page2).Body))
	zh := w.app.Catalog.Translator("zh-CN")
	if doc.Find(`[data-testid="waiting-`+kept+`"]`).Length() != 1 ||
		catalogText(doc, "catalog-waiting") != zh.T("catalog.summary.waiting.one", "Count", 1) {
		t.Errorf("the waiting draft %s is not named", kept)
	}
	if got := catalogText(doc, "catalog-changed"); got != zh.T("catalog.summary.changed.one", "Count", 1) {
		t.Errorf("changed: %q", got)
	}
}

// TestCatalogImportRefusals: a non-editor is refused; a wrong file, a
// missing source or a platform without one billing granularity show the
// form again with every problem, and write nothing.
func TestCatalogImportRefusals(t *testing.T) {
	t.Parallel()
	w := newCatalogWorld(t)
	app := w.app
	file := catalogFile(t, "runpod")
	nothingWritten := func(t *testing.T) {
		t.Helper()
		for _, table := range []string{"quotes", "quote_lines", "catalog_imports", "catalog_import_quotes"} {
			if n := rowCount(t, app, `SELECT count(*) FROM `+table); n != 0 {
				t.Errorf("%d rows in %s", n, table)
			}
		}
		if n := rowCount(t, app, `SELECT count(*) FROM audit_log WHERE action LIKE 'catalog.%'`); n != 0 {
			t.Errorf("%d catalog audit entries", n)
		}
	}
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleFinance} {
		c, _ := app.AsUser(role)
		if res := c.Get("/quotes/import/skypilot"); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s GET: %d, want 403", role, res.StatusCode)
		}
		if res := catalogPost(t, app, c, w.importForm(catalogDay1), file); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s POST: %d, want 403", role, res.StatusCode)
		}
	}
	if res := catalogPost(t, app, app.Client(), w.importForm(catalogDay1), file); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous POST: %d, want 401", res.StatusCode)
	}
	nothingWritten(t)

	editor, _ := app.AsUser(auth.RoleEditor)
	// A bad price in row 27 (the second size's second zone).
	rows := strings.SplitAfter(string(file), "\r\n")
	rows[26] = strings.Replace(rows[26], ",3.24,", ",3.2.4,", 1)
	res := catalogPost(t, app, editor, w.importForm(catalogDay1), []byte(strings.Join(rows, "")))
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `data-testid="row-error-27-Price"`) {
		t.Errorf("bad price: %d\n%s", res.StatusCode, res.Body)
	}
	// The header without Price.
	noPrice := strings.Replace(string(file), ",Price,", ",Cost,", 1)
	res = catalogPost(t, app, editor, w.importForm(catalogDay1), []byte(noPrice))
	if res.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(res.Body, app.Catalog.Translator("zh-CN").T("import.error.missing_columns", "Columns", "Price")) {
		t.Errorf("missing column: %d", res.StatusCode)
	}
	// No file, no source, a day after the latest day on Earth.
	form := w.importForm(catalogDay1)
	form["source"], form["as_of"] = "", "2026-12-04"
	res = catalogPost(t, app, editor, form, nil)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `data-testid="error-source"`) ||
		!strings.Contains(res.Body, `data-testid="error-as_of"`) ||
		!strings.Contains(res.Body, app.Catalog.Translator("zh-CN").T("catalog.error.no_file")) {
		t.Errorf("form problems: %d", res.StatusCode)
	}
	// A platform whose record lists two granularities: the editor chooses.
	two := testfactory.Platform(t, app.Store, market.Platform{NameEN: "Two Ways", Currency: "USD", BillingGranularities: []string{"second", "hour"}})
	form = w.importForm(catalogDay1)
	form["platform"] = itoa(two.ID)
	res = catalogPost(t, app, editor, form, file)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `data-testid="error-billing_granularity"`) {
		t.Errorf("granularity: %d", res.StatusCode)
	}
	if !strings.Contains(res.Body, `value="`+form["source"]+`"`) {
		t.Error("the typed source was not kept")
	}
	nothingWritten(t)
	// Chosen, it imports.
	form["billing_granularity"] = "hour"
	if res := catalogPost(t, app, editor, form, file); res.StatusCode != http.StatusSeeOther {
		t.Errorf("with a granularity chosen: %d", res.StatusCode)
	}
	if n := rowCount(t, app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND billing_granularity = 'hour'`, two.ID); n != 20 {
		t.Errorf("%d drafts billed by the hour, want 20", n)
	}
}

// TestCatalogImportFailureLeavesNothing: when the database refuses the
// import's record after its drafts were written, the whole import is
// undone — no draft, line, link or audit entry remains.
func TestCatalogImportFailureLeavesNothing(t *testing.T) {
	t.Parallel()
	w := newCatalogWorld(t)
	app := w.app
	owner := app.Owner()
	ctx := context.Background()
	if _, err := owner.Pool().Exec(ctx, `
		CREATE FUNCTION refuse_catalog_import() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused for the test'; END; $$;
		CREATE TRIGGER refuse_catalog_import BEFORE INSERT ON catalog_imports
			FOR EACH ROW EXECUTE FUNCTION refuse_catalog_import();`); err != nil {
		t.Fatal(err)
	}
	editor, _ := app.AsUser(auth.RoleEditor)
	before := map[string]int{}
	tables := []string{"quotes", "quote_lines", "catalog_imports", "catalog_import_quotes", "audit_log"}
	for _, table := range tables {
		before[table] = rowCount(t, app, `SELECT count(*) FROM `+table)
	}
	res := catalogPost(t, app, editor, w.importForm(catalogDay1), catalogFile(t, "runpod"))
	if res.StatusCode != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", res.StatusCode)
	}
	for _, table := range tables {
		if n := rowCount(t, app, `SELECT count(*) FROM `+table); n != before[table] {
			t.Errorf("%s: %d rows, was %d", table, n, before[table])
		}
	}
	// With the trigger gone the same file imports.
	if _, err := owner.Pool().Exec(ctx, `DROP TRIGGER refuse_catalog_import ON catalog_imports`); err != nil {
		t.Fatal(err)
	}
	w.importCatalog(t, editor, catalogFile(t, "runpod"), catalogDay1)
	if n := rowCount(t, app, `SELECT count(*) FROM quotes`); n != before["quotes"]+20 {
		t.Errorf("%d quotes after the import, want %d", n, before["quotes"]+20)
	}
}

// someCatalogImport imports a small catalog on a new platform twice, the
// second time with one price changed and one instance type more, the
// first import's drafts published in between, and returns the second
// import's id: its page lists a new draft and a changed one (old → new),
// a GPU name not known, and rows passed over.
func someCatalogImport(t testing.TB, a *testutil.App) int64 {
	t.Helper()
	ctx := context.Background()
	p := testfactory.Platform(t, a.Store, market.Platform{Currency: "USD", BillingGranularities: []string{"second"}})
	alias := "TGPU-" + strconv.FormatInt(testfactory.Next(), 10)
	testfactory.GPUModel(t, a.Store, market.GPUModel{Aliases: []string{alias}})
	info := `"{'Gpus': [{'Name': 'T', 'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 24576}}], 'TotalGpuMemoryInMiB': 24576}"`
	file := func(price, extra string) string {
		return "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n" +
			"cpu_4x,,,4.0,16.0,0.2,us-east-1,,\n" +
			"gpu_1x_t," + alias + ",1.0,8.0,32.0," + price + ",us-east-1," + info + ",0.25\n" +
			"gpu_1x_t," + alias + ",1.0,8.0,32.0," + price + ",us-west-1," + info + ",0.25\n" +
			"gpu_2x_t," + alias + ",2.0,16.0,64.0,1.00,us-east-1,,\n" +
			"gpu_1x_x,NoSuchGPU,1.0,8.0,32.0,0.9,us-east-1,,\n" + extra
	}
	today := time.Now().UTC().Truncate(24 * time.Hour)
	var id int64
	for i, f := range []string{file("0.50", ""), file("0.55", "gpu_4x_t,"+alias+",4.0,32.0,128.0,2.00,us-east-1,,\n")} {
		c, problems := skycatalog.Read(strings.NewReader(f))
		if problems.Any() {
			t.Fatalf("catalog: %+v", problems)
		}
		platforms, gpus, err := a.Store.QuoteRefNames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		settings := skycatalog.Settings{PlatformID: p.ID, AsOf: today.AddDate(0, 0, i-1), Source: skycatalog.DefaultSource,
			Sharing: "dedicated", BillingGranularity: "second"}
		id, _, err = a.Store.ImportCatalog(ctx, user.SystemActor, store.CatalogImportInput{Settings: settings, FileName: "vms.csv",
			Catalog: c, Refs: quote.NewRefs(platforms, gpus), Today: today})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			drafts, err := a.Store.CatalogImportQuotes(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			picks := map[int64]int{}
			for _, d := range drafts {
				picks[d.ID] = d.LockVersion
			}
			if _, err := a.Store.PublishCatalogImport(ctx, user.SystemActor, id, picks); err != nil {
				t.Fatal(err)
			}
		}
	}
	return id
}

// TestCatalogImportPublishedTwiceAtOnce: two presses of publish at the
// same moment publish each draft once; one of them finds nothing left.
func TestCatalogImportPublishedTwiceAtOnce(t *testing.T) {
	t.Parallel()
	w := newCatalogWorld(t)
	editor, _ := w.app.AsUser(auth.RoleEditor)
	page := w.importCatalog(t, editor, catalogFile(t, "runpod"), catalogDay1)
	action, form := publishForm(t, editor.Get(page).Body)
	statuses := make(chan int, 2)
	for range 2 {
		go func() { statuses <- editor.PostRaw(action, form).StatusCode }()
	}
	for range 2 {
		select {
		case s := <-statuses:
			if s != http.StatusSeeOther {
				t.Errorf("publish: %d", s)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a publication did not answer within 30 s")
		}
	}
	if n := rowCount(t, w.app, `SELECT count(*) FROM quotes WHERE platform_id = $1 AND state = 'published'`, w.platform.ID); n != 20 {
		t.Errorf("%d published, want 20", n)
	}
	if n := rowCount(t, w.app, `SELECT count(*) FROM audit_log WHERE action = 'catalog.publish'`); n != 1 {
		t.Errorf("%d publications audited, want 1: the second found nothing to publish", n)
	}
}
