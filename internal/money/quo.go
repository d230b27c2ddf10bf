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
	v, ok := quoInt(mn, en, negN, den, places, ceil)
	if !ok {
		return decimal.Decimal{}, false
	}
	return newDec(v, -places), true
}

// quoInt is quoFast for a numerator already collected: it returns the
// rounded quotient scaled by 10^places as an integer.
func quoInt(mn u128, en int64, negN bool, den []decimal.Decimal, places int32, ceil bool) (int64, bool) {
	md, ed, negD, ok := collect(den)
	if !ok || (md.hi == 0 && md.lo == 0) {
		return 0, false
	}
	// value = mn/md × 10^(en−ed); scaled by 10^places it must be rounded to
	// an integer q, the result being q × 10^−places.
	k := en - ed + int64(places)
	switch {
	case k > 19 || k < -19:
		return 0, false
	case k >= 0:
		if mn, ok = mn.mul(pow10u[k]); !ok {
			return 0, false
		}
	default:
		if md, ok = md.mul(pow10u[-k]); !ok {
			return 0, false
		}
	}
	if md.hi != 0 {
		return 0, false
	}
	dv := md.lo
	if mn.hi >= dv {
		return 0, false // quotient beyond 64 bits
	}
	q, r := bits.Div64(mn.hi, mn.lo, dv)
	neg := negN != negD && (q != 0 || r != 0)
	switch {
	case ceil:
		if neg {
			return 0, false // ceil is only for non-negative values
		}
		if r != 0 {
			q++
		}
	case r >= dv-r: // 2r ≥ dv: the dropped part is at least a half
		q++
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	v := int64(q)
	if neg {
		v = -v
	}
	return v, true
}

// smallCoefs holds the decimals 0…255. A result whose coefficient is one of
// them shares it, shifted to its exponent: decimal values are immutable
// and Shift keeps the coefficient, so this saves the two allocations (the
// big.Int and its words) of a new decimal.
var smallCoefs = func() (a [256]decimal.Decimal) {
	for i := range a {
		a[i] = decimal.New(int64(i), 0)
	}
	return a
}()

// newDec is decimal.New(v, exp), sharing the coefficient of a small v.
func newDec(v int64, exp int32) decimal.Decimal {
	if v >= 0 && v < int64(len(smallCoefs)) {
		return smallCoefs[v].Shift(exp)
	}
	return decimal.New(v, exp)
}

// sum is an exact running sum v × 10^exp of decimals with small
// coefficients, kept in an int64 so that adding allocates nothing; ok turns
// false when a term or the sum no longer fits, and the caller falls back to
// decimal arithmetic. Like chained decimal Adds its exponent is the
// smallest of the terms'.
type sum struct {
	v       int64
	exp     int32
	started bool
	ok      bool
}

// add adds d, or subtracts it when minus is set.
func (s *sum) add(d decimal.Decimal, minus bool) {
	if s.started && !s.ok {
		return
	}
	c, neg, fits := coef(d)
	if !fits || c > math.MaxInt64 {
		s.started, s.ok = true, false
		return
	}
	x := int64(c)
	if neg != minus {
		x = -x
	}
	s.addInt(x, d.Exponent())
}

// addInt adds x × 10^e.
func (s *sum) addInt(x int64, e int32) {
	if s.started && !s.ok {
		return
	}
	if !s.started {
		s.v, s.exp, s.started, s.ok = x, e, true, true
		return
	}
	// Align both to the smaller exponent.
	var okA, okB bool
	if e < s.exp {
		s.v, okA = scale(s.v, int64(s.exp)-int64(e))
		s.exp, okB = e, true
	} else {
		x, okB = scale(x, int64(e)-int64(s.exp))
		okA = true
	}
	r := s.v + x
	if !okA || !okB || (s.v > 0 && x > 0 && r < 0) || (s.v < 0 && x < 0 && r >= 0) {
		s.ok = false
		return
	}
	s.v = r
}

// scale returns x × 10^n, false when it does not fit in an int64.
func scale(x int64, n int64) (int64, bool) {
	if n == 0 || x == 0 {
		return x, true
	}
	if n > 18 {
		return 0, false
	}
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	hi, lo := bits.Mul64(u, pow10u[n])
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if x < 0 {
		return -int64(lo), true
	}
	return int64(lo), true
}

// Add returns a + b exactly, without big-integer allocations when both
// coefficients are small. When one of them is zero and the other already
// has the result's exponent, the other is returned as it is.
func Add(a, b decimal.Decimal) decimal.Decimal {
	switch {
	case a.Sign() == 0 && b.Sign() != 0 && b.Exponent() <= a.Exponent():
		return b
	case b.Sign() == 0 && a.Sign() != 0 && a.Exponent() <= b.Exponent():
		return a
	}
	var s sum
	s.add(a, false)
	s.add(b, false)
	if !s.ok {
		return a.Add(b)
	}
	return newDec(s.v, s.exp)
}

// Sub returns a − b exactly, like Add.
func Sub(a, b decimal.Decimal) decimal.Decimal {
	if b.Sign() == 0 && a.Exponent() <= b.Exponent() {
		return a
	}
	var s sum
	s.add(a, false)
	s.add(b, true)
	if !s.ok {
		return a.Sub(b)
	}
	return newDec(s.v, s.exp)
}

// Sum returns the exact sum of ds (zero for none): one allocation at most
// where chained Adds allocate per term, and none when a single term is not
// zero and already has the result's exponent.
func Sum(ds ...decimal.Decimal) decimal.Decimal {
	if len(ds) == 0 {
		return decimal.Decimal{}
	}
	var s sum
	nonZero := -1
	for i, d := range ds {
		s.add(d, false)
		if d.Sign() != 0 {
			if nonZero >= 0 {
				nonZero = len(ds) // more than one
			} else {
				nonZero = i
			}
		}
	}
	if !s.ok {
		t := ds[0]
		for _, d := range ds[1:] {
			t = t.Add(d)
		}
		return t
	}
	if nonZero >= 0 && nonZero < len(ds) && ds[nonZero].Exponent() == s.exp {
		return ds[nonZero]
	}
	return newDec(s.v, s.exp)
}

// Cmp compares a and b like decimal's Cmp (−1, 0, +1), without the
// allocations its rescaling makes when the exponents differ.
func Cmp(a, b decimal.Decimal) int {
	if a.Exponent() == b.Exponent() {
		return a.Cmp(b)
	}
	var s sum
	s.add(a, false)
	s.add(b, true)
	if !s.ok {
		return a.Cmp(b)
	}
	switch {
	case s.v < 0:
		return -1
	case s.v > 0:
		return 1
	}
	return 0
}

// Product returns Π fs exactly (1 for none), with one allocation where
// chained Muls allocate per factor.
func Product(fs ...decimal.Decimal) decimal.Decimal {
	m, exp, neg, ok := collect(fs)
	if !ok || m.hi != 0 || m.lo > math.MaxInt64 || exp > math.MaxInt32 || exp < math.MinInt32 {
		return product(fs)
	}
	v := int64(m.lo)
	if neg {
		v = -v
	}
	return newDec(v, int32(exp))
}

// MulAdd returns Π fs + c exactly, with one allocation where a product
// and a sum would make two.
func MulAdd(fs []decimal.Decimal, c decimal.Decimal) decimal.Decimal {
	m, exp, neg, ok := collect(fs)
	if ok && m.hi == 0 && m.lo <= math.MaxInt64 && exp >= math.MinInt32 && exp <= math.MaxInt32 {
		v := int64(m.lo)
		if neg {
			v = -v
		}
		var s sum
		s.addInt(v, int32(exp))
		s.add(c, false)
		if s.ok {
			return newDec(s.v, s.exp)
		}
	}
	return product(fs).Add(c)
}

// DiffQuoRound returns (a − b) × Π num ÷ Π den rounded half away from
// zero to places, exactly, like QuoRound with the difference among its
// factors (it is not built as a decimal of its own).
func DiffQuoRound(a, b decimal.Decimal, num, den []decimal.Decimal, places int32) decimal.Decimal {
	var s sum
	s.add(a, false)
	s.add(b, true)
	if mn, en, negN, ok := collect(num); ok && s.ok {
		u := uint64(s.v)
		if s.v < 0 {
			u = -u
		}
		if mn, ok = mn.mul(u); ok {
			if v, ok := quoInt(mn, en+int64(s.exp), negN != (s.v < 0), den, places, false); ok {
				return newDec(v, -places)
			}
		}
	}
	return quoSlow(append([]decimal.Decimal{a.Sub(b)}, num...), den, places, false)
}

// CeilMultiple returns the smallest multiple of step at or above Π num,
// ⌈Π num ÷ step⌉ × step, for non-negative factors and a positive step,
// exactly.
func CeilMultiple(num []decimal.Decimal, step decimal.Decimal) decimal.Decimal {
	if mn, en, negN, ok := collect(num); ok {
		if q, ok := quoInt(mn, en, negN, []decimal.Decimal{step}, 0, true); ok {
			if c, neg, fits := coef(step); fits && !neg {
				if hi, lo := bits.Mul64(uint64(q), c); hi == 0 && lo <= math.MaxInt64 {
					return newDec(int64(lo), step.Exponent())
				}
			}
		}
	}
	return step.Mul(quoSlow(num, []decimal.Decimal{step}, 0, true))
}
