package tco

import (
	"strings"
)

// FieldError is one bad input field. Field is the JSON path exactly as the
// evaluation API spells it ("quote.lines[3].unit_price",
// "profile.hours_per_month"); the empty path means the whole body. Code is
// stable; MessageID is "err.tco.<code>" and Args are its template data.
type FieldError struct {
	// Field is the JSON path of the bad value.
	Field string
	// Code is the stable machine code of the problem.
	Code string
	// MessageID is the i18n message ID, "err.tco." + Code.
	MessageID string
	// Args is the message's template data, e.g. {"Max": "6"}.
	Args map[string]any
}

// Error implements error for a single field error.
func (e FieldError) Error() string {
	var b strings.Builder
	if e.Field == "" {
		b.WriteString("body")
	} else {
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Code)
	return b.String()
}

// NewFieldError builds a FieldError with its message ID. args are
// alternating key, value pairs of template data.
func NewFieldError(field, code string, args ...string) FieldError {
	e := FieldError{Field: field, Code: code, MessageID: MessagePrefix + code}
	if len(args) > 0 {
		e.Args = make(map[string]any, len(args)/2)
		for i := 0; i+1 < len(args); i += 2 {
			e.Args[args[i]] = args[i+1]
		}
	}
	return e
}

// MessagePrefix starts the message ID of every error code.
const MessagePrefix = "err.tco."

// ValidationError is every bad field of one evaluation.
type ValidationError struct {
	// Fields lists the bad fields in input order.
	Fields []FieldError
}

// Error implements error.
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.Error()
	}
	return "tco: invalid input: " + strings.Join(parts, "; ")
}

// Error codes. Each has the message "err.tco.<code>" in every locale; the
// template data each uses is named beside it.
const (
	// CodeInvalidJSON: the body is not JSON (Detail).
	CodeInvalidJSON = "invalid_json"
	// CodeBodyTooLarge: the body is over the size limit (Max).
	CodeBodyTooLarge = "body_too_large"
	// CodeTooDeep: the JSON nests too deep (Max).
	CodeTooDeep = "too_deep"
	// CodeUnknownField: a field the API does not have.
	CodeUnknownField = "unknown_field"
	// CodeDuplicateKey: the same key twice in one JSON object.
	CodeDuplicateKey = "duplicate_key"
	// CodeWrongType: the JSON value has the wrong type (Expected).
	CodeWrongType = "wrong_type"
	// CodeDecimalAsNumber: a decimal sent as a JSON number; decimals are
	// strings (docs/RULES.md §19.1).
	CodeDecimalAsNumber = "decimal_as_number"
	// CodeUnstorableText: text holding a NUL byte or another control
	// character, or bytes that are not UTF-8 (docs/RULES.md §16.4).
	CodeUnstorableText = "unstorable_text"
	// CodeRequired: a required field is missing.
	CodeRequired = "required"
	// CodeInvalidDecimal: not a plain decimal number.
	CodeInvalidDecimal = "invalid_decimal"
	// CodeTooManyDecimals: more decimal places than allowed (Max).
	CodeTooManyDecimals = "too_many_decimals"
	// CodeNegative: a negative amount or quantity.
	CodeNegative = "negative"
	// CodeTooLarge: above the field's bound (Max).
	CodeTooLarge = "too_large"
	// CodeNotInteger: a whole number is needed.
	CodeNotInteger = "not_integer"
	// CodeIntOutOfRange: a whole number outside Min..Max.
	CodeIntOutOfRange = "int_out_of_range"
	// CodeHoursOutOfRange: hours per month outside (0, Max].
	CodeHoursOutOfRange = "hours_out_of_range"
	// CodeTaxRateOutOfRange: tax rate outside [0, 1).
	CodeTaxRateOutOfRange = "tax_rate_out_of_range"
	// CodeOutOfRange: a decimal outside Min..Max.
	CodeOutOfRange = "out_of_range"
	// CodeMustBePositive: must be greater than zero.
	CodeMustBePositive = "must_be_positive"
	// CodeTooLong: text longer than Max characters.
	CodeTooLong = "too_long"
	// CodeTooMany: more than Max entries.
	CodeTooMany = "too_many"
	// CodeInvalidDate: not a YYYY-MM-DD date.
	CodeInvalidDate = "invalid_date"
	// CodeUnknownCurrency: not an ISO 4217 currency that prices are quoted in (Value).
	CodeUnknownCurrency = "unknown_currency"
	// CodeUnknownItem: not one of the twelve hidden-cost items (Value).
	CodeUnknownItem = "unknown_item"
	// CodeDuplicateItem: the item appears twice (Item).
	CodeDuplicateItem = "duplicate_item"
	// CodeUnknownUnit: not a pricing unit (Value).
	CodeUnknownUnit = "unknown_unit"
	// CodeUnitNotAllowed: the unit is not one of the item's (Item, Unit, Allowed).
	CodeUnitNotAllowed = "unit_not_allowed"
	// CodeUnknownStatus: not a line status (Value).
	CodeUnknownStatus = "unknown_status"
	// CodeUnknownSharing: not dedicated, shared or vgpu (Value).
	CodeUnknownSharing = "unknown_sharing"
	// CodeUnknownGranularity: not second, minute or hour (Value).
	CodeUnknownGranularity = "unknown_granularity"
	// CodeUnknownBetweenRuns: not release or keep_stopped (Value).
	CodeUnknownBetweenRuns = "unknown_between_runs"
	// CodeUnknownTask: not a known task (Value).
	CodeUnknownTask = "unknown_task"
	// CodeUnknownPrecision: not a known precision (Value).
	CodeUnknownPrecision = "unknown_precision"
	// CodePrecisionNotForTask: the task cannot use the precision (Task, Precision).
	CodePrecisionNotForTask = "precision_not_for_task"
	// CodeNoPrice: none of hourly, monthly, yearly, spot_hourly is given.
	CodeNoPrice = "no_price"
	// CodeNoAllowedMode: only spot is priced and the profile cannot resume.
	CodeNoAllowedMode = "no_allowed_mode"
	// CodePriceOnFreeLine: a unit price on an included or not_applicable line (Status).
	CodePriceOnFreeLine = "price_on_free_line"
	// CodeAllowanceNotAllowed: a free allowance on an item that takes none
	// (Item), such as the bundled add-on (docs/RULES.md §3.4).
	CodeAllowanceNotAllowed = "allowance_not_allowed"
	// CodeFXRateRequired: currencies differ and no rate is known (From, To).
	CodeFXRateRequired = "fx_rate_required"
	// CodeFXRateNotOne: same currency but a rate other than 1.
	CodeFXRateNotOne = "fx_rate_not_one"
	// CodeDuplicateReference: two reference prices for one item and unit (Item, Unit).
	CodeDuplicateReference = "duplicate_reference"
	// CodeUnknownSource: a reference price's source is not editor or market (Value).
	CodeUnknownSource = "unknown_source"
	// CodeQuoteIDNotMarket: a quote id on a reference price that is not the
	// market reference.
	CodeQuoteIDNotMarket = "quote_id_not_market"
)

// Codes of the bill check (package billcheck, docs/RULES.md §23).
const (
	// CodeInvalidMonth: not a calendar month written YYYY-MM.
	CodeInvalidMonth = "invalid_month"
	// CodeUnknownBillItem: not a compute item, one of the twelve items or
	// other (Value).
	CodeUnknownBillItem = "unknown_bill_item"
)

// ErrorCodes lists every error code, for message-catalog checks.
var ErrorCodes = []string{
	CodeInvalidJSON, CodeBodyTooLarge, CodeTooDeep, CodeUnknownField, CodeDuplicateKey,
	CodeWrongType, CodeRequired, CodeInvalidDecimal, CodeTooManyDecimals, CodeNegative,
	CodeTooLarge, CodeNotInteger, CodeIntOutOfRange, CodeHoursOutOfRange,
	CodeTaxRateOutOfRange, CodeOutOfRange, CodeMustBePositive, CodeTooLong, CodeTooMany,
	CodeInvalidDate, CodeUnknownCurrency, CodeUnknownItem, CodeDuplicateItem,
	CodeUnknownUnit, CodeUnitNotAllowed, CodeUnknownStatus, CodeUnknownSharing,
	CodeUnknownGranularity, CodeUnknownBetweenRuns, CodeUnknownTask, CodeUnknownPrecision,
	CodePrecisionNotForTask, CodeNoPrice, CodeNoAllowedMode, CodePriceOnFreeLine,
	CodeFXRateRequired, CodeFXRateNotOne, CodeDuplicateReference, CodeUnknownSource,
	CodeQuoteIDNotMarket, CodeAllowanceNotAllowed, CodeCurrencyMismatch, CodeDecimalAsNumber,
	CodeUnstorableText, CodeInvalidMonth, CodeUnknownBillItem,
}
