package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gpuquote/internal/apispec"
	"gpuquote/internal/catalog"
	"gpuquote/internal/quote"
	"gpuquote/internal/tcoapi"
)

// TestAPIInputsHaveEveryField: the comparison API's profile object (the
// Go type that decodes it and its OpenAPI schema) names exactly the usage
// profile's fields, and the description of a quote sent to the API names
// exactly a quote's fields and line fields, so a field added to the
// profile or to quotes cannot be forgotten by the API's description.
func TestAPIInputsHaveEveryField(t *testing.T) {
	want := tcoapi.ProfileFields()
	if got := jsonNames(reflect.TypeFor[apiProfile]()); !slices.Equal(got, want) {
		t.Errorf("apiProfile decodes %v, the profile has %v", got, want)
	}
	described := schemaProperties(t)
	if got := described("CompareProfile"); !slices.Equal(got, want) {
		t.Errorf("the CompareProfile schema describes %v, the profile has %v", got, want)
	}

	// A quote sent to the API: every field of the form and the CSV
	// (quote.Fields), its lines, and for a proposal the vendor's message.
	fields := []string{"lines"}
	for _, f := range quote.Fields {
		fields = append(fields, f.Name)
		if f.Kind == quote.KindRef {
			fields = append(fields, f.Name+apiRefIDSuffix) // by id, beside the name
		}
	}
	slices.Sort(fields)
	if got := described("QuoteInput"); !slices.Equal(got, fields) {
		t.Errorf("the QuoteInput schema describes %v, a quote has %v", got, fields)
	}
	proposal := slices.Sorted(slices.Values(append(slices.Clone(fields), "vendor_message")))
	if got := described("ProposalInput"); !slices.Equal(got, proposal) {
		t.Errorf("the ProposalInput schema describes %v, a proposal has %v", got, proposal)
	}
	if got, want := described("WriteQuoteLine"), slices.Sorted(slices.Values(quote.LineFields)); !slices.Equal(got, want) {
		t.Errorf("the WriteQuoteLine schema describes %v, a line has %v", got, want)
	}
	// An availability record: exactly what the Go type decodes.
	if got, want := described("AvailRequest"), jsonNames(reflect.TypeFor[apiAvailRequest]()); !slices.Equal(got, want) {
		t.Errorf("the AvailRequest schema describes %v, the API decodes %v", got, want)
	}
}

// schemaProperties reads the OpenAPI document and returns a function that
// lists a component schema's property names, sorted.
func schemaProperties(t *testing.T) func(schema string) []string {
	t.Helper()
	b, err := apispec.Document()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return func(schema string) []string {
		return slices.Sorted(maps.Keys(doc.Components.Schemas[schema].Properties))
	}
}

// jsonNames lists the JSON member names of a struct type, those of
// embedded structs included, sorted.
func jsonNames(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous {
			out = append(out, jsonNames(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestAPIQuoteReadsEveryField: the quote the API answers carries every
// field of a quote (quote.Fields; a platform or GPU model as its id) and of
// its lines, and the read schemas of a quote, its lines and a platform
// name exactly what the Go types send, so a field added to a quote cannot
// be left out of what the API reads or of its description.
func TestAPIQuoteReadsEveryField(t *testing.T) {
	sent := jsonNames(reflect.TypeFor[apiQuote]())
	for _, f := range quote.Fields {
		name := f.Name
		if f.Kind == quote.KindRef {
			name += "_id"
		}
		if !slices.Contains(sent, name) {
			t.Errorf("the API's quote does not carry the field %s", name)
		}
	}
	line := jsonNames(reflect.TypeFor[apiQuoteLine]())
	for _, f := range quote.LineFields {
		if !slices.Contains(line, f) {
			t.Errorf("the API's quote line does not carry the field %s", f)
		}
	}
	described := schemaProperties(t)
	for schema, typ := range map[string]reflect.Type{
		"Quote":        reflect.TypeFor[apiQuote](),
		"QuoteSummary": reflect.TypeFor[apiQuoteSummary](),
		"QuoteLine":    reflect.TypeFor[apiQuoteLine](),
		"Platform":     reflect.TypeFor[apiPlatform](),
		"GPUModel":     reflect.TypeFor[apiGPUModel](),
		// The lists of what other operations take by id.
		"OwnHardwareOption": reflect.TypeFor[apiOwnOption](),
		"TrialSummary":      reflect.TypeFor[apiTrial](),
	} {
		got := described(schema)
		if want := jsonNames(typ); !slices.Equal(got, want) {
			t.Errorf("the %s schema describes %v, the API sends %v", schema, got, want)
		}
	}
}

// apiDocument is the OpenAPI document as plain JSON values.
func apiDocument(t *testing.T) map[string]any {
	t.Helper()
	b, err := apispec.Document()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestAPIInputsHaveOneType: every value a request body of the API takes
// is described with one JSON type (and null where null means "not
// given"): decimals strings, counts integers, flags booleans, names
// strings and ids integers (docs/RULES.md §19.1). A union such as
// [boolean, string] or a property without a type is what typed clients
// cannot be generated from (oapi-codegen stops at "unhandled Schema type").
func TestAPIInputsHaveOneType(t *testing.T) {
	doc := apiDocument(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	seen := map[string]bool{}
	var walk func(where string, s map[string]any)
	walk = func(where string, s map[string]any) {
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if !seen[name] {
				seen[name] = true
				walk(name, schemas[name].(map[string]any))
			}
			return
		}
		var types []string
		switch ty := s["type"].(type) {
		case string:
			types = []string{ty}
		case []any:
			for _, x := range ty {
				if x != "null" {
					types = append(types, x.(string))
				}
			}
		}
		if len(types) != 1 {
			t.Errorf("%s: described as %v, want one JSON type", where, s["type"])
			return
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(props)) {
				walk(where+"."+k, props[k].(map[string]any))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(where+"[]", items)
		}
	}
	paths := doc["paths"].(map[string]any)
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		for m, op := range paths[p].(map[string]any) {
			body, ok := op.(map[string]any)["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			for mt, media := range body["content"].(map[string]any) {
				if mt == "application/json" {
					walk(fmt.Sprintf("%s %s", strings.ToUpper(m), p), media.(map[string]any)["schema"].(map[string]any))
				}
			}
		}
	}
	if len(seen) < 10 {
		t.Fatalf("only %d input schemas reached: %v", len(seen), slices.Sorted(maps.Keys(seen)))
	}
}

// TestAPIProfileChoicesAreEnums: the profile's choices are described as
// the enumerations the engine accepts, so a generated client offers
// exactly the values the server takes (catalog.BetweenRunsPolicies,
// catalog.Tasks, catalog.Precisions).
func TestAPIProfileChoicesAreEnums(t *testing.T) {
	doc := apiDocument(t)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	want := map[string][]string{
		"between_runs": strsOf(catalog.BetweenRunsPolicies),
		"task":         strsOf(catalog.Tasks),
		"precision":    strsOf(catalog.Precisions),
	}
	for _, schema := range []string{"TCOProfile", "CompareProfile"} {
		props := schemas[schema].(map[string]any)["properties"].(map[string]any)
		for field, values := range want {
			p, _ := props[field].(map[string]any)
			var got []string
			for _, v := range anySlice(p["enum"]) {
				got = append(got, fmt.Sprint(v))
			}
			if !slices.Equal(got, values) {
				t.Errorf("%s.%s: enum %v, the engine takes %v", schema, field, got, values)
			}
		}
	}
}

func strsOf[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}
