package tco

import "github.com/shopspring/decimal"

// Own is one server of an own-hardware option (docs/RULES.md §17.1), priced
// with the same usage profile as a rental: H hours a month, M months, N
// servers. Amounts are in Currency. Field comments name the API's JSON
// field.
type Own struct {
	// Currency is the ISO 4217 code of every amount (currency).
	Currency string
	// GPUModel is the card's name (gpu_model).
	GPUModel string
	// GPUCount is the number of GPUs in one server, ≥ 1 (gpu_count).
	GPUCount int
	// PurchasePrice is what one server with its GPUs costs, > 0
	// (purchase_price).
	PurchasePrice decimal.Decimal
	// ResidualPct is the value left at the end of life, 0–100, default 0
	// (residual_pct).
	ResidualPct decimal.Decimal
	// LifeMonths is the depreciation life, ≥ 1, default 36 (life_months).
	LifeMonths int
	// PowerLoadW is the draw while working, in watts (power_load_w).
	PowerLoadW decimal.Decimal
	// PowerIdleW is the draw while on and idle, default 0 (power_idle_w).
	PowerIdleW decimal.Decimal
	// PUE is the power usage effectiveness, ≥ 1, default 1 (pue).
	PUE decimal.Decimal
	// KWhPrice is the electricity price per kWh (kwh_price).
	KWhPrice decimal.Decimal
	// AlwaysOn says the server stays on (idle) when not working, default
	// false (always_on).
	AlwaysOn bool
	// HostingMonthly is rack, space and network per month (hosting_monthly).
	HostingMonthly decimal.Decimal
	// OpsMonthly is staff time per month (ops_monthly).
	OpsMonthly decimal.Decimal
	// MaintenancePctPerYear is warranty and spares, % of the purchase price
	// per year (maintenance_pct_per_year).
	MaintenancePctPerYear decimal.Decimal
	// SetupOneOff is paid once (setup_one_off).
	SetupOneOff decimal.Decimal
	// CapitalRatePerYear is the cost of the money tied up, a fraction such
	// as 0.05, default 0 (capital_rate_per_year).
	CapitalRatePerYear decimal.Decimal
	// PricesIncludeTax says whether the amounts are tax-inclusive
	// (prices_include_tax).
	PricesIncludeTax bool
	// TaxRate is the tax rate as a fraction, required when PricesIncludeTax
	// is false (tax_rate).
	TaxRate decimal.NullDecimal
}
