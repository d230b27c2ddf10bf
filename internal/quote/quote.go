// Package quote is a vendor's offer as gpuquote keeps it: one dated
// version of one instance configuration with its prices, contract terms
// and twelve hidden-cost lines; the one validation every way of entering a
// quote goes through (the form, the CSV import); and the CSV format.
// It does no IO: the store persists quotes, the server decodes requests.
package quote

import (
	"time"

	"github.com/shopspring/decimal"
)

// States of a quote version (docs/RULES.md §7.1): a draft is edited in
// place; publishing archives the series' previous version; a published or
// archived version never changes again.
const (
	Draft     = "draft"
	Published = "published"
	Archived  = "archived"
)

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
