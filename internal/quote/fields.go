package quote

import (
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

var hundred = decimal.NewNullDecimal(decimal.New(100, 0))

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// Fields are the quote's own fields in CSV column order (the lines follow,
// see LineFields). The order is the CSV format's, so it never changes;
// FormOrder and DetailOrder place the fields on the pages.
var Fields = []Field{
	{Name: "platform", Column: "platform_id", Kind: KindRef, Group: GroupOffer, LabelID: "quote.field.platform", Required: true,
		Value: func(q *Quote) any { return &q.PlatformID }},
	{Name: "gpu_model", Column: "gpu_model_id", Kind: KindRef, Group: GroupOffer, LabelID: "quote.field.gpu_model", Required: true,
		Value: func(q *Quote) any { return &q.GPUModelID }},
	{Name: "label", Column: "label", Kind: KindText, Group: GroupOffer, LabelID: "quote.field.label", HintID: "quote.hint.label", Max: 200,
		Value: func(q *Quote) any { return &q.Label }},
	{Name: "gpu_count", Column: "gpu_count", Kind: KindInt, Group: GroupOffer, LabelID: "calc.quote.gpu_count", Required: true, Min: 1, Max: 1024,
		Value: func(q *Quote) any { return &q.GPUCount }},
	{Name: "vram_gb", Column: "vram_gb", Kind: KindDecimal, Group: GroupOffer, LabelID: "calc.quote.vram_gb", HintID: "quote.hint.vram_gb",
		Places: 2, Positive: true, Value: func(q *Quote) any { return &q.VRAMGB }},
	{Name: "sharing", Column: "sharing", Kind: KindChoice, Group: GroupOffer, LabelID: "calc.quote.sharing", Required: true,
		Choices: strs(catalog.Sharings), ChoicePrefix: "sharing.", Value: func(q *Quote) any { return &q.Sharing }},
	{Name: "cpu_cores", Column: "cpu_cores", Kind: KindInt, Group: GroupOffer, LabelID: "quote.field.cpu_cores", Min: 1, Max: 100000,
		Value: func(q *Quote) any { return &q.CPUCores }},
	{Name: "ram_gb", Column: "ram_gb", Kind: KindDecimal, Group: GroupOffer, LabelID: "quote.field.ram_gb", Places: 2,
		Value: func(q *Quote) any { return &q.RAMGB }},
	{Name: "included_system_disk_gb", Column: "included_system_disk_gb", Kind: KindDecimal, Group: GroupPrices,
		LabelID: "calc.quote.included_system_disk_gb", Places: 2, Value: func(q *Quote) any { return &q.IncludedSystemDiskGB }},
	{Name: "included_data_disk_gb", Column: "included_data_disk_gb", Kind: KindDecimal, Group: GroupPrices,
		LabelID: "calc.quote.included_data_disk_gb", Places: 2, Value: func(q *Quote) any { return &q.IncludedDataDiskGB }},
	{Name: "included_mbps", Column: "included_mbps", Kind: KindDecimal, Group: GroupPrices, LabelID: "calc.quote.included_mbps",
		Places: 2, Value: func(q *Quote) any { return &q.IncludedMbps }},
	{Name: "region", Column: "region", Kind: KindText, Group: GroupOffer, LabelID: "quote.field.region", Max: 100,
		Value: func(q *Quote) any { return &q.Region }},
	{Name: "currency", Column: "currency", Kind: KindCurrency, Group: GroupPrices, LabelID: "calc.quote.currency",
		HintID: "calc.hint.currency", Required: true, Value: func(q *Quote) any { return &q.Currency }},
	{Name: "hourly", Column: "hourly", Kind: KindDecimal, Money: true, Group: GroupPrices, LabelID: "calc.quote.hourly", Places: PricePlaces,
		Value: func(q *Quote) any { return &q.Hourly }},
	{Name: "monthly", Column: "monthly", Kind: KindDecimal, Money: true, Group: GroupPrices, LabelID: "calc.quote.monthly", Places: PricePlaces,
		Value: func(q *Quote) any { return &q.Monthly }},
	{Name: "yearly", Column: "yearly", Kind: KindDecimal, Money: true, Group: GroupPrices, LabelID: "calc.quote.yearly", Places: PricePlaces,
		Value: func(q *Quote) any { return &q.Yearly }},
	{Name: "spot_hourly", Column: "spot_hourly", Kind: KindDecimal, Money: true, Group: GroupPrices, LabelID: "calc.quote.spot_hourly",
		Places: PricePlaces, Value: func(q *Quote) any { return &q.SpotHourly }},
	{Name: "billing_granularity", Column: "billing_granularity", Kind: KindChoice, Group: GroupPrices,
		LabelID: "calc.quote.billing_granularity", Choices: strs(catalog.Granularities), ChoicePrefix: "granularity.",
		BlankID: "calc.unstated", Nullable: true, Value: func(q *Quote) any { return &q.BillingGranularity }},
	{Name: "commitment_months", Column: "commitment_months", Kind: KindInt, Group: GroupTerms, LabelID: "calc.quote.commitment_months",
		Min: 0, Max: 120, Value: func(q *Quote) any { return &q.CommitmentMonths }},
	{Name: "early_termination_pct", Column: "early_termination_pct", Kind: KindDecimal, Group: GroupTerms,
		LabelID: "calc.quote.early_termination_pct", HintID: "calc.hint.pct", Places: 2, MaxValue: hundred,
		Value: func(q *Quote) any { return &q.EarlyTerminationPct }},
	{Name: "deposit", Column: "deposit", Kind: KindDecimal, Money: true, Group: GroupTerms, LabelID: "calc.quote.deposit", Places: PricePlaces,
		Value: func(q *Quote) any { return &q.Deposit }},
	{Name: "deposit_refundable", Column: "deposit_refundable", Kind: KindYesNo, Group: GroupTerms,
		LabelID: "calc.quote.deposit_refundable", Value: func(q *Quote) any { return &q.DepositRefundable }},
	{Name: "balance_withdrawable", Column: "balance_withdrawable", Kind: KindYesNo, Group: GroupTerms,
		LabelID: "calc.quote.balance_withdrawable", Value: func(q *Quote) any { return &q.BalanceWithdrawable }},
	{Name: "prices_include_tax", Column: "prices_include_tax", Kind: KindBool, Group: GroupPrices,
		LabelID: "calc.quote.prices_include_tax", Required: true, Value: func(q *Quote) any { return &q.PricesIncludeTax }},
	{Name: "tax_rate", Column: "tax_rate", Kind: KindDecimal, Group: GroupPrices, LabelID: "calc.quote.tax_rate",
		HintID: "calc.hint.tax_rate", Places: 6, Applies: func(q *Quote) bool { return !q.PricesIncludeTax },
		Value: func(q *Quote) any { return &q.TaxRate }},
	{Name: "invoice_type", Column: "invoice_type", Kind: KindChoice, Group: GroupTerms, LabelID: "quote.field.invoice_type",
		Choices: InvoiceTypes, ChoicePrefix: "quote.invoice.", BlankID: "calc.unstated",
		Value: func(q *Quote) any { return &q.InvoiceType }},
	{Name: "sla_availability_pct", Column: "sla_availability_pct", Kind: KindDecimal, Group: GroupTerms,
		LabelID: "quote.field.sla_availability_pct", HintID: "quote.hint.sla", Places: 3, MaxValue: hundred,
		Value: func(q *Quote) any { return &q.SLAAvailabilityPct }},
	{Name: "sla_compensation", Column: "sla_compensation", Kind: KindText, Group: GroupTerms, LabelID: "quote.field.sla_compensation",
		Max: 500, Value: func(q *Quote) any { return &q.SLACompensation }},
	{Name: "as_of", Column: "as_of", Kind: KindDate, Group: GroupSample, LabelID: "calc.quote.as_of", HintID: "quote.hint.as_of",
		Required: true, Value: func(q *Quote) any { return &q.AsOf }},
	{Name: "source", Column: "source", Kind: KindText, Group: GroupSample, LabelID: "quote.field.source", HintID: "quote.hint.source",
		Required: true, Max: 500, Value: func(q *Quote) any { return &q.Source }},
	{Name: "notes", Column: "notes", Kind: KindText, Group: GroupSample, LabelID: "quote.field.notes", Max: 4000,
		Value: func(q *Quote) any { return &q.Notes }},
}

// FormOrder is the order of the fields on the entry form, group by group.
var FormOrder = []string{
	"platform", "gpu_model", "label", "gpu_count", "vram_gb", "sharing", "cpu_cores", "ram_gb", "region",
	"currency", "hourly", "monthly", "yearly", "spot_hourly", "billing_granularity", "prices_include_tax", "tax_rate",
	"included_mbps", "included_system_disk_gb", "included_data_disk_gb",
	"commitment_months", "early_termination_pct", "deposit", "deposit_refundable", "balance_withdrawable", "invoice_type",
	"sla_availability_pct", "sla_compensation",
	"as_of", "source", "notes",
}

// DetailOrder is the order of the facts on the quote's page (the offer's
// names, GPU count, label, date and source head the page; they are not
// repeated here).
var DetailOrder = []string{
	"currency", "hourly", "monthly", "yearly", "spot_hourly", "billing_granularity", "sharing", "vram_gb", "cpu_cores",
	"ram_gb", "region", "included_mbps", "included_system_disk_gb", "included_data_disk_gb", "prices_include_tax", "tax_rate",
	"commitment_months", "early_termination_pct", "deposit", "deposit_refundable", "balance_withdrawable", "invoice_type",
	"sla_availability_pct", "sla_compensation", "notes",
}

// LineFields are the fields of each of the twelve lines, named
// "<item>.<field>" in forms and CSV columns, in CSV order.
var LineFields = []string{"status", "unit", "unit_price", "free_allowance", "note", "in_writing"}

// Line bounds: a note's length; a line's prices and allowances have
// PricePlaces places.
const lineNoteMax = 500

// FieldByName returns the field named name.
func FieldByName(name string) (Field, bool) {
	for _, f := range Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}
