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
		if got, want := Sub(x, y), x.Sub(y); !got.Equal(want) {
			t.Fatalf("Sub(%s, %s) = %s, want %s", a, b, String(got), String(want))
		}
		if got, want := Sum(x, y, z), x.Add(y).Add(z); !got.Equal(want) || got.Exponent() != want.Exponent() {
			t.Fatalf("Sum(%s, %s, %s) = %s, want %s", a, b, c, String(got), String(want))
		}
		if got, want := Cmp(x, y), x.Cmp(y); got != want {
			t.Fatalf("Cmp(%s, %s) = %d, want %d", a, b, got, want)
		}
		if got, want := Product(x, y, z), x.Mul(y).Mul(z); !got.Equal(want) || got.Exponent() != want.Exponent() {
			t.Fatalf("Product(%s, %s, %s) = %s, want %s", a, b, c, String(got), String(want))
		}
		if got, want := MulAdd([]decimal.Decimal{x, y}, z), x.Mul(y).Add(z); !got.Equal(want) || got.Exponent() != want.Exponent() {
			t.Fatalf("MulAdd(%s×%s, %s) = %s, want %s", a, b, c, String(got), String(want))
		}
		if got, want := DiffQuoRound(x, y, nil, den, p), x.Sub(y).DivRound(w, p); !got.Equal(want) {
			t.Fatalf("(%s − %s)/%s at %d = %s, want %s", a, b, d, p, String(got), String(want))
		}
		if got, want := DiffQuoRound(x, y, []decimal.Decimal{z, y}, den, p), x.Sub(y).Mul(z).Mul(y).DivRound(w, p); !got.Equal(want) {
			t.Fatalf("(%s − %s)×%s×%s/%s at %d = %s, want %s", a, b, c, b, d, p, String(got), String(want))
		}
		if x.Sign() >= 0 && y.Sign() >= 0 && w.Sign() > 0 {
			want := w.Mul(CeilDiv(x.Mul(y), w))
			if got := CeilMultiple([]decimal.Decimal{x, y}, w); !got.Equal(want) || got.Exponent() != want.Exponent() {
				t.Fatalf("CeilMultiple(%s×%s, %s) = %s, want %s", a, b, d, String(got), String(want))
			}
		}
	})
}

func TestSumSubCmp(t *testing.T) {
	if got := Sum(decs("1585.98", "570.3", "0", "23.79")...); String(got) != "2180.07" || got.Exponent() != -2 {
		t.Errorf("Sum = %s (exponent %d)", String(got), got.Exponent())
	}
	if got := Sum(); !got.IsZero() {
		t.Errorf("Sum() = %s", String(got))
	}
	// One term that is not zero comes back as it is.
	x := MustParse("81.47")
	if got := Sum(decimal.Decimal{}, x, decimal.New(0, -2)); got != x {
		t.Errorf("Sum of one amount = %#v, want the amount itself", got)
	}
	if got := Sum(decs("999999999999999999", "999999999999999999", "1")...); String(got) != "1999999999999999999" {
		t.Errorf("Sum beyond int64 = %s", String(got))
	}
	if got := Sub(MustParse("43800"), MustParse("18766")); String(got) != "25034" {
		t.Errorf("Sub = %s", String(got))
	}
	if got := Sub(MustParse("10"), MustParse("10.5")); String(got) != "-0.5" {
		t.Errorf("Sub negative = %s", String(got))
	}
	for _, tt := range []struct {
		a, b string
		want int
	}{{"312.5", "730", -1}, {"730.0", "730", 0}, {"0.06", "1", -1}, {"1.5", "1.49", 1}, {"-2", "1.5", -1}, {"1e1", "10", 0}} {
		a, _ := decimal.NewFromString(tt.a)
		if got := Cmp(a, MustParse(tt.b)); got != tt.want {
			t.Errorf("Cmp(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if got := Product(decs("2", "0.1281", "1.06")...); String(got) != "0.271572" {
		t.Errorf("Product = %s", String(got))
	}
	if got := Product(); String(got) != "1" {
		t.Errorf("Product() = %s", String(got))
	}
	if got := MulAdd(decs("13", "2.2", "1.2"), MustParse("1")); String(got) != "35.32" {
		t.Errorf("MulAdd = %s", String(got))
	}
	if got := DiffQuoRound(MustParse("4209.48"), MustParse("532.4"), nil, decs("4209.48"), 4); String(got) != "0.8735" {
		t.Errorf("DiffQuoRound = %s", String(got))
	}
	// 730 h less 18766 billable minutes, at 0.3 an hour for 6 months, 2
	// instances, fx 0.1281 and 6 % tax.
	if got := DiffQuoRound(MustParse("43800"), MustParse("18766"), decs("0.3", "2", "0.1281", "1.06", "6"), decs("60"), 2); String(got) != "203.96" {
		t.Errorf("DiffQuoRound with factors = %s", String(got))
	}
	// 22 starts of 312.5 h a month billed by the minute: 22 × ⌈18750/22⌉ = 18766 minutes.
	if got := CeilMultiple(decs("312.5", "60"), MustParse("22")); String(got) != "18766" {
		t.Errorf("CeilMultiple = %s", String(got))
	}
	if got := CeilMultiple(decs("12000"), MustParse("3")); String(got) != "12000" {
		t.Errorf("CeilMultiple exact = %s", String(got))
	}
}

// TestSmallResultsShareCoefficients: a result with a coefficient below
// 256 is the shared one, shifted; a larger one is a new decimal.
func TestSmallResultsShareCoefficients(t *testing.T) {
	got := Sub(MustParse("50"), MustParse("10"))
	if String(got) != "40" || got.Coefficient().Int64() != 40 || got.Exponent() != 0 {
		t.Errorf("Sub(50, 10) = %#v", got)
	}
	if got := Sum(decs("0.01", "0.05")...); String(got) != "0.06" || got.Exponent() != -2 {
		t.Errorf("Sum(0.01, 0.05) = %#v", got)
	}
	if got := Sum(decs("1900.5", "50", "10")...); String(got) != "1960.5" || got.Exponent() != -1 {
		t.Errorf("Sum = %#v", got)
	}
}
