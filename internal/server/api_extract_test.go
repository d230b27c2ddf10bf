package server_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"unicode"

	"gpuquote/internal/auth"
	"gpuquote/internal/i18n"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// The reading API (docs/RULES.md §22.10): POST /api/v1/quotes/extract.

const exPath = "/api/v1/quotes/extract"

// exAnswer is the reading API's answer, its quote kept as raw JSON values
// so that each value's JSON type can be checked.
type exAnswer struct {
	Quote    map[string]json.RawMessage `json:"quote"`
	Evidence []struct {
		Field, Text string
		Start, End  int
	} `json:"evidence"`
	Skipped []struct {
		Reason, Message string
		Field           *string
		Text            string
		Start, End      int
	} `json:"skipped"`
	Unread []string `json:"unread"`
}

// exRead posts text to the reading API with token (in lang, "" for the
// default) and returns the 200 answer and its bytes.
func exRead(t *testing.T, app *testutil.App, token, text, lang string) (exAnswer, string) {
	t.Helper()
	var hdr []string
	if lang != "" {
		hdr = []string{"Accept-Language", lang}
	}
	res := apiCall(t, app, http.MethodPost, exPath, token, jsonText(t, map[string]any{"text": text}), hdr...)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", res.StatusCode, res.Body)
	}
	var a exAnswer
	dec := json.NewDecoder(strings.NewReader(res.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("%v: %s", err, res.Body)
	}
	return a, res.Body
}

// exStated is what the answer's quote states: every field that is not
// null, as its raw JSON (the lines apart), and each line's fields that are
// not null, as "lines.<item>.<field>".
func exStated(t *testing.T, a exAnswer) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range a.Quote {
		if k == "lines" || string(v) == "null" {
			continue
		}
		out[k] = string(v)
	}
	var lines map[string]map[string]json.RawMessage
	if err := json.Unmarshal(a.Quote["lines"], &lines); err != nil {
		t.Fatalf("lines: %v: %s", err, a.Quote["lines"])
	}
	if len(lines) != 12 {
		t.Errorf("%d lines, want the twelve", len(lines))
	}
	for item, l := range lines {
		for f, v := range l {
			if string(v) != "null" {
				out["lines."+item+"."+f] = string(v)
			}
		}
	}
	return out
}

// exCheckEvidence: every span of the answer is the posted text's
// characters there, every stated field has evidence and every evidence is
// of a stated field; want lists (field, text) pairs that must be among
// the evidence.
func exCheckEvidence(t *testing.T, text string, a exAnswer, stated map[string]string, want [][2]string) {
	t.Helper()
	runes := []rune(text)
	has := map[[2]string]bool{}
	for _, e := range a.Evidence {
		if e.Start < 0 || e.End > len(runes) || e.Start >= e.End || string(runes[e.Start:e.End]) != e.Text {
			t.Errorf("evidence %+v is not the text's characters %d:%d", e, e.Start, e.End)
		}
		if _, ok := stated[e.Field]; !ok {
			t.Errorf("evidence of %s, which the quote does not state", e.Field)
		}
		has[[2]string{e.Field, e.Text}] = true
	}
	for f := range stated {
		if !slices.ContainsFunc(a.Evidence, func(e struct {
			Field, Text string
			Start, End  int
		}) bool {
			return e.Field == f
		}) {
			t.Errorf("%s is stated without evidence", f)
		}
	}
	for _, w := range want {
		if !has[w] {
			t.Errorf("no evidence of %s in %q; evidence: %+v", w[0], w[1], a.Evidence)
		}
	}
	for _, s := range a.Skipped {
		if s.Start < 0 || s.End > len(runes) || s.Start > s.End || string(runes[s.Start:s.End]) != s.Text {
			t.Errorf("skipped %+v is not the text's characters %d:%d", s, s.Start, s.End)
		}
	}
}

// exSame checks the stated fields are exactly want (raw JSON values).
func exSame(t *testing.T, got, want map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			t.Errorf("%s = %s, want %s", k, orNull(got[k]), want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s = %s, which the message does not state", k, got[k])
		}
	}
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// TestAPIExtractReadsAChineseMessage: an AutoDL chat message read through
// the API gives what a person reads in it — the platform and card by
// name, one GPU of 24 GB, ¥1.98 an hour billed by the second, ¥1,150 a
// month, and a data disk with 50 GB free then ¥0.01 per GB per day — each
// value of its JSON type (the count an integer, the prices strings),
// everything else null, the ids null (the caller resolves the names), and
// each value's evidence the very characters of the message. A reader with
// only the read scope may.
func TestAPIExtractReadsAChineseMessage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	text := "AutoDL RTX 4090 24G 单卡：按量 ¥1.98/小时，按秒计费；包月 ¥1,150。数据盘 50GB 免费，超出部分 ¥0.01/GB/天。"
	a, _ := exRead(t, app, token, text, "")
	stated := exStated(t, a)
	exSame(t, stated, map[string]string{
		"platform": `"AutoDL"`, "gpu_model": `"RTX 4090"`, "gpu_count": `1`, "vram_gb": `"24"`, "currency": `"CNY"`,
		"hourly": `"1.98"`, "monthly": `"1150"`, "billing_granularity": `"second"`,
		// The 50 GB free is the data disk's allowance, beside its price
		// (docs/RULES.md §22.6), not a disk included with the instance.
		"lines.data_disk.status": `"charged"`, "lines.data_disk.unit": `"per_day"`, "lines.data_disk.unit_price": `"0.01"`,
		"lines.data_disk.free_allowance": `"50"`,
	})
	for _, k := range []string{"platform_id", "gpu_model_id", "included_data_disk_gb", "yearly", "as_of", "source"} {
		if v, ok := a.Quote[k]; !ok || string(v) != "null" {
			t.Errorf("%s = %s, want null", k, v)
		}
	}
	exCheckEvidence(t, text, a, stated, [][2]string{
		{"platform", "AutoDL"}, {"gpu_count", "单卡"}, {"hourly", "¥1.98/小时"}, {"billing_granularity", "按秒计费"},
		{"monthly", "¥1,150"}, {"lines.data_disk.free_allowance", "50GB"}, {"lines.data_disk.unit_price", "¥0.01/GB/天"},
	})
	if len(a.Skipped) != 0 || len(a.Unread) != 0 {
		t.Errorf("skipped %+v, unread %q: every price was placed", a.Skipped, a.Unread)
	}
}

// TestAPIExtractReadsAnEnglishEmail: a HOSTKEY-style email read through
// the API: one RTX A5000 of 24 GB, €0.45 an hour billed by the hour, €229
// a month before VAT (prices_include_tax the JSON boolean false), a 1 Gbps
// port (1,000 Mbps included, docs/RULES.md §22.3); the platform is not
// named in it, so it is null, not guessed. Setup being free is no line of
// the quote.
func TestAPIExtractReadsAnEnglishEmail(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleFinance, user.ScopeRead)
	text := "Dear customer, our offer for 1x RTX A5000 24 GB: €0.45 per hour, monthly €229 (ex. VAT), 1 Gbps port, " +
		"100 Mbps guaranteed, billed per hour. Setup is free."
	a, _ := exRead(t, app, token, text, "en")
	stated := exStated(t, a)
	exSame(t, stated, map[string]string{
		"gpu_model": `"RTX A5000"`, "gpu_count": `1`, "vram_gb": `"24"`, "currency": `"EUR"`, "hourly": `"0.45"`,
		"monthly": `"229"`, "billing_granularity": `"hour"`, "prices_include_tax": `false`, "included_mbps": `"1000"`,
	})
	exCheckEvidence(t, text, a, stated, [][2]string{
		{"gpu_count", "1x"}, {"hourly", "€0.45 per hour"}, {"monthly", "€229"}, {"prices_include_tax", "ex. VAT"},
		{"included_mbps", "1 Gbps"}, {"billing_granularity", "billed per hour"},
	})
}

// TestAPIExtractSaysWhatItLeftOut: a price under a condition is skipped
// with its reason, worded in the request's language from the catalogs,
// and a price of something the quote does not hold is an unread sentence;
// neither gives a value. Offsets count characters, not bytes, so a span
// after Chinese text is still the text's.
func TestAPIExtractSaysWhatItLeftOut(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	text := "AutoDL RTX 4090 单卡：按量 ¥1.98/小时，包月 ¥1,150，新用户首月 ¥999。技术支持 ¥200/周。"
	for _, lang := range i18n.Langs {
		a, _ := exRead(t, app, token, text, string(lang))
		stated := exStated(t, a)
		if stated["monthly"] != `"1150"` || stated["hourly"] != `"1.98"` {
			t.Errorf("%s: monthly %s, hourly %s", lang, orNull(stated["monthly"]), orNull(stated["hourly"]))
		}
		exCheckEvidence(t, text, a, stated, [][2]string{{"monthly", "¥1,150"}})
		if len(a.Skipped) != 1 {
			t.Fatalf("%s: skipped %+v, want the first month's price", lang, a.Skipped)
		}
		s := a.Skipped[0]
		if s.Reason != "extract.skip.conditional" || s.Text != "¥999" {
			t.Errorf("%s: skipped %+v, want ¥999 as conditional", lang, s)
		}
		if want := app.Catalog.Translator(lang).T(s.Reason); s.Message != want || s.Message == s.Reason {
			t.Errorf("%s: message %q, want %q", lang, s.Message, want)
		}
		if isZH := strings.ContainsFunc(s.Message, func(r rune) bool { return unicode.Is(unicode.Han, r) }); isZH != (lang == i18n.ZH) {
			t.Errorf("%s: message %q is not in the request's language", lang, s.Message)
		}
		if !slices.Equal(a.Unread, []string{"技术支持 ¥200/周"}) {
			t.Errorf("%s: unread %q", lang, a.Unread)
		}
	}
}

// TestAPIExtractRefuses: no token or session is 401, a token without the
// read scope 403; a session may read (with its CSRF token, as every
// session write of the API). The text is required, not blank, at most
// 20,000 characters and a JSON string, each refused with 422 naming text
// in the request's language; an unknown or repeated key is named as every
// JSON door names it. 20,000 Chinese characters, even sent as \u escapes,
// are within the body's bound.
func TestAPIExtractRefuses(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	reader, uid := apiToken(t, app, auth.RoleAnalyst, user.ScopeRead)
	other := tokenOf(t, app, uid, user.ScopeTrialsWrite, user.ScopeQuotesWrite)
	c, _ := app.AsUser(auth.RoleAnalyst)
	before := qwCounts(t, app)

	if r := apiCall(t, app, http.MethodPost, exPath, "", `{"text": "按量 ¥1.98/小时"}`); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d %s", r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, exPath, other, `{"text": "按量 ¥1.98/小时"}`); r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, `"insufficient_scope"`) {
		t.Errorf("a token without read: %d %s", r.StatusCode, r.Body)
	}

	// A browser session: refused without its CSRF token, read with it.
	session := func(csrf string) *testutil.Response {
		req, err := http.NewRequest(http.MethodPost, app.URL+exPath, strings.NewReader(`{"text": "AutoDL 按量 ¥1.98/小时"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		return c.Do(req)
	}
	if r := session(""); r.StatusCode != http.StatusForbidden || !strings.Contains(r.Body, `"csrf"`) {
		t.Errorf("a session without its CSRF token: %d %s", r.StatusCode, r.Body)
	}
	if r := session(c.CSRF); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `"hourly":"1.98"`) {
		t.Errorf("a session: %d %s", r.StatusCode, r.Body)
	}

	long := strings.Repeat("a", 20001)
	for _, tc := range []struct {
		name, body, field, code string
	}{
		{"empty", `{"text": ""}`, "text", "proposal.error.message_required"},
		{"blank", `{"text": " \n\t "}`, "text", "proposal.error.message_required"},
		{"missing", `{}`, "text", "proposal.error.message_required"},
		{"null", `{"text": null}`, "text", "proposal.error.message_required"},
		{"too long", jsonText(t, map[string]any{"text": long}), "text", "proposal.error.message_too_long"},
		{"a number", `{"text": 1.98}`, "text", "api.write.error.text"},
		{"an array", `{"text": ["按量 ¥1.98/小时"]}`, "text", "api.write.error.text"},
		{"an unknown key", `{"text": "按量 ¥1.98/小时", "lang": "zh"}`, "lang", "api.error.field_unknown"},
		{"a key twice", `{"text": "按量 ¥1.98/小时", "text": "包月 ¥1,150"}`, "text", "api.error.field_duplicate"},
		{"no object", `"按量 ¥1.98/小时"`, "", "api.error.json"},
	} {
		msgs := map[i18n.Lang]string{}
		for _, lang := range i18n.Langs {
			errs := qwRefused(t, apiCall(t, app, http.MethodPost, exPath, reader, tc.body, "Accept-Language", string(lang)),
				http.StatusUnprocessableEntity)
			got, ok := errs[tc.field]
			if !ok || got[0] != tc.code || len(errs) != 1 {
				t.Errorf("%s (%s): %v, want %s at %q", tc.name, lang, errs, tc.code, tc.field)
				continue
			}
			if want := app.Catalog.Translator(lang).T(tc.code, "Max", "20000"); got[1] != want {
				t.Errorf("%s (%s): message %q, want %q", tc.name, lang, got[1], want)
			}
			msgs[lang] = got[1]
		}
		if msgs[i18n.ZH] == msgs[i18n.EN] {
			t.Errorf("%s: the same message in both languages: %q", tc.name, msgs[i18n.ZH])
		}
	}
	if errs := qwRefused(t, apiCall(t, app, http.MethodPost, exPath, reader, jsonText(t, map[string]any{"text": long}), "Accept-Language", "en"),
		http.StatusUnprocessableEntity); !strings.Contains(errs["text"][1], "20000") {
		t.Errorf("the bound is not named: %q", errs["text"][1])
	}

	// At the bound: 20,000 characters (with spaces around them, which are
	// not counted), and 20,000 Chinese characters written as \u escapes:
	// 120 KB of body.
	if r := apiCall(t, app, http.MethodPost, exPath, reader, jsonText(t, map[string]any{"text": "  " + strings.Repeat("a", 20000) + "\n"})); r.StatusCode != http.StatusOK {
		t.Errorf("20,000 characters: %d %.300s", r.StatusCode, r.Body)
	}
	var escaped strings.Builder
	escaped.WriteString(`{"text": "`)
	for i := range 20000 {
		fmt.Fprintf(&escaped, `\u%04x`, []rune("按量包月价")[i%5])
	}
	escaped.WriteString(`"}`)
	if escaped.Len() < 80<<10 {
		t.Fatalf("the escaped body is %d bytes", escaped.Len())
	}
	if r := apiCall(t, app, http.MethodPost, exPath, reader, escaped.String()); r.StatusCode != http.StatusOK {
		t.Errorf("20,000 Chinese characters as escapes (%d bytes): %d %.300s", escaped.Len(), r.StatusCode, r.Body)
	}
	if r := apiCall(t, app, http.MethodPost, exPath, reader, jsonText(t, map[string]any{"text": strings.Repeat("价", 20001)})); r.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("20,001 Chinese characters: %d %.300s", r.StatusCode, r.Body)
	}

	if after := qwCounts(t, app); after != before {
		t.Errorf("quotes, lines, audit, prices, rates, notifications: %v before, %v after", before, after)
	}
}

// TestAPIExtractStoresNothing: reading messages, as a token and as a
// session, leaves no quote, line, audit entry or notification behind, and
// the same message gives the same bytes every time (no ETag: a POST).
func TestAPIExtractStoresNothing(t *testing.T) {
	t.Parallel()
	app := qwApp(t)
	token, _ := apiToken(t, app, auth.RoleEditor)
	c, _ := app.AsUser(auth.RoleEditor)
	before := qwCounts(t, app)
	text := "AutoDL RTX 4090 24G 单卡：按量 ¥1.98/小时，按秒计费；包月 ¥1,150。数据盘 50GB 免费，超出部分 ¥0.01/GB/天。"
	_, first := exRead(t, app, token, text, "en")
	_, again := exRead(t, app, token, text, "en")
	if first != again {
		t.Errorf("the same message gave two answers:\n%s\n%s", first, again)
	}
	// The quote's fields come in the order of a quote's fields, lines
	// last, whatever map a decoder would make of them.
	if i, j, k := strings.Index(first, `"platform":`), strings.Index(first, `"platform_id":`), strings.Index(first, `"lines":`); i < 0 || j != i+len(`"platform":"AutoDL",`) || k < j {
		t.Errorf("the quote's fields are out of order: %.400s", first)
	}
	req, err := http.NewRequest(http.MethodPost, app.URL+exPath, strings.NewReader(jsonText(t, map[string]any{"text": text})))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-CSRF-Token", c.CSRF)
	if r := c.Do(req); r.StatusCode != http.StatusOK || r.Header.Get("ETag") != "" || r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("as a session: %d, ETag %q, Cache-Control %q", r.StatusCode, r.Header.Get("ETag"), r.Header.Get("Cache-Control"))
	}
	if after := qwCounts(t, app); after != before {
		t.Errorf("quotes, lines, audit, prices, rates, notifications: %v before, %v after", before, after)
	}
}
