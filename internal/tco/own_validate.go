package tco

import (
	"strconv"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// Bounds of an own-hardware option (docs/RULES.md §17.1). The rules fix only
// pue ≥ 1 and a life of at least a month; the upper bounds are decided like
// the rental's (§14.1): far above any real server, far below a typo.
const (
	// MaxLifeMonths bounds the depreciation life: ten years, the horizon's
	// own bound.
	MaxLifeMonths = MaxMonths
)

var (
	// MaxPowerW bounds power_load_w and power_idle_w: 1 MW for one server.
	MaxPowerW = decimal.New(1000000, 0)
	// MaxPUE bounds pue.
	MaxPUE = decimal.New(10, 0)
	// MaxCapitalRate bounds capital_rate_per_year: a fraction below 1 (the
	// largest with six places), as the option form reads it
	// (docs/RULES.md §17.1, §17.4).
	MaxCapitalRate = decimal.RequireFromString("0.999999")
)

// CodeCurrencyMismatch: the own option's currency is not the rental
// quote's beside it (Own, Quote); one fx_rate converts both.
const CodeCurrencyMismatch = "currency_mismatch"

// ValidateOwn checks an own-hardware option, the profile and the currency
// options, and returns every bad field at once with the JSON paths of the
// rent-or-buy API ("own.purchase_price", "profile.months", "fx_rate"). An
// empty result means EvaluateOwn will price the input.
func ValidateOwn(o Own, p Profile, opts Options) []FieldError {
	v := &validator{}
	v.currency("own.currency", o.Currency, true)
	v.own(o)
	v.profile(p)
	opts.ReferencePrices = nil
	v.options(Quote{Currency: o.Currency}, opts)
	return v.errs
}

// ValidateRentOrBuy checks a rental quote and an own-hardware option priced
// side by side (docs/RULES.md §17.3): the rental as Validate does, the
// option's own fields, and its currency, which must be the quote's, so
// that one rate converts both. The currency's other problems are named
// once, at quote.currency.
func ValidateRentOrBuy(q Quote, o Own, p Profile, opts Options) []FieldError {
	return append(Validate(q, p, opts), ValidateOwnBeside(o, q.Currency)...)
}

// ValidateOwnBeside checks an own-hardware option's own fields beside a
// rental quote in quoteCurrency: what ValidateRentOrBuy adds to Validate.
func ValidateOwnBeside(o Own, quoteCurrency string) []FieldError {
	v := &validator{}
	switch {
	case quoteCurrency == "":
		// The quote's missing currency is named there; the option's is
		// checked on its own.
		if o.Currency != "" {
			v.currency("own.currency", o.Currency, false)
		}
	case o.Currency == "":
		v.add("own.currency", CodeRequired)
	case o.Currency != quoteCurrency:
		v.add("own.currency", CodeCurrencyMismatch, "Own", echo(o.Currency), "Quote", echo(quoteCurrency))
	}
	v.own(o)
	return v.errs
}

// own checks the option's fields but its currency.
func (v *validator) own(o Own) {
	v.text("own.gpu_model", o.GPUModel, MaxTextLen)
	v.intRange("own.gpu_count", o.GPUCount, 1, MaxGPUCount)
	v.positive("own.purchase_price", o.PurchasePrice, MaxAmount, MaxPlaces)
	v.percent("own.residual_pct", o.ResidualPct, MaxPercent)
	// 0 means "not given" and takes the default 36 months.
	v.intRange("own.life_months", o.LifeMonths, 0, MaxLifeMonths)
	v.bounded("own.power_load_w", o.PowerLoadW, MaxPowerW, MaxPlaces)
	v.bounded("own.power_idle_w", o.PowerIdleW, MaxPowerW, MaxPlaces)
	// 0 means "not given" and takes the default 1.
	if d := o.PUE; d.Sign() != 0 {
		if d.LessThan(one) || d.GreaterThan(MaxPUE) {
			v.add("own.pue", CodeOutOfRange, "Min", "1", "Max", money.String(MaxPUE))
		} else if money.Places(d) > MaxPlaces {
			v.add("own.pue", CodeTooManyDecimals, "Max", strconv.Itoa(MaxPlaces))
		}
	}
	v.amount("own.kwh_price", o.KWhPrice)
	v.amount("own.hosting_monthly", o.HostingMonthly)
	v.amount("own.ops_monthly", o.OpsMonthly)
	v.percent("own.maintenance_pct_per_year", o.MaintenancePctPerYear, MaxPercent)
	v.amount("own.setup_one_off", o.SetupOneOff)
	v.percent("own.capital_rate_per_year", o.CapitalRatePerYear, MaxCapitalRate)
	if o.TaxRate.Valid {
		d := o.TaxRate.Decimal
		if d.Sign() < 0 || d.Cmp(one) >= 0 {
			v.add("own.tax_rate", CodeTaxRateOutOfRange)
		} else if money.Places(d) > MaxPlaces {
			v.add("own.tax_rate", CodeTooManyDecimals, "Max", strconv.Itoa(MaxPlaces))
		}
	} else if !o.PricesIncludeTax {
		// Tax-exclusive amounts cannot be normalised without the rate (docs/RULES.md §5.1).
		v.add("own.tax_rate", CodeRequired)
	}
}

// percent checks 0 ≤ d ≤ max with at most MaxPlaces places.
func (v *validator) percent(field string, d, max decimal.Decimal) {
	if d.Sign() < 0 || d.GreaterThan(max) {
		v.add(field, CodeOutOfRange, "Min", "0", "Max", money.String(max))
	} else if money.Places(d) > MaxPlaces {
		v.add(field, CodeTooManyDecimals, "Max", strconv.Itoa(MaxPlaces))
	}
}
