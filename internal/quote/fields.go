package quote

import (
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// Kind is how a quote field is typed, read and shown.
type Kind int

// The kinds of quote field.
const (
	// KindRef is a platform or GPU model: an id, or (in a CSV) a name.
	KindRef Kind = iota + 1
	// KindText is free text of at most Max characters.
	KindText
	// KindCurrency is an ISO 4217 code prices may be given in.
	KindCurrency
	// KindInt is a whole number from Min to Max.
	KindInt
	// KindDecimal is an exact decimal of at most Places places.
	KindDecimal
	// KindChoice is one of Choices.
	KindChoice
	// KindYesNo is yes, no or not stated.
	KindYesNo
	// KindBool is yes or no, always stated.
	KindBool
	// KindDate is a day, not after today.
	KindDate
)

// Groups of the entry form, in order: the offer, its prices, its contract
// terms, and the sample (when and where the price was seen).
const (
	GroupOffer  = "offer"
	GroupPrices = "prices"
	GroupTerms  = "terms"
	GroupSample = "sample"
)

// Groups lists the form's groups in order.
var Groups = []string{GroupOffer, GroupPrices, GroupTerms, GroupSample}

// Field describes one field of a quote once, for every place that reads,
// writes or shows it: the entry form and its page, the CSV format, the
// store's columns and the quote page. Adding a field to Quote means adding
// it here (and to the frozen copy in package report); a test walks Quote's
// struct fields and fails for one that is missing.
type Field struct {
	// Name is the form field and CSV column; Column is the database column.
	Name, Column string
	Kind         Kind
	// Group is the form section; LabelID and HintID are catalog messages.
	Group, LabelID, HintID string
	// Required refuses an empty value.
	Required bool
	// Min and Max bound a whole number; Max bounds a text's length.
	Min, Max int
	// Lines marks a text of several lines (the notes): it keeps its line
	// breaks, where any other text is one line (docs/RULES.md §16.4).
	Lines bool
	// Places, Positive and MaxValue describe a decimal: at most Places
	// places, > 0 when Positive, at most MaxValue when set; every decimal
	// is also ≥ 0 and below MaxAmount.
	Places   int
	Positive bool
	MaxValue decimal.NullDecimal
	// Choices are a choice's values; ChoicePrefix + value is a value's
	// catalog label; BlankID labels the empty choice of an optional one.
	Choices      []string
	ChoicePrefix string
	BlankID      string
	// Nullable fields are stored as NULL when empty.
	Nullable bool
	// Money marks an amount in the quote's currency (shown with it).
	Money bool
	// Applies, when set, says whether the field means anything for a
	// quote (a tax rate only for prices without tax); a page leaves it out
	// otherwise.
	Applies func(q *Quote) bool
	// Value points at the field in a quote (its Go type is the field's
	// storage type: an optional value is a pointer or a NullDecimal).
	Value func(q *Quote) any
}

// MaxAmount is beyond any real price or quantity: a quote's decimals are
// below it.
var MaxAmount = decimal.New(1, 12)

// PricePlaces is the most decimal places of a price.
const PricePlaces = 6

// columnDigits is how many digits before the decimal point each decimal
// column of quotes and quote_lines holds: p − s of its NUMERIC(p, s) in
// migrations/00003_market.sql. A form or CSV value with more is refused
// with a message, never left for the database to refuse (docs/RULES.md
// §16.4); a test reads the migration and compares.
var columnDigits = map[string]int{
	"vram_gb": 8, "ram_gb": 8,
	"included_system_disk_gb": 12, "included_data_disk_gb": 12, "included_mbps": 12,
	"hourly": 14, "monthly": 14, "yearly": 14, "spot_hourly": 14, "deposit": 14,
	"early_termination_pct": 4, "tax_rate": 2, "sla_availability_pct": 3,
	// quote_lines
	"unit_price": 14, "free_allowance": 14,
}

var hundred = decimal.NewNullDecimal(decimal.New(100, 0))

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// LineFields are the fields of each of the twelve lines, named
// "<item>.<field>" in forms and CSV columns, in CSV order.
var LineFields = []string{"status", "unit", "unit_price", "free_allowance", "note", "in_writing"}

// Line bounds: a note's length; a line's prices and allowances have
// PricePlaces places.
const lineNoteMax = 500

// IsLineField reports whether name is one of LineFields.
func IsLineField(name string) bool { return slices.Contains(LineFields, name) }

// IsFormLineField reports whether field names a field of one of the
// twelve lines as forms and CSV columns do: "<item>.<field>".
func IsFormLineField(field string) bool {
	item, name, ok := strings.Cut(field, ".")
	if !ok {
		return false
	}
	_, known := catalog.LookupItem(catalog.ItemKey(item))
	return known && IsLineField(name)
}

// FieldByName returns the field named name.
func FieldByName(name string) (Field, bool) {
	for _, f := range Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}
