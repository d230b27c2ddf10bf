package compare

import (
	"context"
	"time"

	"gpuquote/internal/facts"
)

// FactsReader reads the platform facts a comparison shows beside its
// figures (docs/RULES.md §18.3); the store implements it. A Reader that does not
// implement it (a test's) shows no facts.
type FactsReader interface {
	// FactsInForceForQuotes returns the fact records in force on day of
	// the platforms of the given quotes, keyed by platform id.
	FactsInForceForQuotes(ctx context.Context, quoteIDs []int64, day time.Time) (map[int64][]facts.Fact, error)
}

// PlatformFacts is one platform of a comparison's rows with its facts in
// force on the comparison's day.
type PlatformFacts struct {
	PlatformID     int64
	NameZH, NameEN string
	// InForce holds every kind; one never recorded is facts.Unknown.
	InForce map[facts.Kind]facts.Fact
	// Unknown are the kinds still unknown, in page order: the questions
	// for the vendor.
	Unknown []facts.Kind
}

// RowFacts are the platforms of rows, each once, in the order their first
// row appears, with their facts in force on day; records are the
// comparison's Facts.
func RowFacts(rows []Row, records map[int64][]facts.Fact, day time.Time) []PlatformFacts {
	var out []PlatformFacts
	seen := map[int64]bool{}
	for _, r := range rows {
		q := r.Quote
		if seen[q.PlatformID] {
			continue
		}
		seen[q.PlatformID] = true
		in := facts.InForce(records[q.PlatformID], day)
		out = append(out, PlatformFacts{PlatformID: q.PlatformID, NameZH: q.PlatformNameZH, NameEN: q.PlatformNameEN,
			InForce: in, Unknown: facts.Unknowns(in)})
	}
	return out
}
