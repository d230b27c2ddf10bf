package money

import (
	"testing"

	"github.com/shopspring/decimal"
)

func decs(ss ...string) []decimal.Decimal {
	out := make([]decimal.Decimal, len(ss))
	for i, s := range ss {
		out[i] = MustParse(s)
	}
	return out
}

func TestQuoRound(t *testing.T) {
	tests := []struct {
		num, den []string
		places   int32
		want     string
	}{
		{[]string{"0.471", "200"}, nil, 2, "94.2"},
		{[]string{"70"}, []string{"0.471"}, 2, "148.62"},
		{[]string{"0.1", "40", "730"}, []string{"24"}, 2, "121.67"},         // per_day
		{[]string{"0.1", "40", "730", "1.13"}, []string{"24"}, 2, "137.48"}, // taxed before rounding
		{[]string{"1"}, []string{"8"}, 2, "0.13"},
		{[]string{"-1"}, []string{"8"}, 2, "-0.13"},
		{[]string{"1"}, []string{"-8"}, 2, "-0.13"},
		{[]string{"-1"}, []string{"-8"}, 2, "0.13"},
		{[]string{"-0.001"}, nil, 2, "0"},
		{[]string{"70"}, []string{"200", "8"}, 4, "0.0438"}, // 0.04375
		{[]string{"0"}, []string{"3"}, 2, "0"},
		// Beyond 128 bits: the big-decimal path takes over.
		{[]string{"999999999999999999", "999999999999999999", "999999999999999999"}, []string{"3"}, 0, "333333333333333332333333333333333334333333333333333333"},
		{[]string{"1234567890123456789012"}, []string{"1"}, 2, "1234567890123456789012"},
		{[]string{"1"}, []string{"3"}, 30, "0.333333333333333333333333333333"},
	}
	for _, tt := range tests {
		got := QuoRound(decs(tt.num...), decs(tt.den...), tt.places)
		if String(got) != tt.want {
			t.Errorf("QuoRound(%v, %v, %d) = %s, want %s", tt.num, tt.den, tt.places, String(got), tt.want)
		}
	}
	if got := CeilQuo(decs("200.5", "60"), decs("4")); String(got) != "3008" {
		t.Errorf("CeilQuo = %s", String(got))
	}
	if got := CeilQuo(decs("12000"), decs("3")); String(got) != "4000" {
		t.Errorf("CeilQuo exact = %s", String(got))
	}
	if got := MulRound(decs("2.675", "1"), 2); String(got) != "2.68" {
		t.Errorf("MulRound = %s", String(got))
	}
	defer func() {
		if recover() == nil {
			t.Error("division by zero did not panic")
		}
	}()
	QuoRound(decs("1"), decs("0"), 2)
}

func TestAdd(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"94.2", "0.01", "94.21"},
		{"0", "1.005", "1.005"},
		{"-5", "2.5", "-2.5"},
		{"999999999999999999", "1", "1000000000000000000"},
		{"999999999999999999", "999999999999999999", "1999999999999999998"},
		{"1", "0.000000000000000000001", "1.000000000000000000001"},
		{"123456789012345678901", "1", "123456789012345678902"},
	}
	for _, tt := range tests {
		if got := Add(MustParse(tt.a), MustParse(tt.b)); String(got) != tt.want {
			t.Errorf("Add(%s, %s) = %s, want %s", tt.a, tt.b, String(got), tt.want)
		}
	}
	if got := Add(decimal.Decimal{}, MustParse("3.5")); String(got) != "3.5" {
		t.Errorf("Add(zero value) = %s", String(got))
	}
}

// FuzzQuoRound checks the 128-bit path against the big-decimal path.
func FuzzQuoRound(f *testing.F) {
	f.Add("0.471", "200", "1.06", "24", uint8(2))
	f.Add("-1", "8", "1", "1", uint8(2))
	f.Add("999999999999999999", "999999999999999999", "0.000000000000000001", "7", uint8(4))
	f.Add("70", "1", "1", "0.471", uint8(2))
	f.Add("0.005", "1", "1", "1", uint8(2))
	f.Fuzz(func(t *testing.T, a, b, c, d string, places uint8) {
		x, e1 := ParseDecimal(a)
		y, e2 := ParseDecimal(b)
		z, e3 := ParseDecimal(c)
		w, e4 := ParseDecimal(d)
		if e1 != nil || e2 != nil || e3 != nil || e4 != nil || w.IsZero() {
			return
		}
		p := int32(places % 12)
		num, den := []decimal.Decimal{x, y, z}, []decimal.Decimal{w}
		slow := quoSlow(num, den, p, false)
		if fast, ok := quoFast(num, den, p, false); ok && !fast.Equal(slow) {
			t.Fatalf("(%s×%s×%s)/%s at %d: fast %s, slow %s", a, b, c, d, p, String(fast), String(slow))
		}
		if got := QuoRound(num, den, p); !got.Equal(slow) {
			t.Fatalf("QuoRound = %s, want %s", String(got), String(slow))
		}
		if x.Sign() >= 0 && y.Sign() >= 0 && z.Sign() >= 0 && w.Sign() > 0 {
			cs := quoSlow(num, den, 0, true)
			if cf, ok := quoFast(num, den, 0, true); ok && !cf.Equal(cs) {
				t.Fatalf("ceil fast %s slow %s", String(cf), String(cs))
			}
		}
		if got, want := Add(x, y), x.Add(y); !got.Equal(want) {
			t.Fatalf("Add(%s, %s) = %s, want %s", a, b, String(got), String(want))
		}
	})
}
