package store

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/quote"
)

// TestQuoteListKeyKeepsOnlyPublishedLists: only a list of published quotes
// filtered by what the list page offers is kept (docs/RULES.md §20.6), and
// two filters that read the same rows share a key.
func TestQuoteListKeyKeepsOnlyPublishedLists(t *testing.T) {
	day := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []QuoteFilter{{}, {States: []string{quote.Published}}, {Query: "tier", GPUModelID: 3, Currency: "EUR", Offset: 100, Limit: 50},
		{AsOfBefore: day, Sharing: "dedicated", PlatformID: 2}} {
		if _, ok := listKey(f); !ok {
			t.Errorf("%+v is not kept", f)
		}
	}
	for _, f := range []QuoteFilter{{States: []string{quote.Draft}}, {States: []string{quote.Archived}},
		{States: []string{quote.Draft, quote.Published, quote.Archived}}, {MinVRAMGB: decimal.NewNullDecimal(decimal.NewFromInt(80))},
		{AsOfFrom: day}, {Qualifications: []string{"x"}}, {Env: []string{"x"}}, {Availability: &AvailabilityFilter{}}, {NoCount: true}} {
		if _, ok := listKey(f); ok {
			t.Errorf("%+v is kept", f)
		}
	}
	a, _ := listKey(QuoteFilter{Query: " tier 42 "})
	b, _ := listKey(QuoteFilter{Query: "tier 42"})
	c, _ := listKey(QuoteFilter{Query: "tier 42", Offset: 50})
	d, _ := listKey(QuoteFilter{Query: "tier 42", AsOfBefore: day})
	if a != b || a == c || a == d {
		t.Error("keys do not follow what the list reads")
	}
}

// TestQuoteListCacheBound: the cache keeps at most its bound of pages, the
// one used longest ago going first, and a page is found only under the
// stamps it was read with.
func TestQuoteListCacheBound(t *testing.T) {
	c := NewQuoteListCache(2)
	st := ListStamps{Market: 5, Names: 7}
	key := func(offset int) quoteListKey { return quoteListKey{offset: offset, limit: 50} }
	c.keepPage(&keptPage{key: key(0), stamps: st})
	c.keepPage(&keptPage{key: key(50), stamps: st})
	if _, ok := c.pageAt(key(0), st); !ok { // page 1 used last
		t.Fatal("a kept page is not found")
	}
	c.keepPage(&keptPage{key: key(100), stamps: st})
	if c.hasPage(key(50)) || !c.hasPage(key(0)) || !c.hasPage(key(100)) {
		t.Error("not the page used longest ago went")
	}
	for _, other := range []ListStamps{{Market: 6, Names: 7}, {Market: 5, Names: 8}, {Market: 4, Names: 7}} {
		if _, ok := c.pageAt(key(0), other); ok {
			t.Errorf("a page read under %v is found under %v", st, other)
		}
	}
	// An older read does not replace a newer one; a newer one does.
	c.keepPage(&keptPage{key: key(0), stamps: ListStamps{Market: 4, Names: 7}})
	if _, ok := c.pageAt(key(0), st); !ok {
		t.Error("a page read under older stamps replaced a newer one")
	}
	newer := ListStamps{Market: 6, Names: 7}
	c.keepPage(&keptPage{key: key(0), stamps: newer})
	if _, ok := c.pageAt(key(0), newer); !ok {
		t.Error("a page read under newer stamps did not replace the older one")
	}
	if off := NewQuoteListCache(0); func() bool { off.keepPage(&keptPage{key: key(0), stamps: st}); return off.hasPage(key(0)) }() {
		t.Error("a cache of no pages keeps one")
	}
}
