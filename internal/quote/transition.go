package quote

// Transition is one move of a quote version's state (docs/RULES.md §7.1,
// §18.1). The store takes every state change of a quote through one of
// these, its UPDATE conditioned on From, so no other move can be written;
// the database's triggers refuse the same moves on every other path.
type Transition struct {
	From, To string
}

// The moves of a quote version.
var (
	// Publish makes a draft the series' published version (an editor's
	// publish, a CSV import, and the new version a reviewed proposal
	// becomes).
	Publish = Transition{From: Draft, To: Published}
	// Supersede archives the published version a newly published one
	// replaces, in the same transaction.
	Supersede = Transition{From: Published, To: Archived}
	// Archive withdraws a published version from new comparisons.
	Archive = Transition{From: Published, To: Archived}
	// Propose files a user's proposal: the row is written as a draft (its
	// lines go in under the draft rule) and moved before commit.
	Propose = Transition{From: Draft, To: Proposed}
	// Repropose sends a returned proposal, edited by its author, back to
	// the editors.
	Repropose = Transition{From: Returned, To: Proposed}
	// ReturnProposal sends a proposal back to its author with a comment.
	ReturnProposal = Transition{From: Proposed, To: Returned}
	// Review marks a proposal an editor published as the series' next
	// version; the row keeps the vendor's words.
	Review = Transition{From: Proposed, To: Reviewed}
)

// Transitions are every move a quote version may make; nothing else
// changes a version's state.
var Transitions = []Transition{Publish, Supersede, Archive, Propose, Repropose, ReturnProposal, Review}

// Allowed reports whether a quote version may move from one state to
// another.
func Allowed(from, to string) bool {
	for _, t := range Transitions {
		if t.From == from && t.To == to {
			return true
		}
	}
	return false
}
