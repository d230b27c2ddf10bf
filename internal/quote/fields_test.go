package quote_test

import (
	"reflect"
	"testing"
	"time"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/testutil"
)

// bookkeeping are Quote's fields that nobody enters: identity, versioning,
// who and when, the lines (read as "<item>.<field>"), and the names joined
// from platforms and GPU models.
var bookkeeping = map[string]bool{"ID": true, "SeriesID": true, "Version": true, "PredecessorID": true, "State": true,
	"LockVersion": true, "CreatedBy": true, "CreatedAt": true, "UpdatedAt": true, "PublishedAt": true, "ArchivedAt": true,
	"Lines": true, "PlatformNameZH": true, "PlatformNameEN": true, "GPUVendor": true, "GPUName": true}

// TestEveryQuoteFieldIsDescribed: a field added to Quote must be added to
// quote.Fields (which the form, the CSV, the store and the quote page read)
// or be bookkeeping; and every described field points at its own field.
func TestEveryQuoteFieldIsDescribed(t *testing.T) {
	var q quote.Quote
	described := map[uintptr]string{}
	for _, f := range quote.Fields {
		p := reflect.ValueOf(f.Value(&q)).Pointer()
		if other, dup := described[p]; dup {
			t.Errorf("%s and %s point at the same field", f.Name, other)
		}
		described[p] = f.Name
	}
	v := reflect.ValueOf(&q).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if _, ok := described[v.Field(i).Addr().Pointer()]; !ok && !bookkeeping[name] {
			t.Errorf("Quote.%s is neither in quote.Fields nor bookkeeping", name)
		}
	}
	seen := map[string]int{}
	for _, n := range quote.FormOrder {
		seen[n]++
	}
	for _, f := range quote.Fields {
		if seen[f.Name] != 1 {
			t.Errorf("%s is on the entry form %d times", f.Name, seen[f.Name])
		}
	}
	for _, n := range quote.DetailOrder {
		if _, ok := quote.FieldByName(n); !ok {
			t.Errorf("the quote page shows %s, which is not a field", n)
		}
	}
}

// TestValuesReadBack: every field written by Values reads back the same
// through Read (the form and the CSV are these two).
func TestValuesReadBack(t *testing.T) {
	today := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	in := testutil.FullQuote(7, 3, today)
	refs := quote.NewRefs([]market.RefName{{ID: 7, Names: []string{"平台", "Platform"}}},
		[]market.RefName{{ID: 3, Names: []string{"NVIDIA RTX 4090", "RTX 4090"}}})
	out, errs := quote.Read(quote.Values(in).Get, refs, today)
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("read back differs:\n in %+v\nout %+v", in, out)
	}
}
