package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/apierror"
	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestEveryAPIErrorHasOneShape: whatever refuses a request — the
// evaluation engine, the nvidia-smi reader, a route handler's validation,
// the error handler — the answer decodes into the one apierror.Body with
// no field left over, carries the request id its header carries, and is
// never cached (docs/API.md "Errors").
func TestEveryAPIErrorHasOneShape(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	g := seedRTX3090(t, app)
	editor, _ := app.AsUser(auth.RoleEditor)
	cases := []struct {
		name, method, path, contentType, body string
		status                                int
	}{
		{"evaluation engine", http.MethodPost, "/api/v1/tco/evaluate", "application/json", `{"quote": {"currency": "EUR"}}`, 422},
		{"nvidia-smi reader", http.MethodPost, "/api/v1/verify/nvidia-smi?gpu_model=" + itoa(g.ID), "text/plain", "hello", 422},
		{"quote validation", http.MethodPost, "/api/v1/quotes", "application/json", `{"currency": "nope"}`, 422},
		{"not found", http.MethodGet, "/api/v1/quotes/987654321", "", "", 404},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, app.URL+tc.path, strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			req.Header.Set("X-CSRF-Token", editor.CSRF)
			r := editor.Do(req)
			if r.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", r.StatusCode, tc.status, r.Body)
			}
			var body apierror.Body
			dec := json.NewDecoder(bytes.NewReader([]byte(r.Body)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&body); err != nil {
				t.Fatalf("not the API's error shape: %v: %s", err, r.Body)
			}
			if len(body.Errors) == 0 || body.Errors[0].Code == "" || body.Errors[0].Message == "" {
				t.Errorf("errors %+v", body.Errors)
			}
			if id := r.Header.Get("X-Request-Id"); id == "" || body.RequestID != id {
				t.Errorf("request_id %q, header %q", body.RequestID, id)
			}
			if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q", cc)
			}
		})
	}
}
