package server_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// describedSample builds a value of schema s as a generated client would
// send it: every property filled with a value of its one described type
// (the pick-th value of an enumeration, the minimum of a bounded integer,
// "1" for a decimal string, a day for a date, three letters for a
// currency), an array holding one such item.
func describedSample(t *testing.T, s *openapi3.Schema, pick func(n int) int) any {
	t.Helper()
	if len(s.Enum) > 0 {
		var vals []any
		for _, v := range s.Enum {
			if v != nil && v != "" {
				vals = append(vals, v)
			}
		}
		return vals[pick(len(vals))]
	}
	types := slices.DeleteFunc(slices.Clone(s.Type.Slice()), func(ty string) bool { return ty == openapi3.TypeNull })
	if len(types) != 1 {
		t.Fatalf("a schema of %v types: %+v", s.Type.Slice(), s)
	}
	switch types[0] {
	case openapi3.TypeObject:
		out := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			out[k] = describedSample(t, s.Properties[k].Value, pick)
		}
		return out
	case openapi3.TypeArray:
		return []any{describedSample(t, s.Items.Value, pick)}
	case openapi3.TypeInteger:
		if s.Min != nil && *s.Min > 0 {
			return int64(*s.Min)
		}
		return 1
	case openapi3.TypeBoolean:
		return true
	case openapi3.TypeString:
		switch {
		case s.Format == "date":
			return "2026-01-01"
		case s.Pattern == "^[A-Z]{3}$":
			return "EUR"
		case strings.Contains(s.Pattern, "[0-9]"):
			return "1"
		}
		return "x"
	}
	t.Fatalf("no sample for type %s", types[0])
	return nil
}

// TestTCOAPITakesWhatItDescribes: a request built from the description of
// each public TCO endpoint — every field filled with a value of the type
// its schema names, each enumeration's first and then last value — is
// never refused for a value's type or an unknown field or choice: what a
// generated client sends, the server reads (docs/RULES.md §19.6). The
// rent-or-buy API's own.life_months was described as a decimal string and
// refused as "36".
func TestTCOAPITakesWhatItDescribes(t *testing.T) {
	t.Parallel()
	doc, err := testutil.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	app := testutil.NewApp(t)
	for _, path := range []string{"/api/v1/tco/evaluate", "/api/v1/tco/rent-vs-buy", "/api/v1/bills/check"} {
		op := doc.Paths.Value(path).Post
		schema := op.RequestBody.Value.Content.Get("application/json").Schema.Value
		for _, pick := range []func(int) int{func(int) int { return 0 }, func(n int) int { return n - 1 }} {
			body, err := json.Marshal(describedSample(t, schema, pick))
			if err != nil {
				t.Fatal(err)
			}
			res := apiCall(t, app, http.MethodPost, path, "", string(body), "Accept-Language", "en")
			var answer struct {
				Errors []struct{ Field, Code, Message string } `json:"errors"`
			}
			if err := json.Unmarshal([]byte(res.Body), &answer); err != nil {
				t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
			}
			for _, e := range answer.Errors {
				if e.Code == "wrong_type" || e.Code == "unknown_field" || e.Code == "invalid_decimal" || e.Code == "not_integer" ||
					strings.HasPrefix(e.Code, "unknown_") && e.Code != "unknown_currency" {
					t.Errorf("%s refuses the described %s: %s %s", path, e.Field, e.Code, e.Message)
				}
			}
			if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusUnprocessableEntity {
				t.Errorf("%s: %d %s", path, res.StatusCode, res.Body)
			}
		}
	}
}

// TestAPIWritesTakeWhatTheyDescribe: the same for the data API's bodies a
// signed-in analyst may send: a proposal, an availability record, a
// comparison, a report and a message to read, built from their
// descriptions, are never refused for a value's JSON type or as a
// malformed body (api.error.json). Naming a platform both by name and by
// id is refused as the description says (one of the two).
func TestAPIWritesTakeWhatTheyDescribe(t *testing.T) {
	t.Parallel()
	doc, err := testutil.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	app := testutil.NewApp(t)
	token, _ := apiToken(t, app, auth.RoleAnalyst)
	for _, path := range []string{"/api/v1/proposals", "/api/v1/availability", "/api/v1/compare", "/api/v1/reports", "/api/v1/quotes/extract"} {
		schema := doc.Paths.Value(path).Post.RequestBody.Value.Content.Get("application/json").Schema.Value
		body, err := json.Marshal(describedSample(t, schema, func(int) int { return 0 }))
		if err != nil {
			t.Fatal(err)
		}
		res := apiCall(t, app, http.MethodPost, path, token, string(body), "Accept-Language", "en")
		var answer struct {
			Errors []struct{ Field, Code, Message string } `json:"errors"`
		}
		if err := json.Unmarshal([]byte(res.Body), &answer); err != nil {
			t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
		}
		for _, e := range answer.Errors {
			if e.Code == "api.error.json" || strings.HasPrefix(e.Code, "api.write.error.") && e.Code != "api.write.error.ref_both" {
				t.Errorf("%s refuses the described %q: %s %s", path, e.Field, e.Code, e.Message)
			}
		}
		if res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode/100 != 2 {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Body)
		}
	}
}
