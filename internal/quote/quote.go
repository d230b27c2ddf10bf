// Package quote is a vendor's offer as gpuquote keeps it: one dated
// version of one instance configuration with its prices, contract terms
// and twelve hidden-cost lines; the one validation every way of entering a
// quote goes through (the form, the CSV import); and the CSV format.
// It does no IO: the store persists quotes, the server decodes requests.
package quote

import (
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// States of a quote version (docs/RULES.md §7.1): a draft is edited in
// place; publishing archives the series' previous version; a published or
// archived version never changes again.
const (
	Draft     = "draft"
	Published = "published"
	Archived  = "archived"
	// Proposed, Returned and Reviewed are the states of a proposal
	// (docs/RULES.md §18.1): waiting for an editor, sent back to its
	// author with a comment, and published by an editor as the series'
	// next version (the row keeps the vendor's words).
	Proposed = "proposed"
	Returned = "returned"
	Reviewed = "reviewed"
)

// MarketStates are the states the market lists, compares and exports for
// everyone: published versions and the archived ones before them.
var MarketStates = []string{Published, Archived}

// InMarket reports whether a quote in state is part of the market
// (published or archived), not a draft or a proposal.
func InMarket(state string) bool { return state == Published || state == Archived }

// IsProposal reports whether state is one of a proposal's states.
func IsProposal(state string) bool {
	return state == Proposed || state == Returned || state == Reviewed
}

// MayRead is who may read a quote version (docs/RULES.md §18.1): a
// published or archived one, everyone signed in; a draft, editors and
// admins; a proposal (proposed, returned or reviewed), its author, editors
// and admins. userID 0 is nobody signed in, who reads none.
func MayRead(q Quote, userID int64, role string) bool {
	if userID == 0 {
		return false
	}
	editor := role == "editor" || role == "admin"
	switch {
	case InMarket(q.State):
		return true
	case IsProposal(q.State):
		return editor || q.CreatedBy == userID
	default:
		return editor
	}
}

// InvoiceTypes are the invoice kinds a quote may name ("" = not stated).
var InvoiceTypes = []string{"vat_special", "vat_general", "commercial", "none"}

// Line is one of the twelve hidden-cost lines of a quote.
type Line struct {
	Item          string              `json:"item"`
	Status        string              `json:"status"`
	Unit          string              `json:"unit,omitempty"`
	UnitPrice     decimal.NullDecimal `json:"unit_price"`
	FreeAllowance decimal.Decimal     `json:"free_allowance"`
	Note          string              `json:"note,omitempty"`
	InWriting     bool                `json:"in_writing"`
}

// CountsAsUnconfirmed applies the guide's rule to a line: a line without a
// written answer is treated as unconfirmed. A "charged" line keeps its
// published price (the cost is known either way); an "included" or "not
// applicable" claim counts only in writing, otherwise the line is priced
// and asked about as unconfirmed (docs/RULES.md §3.1).
func (l Line) CountsAsUnconfirmed() bool {
	return !l.InWriting && (l.Status == "included" || l.Status == "not_applicable")
}

// Quote is one dated version of a platform's offer. Decimals are exact
// (numeric ↔ decimal.Decimal, never float).
type Quote struct {
	ID            int64  `json:"id"`
	SeriesID      int64  `json:"series_id"`
	Version       int    `json:"version"`
	PredecessorID int64  `json:"predecessor_id,omitempty"`
	State         string `json:"state"`
	PlatformID    int64  `json:"platform_id"`
	GPUModelID    int64  `json:"gpu_model_id"`
	Label         string `json:"label"`

	GPUCount             int                 `json:"gpu_count"`
	VRAMGB               decimal.NullDecimal `json:"vram_gb"`
	Sharing              string              `json:"sharing"`
	CPUCores             *int                `json:"cpu_cores"`
	RAMGB                decimal.NullDecimal `json:"ram_gb"`
	IncludedSystemDiskGB decimal.Decimal     `json:"included_system_disk_gb"`
	IncludedDataDiskGB   decimal.Decimal     `json:"included_data_disk_gb"`
	IncludedMbps         decimal.Decimal     `json:"included_mbps"`
	Region               string              `json:"region"`

	Currency           string              `json:"currency"`
	Hourly             decimal.NullDecimal `json:"hourly"`
	Monthly            decimal.NullDecimal `json:"monthly"`
	Yearly             decimal.NullDecimal `json:"yearly"`
	SpotHourly         decimal.NullDecimal `json:"spot_hourly"`
	BillingGranularity string              `json:"billing_granularity"`

	CommitmentMonths    int                 `json:"commitment_months"`
	EarlyTerminationPct decimal.NullDecimal `json:"early_termination_pct"`
	Deposit             decimal.NullDecimal `json:"deposit"`
	DepositRefundable   *bool               `json:"deposit_refundable"`
	BalanceWithdrawable *bool               `json:"balance_withdrawable"`
	PricesIncludeTax    bool                `json:"prices_include_tax"`
	TaxRate             decimal.Decimal     `json:"tax_rate"`
	InvoiceType         string              `json:"invoice_type"`
	SLAAvailabilityPct  decimal.NullDecimal `json:"sla_availability_pct"`
	SLACompensation     string              `json:"sla_compensation"`

	AsOf   time.Time `json:"as_of"`
	Source string    `json:"source"`
	Notes  string    `json:"notes"`

	LockVersion int        `json:"lock_version"`
	CreatedBy   int64      `json:"-"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	PublishedAt *time.Time `json:"published_at,omitempty"`
	ArchivedAt  *time.Time `json:"archived_at,omitempty"`

	Lines []Line `json:"lines"`

	// Read-only names joined from platforms and gpu_models.
	PlatformNameZH string `json:"-"`
	PlatformNameEN string `json:"-"`
	GPUVendor      string `json:"-"`
	GPUName        string `json:"-"`
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
	{Name: "notes", Column: "notes", Kind: KindText, Group: GroupSample, LabelID: "quote.field.notes", Max: 4000, Lines: true,
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

// Version is one entry of a series' history.
type Version struct {
	ID          int64
	Version     int
	State       string
	AsOf        time.Time
	Hourly      decimal.NullDecimal
	Monthly     decimal.NullDecimal
	Currency    string
	UpdatedAt   time.Time
	PublishedAt *time.Time
}
