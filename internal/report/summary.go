package report

import (
	"slices"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// Summary is what a reader needs first: the recommended option, what it
// saves against the next one and how many options the profile ruled out.
type Summary struct {
	// Recommended is the index in Rows of the eligible option with the
	// lowest confirmed TCO (ties: the lower pessimistic TCO, then table
	// order); -1 when no option is eligible.
	Recommended int
	// Next is the runner-up by the same order; -1 when there is none.
	Next int
	// Savings is the next option's confirmed TCO minus the recommended
	// one's (both already rounded to the cent, so exact); SavingsPct is
	// Savings ÷ the next option's TCO, as a fraction rounded to 4 places.
	Savings    decimal.NullDecimal
	SavingsPct decimal.NullDecimal
	// Eligible and RuledOut count the options.
	Eligible, RuledOut int
	// UnconfirmedLines counts the recommended option's unconfirmed lines;
	// Range is its pessimistic minus confirmed TCO.
	UnconfirmedLines int
	Range            decimal.NullDecimal
}

// Ranking returns the indexes of the eligible rows, cheapest confirmed TCO
// first (ties: lower pessimistic TCO, then table order).
func (s Snapshot) Ranking() []int {
	var idx []int
	for i, r := range s.Rows {
		if r.Eligible() {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ra, rb := s.Rows[a].Result, s.Rows[b].Result
		if c := ra.TCO.Cmp(rb.TCO); c != 0 {
			return c
		}
		return ra.TCOPessimistic.Cmp(rb.TCOPessimistic)
	})
	return idx
}

// Summary computes the report's summary from its frozen rows.
func (s Snapshot) Summary() Summary {
	sum := Summary{Recommended: -1, Next: -1}
	rank := s.Ranking()
	sum.Eligible, sum.RuledOut = len(rank), len(s.Rows)-len(rank)
	if len(rank) == 0 {
		return sum
	}
	sum.Recommended = rank[0]
	rec := s.Rows[rank[0]].Result
	sum.Range = decimal.NewNullDecimal(rec.TCOPessimistic.Sub(rec.TCO))
	for _, l := range rec.Lines {
		if l.Status == string(catalog.StatusUnconfirmed) {
			sum.UnconfirmedLines++
		}
	}
	if len(rank) > 1 {
		sum.Next = rank[1]
		next := s.Rows[rank[1]].Result
		sum.Savings = decimal.NewNullDecimal(next.TCO.Sub(rec.TCO))
		if next.TCO.Sign() > 0 {
			sum.SavingsPct = decimal.NewNullDecimal(money.QuoRound([]decimal.Decimal{sum.Savings.Decimal},
				[]decimal.Decimal{next.TCO}, 4))
		}
	}
	return sum
}
