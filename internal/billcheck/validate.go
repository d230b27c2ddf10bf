package billcheck

import (
	"strconv"
	"unicode/utf8"

	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// Bounds of a bill (docs/RULES.md §23.6), decided where the rules are
// silent: far above a real month's bill, far below what would strain a
// request.
const (
	// MaxLines bounds the lines of one bill.
	MaxLines = 10000
	// MaxDescriptionLen bounds a line's description, in characters.
	MaxDescriptionLen = 500
	// MaxAmountPlaces is the most decimal places of a billed amount: FOCUS
	// exports carry costs to more places than the cent.
	MaxAmountPlaces = tco.MaxPlaces
)

// Validate checks a quote, a bill and options and returns every bad field
// at once, with the JSON paths of POST /api/v1/bills/check ("quote.…",
// "bill.lines[3].amount", "fx_rate", "reference_prices[0].unit"). An empty
// result means Check will check the bill.
func Validate(q tco.Quote, b Bill, o Options) []tco.FieldError {
	errs := tco.ValidateQuote(q, o.ReferencePrices)
	add := func(field, code string, args ...string) {
		errs = append(errs, tco.NewFieldError(field, code, args...))
	}
	if b.Month.IsZero() {
		add("bill.month", tco.CodeRequired)
	}
	switch {
	case b.Currency == "":
		add("bill.currency", tco.CodeRequired)
	case !money.IsCurrency(b.Currency):
		add("bill.currency", tco.CodeUnknownCurrency, "Value", b.Currency)
	}
	if b.Instances < 1 || b.Instances > tco.MaxInstances {
		add("bill.instances", tco.CodeIntOutOfRange, "Min", "1", "Max", strconv.Itoa(tco.MaxInstances))
	}
	if b.Currency != "" && q.Currency != "" && b.Currency != q.Currency {
		switch {
		case o.FXRate.Sign() <= 0:
			add("fx_rate", tco.CodeFXRateRequired, "From", q.Currency, "To", b.Currency)
		case o.FXRate.GreaterThan(tco.MaxFXRate):
			add("fx_rate", tco.CodeTooLarge, "Max", money.String(tco.MaxFXRate))
		case money.Places(o.FXRate) > tco.MaxFXPlaces:
			add("fx_rate", tco.CodeTooManyDecimals, "Max", strconv.Itoa(tco.MaxFXPlaces))
		}
	}
	// Putting the quote's prices on the bill's tax basis needs its rate:
	// tco.ValidateQuote asks for it when the quote excludes tax; a quote
	// including tax checked against a bill without needs it too.
	if q.PricesIncludeTax && !b.PricesIncludeTax && !q.TaxRate.Valid {
		add("quote.tax_rate", tco.CodeRequired)
	}
	switch {
	case len(b.Lines) == 0:
		add("bill.lines", tco.CodeRequired)
	case len(b.Lines) > MaxLines:
		add("bill.lines", tco.CodeTooMany, "Max", strconv.Itoa(MaxLines))
		return errs
	}
	for i := range b.Lines {
		l := &b.Lines[i]
		path := "bill.lines[" + strconv.Itoa(i) + "]"
		switch {
		case l.Item == "":
			add(path+".item", tco.CodeRequired)
		case !l.Item.Valid():
			add(path+".item", tco.CodeUnknownBillItem, "Value", shorten(string(l.Item)))
		}
		switch {
		case l.Quantity.Sign() < 0:
			add(path+".quantity", tco.CodeNegative)
		case l.Quantity.GreaterThan(tco.MaxAmount):
			add(path+".quantity", tco.CodeTooLarge, "Max", money.String(tco.MaxAmount))
		case money.Places(l.Quantity) > tco.MaxPlaces:
			add(path+".quantity", tco.CodeTooManyDecimals, "Max", strconv.Itoa(tco.MaxPlaces))
		}
		switch {
		case l.Amount.Abs().GreaterThan(tco.MaxAmount):
			add(path+".amount", tco.CodeTooLarge, "Max", money.String(tco.MaxAmount))
		case money.Places(l.Amount) > MaxAmountPlaces:
			add(path+".amount", tco.CodeTooManyDecimals, "Max", strconv.Itoa(MaxAmountPlaces))
		}
		if utf8.RuneCountInString(l.Description) > MaxDescriptionLen {
			add(path+".description", tco.CodeTooLong, "Max", strconv.Itoa(MaxDescriptionLen))
		}
	}
	return errs
}

// shorten cuts a user-supplied value before it goes into a message.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return s
	}
	return string([]rune(s)[:40]) + "…"
}
