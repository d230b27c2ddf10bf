package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// verifyBody is the 200 answer of the verify API, figures kept as raw JSON
// so a test sees strings and nulls exactly.
type verifyBody struct {
	Format        string                     `json:"format"`
	DriverVersion *string                    `json:"driver_version"`
	GPUModel      map[string]json.RawMessage `json:"gpu_model"`
	Samples       []map[string]json.RawMessage
	Checks        []struct {
		Key        string         `json:"key"`
		TrialCheck int            `json:"trial_check"`
		Outcome    string         `json:"outcome"`
		Reason     string         `json:"reason"`
		MessageID  string         `json:"message_id"`
		Args       map[string]any `json:"args"`
	} `json:"checks"`
}

type verifyErrorsBody struct {
	Errors []struct {
		Field   string `json:"field"`
		Code    string `json:"code"`
		Message string `json:"message"`
		Line    int    `json:"line"`
	} `json:"errors"`
}

func decodeJSON(t *testing.T, r *testutil.Response, v any) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("content type %q, status %d: %s", ct, r.StatusCode, r.Body)
	}
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
}

// seedRTX3090 is the catalog's RTX 3090 with the guide's normal load ranges.
func seedRTX3090(t *testing.T, app *testutil.App) market.GPUModel {
	t.Helper()
	ip := func(n int) *int { return &n }
	return testfactory.GPUModel(t, app.Store, market.GPUModel{Name: "GeForce RTX 3090", Interconnect: "nvlink",
		TDPW: ip(350), BoostClockMHz: ip(1695), LoadPowerMinW: ip(280), LoadPowerMaxW: ip(350), LoadClockMinMHz: ip(1600), LoadClockMaxMHz: ip(1800),
		Perf: []market.GPUPerf{{Precision: "fp32", NominalTFLOPS: testfactory.D("35.6"), NominalSource: "spec"}}})
}

func verifyFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "verify", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestVerifyCookieSessionNeedsCSRF(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	g := seedRTX3090(t, app)
	c, _ := app.AsUser(auth.RoleAnalyst)
	path := "/api/v1/verify/nvidia-smi?gpu_model=" + itoa(g.ID)
	text := verifyFixture(t, "rtx3090_throttled.csv")
	post := func(csrf string) *testutil.Response {
		req, _ := http.NewRequest(http.MethodPost, app.URL+path, strings.NewReader(text))
		req.Header.Set("Content-Type", "text/plain; charset=utf-8")
		if csrf != "" {
			req.Header.Set("X-CSRF-Token", csrf)
		}
		return c.Do(req)
	}
	if r := post(""); r.StatusCode != http.StatusForbidden {
		t.Errorf("cookie session without CSRF: %d", r.StatusCode)
	}
	if r := post(auth.NewToken()); r.StatusCode != http.StatusForbidden {
		t.Errorf("cookie session with a wrong CSRF token: %d", r.StatusCode)
	}
	if r := post(c.CSRF); r.StatusCode != http.StatusOK {
		t.Errorf("cookie session with its CSRF token: %d %s", r.StatusCode, r.Body)
	}
	// The form field, with the form's CSRF field, works too.
	if r := c.PostForm(path, url.Values{"text": {text}}); r.StatusCode != http.StatusOK {
		t.Errorf("form post: %d %s", r.StatusCode, r.Body)
	}
	// Nobody signed in: 401.
	anon := app.Client()
	anon.Get("/login")
	if r := anon.PostForm(path, url.Values{"text": {text}}); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous: %d", r.StatusCode)
	}
}

// TestVerifyWithToken runs the guide's throttled RTX 3090 through the API
// with a bearer token and no CSRF token, and checks the wire format.
func TestVerifyWithToken(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	g := seedRTX3090(t, app)
	c, _ := app.AsUser(auth.RoleFinance)
	token := createToken(t, c, "box", testutil.Password(auth.RoleFinance))

	req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/verify/nvidia-smi?gpu_model="+url.QueryEscape("nvidia geforce rtx 3090"),
		strings.NewReader(verifyFixture(t, "rtx3090_throttled.csv")))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Accept-Language", "en")
	r := app.Client().Do(req)
	if r.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", r.StatusCode, r.Body)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Error("the answer must not be cached")
	}
	var body verifyBody
	decodeJSON(t, r, &body)
	if body.Format != "csv_noheader" || len(body.Samples) != 5 || len(body.Checks) != 7 {
		t.Fatalf("format %s, %d samples, %d checks", body.Format, len(body.Samples), len(body.Checks))
	}
	for k, want := range map[string]string{"id": itoa(g.ID), "full_name": `"NVIDIA GeForce RTX 3090"`, "vram_gb": `"24"`,
		"load_power_min_w": `"280"`, "load_clock_max_mhz": `"1800"`, "tdp_w": `"350"`} {
		if got := string(body.GPUModel[k]); got != want {
			t.Errorf("gpu_model.%s = %s, want %s", k, got, want)
		}
	}
	s := body.Samples[1]
	for k, want := range map[string]string{"sample": "1", "gpu": "0", "name": `"NVIDIA GeForce RTX 3090"`,
		"memory_total_mib": `"24576"`, "power_draw_w": `"40.21"`, "clock_sm_mhz": `"420"`, "utilization_gpu_pct": `"100"`,
		"throttle_reasons": `["hw_slowdown","hw_power_brake_slowdown"]`} {
		if got := string(s[k]); got != want {
			t.Errorf("samples[1].%s = %s, want %s", k, got, want)
		}
	}
	if got := string(body.Samples[0]["throttle_reasons"]); got != `["gpu_idle"]` {
		t.Errorf("samples[0].throttle_reasons = %s", got)
	}
	wantChecks := []struct {
		key, outcome string
		trial        int
		reason       []string
	}{
		{"model_matches", "pass", 1, nil},
		{"vram_total", "pass", 2, nil},
		{"vram_allocatable_90pct", "pass", 6, nil},
		{"load_power", "fail", 11, []string{"40.21 W", "280–350 W"}},
		{"load_sm_clock", "fail", 11, []string{"420 MHz", "1600–1800 MHz"}},
		{"throttle_reasons", "fail", 11, []string{"hw_slowdown"}},
		{"idle_noise", "unknown", 10, nil},
	}
	for i, w := range wantChecks {
		got := body.Checks[i]
		if got.Key != w.key || got.Outcome != w.outcome || got.TrialCheck != w.trial || !strings.HasPrefix(got.MessageID, "verify.") || got.Reason == "" {
			t.Errorf("check %d = %+v, want %s %s %d", i, got, w.key, w.outcome, w.trial)
		}
		for _, part := range w.reason {
			if !strings.Contains(got.Reason, part) {
				t.Errorf("%s reason %q lacks %q", got.Key, got.Reason, part)
			}
		}
	}
	if body.Checks[3].Args["DrawW"] != "40.21" {
		t.Errorf("args are strings: %v", body.Checks[3].Args)
	}
}

// TestVerifyNullsAndLanguage: N/A comes back as null, reasons follow the
// request's language (Chinese by default).
func TestVerifyNullsAndLanguage(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	testfactory.GPUModel(app.T, app.Store, market.GPUModel{})
	g := seedRTX3090(t, app)
	c, _ := app.AsUser(auth.RoleAnalyst)
	text := "name, memory.total [MiB], memory.used [MiB], power.draw [W], clocks_throttle_reasons.active\n" +
		"NVIDIA GeForce RTX 3090, 24576 MiB, [N/A], [Not Supported], [N/A]\n"
	for _, ref := range []string{itoa(g.ID), "GeForce RTX 3090", "NVIDIA GeForce RTX 3090", "  nvidia   GEFORCE rtx 3090 "} {
		r := c.PostForm("/api/v1/verify/nvidia-smi?gpu_model="+url.QueryEscape(ref), url.Values{"text": {text}})
		if r.StatusCode != http.StatusOK {
			t.Fatalf("gpu_model=%q: %d %s", ref, r.StatusCode, r.Body)
		}
		var body verifyBody
		decodeJSON(t, r, &body)
		if string(body.GPUModel["id"]) != itoa(g.ID) {
			t.Errorf("gpu_model=%q found %s", ref, body.GPUModel["id"])
		}
		s := body.Samples[0]
		for _, k := range []string{"memory_used_mib", "power_draw_w", "clock_sm_mhz", "temperature_c", "throttle_reasons"} {
			if string(s[k]) != "null" {
				t.Errorf("%s = %s, want null", k, s[k])
			}
		}
		if !strings.Contains(body.Checks[0].Reason, "一致") {
			t.Errorf("default language is Chinese: %q", body.Checks[0].Reason)
		}
		if body.DriverVersion != nil {
			t.Errorf("driver version %q", *body.DriverVersion)
		}
	}
}

func TestVerifyErrors(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	g := seedRTX3090(t, app)
	c, _ := app.AsUser(auth.RoleEditor)
	c.Header.Set("Accept-Language", "en")
	good := verifyFixture(t, "rtx3090_throttled.csv")
	type wantErr struct {
		field, code string
		line        int
		contains    string
	}
	cases := []struct {
		name, model, text string
		want              []wantErr
	}{
		{"unknown model", "NVIDIA RTX 9999", good, []wantErr{{"gpu_model", "apiverify.gpu_model.unknown", 0, "NVIDIA RTX 9999"}}},
		{"unknown id", "987654321", good, []wantErr{{"gpu_model", "apiverify.gpu_model.unknown", 0, "987654321"}}},
		{"no model", "", good, []wantErr{{"gpu_model", "apiverify.gpu_model.missing", 0, "gpu_model"}}},
		{"bad reading", itoa(g.ID), "name, memory.total [MiB]\nNVIDIA GeForce RTX 3090, lots MiB\n",
			[]wantErr{{"text", "verify.parse.bad_value", 2, "Line 2"}}},
		{"empty", itoa(g.ID), "", []wantErr{{"text", "verify.parse.empty", 0, "nvidia-smi"}}},
		{"both at once", "nope", "hello", []wantErr{{"gpu_model", "apiverify.gpu_model.unknown", 0, "nope"},
			{"text", "verify.parse.unknown_format", 1, "Line 1"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/verify/nvidia-smi?gpu_model="+url.QueryEscape(tc.model), strings.NewReader(tc.text))
			req.Header.Set("Content-Type", "text/plain")
			req.Header.Set("X-CSRF-Token", c.CSRF)
			r := c.Do(req)
			if r.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("status %d: %s", r.StatusCode, r.Body)
			}
			var body verifyErrorsBody
			decodeJSON(t, r, &body)
			if len(body.Errors) != len(tc.want) {
				t.Fatalf("errors %+v, want %d", body.Errors, len(tc.want))
			}
			for i, w := range tc.want {
				e := body.Errors[i]
				if e.Field != w.field || e.Code != w.code || e.Line != w.line || !strings.Contains(e.Message, w.contains) {
					t.Errorf("error %d = %+v, want %+v", i, e, w)
				}
			}
		})
	}
}

func TestVerifyBodyLimits(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	g := seedRTX3090(t, app)
	c, _ := app.AsUser(auth.RoleAnalyst)
	post := func(body string) *testutil.Response {
		req, _ := http.NewRequest(http.MethodPost, app.URL+"/api/v1/verify/nvidia-smi?gpu_model="+itoa(g.ID), strings.NewReader(body))
		req.Header.Set("Content-Type", "text/plain")
		req.Header.Set("X-CSRF-Token", c.CSRF)
		return c.Do(req)
	}
	// Over the parser's 1 MiB: a 422 that says so.
	r := post(strings.Repeat("x", 1<<20+1))
	var body verifyErrorsBody
	decodeJSON(t, r, &body)
	if r.StatusCode != http.StatusUnprocessableEntity || len(body.Errors) != 1 || body.Errors[0].Code != "verify.parse.too_large" {
		t.Errorf("1 MiB + 1: %d %+v", r.StatusCode, body)
	}
	// Over the route's body limit: 413.
	if r := post(strings.Repeat("x", 4<<20)); r.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("4 MiB: %d", r.StatusCode)
	}
}
