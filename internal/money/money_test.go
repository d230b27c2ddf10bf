package money

import (
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want string // canonical String(); "" means error
		err  error
	}{
		{"0", "0", nil},
		{"0.471", "0.471", nil},
		{"70", "70", nil},
		{"1234.50", "1234.5", nil},
		{"-0.05", "-0.05", nil},
		{"-0", "0", nil},
		{"007.50", "7.5", nil},
		{"1000000000000", "1000000000000", nil},
		{"123456789012345678901234567890.123456789", "123456789012345678901234567890.123456789", nil},
		{"", "", ErrSyntax},
		{"-", "", ErrSyntax},
		{"+1", "", ErrSyntax},
		{".5", "", ErrSyntax},
		{"5.", "", ErrSyntax},
		{"1.2.3", "", ErrSyntax},
		{" 1", "", ErrSyntax},
		{"1 ", "", ErrSyntax},
		{"1 000", "", ErrSyntax},
		{"1,000.00", "", ErrSyntax},
		{"1e2", "", ErrSyntax},
		{"1E400", "", ErrSyntax},
		{"NaN", "", ErrSyntax},
		{"nan", "", ErrSyntax},
		{"Inf", "", ErrSyntax},
		{"-Infinity", "", ErrSyntax},
		{"0x1F", "", ErrSyntax},
		{"１２", "", ErrSyntax},      // full-width digits
		{"\u22121", "", ErrSyntax}, // unicode minus
		{"--1", "", ErrSyntax},
		{"1_000", "", ErrSyntax},
		{strings.Repeat("9", MaxLen+1), "", ErrTooLong},
	}
	for _, tt := range tests {
		d, err := ParseDecimal(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("ParseDecimal(%q) error = %v, want %v", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseDecimal(%q) error = %v", tt.in, err)
			continue
		}
		if got := String(d); got != tt.want {
			t.Errorf("ParseDecimal(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParsePlaces(t *testing.T) {
	tests := []struct {
		in  string
		max int
		ok  bool
	}{
		{"0.123456", 6, true},
		{"0.1234567", 6, false},
		{"0.1234560000", 6, true}, // trailing zeros carry no precision
		{"12", 0, true},
		{"12.0", 0, true},
		{"12.5", 0, false},
	}
	for _, tt := range tests {
		_, err := ParsePlaces(tt.in, tt.max)
		if (err == nil) != tt.ok {
			t.Errorf("ParsePlaces(%q, %d) error = %v, want ok=%v", tt.in, tt.max, err, tt.ok)
		}
		if !tt.ok && !errors.Is(err, ErrTooManyPlaces) {
			t.Errorf("ParsePlaces(%q, %d) error = %v, want ErrTooManyPlaces", tt.in, tt.max, err)
		}
	}
}

func TestPlaces(t *testing.T) {
	for in, want := range map[string]int{"0": 0, "100": 0, "1.50": 1, "0.000001": 6, "-2.25": 2} {
		if got := Places(MustParse(in)); got != want {
			t.Errorf("Places(%s) = %d, want %d", in, got, want)
		}
	}
	if got := Places(decimal.New(5, 3)); got != 0 {
		t.Errorf("Places(5e3) = %d, want 0", got)
	}
}

func TestStringIgnoresGlobals(t *testing.T) {
	// 5000 stored with a positive exponent must not come out as 5E3.
	if got := String(decimal.New(5, 3)); got != "5000" {
		t.Errorf("String(5e3) = %s", got)
	}
	if got := String(decimal.New(-150, -2)); got != "-1.5" {
		t.Errorf("String(-1.50) = %s", got)
	}
}

func TestRound(t *testing.T) {
	// Half away from zero: half-up for the non-negative amounts of a TCO,
	// and the mirror image for credits.
	tests := []struct{ in, r2, r4 string }{
		{"1.005", "1.01", "1.005"},
		{"1.004999", "1", "1.005"},
		{"94.2", "94.2", "94.2"},
		{"0.00005", "0", "0.0001"},
		{"2.675", "2.68", "2.675"}, // 2.675 is not 2.67499… here: no float
		{"-1.005", "-1.01", "-1.005"},
		{"-1.004", "-1", "-1.004"},
		{"-0.00005", "0", "-0.0001"},
		{"-2.5", "-2.5", "-2.5"},
		{"0.123456", "0.12", "0.1235"},
	}
	for _, tt := range tests {
		d := MustParse(tt.in)
		if got := String(Round2(d)); got != tt.r2 {
			t.Errorf("Round2(%s) = %s, want %s", tt.in, got, tt.r2)
		}
		if got := String(Round4(d)); got != tt.r4 {
			t.Errorf("Round4(%s) = %s, want %s", tt.in, got, tt.r4)
		}
	}
	if got := String(Round(MustParse("-2.5"), 0)); got != "-3" {
		t.Errorf("Round(-2.5, 0) = %s, want -3 (half away from zero)", got)
	}
}

func TestDivRound(t *testing.T) {
	tests := []struct {
		a, b   string
		places int32
		want   string
	}{
		{"70", "0.471", 2, "148.62"},  // 148.6199575…
		{"118", "0.471", 2, "250.53"}, // 250.5307855…
		{"284", "0.471", 2, "602.97"}, // 602.9723991…
		{"1", "3", 4, "0.3333"},
		{"2", "3", 4, "0.6667"},
		{"1", "8", 2, "0.13"}, // 0.125 exactly: half away from zero
		{"-1", "8", 2, "-0.13"},
		{"1", "-8", 2, "-0.13"},
		// A quotient a hair below a half must not round up: 0.004999…9 with
		// more nines than a 16-digit cut would keep.
		{"4999999999999999999", "1000000000000000000000", 2, "0"},
	}
	for _, tt := range tests {
		got := DivRound(MustParse(tt.a), MustParse(tt.b), tt.places)
		if String(got) != tt.want {
			t.Errorf("DivRound(%s, %s, %d) = %s, want %s", tt.a, tt.b, tt.places, String(got), tt.want)
		}
	}
}

func TestCeilDiv(t *testing.T) {
	tests := []struct{ a, b, want string }{
		{"200", "3", "67"},
		{"201", "3", "67"},
		{"0.5", "1", "1"},
		{"0", "4", "0"},
		{"12000", "3", "4000"},
		{"12000.000001", "3", "4001"},
	}
	for _, tt := range tests {
		if got := String(CeilDiv(MustParse(tt.a), MustParse(tt.b))); got != tt.want {
			t.Errorf("CeilDiv(%s, %s) = %s, want %s", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		amount, currency, locale string
		places                   int32
		want                     string
	}{
		{"1234.5", "CNY", "zh-CN", 2, "¥1,234.50"},
		{"1234.5", "CNY", "en", 2, "CN¥1,234.50"},
		{"94.2", "EUR", "zh-CN", 2, "€94.20"},
		{"94.2", "EUR", "en", 2, "€94.20"},
		{"12", "USD", "en", 2, "$12.00"},
		{"12", "USD", "zh-CN", 2, "US$12.00"},
		{"1234.5", "CHF", "en", 2, "1,234.50 CHF"},
		{"1234.5", "CHF", "zh-CN", 2, "1,234.50 CHF"},
		{"1000", "JPY", "en", 2, "¥1,000.00"},
		{"1000", "JPY", "zh-Hans", 2, "JP¥1,000.00"},
		{"-1234.5", "CNY", "zh-CN", 2, "-¥1,234.50"},
		{"-1234.5", "SEK", "en", 2, "-1,234.50 SEK"},
		{"1234567.891", "EUR", "en", 2, "€1,234,567.89"},
		{"0.35", "EUR", "en", 4, "€0.3500"},
		{"0.005", "EUR", "en", 2, "€0.01"},
		{"-0.004", "EUR", "en", 2, "€0.00"},
		{"999.995", "EUR", "en", 2, "€1,000.00"},
	}
	for _, tt := range tests {
		got := FormatPlaces(MustParse(tt.amount), tt.currency, tt.locale, tt.places)
		if got != tt.want {
			t.Errorf("FormatPlaces(%s, %s, %s, %d) = %q, want %q", tt.amount, tt.currency, tt.locale, tt.places, got, tt.want)
		}
	}
	if got := Format(MustParse("1234.5"), "CNY", "zh-CN"); got != "¥1,234.50" {
		t.Errorf("Format = %q", got)
	}
}

func TestGroup(t *testing.T) {
	for in, want := range map[string]string{
		"1": "1", "123": "123", "1234": "1,234", "123456": "123,456",
		"1234567.50": "1,234,567.50", "12.5": "12.5",
	} {
		if got := Group(in); got != want {
			t.Errorf("Group(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestCurrencies(t *testing.T) {
	for code, mu := range map[string]int{
		"CNY": 2, "EUR": 2, "USD": 2, "JPY": 0, "KRW": 0, "BHD": 3, "KWD": 3,
		"CLF": 4, "UYW": 4, "CHF": 2, "GBP": 2, "HKD": 2, "SGD": 2, "XCG": 2, "ZWG": 2,
	} {
		c, ok := LookupCurrency(code)
		if !ok || c.MinorUnits != mu || !IsCurrency(code) {
			t.Errorf("LookupCurrency(%s) = %+v, %v; want minor units %d", code, c, ok, mu)
		}
	}
	for _, code := range []string{"eur", "EURO", "", "ABC", "HRK", "ZWL", "VEF", "XAU", "XXX", "XTS"} {
		if IsCurrency(code) {
			t.Errorf("IsCurrency(%q) = true", code)
		}
	}
	if c, ok := LookupCurrency("XAU"); !ok || c.Priceable() {
		t.Errorf("XAU: %+v %v, want valid ISO 4217 but not priceable", c, ok)
	}
	all := Currencies()
	if len(all) < 170 {
		t.Errorf("only %d currencies; the active ISO 4217 list has about 180", len(all))
	}
	for _, c := range all {
		if len(c.Code) != 3 || strings.ToUpper(c.Code) != c.Code {
			t.Errorf("bad code %q", c.Code)
		}
	}
}
