package server_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// aliasRefs adds the platform HOSTKEY and the models "NVIDIA GeForce RTX
// 4090" (with the given aliases) and "NVIDIA GeForce RTX 3090".
func aliasRefs(t *testing.T, a *testutil.App, aliases ...string) (platform, rtx4090 int64) {
	t.Helper()
	ctx := context.Background()
	if err := a.Store.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('HOSTKEY', 'HOSTKEY', 'EUR') RETURNING id`).Scan(&platform); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"GeForce RTX 4090", "GeForce RTX 3090"} {
		g := market.GPUModel{Vendor: "NVIDIA", Name: name, VRAMGB: decimal.RequireFromString("24"), Interconnect: "pcie"}
		if name == "GeForce RTX 4090" {
			g.Aliases = aliases
		}
		got, err := a.Store.CreateGPUModel(ctx, user.SystemActor, g)
		if err != nil {
			t.Fatal(err)
		}
		if name == "GeForce RTX 4090" {
			rtx4090 = got.ID
		}
	}
	return platform, rtx4090
}

// TestCSVImportResolvesGPUAlias: the import page's own example names the
// GPU model "NVIDIA RTX 4090"; it imports against the model stored as
// "NVIDIA GeForce RTX 4090" through that model's alias.
func TestCSVImportResolvesGPUAlias(t *testing.T) {
	t.Parallel()
	app := csvApp(t)
	platform, gpu := aliasRefs(t, app, "NVIDIA RTX 4090")
	editor, _ := app.AsUser(auth.RoleEditor)
	if !strings.Contains(quote.CSVExample, ",NVIDIA RTX 4090,") {
		t.Fatalf("the example does not use the alias:\n%s", quote.CSVExample)
	}
	r := csvUpload(t, app, editor, []byte(quote.CSVExample))
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("import: %d\n%s", r.StatusCode, r.Body)
	}
	var gotPlatform, gotGPU int64
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT platform_id, gpu_model_id FROM quotes`).Scan(&gotPlatform, &gotGPU); err != nil {
		t.Fatal(err)
	}
	if gotPlatform != platform || gotGPU != gpu {
		t.Fatalf("imported platform %d gpu %d, want %d %d", gotPlatform, gotGPU, platform, gpu)
	}
	// One quote is one, in English too.
	editor.Header.Set("Accept-Language", "en")
	if body := editor.Get("/quotes").Body; !strings.Contains(body, "Import finished: 1 quote published.") {
		t.Error("the import's message does not say 1 quote")
	}
}

// TestCSVImportSuggestsNearestName: a platform or GPU model name that
// matches nothing is a row problem naming the nearest known name; a name
// near nothing gets the plain message.
func TestCSVImportSuggestsNearestName(t *testing.T) {
	t.Parallel()
	app := csvApp(t)
	aliasRefs(t, app) // no aliases: "NVIDIA RTX 4090" matches no name
	editor, _ := app.AsUser(auth.RoleEditor)
	file := "platform,gpu_model,gpu_count,sharing,currency,hourly,billing_granularity,prices_include_tax,as_of,source\n" +
		"HOSTKY,NVIDIA RTX 4090,1,dedicated,EUR,0.471,hour,false,2026-11-30,https://hostkey.com\n" +
		"HOSTKEY,Quantum Annealer Q9,1,dedicated,EUR,0.471,hour,false,2026-11-30,https://hostkey.com\n"
	r := csvUpload(t, app, editor, []byte(file))
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("import: %d", r.StatusCode)
	}
	cell := func(row, col string) string {
		m := regexp.MustCompile(`(?s)data-testid="row-error-` + regexp.QuoteMeta(row+"-"+col) + `">.*?</tr>`).FindString(r.Body)
		return html.UnescapeString(m)
	}
	if c := cell("2", "gpu_model"); !strings.Contains(c, "“NVIDIA GeForce RTX 4090”") {
		t.Errorf("row 2 gpu_model suggests nothing or the wrong model: %q", c)
	}
	if c := cell("2", "platform"); !strings.Contains(c, "“HOSTKEY”") {
		t.Errorf("row 2 platform suggests nothing: %q", c)
	}
	if c := cell("3", "gpu_model"); c == "" || strings.Contains(c, "RTX") {
		t.Errorf("row 3 gpu_model: %q, want the plain message", c)
	}
}

// TestGPUAliasesEdit: aliases typed on the GPU model form are saved (and
// audited like the other fields) and shown again; an alias that is another
// model's name or alias is refused with a message on the field.
func TestGPUAliasesEdit(t *testing.T) {
	t.Parallel()
	app := csvApp(t)
	_, gpu := aliasRefs(t, app)
	editor, _ := app.AsUser(auth.RoleEditor)
	ctx := context.Background()
	form := url.Values{"vendor": {"NVIDIA"}, "name": {"GeForce RTX 4090"}, "vram_gb": {"24"}, "interconnect": {"pcie"},
		"lock_version": {"1"}, "aliases": {" NVIDIA  RTX 4090 \r\n\r\nRTX 4090\nrtx 4090\nNVIDIA GeForce RTX 4090\n"}}
	if r := editor.PostForm("/gpus/"+itoa(gpu), form); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d\n%s", r.StatusCode, r.Body)
	}
	g, err := app.Store.GPUModelByID(ctx, gpu)
	if err != nil || !slices.Equal(g.Aliases, []string{"NVIDIA RTX 4090", "RTX 4090"}) {
		t.Fatalf("stored aliases %q (%v)", g.Aliases, err)
	}
	var audited string
	if err := app.Store.Pool().QueryRow(ctx, `SELECT after->>'aliases' FROM audit_log WHERE action = 'gpu_model.update' AND entity_id = $1`,
		itoa(gpu)).Scan(&audited); err != nil || !strings.Contains(audited, "NVIDIA RTX 4090") {
		t.Fatalf("audit after: %q (%v)", audited, err)
	}
	if r := editor.Get("/gpus/" + itoa(gpu) + "/edit"); !strings.Contains(r.Body, ">NVIDIA RTX 4090\nRTX 4090</textarea>") {
		t.Errorf("the edit form does not show the aliases")
	}

	var other int64
	if err := app.Store.Pool().QueryRow(ctx, `SELECT id FROM gpu_models WHERE name = 'GeForce RTX 3090'`).Scan(&other); err != nil {
		t.Fatal(err)
	}
	for _, clash := range []string{"rtx 4090", "NVIDIA GeForce RTX 4090", "GeForce RTX 4090"} {
		f := url.Values{"vendor": {"NVIDIA"}, "name": {"GeForce RTX 3090"}, "vram_gb": {"24"}, "interconnect": {"pcie"},
			"lock_version": {"1"}, "aliases": {"RTX 3090\n" + clash}}
		r := editor.PostForm("/gpus/"+itoa(other), f)
		if r.StatusCode != http.StatusUnprocessableEntity || !specErrorFields(r.Body)["aliases"] ||
			!strings.Contains(html.UnescapeString(r.Body), fmt.Sprintf("“%s”已是另一条记录的名称或别名", clash)) {
			t.Errorf("alias %q: %d %s, errors %v", clash, r.StatusCode, r.Header.Get("Location"), specErrorFields(r.Body))
		}
	}
	if g, _ := app.Store.GPUModelByID(ctx, other); len(g.Aliases) != 0 || g.LockVersion != 1 {
		t.Errorf("a refused save changed the model: %+v", g)
	}
	// A name that is another model's alias is refused too.
	rename := url.Values{"vendor": {"NVIDIA"}, "name": {"RTX 4090"}, "vram_gb": {"24"}, "interconnect": {"pcie"}, "lock_version": {"1"}}
	if r := editor.PostForm("/gpus/"+itoa(other), rename); r.StatusCode != http.StatusUnprocessableEntity || !specErrorFields(r.Body)["name"] {
		t.Errorf("rename to an alias: %d", r.StatusCode)
	}
}

// TestPlatformAliasesEdit: a platform's aliases are saved from its form and
// one that is another platform's name is refused.
func TestPlatformAliasesEdit(t *testing.T) {
	t.Parallel()
	app := csvApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	first := specPlatformForm(app)
	first.Set("aliases", "Chenjian Cloud")
	r := editor.PostForm("/platforms", first)
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", r.StatusCode, r.Body)
	}
	var aliases []string
	if err := app.Store.Pool().QueryRow(context.Background(), `SELECT aliases FROM platforms WHERE name_en = $1`, first.Get("name_en")).Scan(&aliases); err != nil ||
		!slices.Equal(aliases, []string{"Chenjian Cloud"}) {
		t.Fatalf("stored aliases %q (%v)", aliases, err)
	}
	second := specPlatformForm(app)
	second.Set("aliases", strings.ToUpper(first.Get("name_en")))
	if r := editor.PostForm("/platforms", second); r.StatusCode != http.StatusUnprocessableEntity || !specErrorFields(r.Body)["aliases"] {
		t.Errorf("clashing alias: %d %v", r.StatusCode, specErrorFields(r.Body))
	}
}

// TestImportPageFormatHelp: the import page explains the format itself, in
// both languages — values, required columns and an example — and sends
// nobody to a file in the repository.
func TestImportPageFormatHelp(t *testing.T) {
	t.Parallel()
	app := csvApp(t)
	editor, _ := app.AsUser(auth.RoleEditor)
	for _, lang := range []struct{ code, values, decimal string }{
		{"zh-CN", "取值写法", "小数：数字加英文句点"},
		{"en", "Values", "Decimals: digits with a dot"},
	} {
		if lang.code == "en" {
			editor.PostForm("/lang", url.Values{"lang": {"en"}, "next": {"/quotes/import"}})
		}
		r := editor.Get("/quotes/import")
		body := html.UnescapeString(r.Body)
		if r.StatusCode != http.StatusOK || !strings.Contains(body, `<html lang="`+lang.code+`">`) {
			t.Fatalf("%s: %d", lang.code, r.StatusCode)
		}
		if strings.Contains(body, "CSV.md") {
			t.Errorf("%s: the page points to docs/CSV.md", lang.code)
		}
		for _, want := range []string{lang.values, lang.decimal, `data-testid="csv-example"`, quote.CSVExample[:40],
			"<code>prices_include_tax</code>"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s: the format help lacks %q", lang.code, want)
			}
		}
	}
}
