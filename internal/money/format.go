package money

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Display rule (decided; the spec only fixes the rounding):
//   - an amount shows exactly two decimals (docs/RULES.md §1.3 rounds every amount to
//     0.01 whatever the currency, so a report adds up to the cent even in JPY);
//     FormatPlaces shows another count, e.g. four for per-hour rates;
//   - thousands are grouped with "," and the decimal mark is "." in both
//     zh-CN and en (that is how both locales write money);
//   - where the locale has a symbol that names the currency unambiguously
//     it is put in front with no space: zh-CN ¥1,234.50 (CNY), €94.20,
//     US$12.00; en CN¥1,234.50, €94.20, $12.00. In zh-CN "¥" means CNY
//     and JPY is "JP¥"; in en "¥" means JPY and CNY is "CN¥" (CLDR);
//   - every other currency is written as the number, a space and the ISO
//     code: "1,234.50 CHF";
//   - a minus sign goes first: "-¥1,234.50", "-1,234.50 CHF".

var symbolsZH = map[string]string{
	"CNY": "¥", "EUR": "€", "USD": "US$", "GBP": "£", "JPY": "JP¥",
	"HKD": "HK$",
}

var symbolsEN = map[string]string{
	"CNY": "CN¥", "EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥",
	"HKD": "HK$",
}

// Format renders amount in currency for locale ("zh-CN" or "en"; any tag
// starting with "zh" counts as Chinese, anything else as English) with two
// decimals, rounding half away from zero.
func Format(amount decimal.Decimal, currency, locale string) string {
	return FormatPlaces(amount, currency, locale, 2)
}

// FormatPlaces is Format with places decimal places.
func FormatPlaces(amount decimal.Decimal, currency, locale string, places int32) string {
	s := Fixed(amount, places)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	num := Group(s)
	symbols := symbolsEN
	if strings.HasPrefix(strings.ToLower(locale), "zh") {
		symbols = symbolsZH
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if sym, ok := symbols[currency]; ok {
		return sign + sym + num
	}
	return sign + num + " " + currency
}

// Group inserts "," between groups of three integer digits of a plain
// non-negative decimal string: "1234567.5" → "1,234,567.5".
func Group(s string) string {
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(intPart)/3)
	first := len(intPart) % 3
	if first == 0 {
		first = 3
	}
	b.WriteString(intPart[:first])
	for i := first; i < len(intPart); i += 3 {
		b.WriteByte(',')
		b.WriteString(intPart[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}
