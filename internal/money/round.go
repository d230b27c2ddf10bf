package money

import "github.com/shopspring/decimal"

// Round rounds d to places decimal places, half away from zero.
//
// The ledger rule (docs/RULES.md §1.3) is "half-up to 0.01". For the non-negative
// amounts a TCO consists of, half away from zero is exactly half-up
// (1.005 → 1.01). For a negative amount (a credit or refund) it rounds the
// magnitude the same way (-1.005 → -1.01), so negating an amount negates its
// rounding and a credit never rounds differently from the charge it undoes.
// This is the commercial rounding accountants use, and it is what decimal's
// Round does; it is not "towards +∞" (which would give -1.00).
func Round(d decimal.Decimal, places int32) decimal.Decimal {
	return d.Round(places)
}

// Round2 rounds d half away from zero to 0.01: money and hours for display.
func Round2(d decimal.Decimal) decimal.Decimal { return d.Round(2) }

// Round4 rounds d half away from zero to 0.0001: per-hour rates and shares.
func Round4(d decimal.Decimal) decimal.Decimal { return d.Round(4) }

// DivRound returns a ÷ b rounded half away from zero to places decimal
// places, computed exactly: the quotient is not first cut to some working
// precision, so the single rounding is always the correct one. (docs/RULES.md §1.4 asks
// for at least 16 significant digits before rounding; an exact remainder
// comparison is the limit of that.) It does not read decimal.DivisionPrecision.
// b must not be zero.
func DivRound(a, b decimal.Decimal, places int32) decimal.Decimal {
	return a.DivRound(b, places)
}

// CeilDiv returns ⌈a ÷ b⌉ for a ≥ 0 and b > 0, exactly.
func CeilDiv(a, b decimal.Decimal) decimal.Decimal {
	q, r := a.QuoRem(b, 0)
	if r.Sign() > 0 {
		return q.Add(decimal.New(1, 0))
	}
	return q
}

// CutRatio cuts a positive ratio to places decimal places, toward zero, so
// that it is below a threshold with fewer places (0.85) exactly when the
// exact ratio is; a positive ratio never becomes 0 (it becomes the
// smallest step instead). A measured performance ratio is kept this way
// wherever it is stored or priced (docs/RULES.md §8.3, §9.6).
func CutRatio(r decimal.Decimal, places int32) decimal.Decimal {
	c := r.Truncate(places)
	if c.Sign() <= 0 && r.Sign() > 0 {
		return decimal.New(1, -places)
	}
	return c
}
