package money

import (
	"errors"
	"math/big"
	"strings"

	"github.com/shopspring/decimal"
)

// MaxLen is the longest decimal string ParseDecimal reads. Sixty-four
// characters hold any realistic amount with room for twenty decimal places;
// the bound keeps a hostile multi-megabyte digit string from costing big-int
// time downstream.
const MaxLen = 64

// Parse errors. Callers map them to their own field errors.
var (
	// ErrSyntax means the string is not a plain decimal: empty, a sign other
	// than a leading '-', whitespace, exponent, hex, "NaN", "Inf", thousands
	// separators, a leading or trailing '.', or any other character.
	ErrSyntax = errors.New("money: not a plain decimal number")
	// ErrTooLong means the string is longer than MaxLen.
	ErrTooLong = errors.New("money: decimal string too long")
	// ErrTooManyPlaces means the value has more decimal places than allowed.
	ErrTooManyPlaces = errors.New("money: too many decimal places")
)

// ParseDecimal parses s strictly as a plain decimal: an optional leading '-',
// one or more ASCII digits, then optionally '.' and one or more ASCII digits.
//
// Decided rules (the spec says "strictly" and nothing more):
//   - no leading '+': a sign on a positive amount is not how anyone writes a
//     price, and accepting it would give two spellings of one value;
//   - no exponent ("1e2", "1E400"): one notation only, and no way to make a
//     short string stand for a huge or tiny number;
//   - no whitespace anywhere, leading or trailing included: the caller trims
//     a form field if it wants to, the API does not;
//   - leading zeros ("007.50") are accepted and mean what they say;
//   - "-0" parses as zero.
//
// The result is exact: the digits become the coefficient of the decimal, and
// no float64 is involved.
func ParseDecimal(s string) (decimal.Decimal, error) {
	return parse(s, -1)
}

// ParsePlaces is ParseDecimal that also rejects a value with more than
// maxPlaces decimal places. Trailing zeros do not count: "1.500" has one
// decimal place, because the check is about precision, not spelling.
func ParsePlaces(s string, maxPlaces int) (decimal.Decimal, error) {
	return parse(s, maxPlaces)
}

func parse(s string, maxPlaces int) (decimal.Decimal, error) {
	if len(s) > MaxLen {
		return decimal.Decimal{}, ErrTooLong
	}
	i := 0
	neg := false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intDigits := s[intStart:i]
	if len(intDigits) == 0 {
		return decimal.Decimal{}, ErrSyntax
	}
	fracDigits := ""
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracDigits = s[fracStart:i]
		if len(fracDigits) == 0 {
			return decimal.Decimal{}, ErrSyntax
		}
	}
	if i != len(s) {
		return decimal.Decimal{}, ErrSyntax
	}
	if maxPlaces >= 0 {
		sig := strings.TrimRight(fracDigits, "0")
		if len(sig) > maxPlaces {
			return decimal.Decimal{}, ErrTooManyPlaces
		}
	}
	exp := -int32(len(fracDigits))
	if len(intDigits)+len(fracDigits) <= 18 {
		// Fast path: at most 18 digits always fit in an int64.
		var v int64
		for j := 0; j < len(intDigits); j++ {
			v = v*10 + int64(intDigits[j]-'0')
		}
		for j := 0; j < len(fracDigits); j++ {
			v = v*10 + int64(fracDigits[j]-'0')
		}
		if neg {
			v = -v
		}
		return decimal.New(v, exp), nil
	}
	v, ok := new(big.Int).SetString(intDigits+fracDigits, 10)
	if !ok {
		return decimal.Decimal{}, ErrSyntax
	}
	if neg {
		v.Neg(v)
	}
	return decimal.NewFromBigInt(v, exp), nil
}

// MustParse is ParseDecimal that panics on error. It is for constants and
// tests written in source, never for input.
func MustParse(s string) decimal.Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic("money.MustParse(" + s + "): " + err.Error())
	}
	return d
}

// Places returns the number of decimal places of d's value, not counting
// trailing zeros: Places(1.50) = 1, Places(100) = 0.
func Places(d decimal.Decimal) int {
	if d.Exponent() >= 0 {
		return 0
	}
	n := d.Normalize().Exponent()
	if n >= 0 {
		return 0
	}
	return int(-n)
}

// String renders d in its canonical plain form: no exponent, no trailing
// fractional zeros, "-" only for negative values ("1.5", "100", "-0.05").
// Unlike decimal.String it does not depend on the decimal package's
// TrimTrailingZeros or UseScientificNotation globals.
func String(d decimal.Decimal) string {
	exp := d.Exponent()
	if exp >= 0 {
		return d.StringFixed(0)
	}
	s := d.StringFixed(-exp)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// Fixed renders d with exactly places decimal places, rounding half away
// from zero (see Round). It never uses exponent notation.
func Fixed(d decimal.Decimal, places int32) string {
	return Round(d, places).StringFixed(places)
}
