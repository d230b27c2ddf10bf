package web

import (
	"strconv"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
)

// specNumber renders a figure plainly: no exponent, no trailing zeros,
// thousands grouped ("4,800", "989.5").
func specNumber(d decimal.Decimal) string { return money.Group(money.String(d)) }

// SpecNumber is specNumber for handlers that format figures.
func SpecNumber(d decimal.Decimal) string { return specNumber(d) }

// SpecNullNumber is SpecNumber, empty when not known.
func SpecNullNumber(d decimal.NullDecimal) string {
	if !d.Valid {
		return ""
	}
	return specNumber(d.Decimal)
}

// SpecInt renders a whole number grouped, empty when not known.
func SpecInt(v *int) string {
	if v == nil {
		return ""
	}
	return money.Group(strconv.Itoa(*v))
}

// FormatMoney writes an amount in currency for a reader: at least 2
// places, more when the amount has them (a unit price of 0.471), grouped,
// with the currency's sign; "" when there is none.
func FormatMoney(lang i18n.Lang, d decimal.NullDecimal, currency string) string {
	if !d.Valid {
		return ""
	}
	return money.FormatPlaces(d.Decimal, currency, string(lang), max(2, int32(money.Places(d.Decimal))))
}
