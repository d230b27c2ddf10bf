// Package tco is the pure TCO engine (docs/RULES.md §1–§6): it prices one GPU rental
// quote for one usage profile in every billing mode the quote offers, adds
// the twelve hidden-cost lines, normalises tax and currency, rounds like a
// ledger and reports totals, break-even figures and risk flags. It does no
// IO; every amount is a decimal.Decimal parsed from a string.
package tco

import (
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// Quote is one platform offer for one instance configuration, as of a date.
// Prices are in Currency. Field comments name the API's JSON field.
type Quote struct {
	// Currency is the ISO 4217 code of every price of the quote (currency).
	Currency string
	// GPUModel is the vendor's name of the card (gpu_model).
	GPUModel string
	// GPUCount is the number of GPUs per instance, ≥ 1 (gpu_count).
	GPUCount int
	// VRAMGB is the memory of one GPU in GB; absent when not stated (vram_gb).
	VRAMGB decimal.NullDecimal
	// Sharing is dedicated, shared or vgpu; empty when not stated (sharing).
	Sharing catalog.Sharing
	// Hourly is the on-demand price per instance-hour (hourly).
	Hourly decimal.NullDecimal
	// Monthly is the price per instance-month (monthly).
	Monthly decimal.NullDecimal
	// Yearly is the price per instance-year (yearly).
	Yearly decimal.NullDecimal
	// SpotHourly is the preemptible price per instance-hour (spot_hourly).
	SpotHourly decimal.NullDecimal
	// BillingGranularity applies to hourly and spot prices (billing_granularity).
	BillingGranularity catalog.Granularity
	// IncludedMbps is the bandwidth included in the price (included_mbps).
	IncludedMbps decimal.Decimal
	// IncludedSystemDiskGB is the system disk included (included_system_disk_gb).
	IncludedSystemDiskGB decimal.Decimal
	// IncludedDataDiskGB is the data disk included (included_data_disk_gb).
	IncludedDataDiskGB decimal.Decimal
	// CommitmentMonths is the minimum term of monthly billing, 0 for none
	// (commitment_months).
	CommitmentMonths int
	// EarlyTerminationPct is the early-termination penalty in percent, 0–100
	// (early_termination_pct).
	EarlyTerminationPct decimal.NullDecimal
	// Deposit is the deposit asked for, in the quote currency (deposit).
	Deposit decimal.NullDecimal
	// DepositRefundable is nil when not stated (deposit_refundable).
	DepositRefundable *bool
	// BalanceWithdrawable is nil when not stated (balance_withdrawable).
	BalanceWithdrawable *bool
	// PricesIncludeTax says whether prices are tax-inclusive (prices_include_tax).
	PricesIncludeTax bool
	// TaxRate is the tax rate as a fraction, e.g. 0.06 (tax_rate). Required
	// when PricesIncludeTax is false.
	TaxRate decimal.NullDecimal
	// AsOf is the date the prices were seen; zero when not stated (as_of).
	AsOf time.Time
	// Lines are the hidden-cost answers, at most one per item, in any order;
	// missing items count as unconfirmed (lines).
	Lines []Line
}

// Line is the vendor's answer for one hidden-cost item.
type Line struct {
	// Item is the hidden-cost item (item).
	Item catalog.ItemKey
	// Status is included, charged, unconfirmed or not_applicable (status).
	Status catalog.Status
	// Unit is the pricing unit; empty means the item's default unit (unit).
	Unit catalog.Unit
	// UnitPrice is the price per unit; required when charged (unit_price).
	UnitPrice decimal.NullDecimal
	// FreeAllowance is subtracted from the quantity first (free_allowance).
	FreeAllowance decimal.Decimal
	// Note is free text (note).
	Note string
}

// Profile describes the planned usage of ONE instance; everything scales
// with Instances. Field comments name the API's JSON field.
type Profile struct {
	// HoursPerMonth is H, running hours per month, 0 < H ≤ 730 (hours_per_month).
	HoursPerMonth decimal.Decimal
	// Months is the horizon M, ≥ 1 (months).
	Months int
	// Instances is N, ≥ 1 (instances).
	Instances int
	// StartsPerMonth is S; 0 means the default 1 (starts_per_month).
	StartsPerMonth int
	// BetweenRuns is release or keep_stopped; empty means release (between_runs).
	BetweenRuns catalog.BetweenRuns
	// Resumable says jobs resume from checkpoints, so spot is allowed (resumable).
	Resumable bool
	// SpotOverhead is the extra share of hours spot costs in rework; absent
	// means 0.10 (spot_overhead).
	SpotOverhead decimal.NullDecimal
	// Mbps is the public bandwidth needed (mbps).
	Mbps decimal.Decimal
	// SystemDiskGB is the system disk needed (system_disk_gb).
	SystemDiskGB decimal.Decimal
	// DataDiskGB is the data disk needed (data_disk_gb).
	DataDiskGB decimal.Decimal
	// ObjectStorageGB is the object or shared storage kept (object_storage_gb).
	ObjectStorageGB decimal.Decimal
	// SnapshotGB is the snapshot size kept (snapshot_gb).
	SnapshotGB decimal.Decimal
	// ImageGB is the custom-image size kept (image_gb).
	ImageGB decimal.Decimal
	// EgressGBPerMonth is the data downloaded per month (egress_gb_per_month).
	EgressGBPerMonth decimal.Decimal
	// MigrationGB is moved in at the start plus out at the end, once (migration_gb).
	MigrationGB decimal.Decimal
	// PublicIPs is the number of public IPs held (public_ips).
	PublicIPs int
	// TokensPerSecondPerGPU is the measured throughput, if known
	// (tokens_per_second_per_gpu).
	TokensPerSecondPerGPU decimal.NullDecimal
	// PerformanceRatio is measured ÷ reference from a trial, if known
	// (performance_ratio).
	PerformanceRatio decimal.NullDecimal
	// Task is the kind of work, for the VRAM floor; empty when not given (task).
	Task catalog.Task
	// ParamsBillions is the model size in billions of parameters (params_billions).
	ParamsBillions decimal.NullDecimal
	// Precision is the weight precision; empty means the task's usual one (precision).
	Precision catalog.Precision
}

// ReferencePrice is an editor's reference price for one item and unit, used
// to price unconfirmed lines into the pessimistic TCO.
type ReferencePrice struct {
	// Item is the hidden-cost item (item).
	Item catalog.ItemKey
	// Unit is the pricing unit (unit).
	Unit catalog.Unit
	// UnitPrice is the price per unit (unit_price).
	UnitPrice decimal.Decimal
	// Currency is the price's currency; empty means the quote's currency. A
	// reference in another currency than the quote's is not used: convert it
	// first (ConvertReferences).
	Currency string
	// Source says whose figure it is: an editor's reference price, or the
	// market reference (the highest price a published quote charges).
	Source ReferenceSource
	// QuoteID names the published quote a market reference comes from.
	QuoteID int64
}

// ReferenceSource says whose figure a reference price is.
type ReferenceSource string

// The sources of a reference price (docs/RULES.md §3.6): the editors'
// reference prices come first; the market reference stands in for an item
// editors keep none for.
const (
	SourceEditor ReferenceSource = "editor"
	SourceMarket ReferenceSource = "market"
)

// FX is a dated exchange rate: one unit of the quote currency is Rate units
// of the report currency.
type FX struct {
	// Rate converts quote currency → report currency.
	Rate decimal.Decimal
	// Date is the day the rate is from.
	Date time.Time
}

// Options are the evaluation's settings that are not part of the quote or
// the profile.
type Options struct {
	// ReportCurrency is the currency of the result; empty means the quote's.
	ReportCurrency string
	// FXRate converts quote currency → report currency. Absent: 1 when the
	// currencies match, else Rates[quote currency].
	FXRate decimal.NullDecimal
	// FXDate is the date of FXRate; zero when not known.
	FXDate time.Time
	// Rates holds dated rates into ReportCurrency keyed by quote currency,
	// for comparing quotes in several currencies (Compare).
	Rates map[string]FX
	// ReferencePrices price unconfirmed lines for the pessimistic TCO.
	ReferencePrices []ReferencePrice
	// Today is the evaluation date for quote_stale_90d; zero skips the check.
	Today time.Time
	// VRAMFloorGB overrides the floor estimated from the profile's task.
	VRAMFloorGB decimal.NullDecimal
}

// Result is the TCO of one quote for one profile. Money is in
// ReportCurrency, rounded half-up to 0.01; hours to 0.01; per-hour rates,
// cost per million tokens and HiddenShare to 0.0001.
type Result struct {
	// QuoteCurrency is the currency the quote's prices are in.
	QuoteCurrency string
	// ReportCurrency is the currency of every amount of the result.
	ReportCurrency string
	// FXRate is the rate used, quote currency → report currency.
	FXRate decimal.Decimal
	// FXDate is the rate's date; zero when not known (same currency, or a
	// rate given without a date).
	FXDate time.Time
	// ChosenMode is the allowed mode with the lowest TCO.
	ChosenMode catalog.Mode
	// BreakEvenHours is monthly ÷ hourly, when both exist and hourly > 0.
	BreakEvenHours decimal.NullDecimal
	// BreakEvenMonths is yearly ÷ monthly, when both exist and monthly > 0.
	BreakEvenMonths decimal.NullDecimal
	// Modes lists every mode the quote prices, in catalog.Modes order.
	Modes []ModeResult
	// ComputeTotal is the chosen mode's compute amount.
	ComputeTotal decimal.Decimal
	// HiddenTotal is the sum of the chosen mode's monthly hidden lines.
	HiddenTotal decimal.Decimal
	// OneOffTotal is the sum of the one-off lines (data migration).
	OneOffTotal decimal.Decimal
	// TCO is ComputeTotal + HiddenTotal + OneOffTotal (confirmed TCO).
	TCO decimal.Decimal
	// TCOPessimistic is TCO plus unconfirmed lines at reference prices.
	TCOPessimistic decimal.Decimal
	// PessimisticUnpriced are the items, in table order, that
	// TCOPessimistic leaves out: unconfirmed, with a quantity above 0 (the
	// bundled add-on always), and no reference price of either kind.
	PessimisticUnpriced []catalog.ItemKey
	// HiddenSharePessimistic is (TCOPessimistic − ComputeTotal) ÷
	// TCOPessimistic, 4 places; absent when TCOPessimistic is 0.
	HiddenSharePessimistic decimal.NullDecimal
	// HiddenShare is (HiddenTotal + OneOffTotal) ÷ TCO; absent when TCO is 0.
	HiddenShare decimal.NullDecimal
	// EffectivePerGPUHour is TCO ÷ (H × M × N × gpu_count).
	EffectivePerGPUHour decimal.Decimal
	// PerReferenceGPUHour is EffectivePerGPUHour ÷ min(performance_ratio, 1).
	PerReferenceGPUHour decimal.NullDecimal
	// CostPerMillionTokens is EffectivePerGPUHour ÷ (tokens/s × 3600) × 10⁶.
	CostPerMillionTokens decimal.NullDecimal
	// Lines are the twelve hidden-cost lines of the chosen mode, table order.
	Lines []LineResult
	// Flags are the risk flags raised, in catalog.Flags order.
	Flags []catalog.Flag
	// VRAMFloorGB is the floor the quote was checked against, when known.
	VRAMFloorGB decimal.NullDecimal
}

// ModeResult is the TCO of one billing mode.
type ModeResult struct {
	// Mode is the billing mode.
	Mode catalog.Mode
	// Status is allowed, or not_allowed (spot for a profile that cannot resume).
	Status catalog.ModeStatus
	// BillableHoursPerMonth is B per instance for hourly and spot: exact, or
	// rounded to 0.01 when minute billing makes it a non-terminating number
	// of hours (the amount always uses the exact B); absent for monthly and
	// yearly.
	BillableHoursPerMonth decimal.NullDecimal
	// BilledPeriods is the number of months (monthly) or years (yearly)
	// paid for; 0 for hourly and spot.
	BilledPeriods int
	// ComputeTotal is the compute amount over the horizon.
	ComputeTotal decimal.Decimal
	// HiddenTotal is the monthly hidden lines over the horizon in this mode.
	HiddenTotal decimal.Decimal
	// OneOffTotal is the one-off lines.
	OneOffTotal decimal.Decimal
	// TCO is ComputeTotal + HiddenTotal + OneOffTotal.
	TCO decimal.Decimal
	// TCOPessimistic is TCO plus unconfirmed lines at reference prices.
	TCOPessimistic decimal.Decimal
	// PessimisticUnpriced are the items, in table order, that
	// TCOPessimistic leaves out: unconfirmed, with a quantity above 0 (the
	// bundled add-on always), and no reference price of either kind.
	PessimisticUnpriced []catalog.ItemKey
	// HiddenSharePessimistic is (TCOPessimistic − ComputeTotal) ÷
	// TCOPessimistic, 4 places; absent when TCOPessimistic is 0.
	HiddenSharePessimistic decimal.NullDecimal
}

// LineResult is one hidden-cost line of a result.
type LineResult struct {
	// Item is the hidden-cost item.
	Item catalog.ItemKey
	// Status is the line's status; items the quote left out are unconfirmed.
	Status catalog.Status
	// Quantity is per instance per month (data migration: once), after the
	// free allowance. Exact, except stopped hours under minute granularity
	// that do not end in a decimal, which are rounded to 0.01 here; the
	// amount always uses the exact quantity.
	Quantity decimal.Decimal
	// Unit is the pricing unit: the line's, else the reference price's for an
	// unconfirmed line priced with one, else the item's default.
	Unit catalog.Unit
	// UnitPrice is the vendor's price in the quote currency, when given.
	UnitPrice decimal.NullDecimal
	// FreeAllowance is the allowance subtracted from the quantity.
	FreeAllowance decimal.Decimal
	// Amount is the confirmed cost over the horizon in the report currency.
	Amount decimal.Decimal
	// ReferenceUnitPrice is the reference price used for an unconfirmed line.
	ReferenceUnitPrice decimal.NullDecimal
	// ReferenceAmount is that line's amount at the reference price, counted
	// in TCOPessimistic only.
	ReferenceAmount decimal.NullDecimal
	// ReferenceSource and ReferenceQuoteID say whose reference price was
	// used (the market reference names its quote).
	ReferenceSource  ReferenceSource
	ReferenceQuoteID int64
	// OneOff is true for lines charged once over the horizon.
	OneOff bool
}

// ConvertReferences are refs as the engine reads them for a quote in
// quoteCurrency: a reference in another currency converted at the dated
// rate from its currency into the quote's (rate returns it; exact, no
// rounding before the line's own), one in the quote's currency as it is,
// and one with no rate left out — it does not exist for that quote
// (docs/RULES.md §3.6). Of several references of one source for the same
// item and unit (editors' prices in several currencies, say), only the
// highest is kept, where the first came: the engine would pick it anyway,
// and the list stays within MaxReferencePrices however many currencies
// there are.
func ConvertReferences(refs []ReferencePrice, quoteCurrency string, rate func(from, to string) (decimal.Decimal, bool)) []ReferencePrice {
	type key struct {
		item   catalog.ItemKey
		unit   catalog.Unit
		market bool
	}
	out := make([]ReferencePrice, 0, len(refs))
	at := map[key]int{}
	for _, r := range refs {
		if r.Currency != "" && r.Currency != quoteCurrency {
			k, ok := rate(r.Currency, quoteCurrency)
			if !ok {
				continue
			}
			r.UnitPrice, r.Currency = r.UnitPrice.Mul(k), quoteCurrency
		}
		k := key{r.Item, r.Unit, r.Source == SourceMarket}
		if i, seen := at[k]; seen {
			if r.UnitPrice.GreaterThan(out[i].UnitPrice) {
				out[i] = r
			}
			continue
		}
		at[k] = len(out)
		out = append(out, r)
	}
	return out
}
