package proposal_test

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/proposal"
	"gpuquote/internal/quote"
)

// TestCorrect: values are compared as the form writes them, a line a
// quote lacks is the unconfirmed line, and only what differs is named
// (docs/RULES.md §18.1).
func TestCorrect(t *testing.T) {
	nd := func(s string) decimal.NullDecimal { return decimal.NewNullDecimal(decimal.RequireFromString(s)) }
	vendor := quote.Quote{PlatformID: 1, GPUModelID: 2, GPUCount: 1, Currency: "EUR", Hourly: nd("0.50"), Monthly: nd("284"),
		Lines: []quote.Line{{Item: string(catalog.ItemEgress), Status: string(catalog.StatusUnconfirmed)}}}
	same := vendor
	same.Hourly, same.Lines = nd("0.5"), nil
	if c := proposal.Correct(vendor, same); !c.None() {
		t.Errorf("0.50 against 0.5 and a missing unconfirmed line: %+v", c)
	}
	pub := vendor
	pub.Hourly, pub.Label = nd("0.45"), "tier"
	pub.Lines = []quote.Line{{Item: string(catalog.ItemEgress), Status: string(catalog.StatusIncluded), InWriting: true}}
	c := proposal.Correct(vendor, pub)
	if !slices.Equal(c.Fields, []string{"label", "hourly"}) || len(c.Lines) != 1 || c.Lines[0].Item != string(catalog.ItemEgress) ||
		!slices.Equal(c.Lines[0].Fields, []string{"status", "in_writing"}) {
		t.Errorf("corrections %+v", c)
	}
}
