package web

import (
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/i18n"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/own"
	"gpuquote/internal/tco"
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

// OwnListRecords is one page of the own-hardware list with its filters:
// the scope (one of "", "mine", "shared"), the GPU model id (0: any) and
// whether archived options are listed.
type OwnListRecords struct {
	Scope         string
	GPU           int64
	Archived      bool
	Options       []own.Option
	GPUs          []market.RefName
	Page, PerPage int
	Total         int
}

// NewOwnListView builds the own-hardware list: its filters, its rows and
// its pager.
func NewOwnListView(tr *i18n.Translator, in OwnListRecords) OwnListView {
	v := OwnListView{Scope: in.Scope, Archived: in.Archived, GPUs: GPUOptions(in.GPUs),
		Scopes: []Option{{Value: "", LabelID: "own.scope.all"}, {Value: "mine", LabelID: "own.scope.mine"},
			{Value: "shared", LabelID: "own.scope.shared"}}}
	if in.GPU > 0 {
		v.GPU = strconv.FormatInt(in.GPU, 10)
	}
	v.Filtered = in.GPU > 0 || v.Scope != "" || v.Archived || in.Total > 0
	archived := ""
	if v.Archived {
		archived = "1"
	}
	v.Pager = Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total,
		Base: listURL("/own-hardware", url.Values{"gpu": {v.GPU}, "scope": {v.Scope}, "archived": {archived}})}
	for _, o := range in.Options {
		v.Rows = append(v.Rows, NewOwnRow(tr, o))
	}
	return v
}

// WithChoices is form f with its choices: the GPU models, the regions of
// the electricity series, the currencies to suggest, and whether the
// reader may share the option; Errors is never nil.
func (f OwnFormView) WithChoices(gpus []market.RefName, series []own.ElectricitySeries, canShare bool) OwnFormView {
	f.GPUs = GPUOptions(gpus)
	currencies := slices.Clone(currencySuggestions)
	seen := map[string]bool{}
	for _, sr := range series {
		currencies = append(currencies, sr.Currency)
		if !seen[sr.Region] {
			seen[sr.Region] = true
			f.Regions = append(f.Regions, Option{Value: sr.Region, Label: sr.Region})
		}
	}
	slices.Sort(currencies)
	f.Currencies = slices.Compact(currencies)
	if f.Errors == nil {
		f.Errors = Errors{}
	}
	f.CanShare = canShare
	return f
}

// OwnRecords is what an option's page shows: the option, the version
// shown, every version, and the electricity price the shown version
// resolves to on Today (NoSample: its region has none in force).
type OwnRecords struct {
	Option      own.Option
	Shown       own.Version
	Versions    []own.Version
	Today       time.Time
	Electricity own.Electricity
	NoSample    bool
	CanWrite    bool
}

// NewOwnView builds an option's page: the shown version's inputs, the
// electricity price in force today and the list of versions.
func NewOwnView(tr *i18n.Translator, in OwnRecords) OwnView {
	o, shown, e := in.Option, in.Shown, in.Electricity
	v := OwnView{ID: o.ID, Name: shown.Name, GPU: shown.GPU(), Shared: o.Shared, Archived: o.Archived(),
		Author: o.CreatedByName, Version: shown.Version, Latest: o.LatestVersion, IsCurrent: shown.Version == o.LatestVersion,
		CanWrite: in.CanWrite, Groups: OwnFacts(tr, shown)}
	switch {
	case in.NoSample:
		v.Today, v.TodayMissing = tr.T("own.today.missing", "Region", shown.ElectricityRegion, "Currency", shown.Currency,
			"Date", in.Today.Format(time.DateOnly)), true
	case e.SampleID != 0:
		v.Today = tr.T("own.today.sample", "Price", FormatMoney(tr.Lang, decimal.NewNullDecimal(e.KWhPrice), shown.Currency),
			"Region", e.Region, "AsOf", e.AsOf.Format(time.DateOnly), "Source", e.Source)
	default:
		v.Today = tr.T("own.today.own", "Price", FormatMoney(tr.Lang, decimal.NewNullDecimal(e.KWhPrice), shown.Currency))
	}
	for _, ver := range in.Versions {
		v.Versions = append(v.Versions, OwnVersionRow{Version: ver.Version,
			CreatedAt: ver.CreatedAt.UTC().Format("2006-01-02 15:04"), Author: ver.CreatedByName,
			Purchase:    FormatMoney(tr.Lang, decimal.NewNullDecimal(ver.PurchasePrice), ver.Currency),
			Electricity: OwnElectricityText(tr, ver), Current: ver.Version == o.LatestVersion, Shown: ver.Version == shown.Version})
	}
	return v
}

// ElectricityRecords is what the electricity page lists for its filters
// (a region and a currency, "" for any): the samples in force on Today,
// one page of the history with its total, and the series there are.
type ElectricityRecords struct {
	Region, Currency string
	Today            time.Time
	Current, History []own.ElectricityPrice
	Page, PerPage    int
	Total            int
	Series           []own.ElectricitySeries
}

// ElectricityQuery reads the electricity page's filters: a region or
// currency that is none is ignored rather than refused, like every list
// filter.
func ElectricityQuery(region, currency string) (string, string) {
	region, currency = own.NormalizeRegion(region), PricesCurrency(currency)
	if !own.ValidRegion(region) {
		region = ""
	}
	if !money.IsCurrency(currency) {
		currency = ""
	}
	return region, currency
}

// NewElectricityView builds the electricity page, with an empty add form:
// the samples in force, the history with its pager, and the regions and
// currencies the inputs suggest.
func NewElectricityView(in ElectricityRecords) ElectricityView {
	staleBefore := tco.StaleBefore(in.Today)
	v := ElectricityView{Today: in.Today.Format(time.DateOnly), Region: in.Region, Currency: in.Currency,
		Form: ElectricityForm{Errors: Errors{}}}
	row := func(p own.ElectricityPrice) ElectricityRow {
		return ElectricityRow{ID: p.ID, Region: p.Region, Currency: p.Currency, KWhPrice: p.KWhPrice, AsOf: p.AsOf,
			Source: p.Source, Stale: p.AsOf.Before(staleBefore)}
	}
	for _, p := range in.Current {
		v.Current = append(v.Current, row(p))
	}
	for _, p := range in.History {
		v.History = append(v.History, row(p))
	}
	v.Pager = Pager{Page: in.Page, PerPage: in.PerPage, Total: in.Total,
		Base: listURL("/electricity", url.Values{"region": {v.Region}, "currency": {v.Currency}})}
	currencies := slices.Clone(currencySuggestions)
	for _, sr := range in.Series {
		v.Regions = append(v.Regions, sr.Region)
		currencies = append(currencies, sr.Currency)
	}
	v.Regions = slices.Compact(v.Regions)
	slices.Sort(currencies)
	v.Currencies = slices.Compact(currencies)
	return v
}

// OwnFormDefaults are the values a new option's form starts with: bought
// today, the electricity of a region when there are series (else its own
// price), and the GPU model gpu when one is named.
func OwnFormDefaults(today time.Time, hasSeries bool, gpu string) map[string]string {
	values := map[string]string{"gpu_count": "1", "life_months": strconv.Itoa(own.DefaultLifeMonths), "pue": "1",
		"residual_pct": "0", "power_idle_w": "0", "prices_include_tax": "true",
		"purchase_as_of": today.Format(time.DateOnly), "electricity": own.ElectricityOwn}
	if hasSeries {
		values["electricity"] = own.ElectricityRegion
	}
	if gpu != "" {
		values["gpu_model"] = gpu
	}
	return values
}

// OwnFormTyped keeps the posted values of the option form for showing it
// again.
func OwnFormTyped(values url.Values) map[string]string {
	out := map[string]string{}
	for k := range values {
		out[k] = values.Get(k)
	}
	return out
}

// TitleID is the form's title: a new option's or an edit's.
func (f OwnFormView) TitleID() string {
	if f.IsNew {
		return "own.form.new"
	}
	return "own.form.edit_title"
}
