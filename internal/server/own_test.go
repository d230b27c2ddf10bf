package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/own"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// ownForm is a valid own-hardware option form on a fresh GPU model, with
// its own kWh figure.
func ownForm(a *testutil.App) url.Values {
	return url.Values{"name": {"RTX 4090 工作站"}, "gpu_model": {itoa(testfactory.GPUModel(a.T, a.Store, market.GPUModel{}).ID)}, "gpu_count": {"1"}, "currency": {"CNY"},
		"purchase_price": {"25000"}, "purchase_as_of": {"2026-11-01"}, "purchase_source": {"guide, 2026"},
		"residual_pct": {"10"}, "life_months": {"36"}, "power_load_w": {"600"}, "power_idle_w": {"80"}, "pue": {"1.2"},
		"electricity": {"own"}, "kwh_price": {"0.8"}, "hosting_monthly": {"300"}, "prices_include_tax": {"true"}}
}

// someonesOwnOption is a private option of a fresh analyst.
func someonesOwnOption(a *testutil.App) int64 {
	a.T.Helper()
	_, _, uid := a.CreateUser(auth.RoleAnalyst)
	g := testfactory.GPUModel(a.T, a.Store, market.GPUModel{})
	return testfactory.OwnOption(a.T, a.Store, uid, testfactory.OwnVersion("private "+itoa(uid), g.ID), false).ID
}

// electricityForm is a valid electricity sample on a new past day.
func electricityForm(n int) url.Values {
	return url.Values{"region": {"CN-Beijing"}, "currency": {"CNY"}, "kwh_price": {"0.8"},
		"as_of": {time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n).Format(time.DateOnly)}, "source": {"route test"}}
}

// TestOwnOptionPagesByRole: a private option is its author's; another
// analyst gets 404 for its page and every write, finance reads it and gets
// 403 for writes, editors change it; a shared option is read by everyone
// and changed by editors only (docs/RULES.md §17.4).
func TestOwnOptionPagesByRole(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	author, _ := app.AsUser(auth.RoleAnalyst)
	resp := author.PostForm("/own-hardware", ownForm(app))
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d %s", resp.StatusCode, resp.Body)
	}
	path := resp.Header.Get("Location")
	if !strings.HasPrefix(path, "/own-hardware/") {
		t.Fatalf("create redirects to %q", path)
	}
	if r := author.Get(path); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, "RTX 4090 工作站") || !strings.Contains(r.Body, `data-testid="own-private"`) {
		t.Fatalf("author's page: %d", r.StatusCode)
	}
	edit := func(name string) url.Values {
		v := ownForm(app)
		v.Set("name", name)
		v.Set("based_on", "1")
		return v
	}

	other, _ := app.AsUser(auth.RoleAnalyst)
	for _, c := range []struct {
		get  bool
		path string
	}{{true, path}, {true, path + "/edit"}, {false, path}, {false, path + "/archive"}} {
		var r *testutil.Response
		if c.get {
			r = other.Get(c.path)
		} else {
			r = other.PostForm(c.path, edit("taken over"))
		}
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("other analyst %v %s: %d, want 404", c.get, c.path, r.StatusCode)
		}
	}
	if r := other.Get("/own-hardware"); r.StatusCode != http.StatusOK || strings.Contains(r.Body, "RTX 4090 工作站") {
		t.Errorf("other analyst's list shows the private option (%d)", r.StatusCode)
	}

	fin, _ := app.AsUser(auth.RoleFinance)
	if r := fin.Get(path); r.StatusCode != http.StatusOK || strings.Contains(r.Body, `data-testid="own-edit"`) {
		t.Errorf("finance reads: %d (no edit link expected)", r.StatusCode)
	}
	if r := fin.Get("/own-hardware"); !strings.Contains(r.Body, "RTX 4090 工作站") {
		t.Error("finance's list lacks the private option")
	}
	for _, p := range []string{path, path + "/archive"} {
		if r := fin.PostForm(p, edit("finance's")); r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, app.Catalog.Translator("zh-CN").T("own.forbidden.private")) {
			t.Errorf("finance posts %s: %d", p, r.StatusCode)
		}
	}
	if r := fin.Get(path + "/edit"); r.StatusCode != http.StatusForbidden {
		t.Errorf("finance's edit form: %d", r.StatusCode)
	}

	if r := author.PostForm(path, edit("RTX 4090 工作站 v2")); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("author's new version: %d %s", r.StatusCode, r.Body)
	}
	ed, _ := app.AsUser(auth.RoleEditor)
	if r := ed.PostForm(path, func() url.Values { v := edit("editor's v3"); v.Set("based_on", "2"); return v }()); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor's new version: %d", r.StatusCode)
	}
	r := author.Get(path)
	if !strings.Contains(r.Body, "editor&#39;s v3") && !strings.Contains(r.Body, "editor's v3") {
		t.Errorf("current version is not the editor's")
	}
	for _, v := range []string{"1", "2", "3"} {
		if !strings.Contains(r.Body, `data-testid="own-version-`+v+`"`) {
			t.Errorf("history lacks version %s", v)
		}
	}
	if r := author.Get(path + "?version=1"); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="own-old-version"`) || !strings.Contains(r.Body, "RTX 4090 工作站") {
		t.Errorf("version 1 page: %d", r.StatusCode)
	}

	// A shared option: everyone reads, only editors change.
	v := ownForm(app)
	v.Set("name", "Shared rack")
	v.Set("shared", "true")
	resp = ed.PostForm("/own-hardware", v)
	shared := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("editor shares: %d", resp.StatusCode)
	}
	if r := other.Get(shared); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="own-shared"`) {
		t.Errorf("analyst reads the shared option: %d", r.StatusCode)
	}
	if r := author.PostForm(shared, edit("analyst's")); r.StatusCode != http.StatusForbidden ||
		!strings.Contains(r.Body, app.Catalog.Translator("zh-CN").T("own.forbidden.shared")) {
		t.Errorf("analyst edits the shared option: %d", r.StatusCode)
	}
	if r := author.PostForm(path+"/archive", nil); r.StatusCode != http.StatusSeeOther {
		t.Errorf("author archives: %d", r.StatusCode)
	}
	if r := author.PostForm(path, func() url.Values { v := edit("after archiving"); v.Set("based_on", "3"); return v }()); r.StatusCode != http.StatusSeeOther || r.Header.Get("Location") != path {
		t.Errorf("edit after archiving: %d %s", r.StatusCode, r.Header.Get("Location"))
	}
	if n, err := app.Store.OwnOptionVersions(context.Background(), mustID(t, path)); err != nil || len(n) != 3 {
		t.Errorf("versions after archiving: %d %v", len(n), err)
	}
}

func mustID(t *testing.T, path string) int64 {
	t.Helper()
	var id int64
	for _, c := range strings.TrimPrefix(path, "/own-hardware/") {
		id = id*10 + int64(c-'0')
	}
	return id
}

// TestOwnOptionFormErrors: every bad field is named beside its input at
// once, what was typed comes back, and nothing is stored.
func TestOwnOptionFormErrors(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	v := ownForm(app)
	bad := map[string]string{
		"name": "", "gpu_count": "0", "currency": "XXX", "purchase_price": "1,5", "purchase_as_of": "2999-01-01",
		"purchase_source": "", "residual_pct": "101", "life_months": "121", "power_idle_w": "700", "pue": "0.9",
		"kwh_price": "", "capital_rate_per_year": "5", "prices_include_tax": "false", "maintenance_pct_per_year": "-1",
		"shared": "true",
	}
	for k, x := range bad {
		v.Set(k, x)
	}
	r := c.PostForm("/own-hardware", v)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad form: %d", r.StatusCode)
	}
	for _, field := range []string{"name", "gpu_count", "currency", "purchase_price", "purchase_as_of", "purchase_source",
		"residual_pct", "life_months", "power_idle_w", "pue", "kwh_price", "capital_rate_per_year", "tax_rate",
		"maintenance_pct_per_year", "shared"} {
		if !strings.Contains(r.Body, `data-testid="error-`+field+`"`) {
			t.Errorf("no message for %s", field)
		}
	}
	if !strings.Contains(r.Body, `value="1,5"`) || !strings.Contains(r.Body, `value="2999-01-01"`) || !strings.Contains(r.Body, `value="700"`) {
		t.Error("typed input lost")
	}
	// The idle draw above the load, alone, is named.
	v = ownForm(app)
	v.Set("power_idle_w", "601")
	if r := c.PostForm("/own-hardware", v); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, app.Catalog.Translator("zh-CN").T(own.MsgIdleAbove)) {
		t.Errorf("idle above load: %d", r.StatusCode)
	}
	// A region without a sample in the option's currency.
	v = ownForm(app)
	v.Set("electricity", "region")
	v.Set("electricity_region", "cn-Nowhere")
	if r := c.PostForm("/own-hardware", v); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `data-testid="error-electricity_region"`) || !strings.Contains(r.Body, "CN-Nowhere") {
		t.Errorf("region without samples: %d", r.StatusCode)
	}
	var n int
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM own_options`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused forms stored %d options (%v)", n, err)
	}
}

// TestOwnOptionConcurrentEdits: two edits of the same version; the second
// is a conflict (409) that keeps its input, and saving it again stores it
// on top.
func TestOwnOptionConcurrentEdits(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	c, _ := app.AsUser(auth.RoleAnalyst)
	resp := c.PostForm("/own-hardware", ownForm(app))
	path := resp.Header.Get("Location")
	first, second := ownForm(app), ownForm(app)
	first.Set("based_on", "1")
	second.Set("based_on", "1")
	second.Set("name", "my later edit")
	if r := c.PostForm(path, first); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("first edit: %d", r.StatusCode)
	}
	r := c.PostForm(path, second)
	if r.StatusCode != http.StatusConflict || !strings.Contains(r.Body, `data-testid="own-conflict"`) ||
		!strings.Contains(r.Body, `value="my later edit"`) || !strings.Contains(r.Body, `name="based_on" value="2"`) {
		t.Fatalf("second edit: %d", r.StatusCode)
	}
	second.Set("based_on", "2")
	if r := c.PostForm(path, second); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving again: %d", r.StatusCode)
	}
}

// TestElectricityPricesPage: editors add dated samples; a bad one is named
// field by field (422, nothing stored), a second one on the same day is
// refused, and an option may then name the region.
func TestElectricityPricesPage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ed, _ := app.AsUser(auth.RoleEditor)
	if r := ed.Get("/electricity"); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="electricity-current-empty"`) {
		t.Fatalf("empty page: %d", r.StatusCode)
	}
	r := ed.PostForm("/electricity", url.Values{"region": {"Beijing"}, "currency": {"RMB"}, "kwh_price": {"0"}, "as_of": {"2999-01-01"}})
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad sample: %d", r.StatusCode)
	}
	for _, f := range []string{"region", "currency", "kwh_price", "as_of", "source"} {
		if !strings.Contains(r.Body, `data-testid="error-`+f+`"`) {
			t.Errorf("no message for %s", f)
		}
	}
	if r := ed.PostForm("/electricity", electricityForm(1)); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("good sample: %d", r.StatusCode)
	}
	if r := ed.PostForm("/electricity", electricityForm(1)); r.StatusCode != http.StatusUnprocessableEntity ||
		!strings.Contains(r.Body, `data-testid="error-as_of"`) {
		t.Fatalf("same day again: %d", r.StatusCode)
	}
	if r := ed.Get("/electricity"); !strings.Contains(r.Body, "CN-Beijing") || strings.Contains(r.Body, "electricity-current-empty") {
		t.Error("the sample is not in force")
	}
	v := ownForm(app)
	v.Set("electricity", "region")
	v.Set("electricity_region", "CN-Beijing")
	v.Del("kwh_price")
	resp := ed.PostForm("/own-hardware", v)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("option by region: %d %s", resp.StatusCode, resp.Body)
	}
	if r := ed.Get(resp.Header.Get("Location")); !strings.Contains(r.Body, "2001-01-02") || !strings.Contains(r.Body, "route test") {
		t.Error("the option's page does not name the sample in force")
	}
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	if r := analyst.PostForm("/electricity", electricityForm(2)); r.StatusCode != http.StatusForbidden {
		t.Errorf("analyst adds a sample: %d", r.StatusCode)
	}
}
