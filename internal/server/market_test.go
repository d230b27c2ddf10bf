package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// specPlatformForm is a valid platform form with fresh names.
func specPlatformForm(*testutil.App) url.Values {
	n := testfactory.Next()
	return url.Values{
		"name_zh": {fmt.Sprintf("晨涧云%d", n)}, "name_en": {fmt.Sprintf("Chenjian %d", n)},
		"website": {"https://example.test/gpu"}, "country": {"CN"}, "currency": {"CNY"}, "operating_since": {"2021"},
		"idc_licence": {"true"}, "isp_licence": {"false"}, "iso27001": {""}, "mlps3": {"true"},
		"third_party_guarantee": {"true"}, "guarantee_note": {"淘宝店铺交易"}, "support_channel": {"chat_group"},
		"billing_granularities": {"hour", "second"}, "notes": {"大促期间热门卡紧张"},
	}
}

// specGPUForm is a valid GPU model form with a fresh name.
func specGPUForm(*testutil.App) url.Values {
	return url.Values{
		"vendor": {"NVIDIA"}, "name": {fmt.Sprintf("H200 SXM %d", testfactory.Next())}, "vram_gb": {"141"},
		"memory_bandwidth_gbs": {"4800"}, "interconnect": {"nvlink"}, "interconnect_gbs": {"900"}, "tdp_w": {"700"},
		"boost_clock_mhz": {"1980"}, "load_power_min_w": {"550"}, "load_power_max_w": {"700"},
		"load_clock_min_mhz": {"1600"}, "load_clock_max_mhz": {"1980"}, "source": {"datasheet"}, "as_of": {"2026-03-01"},
		"perf.bf16.nominal": {"989.5"}, "perf.bf16.nominal_source": {"datasheet"},
		"perf.bf16.measured": {"785.123"}, "perf.bf16.benchmark": {"8192³ matmul"}, "perf.bf16.measured_source": {"own trial"},
		"perf.fp8.nominal": {"3958"}, "perf.fp8.sparse": {"true"}, "perf.fp8.nominal_source": {"datasheet"},
	}
}

// specErrorFields lists the fields a page marks as wrong (data-testid="error-…").
func specErrorFields(body string) map[string]bool {
	out := map[string]bool{}
	for _, part := range strings.Split(body, `data-testid="error-`)[1:] {
		out[part[:strings.IndexByte(part, '"')]] = true
	}
	return out
}

func specClockApp(t *testing.T) *testutil.App {
	return testutil.NewApp(t, withClock(testutil.NewClock(time.Date(2026, 6, 15, 9, 0, 0, 0, time.UTC))))
}

func TestPlatformCreateShowAndList(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	if r := editor.Get("/platforms"); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="platforms-empty"`) ||
		!strings.Contains(r.Body, `data-testid="platform-new"`) {
		t.Fatalf("empty list: %d (want the empty state and a new link)", r.StatusCode)
	}
	form := specPlatformForm(app)
	r := editor.PostForm("/platforms", form)
	if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/platforms/") {
		t.Fatalf("create: %d %s\n%s", r.StatusCode, r.Header.Get("Location"), r.Body)
	}
	path := r.Header.Get("Location")
	r = editor.Get(path)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("detail: %d", r.StatusCode)
	}
	id := strings.TrimPrefix(path, "/platforms/")
	for _, want := range []string{
		form.Get("name_zh"), form.Get("name_en"), "https://example.test/gpu",
		"2021 年起，约 5 年",                         // years in operation from the server's today (2026)
		`class="badge badge-yes">有</span>`,      // IDC licence
		`class="badge badge-no">没有</span>`,      // ISP licence
		`class="badge badge-unknown">未知</span>`, // ISO 27001 left unknown
		"仅聊天群", "按秒计费", "淘宝店铺交易", "大促期间热门卡紧张",
		`href="/quotes?platform=` + id + `"`, `data-testid="flash"`, `data-testid="platform-edit"`,
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	// Granularities are stored finest first whatever the order of the boxes.
	var id64 int64
	fmt.Sscan(id, &id64)
	p, err := app.Store.PlatformByID(context.Background(), id64)
	if err != nil || strings.Join(p.BillingGranularities, ",") != "second,hour" || p.ISO27001 != nil || *p.ISPLicence {
		t.Fatalf("stored: %+v %v", p, err)
	}

	analyst, _ := app.AsUser(auth.RoleAnalyst)
	analyst.Header.Set("Accept-Language", "en")
	r = analyst.Get("/platforms?q=chenjian")
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="platform-`+id+`"`) ||
		!strings.Contains(r.Body, "Since 2021, about 5 years") || strings.Contains(r.Body, `data-testid="platform-new"`) {
		t.Fatalf("analyst's English list: %d\n%s", r.StatusCode, r.Body)
	}
	if r := analyst.Get("/platforms/" + id); strings.Contains(r.Body, `data-testid="platform-edit"`) || !strings.Contains(r.Body, "MLPS level 3") {
		t.Fatal("analyst's detail offers editing or lacks the English labels")
	}
	if r := analyst.Get("/platforms?qual=iso27001&has=yes"); !strings.Contains(r.Body, `data-testid="platforms-empty"`) {
		t.Fatal("ISO 27001 = yes matched a platform whose ISO 27001 is not known")
	}
	if r := analyst.Get("/platforms?qual=iso27001&has=unknown"); !strings.Contains(r.Body, `data-testid="platform-`+id+`"`) {
		t.Fatal("ISO 27001 = unknown did not match")
	}
	for _, p := range []string{"/platforms/999999", "/platforms/abc", "/platforms/0/edit"} {
		if r := editor.Get(p); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, r.StatusCode)
		}
	}
}

func TestPlatformValidationShowsEveryErrorAndKeepsInput(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	bad := url.Values{
		"name_zh": {""}, "name_en": {"  "}, "website": {"ftp://example.test"}, "country": {"EU"}, "currency": {"EURO"},
		"operating_since": {"2027"}, "idc_licence": {"maybe"}, "support_channel": {"fax"},
		"billing_granularities": {"day"}, "guarantee_note": {strings.Repeat("保", 501)}, "notes": {"kept note"},
	}
	r := editor.PostForm("/platforms", bad)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.StatusCode)
	}
	got := specErrorFields(r.Body)
	for _, f := range []string{"name_zh", "website", "country", "currency", "operating_since", "idc_licence",
		"support_channel", "billing_granularities", "guarantee_note"} {
		if !got[f] {
			t.Errorf("no error beside %s", f)
		}
	}
	if len(got) != 9 {
		t.Errorf("errors on %v, want exactly the 9 bad fields", got)
	}
	for _, kept := range []string{`value="ftp://example.test"`, `value="EU"`, `value="EURO"`, `value="2027"`, "kept note", `data-testid="form-errors"`} {
		if !strings.Contains(r.Body, kept) {
			t.Errorf("re-rendered form lacks %s", kept)
		}
	}
	if n := countRows(t, app, "platforms"); n != 0 {
		t.Fatalf("%d platforms saved from an invalid form", n)
	}

	// Lower-case codes are read as upper case; a year in range is fine.
	ok := specPlatformForm(app)
	ok.Set("country", "de")
	ok.Set("currency", "eur")
	if r := editor.PostForm("/platforms", ok); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("valid form: %d\n%s", r.StatusCode, r.Body)
	}

	// Country codes are ISO 3166-1 alpha-2 codes of countries and territories.
	for code, ok := range map[string]bool{"HK": true, "DE": true, "UK": false, "ZZ": false, "UN": false, "C1": false, "CHN": false} {
		f := specPlatformForm(app)
		f.Set("country", code)
		r := editor.PostForm("/platforms", f)
		if got := r.StatusCode == http.StatusSeeOther; got != ok || !ok && !specErrorFields(r.Body)["country"] {
			t.Errorf("country %s: status %d, want accepted=%v", code, r.StatusCode, ok)
		}
	}

	// A name in use (English, other case) is an error on that field.
	dup := specPlatformForm(app)
	dup.Set("name_en", strings.ToUpper(ok.Get("name_en")))
	r = editor.PostForm("/platforms", dup)
	if r.StatusCode != http.StatusUnprocessableEntity || !specErrorFields(r.Body)["name_en"] {
		t.Fatalf("duplicate name: %d %v", r.StatusCode, specErrorFields(r.Body))
	}
}

func TestPlatformStaleSaveConflicts(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	p := testfactory.Platform(app.T, app.Store, market.Platform{})
	path := "/platforms/" + itoa(p.ID)
	if r := editor.Get(path + "/edit"); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `name="lock_version" value="1"`) {
		t.Fatalf("edit form: %d", r.StatusCode)
	}
	// Someone else saves first.
	other := p
	other.Notes = "their change"
	if _, err := app.Store.UpdatePlatform(context.Background(), user.SystemActor, other); err != nil {
		t.Fatal(err)
	}
	mine := specPlatformForm(app)
	mine.Set("notes", "my change")
	mine.Set("lock_version", "1")
	r := editor.PostForm(path, mine)
	if r.StatusCode != http.StatusConflict {
		t.Fatalf("stale save: %d, want 409", r.StatusCode)
	}
	for _, want := range []string{`data-testid="form-conflict"`, "其他人已经保存了这个平台", "my change",
		`value="` + mine.Get("name_en") + `"`, `name="lock_version" value="2"`} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("conflict page lacks %q", want)
		}
	}
	if got, _ := app.Store.PlatformByID(context.Background(), p.ID); got.Notes != "their change" {
		t.Fatalf("stale save overwrote: %q", got.Notes)
	}
	// Saving again from the conflict page is a deliberate overwrite.
	mine.Set("lock_version", "2")
	if r := editor.PostForm(path, mine); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("second save: %d", r.StatusCode)
	}
	if got, _ := app.Store.PlatformByID(context.Background(), p.ID); got.Notes != "my change" || got.LockVersion != 3 {
		t.Fatalf("after the second save: %+v", got)
	}
	if r := editor.PostForm("/platforms/999999", mine); r.StatusCode != http.StatusNotFound {
		t.Fatalf("update of a missing platform: %d", r.StatusCode)
	}
}

func TestAnalystsCannotWritePlatformsOrGPUs(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	p, g := testfactory.Platform(app.T, app.Store, market.Platform{}), testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	for _, role := range []auth.Role{auth.RoleAnalyst, auth.RoleFinance} {
		c, _ := app.AsUser(role)
		pf := specPlatformForm(app)
		pf.Set("lock_version", "1")
		gf := specGPUForm(app)
		gf.Set("lock_version", "1")
		for path, form := range map[string]url.Values{"/platforms": pf, "/platforms/" + itoa(p.ID): pf, "/gpus": gf, "/gpus/" + itoa(g.ID): gf} {
			if r := c.PostForm(path, form); r.StatusCode != http.StatusForbidden {
				t.Errorf("%s POST %s: %d, want 403", role, path, r.StatusCode)
			}
		}
		for _, path := range []string{"/platforms/new", "/gpus/new", "/platforms/" + itoa(p.ID) + "/edit", "/gpus/" + itoa(g.ID) + "/edit"} {
			if r := c.Get(path); r.StatusCode != http.StatusForbidden {
				t.Errorf("%s GET %s: %d, want 403", role, path, r.StatusCode)
			}
		}
	}
	if n := countRows(t, app, "platforms"); n != 1 {
		t.Fatalf("%d platforms", n)
	}
	if n := countRows(t, app, "gpu_models"); n != 1 {
		t.Fatalf("%d GPU models", n)
	}
	if got, _ := app.Store.PlatformByID(context.Background(), p.ID); got.LockVersion != 1 {
		t.Fatal("an analyst's post changed the platform")
	}
}

func TestGPUCreateShowAndReplacePerf(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	if r := editor.Get("/gpus"); !strings.Contains(r.Body, `data-testid="gpus-empty"`) {
		t.Fatal("no empty state")
	}
	form := specGPUForm(app)
	r := editor.PostForm("/gpus", form)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", r.StatusCode, r.Body)
	}
	path := r.Header.Get("Location")
	r = editor.Get(path)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("detail: %d", r.StatusCode)
	}
	for _, want := range []string{
		form.Get("name"), "4,800", "NVLink", "550–700", "1,600–1,980",
		"标称算力（TFLOPS）", "参考实测算力（TFLOPS）", "989.5", "785.123", "8192³ matmul", "own trial",
		">稠密</span>", ">稀疏</span>", "3,958", "BF16", "FP8", "2026-03-01",
	} {
		if !strings.Contains(r.Body, want) {
			t.Errorf("detail lacks %q", want)
		}
	}
	if strings.Contains(r.Body, ">TFLOPS<") {
		t.Error("an unlabelled TFLOPS heading")
	}
	if r := editor.Get("/gpus?interconnect=nvlink&q=h200"); !strings.Contains(r.Body, form.Get("name")) {
		t.Error("list filter misses the model")
	}
	if r := editor.Get("/gpus?interconnect=pcie"); !strings.Contains(r.Body, `data-testid="gpus-empty"`) {
		t.Error("pcie filter shows an NVLink model")
	}

	// Edit: the edit form carries the stored figures; clearing the bf16 row
	// and adding tf32 replaces the perf rows.
	r = editor.Get(path + "/edit")
	if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `value="989.5"`) || !strings.Contains(r.Body, `name="lock_version" value="1"`) {
		t.Fatalf("edit form: %d", r.StatusCode)
	}
	for _, k := range []string{"nominal", "nominal_source", "measured", "benchmark", "measured_source"} {
		form.Del("perf.bf16." + k)
	}
	form.Set("perf.tf32.nominal", "494.7")
	form.Set("perf.tf32.nominal_source", "datasheet")
	form.Set("load_power_min_w", "")
	form.Set("lock_version", "1")
	if r := editor.PostForm(path, form); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("update: %d\n%s", r.StatusCode, r.Body)
	}
	var id int64
	fmt.Sscan(strings.TrimPrefix(path, "/gpus/"), &id)
	g, err := app.Store.GPUModelByID(context.Background(), id)
	if err != nil || g.LockVersion != 2 || len(g.Perf) != 2 || g.Perf[0].Precision != "tf32" || g.Perf[1].Precision != "fp8" ||
		g.LoadPowerMinW != nil || !g.Perf[0].NominalTFLOPS.Equal(decimal.RequireFromString("494.7")) {
		t.Fatalf("after update: %+v %v", g, err)
	}
	if r := editor.Get(path); !strings.Contains(r.Body, "TF32") || strings.Contains(r.Body, "785.123") || !strings.Contains(r.Body, "不高于 700") {
		t.Error("detail after update shows the old figures or lacks the one-sided range")
	}
}

func TestGPUValidationShowsEveryErrorAndKeepsInput(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	bad := url.Values{
		"vendor": {""}, "name": {"X"}, "vram_gb": {"1e3"}, "memory_bandwidth_gbs": {"-5"}, "interconnect": {"infiniband"},
		"interconnect_gbs": {"1.234"}, "tdp_w": {"abc"}, "boost_clock_mhz": {"0"},
		"load_power_min_w": {"300"}, "load_power_max_w": {"200"}, "as_of": {"2026-13-01"},
		// bf16: a measured figure without a benchmark and without a nominal figure
		"perf.bf16.measured": {"700"},
		// fp32: too many decimal places, and no source
		"perf.fp32.nominal": {"1.2345"},
		// tf32: a benchmark without a measured figure
		"perf.tf32.nominal": {"100"}, "perf.tf32.nominal_source": {"sheet"}, "perf.tf32.benchmark": {"gemm"},
		// fp8: sparse ticked, nothing else
		"perf.fp8.sparse": {"true"},
	}
	r := editor.PostForm("/gpus", bad)
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.StatusCode)
	}
	got := specErrorFields(r.Body)
	want := []string{"vendor", "vram_gb", "memory_bandwidth_gbs", "interconnect", "interconnect_gbs", "tdp_w",
		"boost_clock_mhz", "load_power_max_w", "as_of",
		"perf.bf16.nominal", "perf.bf16.nominal_source", "perf.bf16.benchmark",
		"perf.fp32.nominal", "perf.fp32.nominal_source", "perf.tf32.measured",
		"perf.fp8.nominal", "perf.fp8.nominal_source"}
	for _, f := range want {
		if !got[f] {
			t.Errorf("no error beside %s", f)
		}
	}
	if len(got) != len(want) {
		t.Errorf("errors on %v, want exactly %v", got, want)
	}
	for _, kept := range []string{`value="1e3"`, `value="-5"`, `value="1.2345"`, `value="gemm"`, `value="2026-13-01"`, `value="700"`} {
		if !strings.Contains(r.Body, kept) {
			t.Errorf("re-rendered form lacks %s", kept)
		}
	}
	if n := countRows(t, app, "gpu_models"); n != 0 {
		t.Fatalf("%d GPU models saved from an invalid form", n)
	}

	// The same vendor and name (another case) is refused on the name field.
	first := specGPUForm(app)
	if r := editor.PostForm("/gpus", first); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("valid form: %d\n%s", r.StatusCode, r.Body)
	}
	dup := specGPUForm(app)
	dup.Set("name", strings.ToLower(first.Get("name")))
	if r := editor.PostForm("/gpus", dup); r.StatusCode != http.StatusUnprocessableEntity || !specErrorFields(r.Body)["name"] {
		t.Fatalf("duplicate model: %d", r.StatusCode)
	}
}

func TestGPUStaleSaveConflicts(t *testing.T) {
	t.Parallel()
	app := specClockApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	g := testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	other := g
	other.Notes = "their change"
	if _, err := app.Store.UpdateGPUModel(context.Background(), user.SystemActor, other); err != nil {
		t.Fatal(err)
	}
	mine := specGPUForm(app)
	mine.Set("notes", "my change")
	mine.Set("lock_version", "1")
	r := editor.PostForm("/gpus/"+itoa(g.ID), mine)
	if r.StatusCode != http.StatusConflict || !strings.Contains(r.Body, `data-testid="form-conflict"`) ||
		!strings.Contains(r.Body, "my change") || !strings.Contains(r.Body, `value="989.5"`) ||
		!strings.Contains(r.Body, `name="lock_version" value="2"`) {
		t.Fatalf("stale save: %d\n%s", r.StatusCode, r.Body)
	}
	if got, _ := app.Store.GPUModelByID(context.Background(), g.ID); got.Notes != "their change" || len(got.Perf) != 1 {
		t.Fatalf("stale save changed the model: %+v", got)
	}
}
