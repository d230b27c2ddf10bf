package report

import (
	"github.com/shopspring/decimal"

	"gpuquote/internal/own"
	"gpuquote/internal/tco"
)

// OwnRow is one own-hardware option of a comparison, frozen like a quote
// (docs/RULES.md §11.7): the option version with every input as stored,
// the electricity price it was priced with, and the figures — the seven
// lines, the TCO, the cash up front, the rate per GPU-hour, the crossing
// with each rental and the sensitivity variants.
type OwnRow struct {
	Option      OwnOption      `json:"option"`
	Electricity OwnElectricity `json:"electricity"`
	// Priced says Result holds the engine's figures; Errors say why the
	// option could not be priced.
	Priced bool            `json:"priced"`
	Errors []OwnFieldError `json:"errors"`
	Result *OwnResult      `json:"result,omitempty"`
	// Crossings follow the priced rentals in table order, one each.
	Crossings []OwnCrossing `json:"crossings"`
	// Sensitivity is the TCO with one assumption moved at a time.
	Sensitivity []OwnVariant `json:"sensitivity"`
}

// OwnOption is an own-hardware option version as it was compared, with
// the GPU model's name it was shown under.
type OwnOption struct {
	ID                    int64               `json:"id"`
	OptionID              int64               `json:"option_id"`
	Version               int                 `json:"version"`
	Name                  string              `json:"name"`
	GPUModelID            int64               `json:"gpu_model_id"`
	GPUVendor             string              `json:"gpu_vendor"`
	GPUName               string              `json:"gpu_name"`
	GPUCount              int                 `json:"gpu_count"`
	Currency              string              `json:"currency"`
	PurchasePrice         decimal.Decimal     `json:"purchase_price"`
	PurchaseAsOf          string              `json:"purchase_as_of"`
	PurchaseSource        string              `json:"purchase_source"`
	ResidualPct           decimal.Decimal     `json:"residual_pct"`
	LifeMonths            int                 `json:"life_months"`
	PowerLoadW            decimal.Decimal     `json:"power_load_w"`
	PowerIdleW            decimal.Decimal     `json:"power_idle_w"`
	PUE                   decimal.Decimal     `json:"pue"`
	ElectricityRegion     string              `json:"electricity_region"`
	KWhPrice              decimal.NullDecimal `json:"kwh_price"`
	AlwaysOn              bool                `json:"always_on"`
	HostingMonthly        decimal.Decimal     `json:"hosting_monthly"`
	OpsMonthly            decimal.Decimal     `json:"ops_monthly"`
	MaintenancePctPerYear decimal.Decimal     `json:"maintenance_pct_per_year"`
	SetupOneOff           decimal.Decimal     `json:"setup_one_off"`
	CapitalRatePerYear    decimal.Decimal     `json:"capital_rate_per_year"`
	PricesIncludeTax      bool                `json:"prices_include_tax"`
	TaxRate               decimal.NullDecimal `json:"tax_rate"`
	Notes                 string              `json:"notes"`
}

// OwnElectricity is the kWh price an option was priced with: its own
// figure (SampleID 0), or the dated sample of its region, named by id.
type OwnElectricity struct {
	KWhPrice decimal.Decimal `json:"kwh_price"`
	SampleID int64           `json:"sample_id"`
	Region   string          `json:"region"`
	// AsOf is the sample's YYYY-MM-DD, empty for the option's own figure.
	AsOf   string `json:"as_of"`
	Source string `json:"source"`
}

// OwnFieldError is why an option could not be priced: the engine's field,
// code and message.
type OwnFieldError struct {
	Field   string  `json:"field"`
	Code    string  `json:"code"`
	Message Message `json:"message"`
}

// OwnResult is the engine's result for an option (tco.OwnResult).
type OwnResult struct {
	Currency            string          `json:"currency"`
	ReportCurrency      string          `json:"report_currency"`
	FXRate              decimal.Decimal `json:"fx_rate"`
	FXDate              string          `json:"fx_date"`
	Lines               []OwnLine       `json:"lines"`
	TCO                 decimal.Decimal `json:"tco"`
	UpfrontCash         decimal.Decimal `json:"upfront_cash"`
	EffectivePerGPUHour decimal.Decimal `json:"effective_per_gpu_hour"`
}

// OwnLine is one of an option's seven lines.
type OwnLine struct {
	Item   string          `json:"item"`
	Amount decimal.Decimal `json:"amount"`
}

// OwnCrossing is where owning stops costing more than one rental: the
// first month (1…120) at the profile's hours and the first monthly hours
// (1…730) over the profile's months; 0 when there is none.
type OwnCrossing struct {
	QuoteID   int64 `json:"quote_id"`
	FromMonth int   `json:"from_month"`
	FromHours int   `json:"from_hours"`
}

// OwnVariant is an option's TCO under one changed assumption.
type OwnVariant struct {
	Key string          `json:"key"`
	TCO decimal.Decimal `json:"tco"`
}

// OwnSensitivityKeys are the sensitivity variants a comparison prices, in
// the order the exports give them a column each.
var OwnSensitivityKeys = []string{"electricity_50", "electricity_150", "life_24", "life_36", "life_48"}

// OwnOptionOf freezes an option version.
func OwnOptionOf(v own.Version) OwnOption {
	return OwnOption{ID: v.ID, OptionID: v.OptionID, Version: v.Version, Name: v.Name, GPUModelID: v.GPUModelID,
		GPUVendor: v.GPUVendor, GPUName: v.GPUName, GPUCount: v.GPUCount, Currency: v.Currency,
		PurchasePrice: v.PurchasePrice, PurchaseAsOf: DateText(v.PurchaseAsOf), PurchaseSource: v.PurchaseSource,
		ResidualPct: v.ResidualPct, LifeMonths: v.LifeMonths, PowerLoadW: v.PowerLoadW, PowerIdleW: v.PowerIdleW,
		PUE: v.PUE, ElectricityRegion: v.ElectricityRegion, KWhPrice: v.KWhPrice, AlwaysOn: v.AlwaysOn,
		HostingMonthly: v.HostingMonthly, OpsMonthly: v.OpsMonthly, MaintenancePctPerYear: v.MaintenancePctPerYear,
		SetupOneOff: v.SetupOneOff, CapitalRatePerYear: v.CapitalRatePerYear, PricesIncludeTax: v.PricesIncludeTax,
		TaxRate: v.TaxRate, Notes: v.Notes}
}

// AsVersion is the frozen option as an own.Version (with the GPU names it
// was shown under).
func (o OwnOption) AsVersion() own.Version {
	return own.Version{ID: o.ID, OptionID: o.OptionID, Version: o.Version, Name: o.Name, GPUModelID: o.GPUModelID,
		GPUVendor: o.GPUVendor, GPUName: o.GPUName, GPUCount: o.GPUCount, Currency: o.Currency,
		PurchasePrice: o.PurchasePrice, PurchaseAsOf: ParseDate(o.PurchaseAsOf), PurchaseSource: o.PurchaseSource,
		ResidualPct: o.ResidualPct, LifeMonths: o.LifeMonths, PowerLoadW: o.PowerLoadW, PowerIdleW: o.PowerIdleW,
		PUE: o.PUE, ElectricityRegion: o.ElectricityRegion, KWhPrice: o.KWhPrice, AlwaysOn: o.AlwaysOn,
		HostingMonthly: o.HostingMonthly, OpsMonthly: o.OpsMonthly, MaintenancePctPerYear: o.MaintenancePctPerYear,
		SetupOneOff: o.SetupOneOff, CapitalRatePerYear: o.CapitalRatePerYear, PricesIncludeTax: o.PricesIncludeTax,
		TaxRate: o.TaxRate, Notes: o.Notes}
}

// GPU is the card's name as the pages show it.
func (o OwnOption) GPU() string { return o.AsVersion().GPU() }

// OwnElectricityOf freezes the electricity price an option was priced with.
func OwnElectricityOf(e own.Electricity) OwnElectricity {
	return OwnElectricity{KWhPrice: e.KWhPrice, SampleID: e.SampleID, Region: e.Region, AsOf: DateText(e.AsOf), Source: e.Source}
}

// AsElectricity is the frozen electricity price as own.Electricity.
func (e OwnElectricity) AsElectricity() own.Electricity {
	return own.Electricity{KWhPrice: e.KWhPrice, SampleID: e.SampleID, Region: e.Region, AsOf: ParseDate(e.AsOf), Source: e.Source}
}

// OwnResultOf freezes the engine's result for an option.
func OwnResultOf(r tco.OwnResult) OwnResult {
	out := OwnResult{Currency: r.Currency, ReportCurrency: r.ReportCurrency, FXRate: r.FXRate, FXDate: DateText(r.FXDate),
		Lines: []OwnLine{}, TCO: r.TCO, UpfrontCash: r.UpfrontCash, EffectivePerGPUHour: r.EffectivePerGPUHour}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, OwnLine{Item: string(l.Item), Amount: l.Amount})
	}
	return out
}

// TCOResult is the frozen result as the engine's.
func (r OwnResult) TCOResult() tco.OwnResult {
	out := tco.OwnResult{Currency: r.Currency, ReportCurrency: r.ReportCurrency, FXRate: r.FXRate, FXDate: ParseDate(r.FXDate),
		TCO: r.TCO, UpfrontCash: r.UpfrontCash, EffectivePerGPUHour: r.EffectivePerGPUHour}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, tco.OwnLine{Item: tco.OwnItem(l.Item), Amount: l.Amount})
	}
	return out
}

// Line returns the amount of one of the result's lines.
func (r OwnResult) Line(item string) (decimal.Decimal, bool) {
	for _, l := range r.Lines {
		if l.Item == item {
			return l.Amount, true
		}
	}
	return decimal.Decimal{}, false
}

// Variant returns the TCO of one sensitivity variant.
func (r OwnRow) Variant(key string) (decimal.Decimal, bool) {
	for _, v := range r.Sensitivity {
		if v.Key == key {
			return v.TCO, true
		}
	}
	return decimal.Decimal{}, false
}

// Eligible reports whether the option has figures.
func (r OwnRow) Eligible() bool { return r.Priced && r.Result != nil }

// RowOf returns the frozen row of a compared quote version.
func (s Snapshot) RowOf(quoteID int64) (Row, bool) {
	for _, r := range s.Rows {
		if r.Quote.ID == quoteID {
			return r, true
		}
	}
	return Row{}, false
}
