package quote_test

import (
	"testing"

	"gpuquote/internal/quote"
)

var allStates = []string{quote.Draft, quote.Published, quote.Archived, quote.Proposed, quote.Returned, quote.Reviewed}

// TestQuoteTransitions: the moves of docs/RULES.md §7.1 and §18.1 and no
// other — a published version only ever becomes archived, an archived or
// reviewed one never moves, and nothing returns to a draft.
func TestQuoteTransitions(t *testing.T) {
	want := map[[2]string]bool{
		{quote.Draft, quote.Published}:    true, // publish (editor, import, reviewed proposal's new version)
		{quote.Published, quote.Archived}: true, // superseded or withdrawn
		{quote.Draft, quote.Proposed}:     true, // a proposal is written as a draft, then filed
		{quote.Returned, quote.Proposed}:  true, // the author proposes it again
		{quote.Proposed, quote.Returned}:  true, // an editor sends it back
		{quote.Proposed, quote.Reviewed}:  true, // an editor publishes it as a new version
	}
	for _, from := range allStates {
		for _, to := range allStates {
			if got := quote.Allowed(from, to); got != want[[2]string{from, to}] {
				t.Errorf("Allowed(%s → %s) = %v, want %v", from, to, got, !got)
			}
		}
	}
	for _, tr := range quote.Transitions {
		if tr.From == tr.To || !quote.Allowed(tr.From, tr.To) {
			t.Errorf("transition %+v", tr)
		}
	}
}
