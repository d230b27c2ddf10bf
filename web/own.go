package web

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/money"
	"gpuquote/internal/own"
)

// OwnRow is one own-hardware option in the list.
type OwnRow struct {
	ID       int64
	Name     string
	GPU      string
	GPUCount int
	Purchase string
	AsOf     string
	// Electricity says where the kWh price comes from: a region code, or
	// the option's own figure.
	Electricity string
	Shared      bool
	Author      string
	Version     int
	Archived    bool
}

// OwnListView is the view model of the own-hardware option list.
type OwnListView struct {
	Page Page
	Rows []OwnRow
	// Filters: GPU model id, scope (all, mine, shared), archived ones.
	GPUs     []Option
	GPU      string
	Scopes   []Option
	Scope    string
	Archived bool
	// Filtered says a filter is set (the empty state then says nothing
	// matches rather than that nothing exists).
	Filtered bool
	Pager    Pager
}

// OwnFormView is the state of the new-option and edit forms: what was
// typed (kept on every error), the problems by field, and the choices.
type OwnFormView struct {
	Page   Page
	IsNew  bool
	ID     int64
	Action string
	// BasedOn is the version the edit started from (the optimistic lock).
	BasedOn  int
	Values   map[string]string
	Errors   Errors
	GPUs     []Option
	Regions  []Option
	CanShare bool
	Shared   bool
	Conflict bool
	// Currencies are suggestions for the currency input.
	Currencies []string
}

// V is the typed value of field name.
func (f OwnFormView) V(name string) string { return f.Values[name] }

// Checked reports whether a checkbox or radio value is chosen.
func (f OwnFormView) Checked(name, value string) bool { return f.Values[name] == value }

// OwnFact is one labelled input on the option's page.
type OwnFact struct {
	LabelID string
	Value   string
}

// OwnFactGroup is a titled group of facts.
type OwnFactGroup struct {
	TitleID string
	Facts   []OwnFact
}

// OwnVersionRow is one entry of an option's version history.
type OwnVersionRow struct {
	Version     int
	CreatedAt   string
	Author      string
	Purchase    string
	Electricity string
	Current     bool
	Shown       bool
}

// OwnView is the view model of one option's page.
type OwnView struct {
	Page      Page
	ID        int64
	Name      string
	GPU       string
	Shared    bool
	Archived  bool
	Author    string
	Version   int
	Latest    int
	IsCurrent bool
	CanWrite  bool
	Groups    []OwnFactGroup
	// Today is the electricity price in force today for a region's option
	// (or the option's own figure); TodayMissing says its region has no
	// sample in force today.
	Today        string
	TodayMissing bool
	Versions     []OwnVersionRow
}

// ownAmount writes an amount in the option's currency.
func ownAmount(lang i18n.Lang, d decimal.Decimal, currency string) string {
	return FormatMoney(lang, decimal.NewNullDecimal(d), currency)
}

// ownNumber writes a plain number with every place it has, grouped.
func ownNumber(d decimal.Decimal) string { return money.Group(money.String(d)) }

// OwnElectricityText says where a version's electricity price comes from.
func OwnElectricityText(tr *i18n.Translator, v own.Version) string {
	if v.ElectricityRegion != "" {
		return tr.T("own.electricity.region_text", "Region", v.ElectricityRegion, "Currency", v.Currency)
	}
	return tr.T("own.electricity.own_text", "Price", FormatMoney(tr.Lang, v.KWhPrice, v.Currency))
}

// NewOwnRow is an option as the list shows it.
func NewOwnRow(tr *i18n.Translator, o own.Option) OwnRow {
	v := o.Current
	return OwnRow{ID: o.ID, Name: v.Name, GPU: v.GPU(), GPUCount: v.GPUCount,
		Purchase: ownAmount(tr.Lang, v.PurchasePrice, v.Currency), AsOf: FormatDate(v.PurchaseAsOf),
		Electricity: OwnElectricityText(tr, v), Shared: o.Shared, Author: o.CreatedByName, Version: o.LatestVersion,
		Archived: o.Archived()}
}

// OwnFacts lists every input of version v in groups, for its page.
func OwnFacts(tr *i18n.Translator, v own.Version) []OwnFactGroup {
	amount := func(d decimal.Decimal) string { return ownAmount(tr.Lang, d, v.Currency) }
	pct := func(d decimal.Decimal) string { return tr.T("own.value.pct", "Value", ownNumber(d)) }
	watts := func(d decimal.Decimal) string { return tr.T("own.value.watts", "Value", ownNumber(d)) }
	yesNo := func(b bool) string {
		if b {
			return tr.T("own.value.yes")
		}
		return tr.T("own.value.no")
	}
	tax := tr.T("own.value.unstated")
	if v.TaxRate.Valid {
		tax = ownNumber(v.TaxRate.Decimal)
	}
	life := tr.T("own.value.months.other", "Count", v.LifeMonths)
	if v.LifeMonths == 1 {
		life = tr.T("own.value.months.one", "Count", v.LifeMonths)
	}
	return []OwnFactGroup{
		{TitleID: "own.section.hardware", Facts: []OwnFact{
			{"own.field.gpu_model", v.GPU()},
			{"own.field.gpu_count", strconv.Itoa(v.GPUCount)},
			{"own.field.currency", v.Currency},
		}},
		{TitleID: "own.section.purchase", Facts: []OwnFact{
			{"own.field.purchase_price", amount(v.PurchasePrice)},
			{"own.field.purchase_as_of", FormatDate(v.PurchaseAsOf)},
			{"own.field.purchase_source", v.PurchaseSource},
			{"own.field.residual_pct", pct(v.ResidualPct)},
			{"own.field.life_months", life},
		}},
		{TitleID: "own.section.power", Facts: []OwnFact{
			{"own.field.power_load_w", watts(v.PowerLoadW)},
			{"own.field.power_idle_w", watts(v.PowerIdleW)},
			{"own.field.pue", ownNumber(v.PUE)},
			{"own.field.electricity", OwnElectricityText(tr, v)},
			{"own.field.always_on", yesNo(v.AlwaysOn)},
		}},
		{TitleID: "own.section.running", Facts: []OwnFact{
			{"own.field.hosting_monthly", amount(v.HostingMonthly)},
			{"own.field.ops_monthly", amount(v.OpsMonthly)},
			{"own.field.maintenance_pct_per_year", pct(v.MaintenancePctPerYear)},
			{"own.field.setup_one_off", amount(v.SetupOneOff)},
			{"own.field.capital_rate_per_year", ownNumber(v.CapitalRatePerYear)},
			{"own.field.prices_include_tax", yesNo(v.PricesIncludeTax)},
			{"own.field.tax_rate", tax},
		}},
	}
}

// ElectricityRow is one electricity sample as its page shows it.
type ElectricityRow struct {
	ID       int64
	Region   string
	Currency string
	KWhPrice decimal.Decimal
	AsOf     time.Time
	Source   string
	Stale    bool
}

// ElectricityForm is the state of the add-sample form.
type ElectricityForm struct {
	Region   string
	Currency string
	KWhPrice string
	AsOf     string
	Source   string
	Errors   Errors
}

// ElectricityView is the view model of the electricity prices page.
type ElectricityView struct {
	Page  Page
	Today string
	// Current are the samples in force today; History the filtered list.
	Current  []ElectricityRow
	History  []ElectricityRow
	Pager    Pager
	Region   string // history filter
	Currency string // history filter
	Form     ElectricityForm
	// Regions and Currencies are suggestions for the inputs.
	Regions    []string
	Currencies []string
}
