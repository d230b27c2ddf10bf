package testutil

import (
	"net/http"
	"testing"
)

// The validator behind every API test must refuse what the description
// does not allow, or the tests that lean on it prove nothing.
func TestCheckAPIRefusesWhatTheDescriptionDoesNotAllow(t *testing.T) {
	if _, err := OpenAPI(); err != nil {
		t.Fatal(err)
	}
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	get := func(path string) *http.Request {
		r, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:1"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, c := range []struct {
		name   string
		path   string
		status int
		body   string
		ok     bool
	}{
		{"error shape", "/api/v1/openapi.json", 500, `{"errors":[{"field":"","code":"server_error","message":"x"}],"request_id":"r"}`, true},
		{"empty error list", "/api/v1/openapi.json", 500, `{"errors":[]}`, false},
		{"old error shape", "/api/v1/openapi.json", 500, `{"error":"x","request_id":"r"}`, false},
		{"document without paths", "/api/v1/openapi.json", 200, `{"openapi":"3.1.0","info":{}}`, false},
		{"unknown path refused in shape", "/api/v1/nowhere", 404, `{"errors":[{"field":"","code":"not_found","message":"x"}]}`, true},
		{"unknown path answered", "/api/v1/nowhere", 200, `{}`, false},
		{"unknown path, other shape", "/api/v1/nowhere", 404, `{"error":"x"}`, false},
	} {
		err := checkAPI(get(c.path), c.status, jsonHeader, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: checkAPI = %v, want ok=%v", c.name, err, c.ok)
		}
	}
}
