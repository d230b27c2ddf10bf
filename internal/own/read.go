package own

import (
	"strconv"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/form"
	"gpuquote/internal/money"
	"gpuquote/internal/tco"
)

// Message IDs of the problems only an option or an electricity sample has.
const (
	MsgUnknownGPU  = "own.error.unknown_gpu"
	MsgRegion      = "own.error.region"
	MsgIdleAbove   = "own.error.idle_above_load"
	MsgTaxRate     = "own.error.tax_rate"
	MsgFraction    = "own.error.fraction"
	MsgNoSeries    = "own.error.no_series"
	MsgShareNeeds  = "own.error.share_role"
	MsgSampleExist = "own.electricity.exists"
)

// Bounds of an option's fields; the decimal ones follow the NUMERIC(p, s)
// columns of migrations/00016_own_hardware.sql (docs/RULES.md §16.4).
const (
	NameMax   = 200
	SourceMax = 500
	NotesMax  = 4000
	// MaxGPUs is the most GPUs in one server: the engine's bound.
	MaxGPUs = tco.MaxGPUCount
	// MaxLifeMonths is the longest depreciation life: the engine's bound
	// (ten years).
	MaxLifeMonths = tco.MaxLifeMonths
	// DefaultLifeMonths is the depreciation life when none is given.
	DefaultLifeMonths = 36
)

var (
	hundred  = decimal.NewNullDecimal(decimal.New(100, 0))
	one      = decimal.New(1, 0)
	maxPUE   = tco.MaxPUE
	earliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

	// Amounts and draws are bounded as the engine bounds them (docs/RULES.md
	// §17.1: amounts by §14.1's 10¹², draws 0–1,000,000 W), below what the
	// columns hold, so an option saved can always be priced.
	moneyRule = capped(form.Numeric(20, 6), tco.MaxAmount)
	pctRule   = form.Decimal{Places: 2, Digits: 3, Max: hundred}
	wattRule  = capped(form.Numeric(9, 2), tco.MaxPowerW)
	kwhRule   = form.Numeric(12, 6)
	rateRule  = form.Numeric(8, 6)
	pueRule   = form.Numeric(4, 2)
)

// capped is rule with max as its largest value.
func capped(rule form.Decimal, max decimal.Decimal) form.Decimal {
	rule.Max = decimal.NewNullDecimal(max)
	return rule
}

// Read reads and validates an option version from its form fields, every
// problem at once (docs/RULES.md §17.4): the name, the GPU model (known
// reports whether an id names one) and count, the purchase price with its
// day (not after latest) and source, the depreciation, power and
// electricity inputs, the running costs, tax and notes. Empty optional
// fields take their defaults: residual 0 %, life 36 months, idle draw 0 W,
// PUE 1, running costs 0. The version is meaningful only without problems.
func Read(get func(string) string, known func(int64) bool, latest time.Time) (Version, form.Errors) {
	r := form.NewReader(get)
	var v Version
	v.Name = r.RequiredText("name", NameMax)
	switch raw := r.Raw("gpu_model"); {
	case raw == "":
		r.Fail("gpu_model", form.MsgRequired)
	default:
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 || !known(id) {
			r.Fail("gpu_model", MsgUnknownGPU)
		} else {
			v.GPUModelID = id
		}
	}
	v.GPUCount, _ = r.Int("gpu_count", 1, MaxGPUs, true)
	v.Currency = r.Currency("currency", true)

	rule := moneyRule
	rule.Positive, rule.Required = true, true
	v.PurchasePrice = r.Decimal("purchase_price", rule).Decimal
	v.PurchaseAsOf, _ = r.Date("purchase_as_of", form.Date{Required: true, NotAfter: latest, NotBefore: earliest})
	v.PurchaseSource = r.RequiredText("purchase_source", SourceMax)
	v.ResidualPct = r.Decimal("residual_pct", pctRule).Decimal
	v.LifeMonths = DefaultLifeMonths
	if n, ok := r.Int("life_months", 1, MaxLifeMonths, false); ok {
		v.LifeMonths = n
	}

	load := wattRule
	load.Positive, load.Required = true, true
	v.PowerLoadW = r.Decimal("power_load_w", load).Decimal
	v.PowerIdleW = r.Decimal("power_idle_w", wattRule).Decimal
	if !r.Has("power_load_w") && !r.Has("power_idle_w") && v.PowerIdleW.GreaterThan(v.PowerLoadW) {
		r.Fail("power_idle_w", MsgIdleAbove)
	}
	v.PUE = one
	if p := r.Decimal("pue", pueRule); p.Valid {
		if p.Decimal.LessThan(one) || p.Decimal.GreaterThan(maxPUE) {
			r.Fail("pue", form.MsgRange, "Min", "1", "Max", money.String(maxPUE))
		} else {
			v.PUE = p.Decimal
		}
	}
	switch r.Choice("electricity", true, ElectricityRegion, ElectricityOwn) {
	case ElectricityRegion:
		v.ElectricityRegion = NormalizeRegion(r.Raw("electricity_region"))
		switch {
		case v.ElectricityRegion == "":
			r.Fail("electricity_region", form.MsgRequired)
		case !ValidRegion(v.ElectricityRegion):
			r.Fail("electricity_region", MsgRegion)
		}
	case ElectricityOwn:
		kwh := kwhRule
		kwh.Required = true
		v.KWhPrice = r.Decimal("kwh_price", kwh)
	}
	v.AlwaysOn = r.Check("always_on")

	v.HostingMonthly = r.Decimal("hosting_monthly", moneyRule).Decimal
	v.OpsMonthly = r.Decimal("ops_monthly", moneyRule).Decimal
	v.MaintenancePctPerYear = r.Decimal("maintenance_pct_per_year", pctRule).Decimal
	v.SetupOneOff = r.Decimal("setup_one_off", moneyRule).Decimal
	v.CapitalRatePerYear = readFraction(r, "capital_rate_per_year").Decimal

	switch b := r.YesNo("prices_include_tax"); {
	case b == nil && !r.Has("prices_include_tax"):
		r.Fail("prices_include_tax", form.MsgRequired)
	case b != nil:
		v.PricesIncludeTax = *b
	}
	v.TaxRate = readFraction(r, "tax_rate")
	if !r.Has("prices_include_tax") && !v.PricesIncludeTax && !v.TaxRate.Valid && !r.Has("tax_rate") {
		r.Fail("tax_rate", MsgTaxRate)
	}
	v.Notes = r.Paragraphs("notes", NotesMax)
	return v, r.Errs
}

// readFraction reads a rate written as a fraction below 1 (0.05 for 5 %).
func readFraction(r *form.Reader, name string) decimal.NullDecimal {
	d := r.Decimal(name, rateRule)
	if d.Valid && d.Decimal.GreaterThanOrEqual(one) {
		r.Fail(name, MsgFraction)
		return decimal.NullDecimal{}
	}
	return d
}

// Values writes a version back into form fields, for the edit form.
func Values(v Version) map[string]string {
	s := money.String
	out := map[string]string{
		"name": v.Name, "gpu_model": strconv.FormatInt(v.GPUModelID, 10), "gpu_count": strconv.Itoa(v.GPUCount),
		"currency": v.Currency, "purchase_price": s(v.PurchasePrice), "purchase_as_of": v.PurchaseAsOf.Format(time.DateOnly),
		"purchase_source": v.PurchaseSource, "residual_pct": s(v.ResidualPct), "life_months": strconv.Itoa(v.LifeMonths),
		"power_load_w": s(v.PowerLoadW), "power_idle_w": s(v.PowerIdleW), "pue": s(v.PUE),
		"electricity": v.Electricity(), "electricity_region": v.ElectricityRegion,
		"hosting_monthly": s(v.HostingMonthly), "ops_monthly": s(v.OpsMonthly),
		"maintenance_pct_per_year": s(v.MaintenancePctPerYear), "setup_one_off": s(v.SetupOneOff),
		"capital_rate_per_year": s(v.CapitalRatePerYear), "prices_include_tax": strconv.FormatBool(v.PricesIncludeTax),
		"notes": v.Notes,
	}
	if v.KWhPrice.Valid {
		out["kwh_price"] = s(v.KWhPrice.Decimal)
	}
	if v.AlwaysOn {
		out["always_on"] = "true"
	}
	if v.TaxRate.Valid {
		out["tax_rate"] = s(v.TaxRate.Decimal)
	}
	return out
}

// ReadElectricityPrice reads and checks a dated electricity sample: a
// region code, a currency, a kWh price > 0 with at most 6 places, a day
// not after latest and a source (docs/RULES.md §17.4).
func ReadElectricityPrice(r *form.Reader, latest time.Time) ElectricityPrice {
	p := ElectricityPrice{Region: NormalizeRegion(r.Raw("region"))}
	switch {
	case p.Region == "":
		r.Fail("region", form.MsgRequired)
	case !ValidRegion(p.Region):
		r.Fail("region", MsgRegion)
	}
	p.Currency = r.Currency("currency", true)
	kwh := kwhRule
	kwh.Positive, kwh.Required = true, true
	p.KWhPrice = r.Decimal("kwh_price", kwh).Decimal
	p.AsOf, _ = r.Date("as_of", form.Date{Required: true, NotAfter: latest, NotBefore: earliest})
	p.Source = r.RequiredText("source", SourceMax)
	return p
}
