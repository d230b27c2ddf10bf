package watch

import (
	"time"

	"github.com/shopspring/decimal"
)

// Reading is what one cause shows a watch (docs/RULES.md §24.2): whether
// its condition holds (Hit), whether the figure has moved back past the
// threshold by the re-arm margin (Clear), and the figure itself.
type Reading struct {
	Hit   bool
	Clear bool
	Value decimal.NullDecimal
}

// PriceReading is a price watch's reading of a price per GPU already in
// the watch's currency, tax included: a hit at or below the target, clear
// at or above target × ReArmMargin.
func PriceReading(w Watch, price decimal.Decimal) Reading {
	return Reading{
		Hit:   price.LessThanOrEqual(w.Target),
		Clear: price.GreaterThanOrEqual(w.Target.Mul(ReArmMargin)),
		Value: decimal.NewNullDecimal(price),
	}
}

// JumpReading is a jump watch's reading of a version's price against its
// previous version's (docs/RULES.md §7.2): a hit when |price − prev| × 100
// ≥ percent × prev, in exact arithmetic; the value is the move in percent
// (absent when prev is 0). A missing price on either side is no reading.
func JumpReading(w Watch, price, prev decimal.NullDecimal) Reading {
	if !price.Valid || !prev.Valid {
		return Reading{}
	}
	move := price.Decimal.Sub(prev.Decimal).Abs()
	r := Reading{Hit: move.Mul(decimal.New(100, 0)).GreaterThanOrEqual(w.Percent.Mul(prev.Decimal)) && move.Sign() > 0}
	if prev.Decimal.Sign() > 0 {
		r.Value = decimal.NewNullDecimal(price.Decimal.Sub(prev.Decimal).Mul(decimal.New(100, 0)).DivRound(prev.Decimal, 2))
	}
	return r
}

// AvailabilityReading is an availability watch's reading of obtained of
// attempts in the window: a hit when obtained × 100 < percent × attempts
// (no attempts is no reading), clear when obtained × 100 ≥ percent ×
// ReArmMargin × attempts; the value is the rate in percent.
func AvailabilityReading(w Watch, obtained, attempts int) Reading {
	if attempts <= 0 {
		return Reading{}
	}
	got := decimal.New(int64(obtained)*100, 0)
	all := decimal.New(int64(attempts), 0)
	return Reading{
		Hit:   got.LessThan(w.Percent.Mul(all)),
		Clear: got.GreaterThanOrEqual(w.Percent.Mul(ReArmMargin).Mul(all)),
		Value: decimal.NewNullDecimal(got.DivRound(all, 2)),
	}
}

// Decide is the no-spam rule (docs/RULES.md §24.3): a watch that has
// matched is disarmed; it re-arms when a reading is clear (the figure
// moved back past its threshold by the margin) or once its cooldown has
// passed since its last match. A hit on an armed watch matches and
// disarms it. Decide says whether r matches, and the state to keep.
func Decide(w Watch, r Reading, now time.Time) (match bool, next State) {
	next = w.State
	if !next.Armed && (r.Clear || cooledDown(w, now)) {
		next.Armed = true
	}
	if r.Hit && next.Armed {
		t := now
		return true, State{Armed: false, LastMatchedAt: &t}
	}
	return false, next
}

// cooledDown reports whether w's cooldown has passed since its last match
// (a watch that never matched has none to wait for).
func cooledDown(w Watch, now time.Time) bool {
	if w.LastMatchedAt == nil {
		return true
	}
	h := w.CooldownHours
	if h <= 0 {
		h = DefaultCooldownHours
	}
	return !now.Before(w.LastMatchedAt.Add(time.Duration(h) * time.Hour))
}

// PerGPU is a quote's price divided by its GPU count, converted at rate
// (1 unit of the quote's currency = rate units of the watch's) and with
// its tax added when the price excludes it (docs/RULES.md §5.1, §5.2):
// the price a price watch compares, to 6 decimals.
func PerGPU(price decimal.Decimal, gpuCount int, includesTax bool, taxRate, rate decimal.Decimal) decimal.Decimal {
	if gpuCount <= 0 {
		gpuCount = 1
	}
	p := price.Mul(rate)
	if !includesTax {
		p = p.Mul(decimal.New(1, 0).Add(taxRate))
	}
	return p.DivRound(decimal.New(int64(gpuCount), 0), 6)
}

// Index finds the watches about an offer's platform × GPU model without
// reading every watch: by the pair, by the platform alone and by the GPU
// model alone (docs/RULES.md §24.2).
type Index struct {
	byPair map[[2]int64][]int
	all    []Watch
}

// NewIndex indexes ws (paused watches are left out).
func NewIndex(ws []Watch) *Index {
	ix := &Index{byPair: make(map[[2]int64][]int, len(ws)), all: ws}
	for i, w := range ws {
		if w.Paused {
			continue
		}
		k := [2]int64{w.PlatformID, w.GPUModelID}
		ix.byPair[k] = append(ix.byPair[k], i)
	}
	return ix
}

// Candidates are the watches that cover o, in the order they were given.
func (ix *Index) Candidates(o Offer) []Watch {
	var out []Watch
	for _, k := range [][2]int64{{o.PlatformID, o.GPUModelID}, {o.PlatformID, 0}, {0, o.GPUModelID}} {
		for _, i := range ix.byPair[k] {
			if ix.all[i].Covers(o) {
				out = append(out, ix.all[i])
			}
		}
	}
	return out
}
