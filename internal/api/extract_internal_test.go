package api

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"gpuquote/internal/catalog"
	"gpuquote/internal/extract"
	"gpuquote/internal/i18n"
	"gpuquote/internal/quote"
)

// documentSchemas are the OpenAPI document's component schemas as plain
// JSON values.
func documentSchemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	doc := apiDocument(t)
	out := map[string]map[string]any{}
	for k, v := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		out[k] = v.(map[string]any)
	}
	return out
}

// schemaTypes is the set of JSON types a property schema names.
func schemaTypes(p map[string]any) []string {
	var out []string
	switch ty := p["type"].(type) {
	case string:
		out = []string{ty}
	case []any:
		for _, x := range ty {
			out = append(out, x.(string))
		}
	}
	slices.Sort(out)
	return out
}

// withoutTypeAndWords is a property schema less its type and description:
// its constraints (enum, pattern, bounds, format).
func withoutTypeAndWords(p map[string]any) map[string]any {
	out := maps.Clone(p)
	delete(out, "type")
	delete(out, "description")
	return out
}

// sameButNullable checks that every property of got is one of want's, with
// the same constraints and want's JSON type or null, and that got requires
// every property it has (an answer always carries them all).
func sameButNullable(t *testing.T, schemas map[string]map[string]any, got, want string, skip ...string) {
	t.Helper()
	gp, _ := schemas[got]["properties"].(map[string]any)
	wp, _ := schemas[want]["properties"].(map[string]any)
	if g, w := slices.Sorted(maps.Keys(gp)), slices.Sorted(maps.Keys(wp)); !slices.Equal(g, w) {
		t.Errorf("%s describes %v, %s %v", got, g, want, w)
	}
	var required []string
	for _, r := range schemas[got]["required"].([]any) {
		required = append(required, r.(string))
	}
	if g, w := slices.Sorted(slices.Values(required)), slices.Sorted(maps.Keys(gp)); !slices.Equal(g, w) {
		t.Errorf("%s requires %v, it has %v", got, g, w)
	}
	if schemas[got]["additionalProperties"] != false {
		t.Errorf("%s allows other properties", got)
	}
	for _, k := range slices.Sorted(maps.Keys(wp)) {
		if slices.Contains(skip, k) || gp[k] == nil {
			continue
		}
		g, w := gp[k].(map[string]any), wp[k].(map[string]any)
		wantTypes := schemaTypes(w)
		if !slices.Contains(wantTypes, "null") {
			wantTypes = slices.Sorted(slices.Values(append(wantTypes, "null")))
		}
		if gt := schemaTypes(g); !slices.Equal(gt, wantTypes) {
			t.Errorf("%s.%s is of types %v, %s.%s of %v", got, k, gt, want, k, wantTypes)
		}
		if gc, wc := withoutTypeAndWords(g), withoutTypeAndWords(w); !reflect.DeepEqual(gc, wc) {
			t.Errorf("%s.%s is described %v, %s.%s %v", got, k, gc, want, k, wc)
		}
	}
}

// TestExtractAnswerIsAQuoteInput: the quote the reading API answers is
// described exactly as a quote sent to the API (QuoteInput, its lines
// WriteQuoteLine), every property of the same JSON type and constraints,
// null allowed, always present; the twelve lines are every item. The
// handler builds it from quote.Fields, quote.LineFields and catalog.Items,
// in that order, so a field added to a quote is read, answered and
// described without touching the reading API, or this test fails.
func TestExtractAnswerIsAQuoteInput(t *testing.T) {
	schemas := documentSchemas(t)
	sameButNullable(t, schemas, "ExtractedQuote", "QuoteInput", apiQuoteLinesField)
	sameButNullable(t, schemas, "ExtractedQuoteLine", "WriteQuoteLine")
	if ref := schemas["ExtractedQuote"]["properties"].(map[string]any)[apiQuoteLinesField].(map[string]any)["$ref"]; ref != "#/components/schemas/ExtractedQuoteLines" {
		t.Errorf("ExtractedQuote.lines is %v", ref)
	}
	var items []string
	for _, it := range catalog.Items {
		items = append(items, string(it.Key))
	}
	lines := schemas["ExtractedQuoteLines"]
	if got := slices.Sorted(maps.Keys(lines["properties"].(map[string]any))); !slices.Equal(got, slices.Sorted(slices.Values(items))) {
		t.Errorf("ExtractedQuoteLines describes %v, the items are %v", got, items)
	}
	if got := len(lines["required"].([]any)); got != len(items) {
		t.Errorf("ExtractedQuoteLines requires %d lines, there are %d", got, len(items))
	}

	// What the handler sends for a message stating nothing: every field, in
	// quote.Fields order (a reference's id beside its name), null.
	q, err := apiExtractQuote(extract.Read(""))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range quote.Fields {
		want = append(want, f.Name)
		if f.Kind == quote.KindRef {
			want = append(want, f.Name+apiRefIDSuffix)
		}
	}
	want = append(want, apiQuoteLinesField)
	var got []string
	for _, m := range q {
		got = append(got, m.Key)
		if m.Key != apiQuoteLinesField && m.Value != nil {
			t.Errorf("%s = %v from an empty message", m.Key, m.Value)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the answer's quote has %v, want %v", got, want)
	}
	if described := slices.Sorted(maps.Keys(schemas["ExtractedQuote"]["properties"].(map[string]any))); !slices.Equal(slices.Sorted(slices.Values(got)), described) {
		t.Errorf("the answer's quote has %v, the description %v", got, described)
	}
	ls := q[len(q)-1].Value.(apiObject)
	if len(ls) != len(items) {
		t.Fatalf("%d lines, want %d", len(ls), len(items))
	}
	for i, l := range ls {
		if l.Key != items[i] {
			t.Errorf("line %d is %s, want %s", i, l.Key, items[i])
		}
		var fields []string
		for _, m := range l.Value.(apiObject) {
			fields = append(fields, m.Key)
			if m.Value != nil {
				t.Errorf("%s.%s = %v from an empty message", l.Key, m.Key, m.Value)
			}
		}
		if !slices.Equal(fields, quote.LineFields) {
			t.Errorf("%s has %v, want %v", l.Key, fields, quote.LineFields)
		}
	}

	// The reasons a phrase is skipped are the described enumeration.
	var reasons []string
	for _, r := range schemas["ExtractSkip"]["properties"].(map[string]any)["reason"].(map[string]any)["enum"].([]any) {
		reasons = append(reasons, r.(string))
	}
	if !slices.Equal(reasons, extract.Reasons) {
		t.Errorf("ExtractSkip.reason is one of %v, extract skips for %v", reasons, extract.Reasons)
	}
}

// TestExtractValuesTakeTheirJSONType: each value read is sent as the JSON
// type its field takes in a quote sent to the API: decimals, names and
// choices strings, counts integers, flags booleans; a value of a count or a
// flag that is not one is an error, never sent as something else.
func TestExtractValuesTakeTheirJSONType(t *testing.T) {
	for _, tc := range []struct {
		field, value string
		shape        writeShape
		want         string
	}{
		{"hourly", "1.98", writeDecimal, `"1.98"`},
		{"monthly", "1150", writeDecimal, `"1150"`},
		{"platform", "AutoDL", writeName, `"AutoDL"`},
		{"billing_granularity", "second", writeText, `"second"`},
		{"gpu_count", "8", writeInt, `8`},
		{"prices_include_tax", "false", writeFlag, `false`},
		{"deposit_refundable", "true", writeFlag, `true`},
	} {
		v, err := apiExtractValue(tc.field, tc.value, true, tc.shape)
		if err != nil {
			t.Errorf("%s: %v", tc.field, err)
			continue
		}
		if b, _ := json.Marshal(v); string(b) != tc.want {
			t.Errorf("%s %q is sent as %s, want %s", tc.field, tc.value, b, tc.want)
		}
	}
	if v, err := apiExtractValue("hourly", "", false, writeDecimal); v != nil || err != nil {
		t.Errorf("a value not read is %v (%v), want null", v, err)
	}
	for _, tc := range []struct {
		value string
		shape writeShape
	}{{"8.5", writeInt}, {"八", writeInt}, {"yes", writeFlag}, {"TRUE", writeFlag}} {
		if v, err := apiExtractValue("x", tc.value, true, tc.shape); err == nil {
			t.Errorf("%q as %v is sent as %v, want an error", tc.value, tc.shape, v)
		}
	}
}

// TestExtractExampleIsTheAnswer: the example the description gives of
// the reading API is what it answers: the example request's text read and
// answered in English gives the example answer, value for value.
func TestExtractExampleIsTheAnswer(t *testing.T) {
	doc := apiDocument(t)
	op := doc["paths"].(map[string]any)["/api/v1/quotes/extract"].(map[string]any)["post"].(map[string]any)
	example := func(media any) any {
		return media.(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["example"]
	}
	req, _ := example(op["requestBody"]).(map[string]any)
	text, ok := req["text"].(string)
	if !ok || len(req) != 1 {
		t.Fatalf("the example request is %v", req)
	}
	c, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	en := c.Translator(i18n.EN)
	out, err := newAPIExtract(extract.Read(text), func(id string) string { return en.T(id) })
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := example(op["responses"].(map[string]any)["200"])
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("the example answer is not what %q gives; it gives:\n%s", text, g)
	}
	for _, part := range []string{"evidence", "skipped", "unread"} {
		if l, _ := got.(map[string]any)[part].([]any); len(l) == 0 {
			t.Errorf("the example shows no %s", part)
		}
	}
}

// TestExtractAnswerOrder: an answer's objects are written in a fixed
// order, so the same message gives the same bytes.
func TestExtractAnswerOrder(t *testing.T) {
	b, err := json.Marshal(apiObject{{"b", 1}, {"a", nil}, {"c", apiObject{{"z", "x"}, {"y", true}}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":1,"a":null,"c":{"z":"x","y":true}}`; string(b) != want {
		t.Errorf("%s, want %s", b, want)
	}
}
