package money

import (
	"strings"
	"testing"
)

// canonical is an independent spelling of the canonical form of a string
// ParseDecimal accepted: sign kept only for a non-zero value, leading
// integer zeros and trailing fractional zeros dropped.
func canonical(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	frac = strings.TrimRight(frac, "0")
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg && out != "0" {
		out = "-" + out
	}
	return out
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "0.471", "-1.005", "1e400", "NaN", "+1", " 1", "007.50", "1,000", "0x1p3", ".5", "-0.000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			return
		}
		// Only plain decimals get through: digits, at most one '.', a leading '-'.
		body := strings.TrimPrefix(s, "-")
		if strings.Trim(body, "0123456789.") != "" || strings.Count(body, ".") > 1 {
			t.Fatalf("accepted %q", s)
		}
		// No float noise: the value is exactly the digits written.
		if got, want := String(d), canonical(s); got != want {
			t.Fatalf("ParseDecimal(%q) = %s, want %s", s, got, want)
		}
		// Round trip through the canonical form.
		d2, err := ParseDecimal(String(d))
		if err != nil || !d2.Equal(d) {
			t.Fatalf("round trip of %q: %v %v", s, d2, err)
		}
		if Places(d) > len(s) {
			t.Fatalf("Places(%q) = %d", s, Places(d))
		}
		_ = Format(d, "EUR", "en")
	})
}
