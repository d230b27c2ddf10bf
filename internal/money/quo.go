package money

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// QuoRound returns (Π num) ÷ (Π den) rounded half away from zero to places
// decimal places, exactly: the products are exact and the quotient is
// rounded once, by comparing the exact remainder. An empty product is 1.
// It panics, like decimal.DivRound, when the divisor product is zero.
//
// Most inputs of a TCO have coefficients of a few digits, so the work is
// done in 128-bit integers when every coefficient fits in 18 digits and no
// intermediate overflows; otherwise it falls back to big decimals. Both
// paths compute the same exact value (the fast path is fuzzed against the
// slow one); the fast one only saves allocations.
func QuoRound(num, den []decimal.Decimal, places int32) decimal.Decimal {
	if r, ok := quoFast(num, den, places, false); ok {
		return r
	}
	return quoSlow(num, den, places, false)
}

// CeilQuo returns ⌈(Π num) ÷ (Π den)⌉ for non-negative factors and a
// positive divisor product, exactly.
func CeilQuo(num, den []decimal.Decimal) decimal.Decimal {
	if r, ok := quoFast(num, den, 0, true); ok {
		return r
	}
	return quoSlow(num, den, 0, true)
}

// MulRound returns Π factors rounded half away from zero to places.
func MulRound(factors []decimal.Decimal, places int32) decimal.Decimal {
	return QuoRound(factors, nil, places)
}

func product(fs []decimal.Decimal) decimal.Decimal {
	if len(fs) == 0 {
		return decimal.New(1, 0)
	}
	p := fs[0]
	for _, f := range fs[1:] {
		p = p.Mul(f)
	}
	return p
}

func quoSlow(num, den []decimal.Decimal, places int32, ceil bool) decimal.Decimal {
	n, d := product(num), product(den)
	if ceil {
		return CeilDiv(n, d)
	}
	return n.DivRound(d, places)
}

type u128 struct{ hi, lo uint64 }

// mul multiplies by b, reporting overflow of 128 bits.
func (a u128) mul(b uint64) (u128, bool) {
	hi1, lo := bits.Mul64(a.lo, b)
	hi2, mid := bits.Mul64(a.hi, b)
	if hi2 != 0 {
		return u128{}, false
	}
	hi, carry := bits.Add64(hi1, mid, 0)
	if carry != 0 {
		return u128{}, false
	}
	return u128{hi, lo}, true
}

var pow10u = func() (t [20]uint64) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] * 10
	}
	return t
}()

// coef returns |coefficient|, whether it is negative, and false when the
// coefficient has more than 18 digits.
func coef(d decimal.Decimal) (uint64, bool, bool) {
	if d.NumDigits() > 18 {
		return 0, false, false
	}
	c := d.CoefficientInt64()
	if c < 0 {
		return uint64(-c), true, true
	}
	return uint64(c), false, true
}

// collect multiplies the coefficients of fs and sums their exponents.
func collect(fs []decimal.Decimal) (m u128, exp int64, neg, ok bool) {
	m = u128{0, 1}
	for _, f := range fs {
		c, n, fits := coef(f)
		if !fits {
			return m, 0, false, false
		}
		if m, ok = m.mul(c); !ok {
			return m, 0, false, false
		}
		neg = neg != n
		exp += int64(f.Exponent())
	}
	return m, exp, neg, true
}

func quoFast(num, den []decimal.Decimal, places int32, ceil bool) (decimal.Decimal, bool) {
	mn, en, negN, ok := collect(num)
	if !ok {
		return decimal.Decimal{}, false
	}
	md, ed, negD, ok := collect(den)
	if !ok || (md.hi == 0 && md.lo == 0) {
		return decimal.Decimal{}, false
	}
	// value = mn/md × 10^(en−ed); scaled by 10^places it must be rounded to
	// an integer q, the result being q × 10^−places.
	k := en - ed + int64(places)
	switch {
	case k > 19 || k < -19:
		return decimal.Decimal{}, false
	case k >= 0:
		if mn, ok = mn.mul(pow10u[k]); !ok {
			return decimal.Decimal{}, false
		}
	default:
		if md, ok = md.mul(pow10u[-k]); !ok {
			return decimal.Decimal{}, false
		}
	}
	if md.hi != 0 {
		return decimal.Decimal{}, false
	}
	dv := md.lo
	if mn.hi >= dv {
		return decimal.Decimal{}, false // quotient beyond 64 bits
	}
	q, r := bits.Div64(mn.hi, mn.lo, dv)
	neg := negN != negD && (q != 0 || r != 0)
	switch {
	case ceil:
		if neg {
			return decimal.Decimal{}, false // ceil is only for non-negative values
		}
		if r != 0 {
			q++
		}
	case r >= dv-r: // 2r ≥ dv: the dropped part is at least a half
		q++
	}
	if q > math.MaxInt64 {
		return decimal.Decimal{}, false
	}
	v := int64(q)
	if neg {
		v = -v
	}
	return decimal.New(v, -places), true
}

// Add returns a + b exactly, without big-integer allocations when both
// coefficients are small.
func Add(a, b decimal.Decimal) decimal.Decimal {
	ca, na, oka := coef(a)
	cb, nb, okb := coef(b)
	if !oka || !okb {
		return a.Add(b)
	}
	ea, eb := a.Exponent(), b.Exponent()
	// Align to the smaller exponent.
	if ea > eb {
		ca, na, cb, nb, ea, eb = cb, nb, ca, na, eb, ea
	}
	if diff := int64(eb) - int64(ea); diff > 0 {
		if diff > 18 {
			return a.Add(b)
		}
		hi, lo := bits.Mul64(cb, pow10u[diff])
		if hi != 0 || lo > math.MaxInt64 {
			return a.Add(b)
		}
		cb = lo
	}
	x, y := int64(ca), int64(cb)
	if na {
		x = -x
	}
	if nb {
		y = -y
	}
	s := x + y
	if (x > 0 && y > 0 && s < 0) || (x < 0 && y < 0 && s >= 0) {
		return a.Add(b)
	}
	return decimal.New(s, ea)
}
