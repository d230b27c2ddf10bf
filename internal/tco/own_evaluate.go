package tco

import (
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/money"
)

// OwnItem names one line of an own-hardware option (docs/RULES.md §17.1).
type OwnItem string

// The seven lines of an own-hardware option, in the order they are shown.
const (
	OwnDepreciation OwnItem = "depreciation"
	OwnCapitalCost  OwnItem = "capital_cost"
	OwnElectricity  OwnItem = "electricity"
	OwnHosting      OwnItem = "hosting"
	OwnOperations   OwnItem = "operations"
	OwnMaintenance  OwnItem = "maintenance"
	OwnSetup        OwnItem = "setup"
)

// OwnItems lists the seven lines in their order.
var OwnItems = []OwnItem{OwnDepreciation, OwnCapitalCost, OwnElectricity, OwnHosting,
	OwnOperations, OwnMaintenance, OwnSetup}

// ownLineCount is len(OwnItems).
const ownLineCount = 7

// LabelID is the i18n message ID of the line's name.
func (i OwnItem) LabelID() string { return "rentbuy.line." + string(i) }

// Defaults of an own-hardware option (docs/RULES.md §17.1).
const (
	// DefaultLifeMonths is the depreciation life when none is given.
	DefaultLifeMonths = 36
)

// OwnLine is one line of an own-hardware option's result.
type OwnLine struct {
	// Item is the line.
	Item OwnItem
	// Amount is its cost over the horizon for all N servers, in the report
	// currency, tax included, rounded half-up to 0.01.
	Amount decimal.Decimal
}

// OwnResult is the TCO of an own-hardware option for one profile. Money is
// in ReportCurrency, rounded half-up to 0.01; the rate per GPU-hour to
// 0.0001.
type OwnResult struct {
	// Currency is the currency the option's amounts are in.
	Currency string
	// ReportCurrency is the currency of every amount of the result.
	ReportCurrency string
	// FXRate is the rate used, Currency → ReportCurrency.
	FXRate decimal.Decimal
	// FXDate is the rate's date; zero when not known.
	FXDate time.Time
	// Lines are the seven lines, in OwnItems order.
	Lines []OwnLine
	// TCO is the sum of the rounded lines.
	TCO decimal.Decimal
	// UpfrontCash is the purchase of the N servers (converted, taxed,
	// rounded) plus the setup line: the cash out on day one.
	UpfrontCash decimal.Decimal
	// EffectivePerGPUHour is TCO ÷ (H × M × N × gpu_count), 4 places.
	EffectivePerGPUHour decimal.Decimal
}

var (
	hundred  = decimal.New(100, 0)
	twelve   = decimal.New(12, 0)
	thousand = decimal.New(1000, 0)
)

// wholeHours[h] is h as a decimal for 0…730: the crossing points step
// through every whole hour, and a shared immutable decimal saves an
// allocation per step.
var wholeHours = func() (a [731]decimal.Decimal) {
	for i := range a {
		a[i] = decimal.New(int64(i), 0)
	}
	return a
}()

// ownPricer prices the lines of one own-hardware option for any H and M;
// everything that depends on neither is worked out once.
type ownPricer struct {
	o *Own
	// k = N × fx × tax factor: a per-server amount in the option's
	// currency → all servers in the report currency, tax included.
	k decimal.Decimal
	// keep = 100 − residual_pct: the share (in %) that depreciates.
	keep decimal.Decimal
	life int
	pue  decimal.Decimal
	// setup is the rounded setup line; it depends on neither H nor M.
	setup decimal.Decimal
}

// ownRate is the rate from the option's currency into the report currency,
// by the rental's rule (docs/RULES.md §5.2): the given rate, 1 for the same
// currency, else the dated rate held for the currency.
func ownRate(o *Own, opts *Options) (string, decimal.Decimal, time.Time) {
	report := opts.ReportCurrency
	if report == "" {
		report = o.Currency
	}
	switch {
	case opts.FXRate.Valid:
		return report, opts.FXRate.Decimal, opts.FXDate
	case report == o.Currency:
		return report, one, time.Time{}
	}
	fx := opts.Rates[o.Currency]
	return report, fx.Rate, fx.Date
}

func newOwnPricer(o *Own, instances int, fx decimal.Decimal) ownPricer {
	tax := one
	if !o.PricesIncludeTax {
		tax = one.Add(o.TaxRate.Decimal) // docs/RULES.md §5.1
	}
	c := ownPricer{o: o, k: intDec(instances).Mul(fx).Mul(tax), life: o.LifeMonths, pue: o.PUE}
	if c.life == 0 {
		c.life = DefaultLifeMonths
	}
	if c.pue.Sign() == 0 {
		c.pue = one
	}
	c.keep = hundred.Sub(o.ResidualPct)
	c.setup = roundProduct([]decimal.Decimal{o.SetupOneOff, c.k}, nil)
	return c
}

// roundProduct is Π num ÷ Π den rounded half-up to 0.01 (the one rounding
// of a line, docs/RULES.md §1.3); 0 at once when a factor is 0.
func roundProduct(num, den []decimal.Decimal) decimal.Decimal {
	for _, f := range num {
		if f.Sign() == 0 {
			return decimal.Decimal{}
		}
	}
	return money.QuoRound(num, den, 2)
}

// electricity is the electricity line for H hours a month over m months
// (docs/RULES.md §17.1): (H × load + (always on: (730 − H) × idle)) ÷ 1000
// × pue × kWh price × M.
func (c *ownPricer) electricity(h decimal.Decimal, m decimal.Decimal) decimal.Decimal {
	w := h.Mul(c.o.PowerLoadW)
	if c.o.AlwaysOn && c.o.PowerIdleW.Sign() != 0 {
		w = w.Add(HoursPerMonth.Sub(h).Mul(c.o.PowerIdleW))
	}
	return roundProduct([]decimal.Decimal{w, c.pue, c.o.KWhPrice, m, c.k}, []decimal.Decimal{thousand})
}

// rest is every line but electricity for m months, into out (OwnItems
// order, electricity left as it is).
func (c *ownPricer) rest(months int, out *[ownLineCount]decimal.Decimal) {
	o, m := c.o, intDec(months)
	used := intDec(min(months, c.life))
	out[0] = roundProduct([]decimal.Decimal{o.PurchasePrice, c.keep, used, c.k}, []decimal.Decimal{hundred, intDec(c.life)})
	out[1] = roundProduct([]decimal.Decimal{o.PurchasePrice, o.CapitalRatePerYear, m, c.k}, []decimal.Decimal{twelve})
	out[3] = roundProduct([]decimal.Decimal{o.HostingMonthly, m, c.k}, nil)
	out[4] = roundProduct([]decimal.Decimal{o.OpsMonthly, m, c.k}, nil)
	out[5] = roundProduct([]decimal.Decimal{o.PurchasePrice, o.MaintenancePctPerYear, m, c.k}, []decimal.Decimal{hundred, twelve})
	out[6] = c.setup
}

// ownSum adds rounded lines: totals are sums of rounded lines, so a report
// adds up to the cent (docs/RULES.md §1.3).
func ownSum(lines *[ownLineCount]decimal.Decimal) decimal.Decimal {
	var t decimal.Decimal
	for _, a := range lines {
		t = money.Add(t, a)
	}
	return t
}

// EvaluateOwn prices an own-hardware option for profile p (docs/RULES.md
// §17.1): seven lines, each for all N servers over M months, converted into
// opts.ReportCurrency as a rental's lines are, taxed and rounded once.
// Invalid input returns a *ValidationError naming every bad field.
func EvaluateOwn(o Own, p Profile, opts Options) (OwnResult, error) {
	if errs := ValidateOwn(o, p, opts); len(errs) > 0 {
		return OwnResult{}, &ValidationError{Fields: errs}
	}
	return evaluateOwn(&o, &p, &opts), nil
}

func evaluateOwn(o *Own, p *Profile, opts *Options) OwnResult {
	report, fx, date := ownRate(o, opts)
	res := OwnResult{Currency: o.Currency, ReportCurrency: report, FXRate: fx, FXDate: date}
	c := newOwnPricer(o, p.Instances, fx)
	var lines [ownLineCount]decimal.Decimal
	c.rest(p.Months, &lines)
	lines[2] = c.electricity(p.HoursPerMonth, intDec(p.Months))
	res.Lines = make([]OwnLine, ownLineCount)
	for i, it := range OwnItems {
		res.Lines[i] = OwnLine{Item: it, Amount: lines[i]}
	}
	res.TCO = ownSum(&lines)
	// upfront_cash = P × N (converted, taxed, rounded) + the setup line.
	res.UpfrontCash = money.Add(roundProduct([]decimal.Decimal{o.PurchasePrice, c.k}, nil), c.setup)
	// effective_per_gpu_hour as for rentals (docs/RULES.md §6.2): the
	// rounded tco ÷ the exact GPU-hours, rounded once to 4 places.
	res.EffectivePerGPUHour = money.QuoRound([]decimal.Decimal{res.TCO},
		[]decimal.Decimal{p.HoursPerMonth, intDec(p.Months), intDec(p.Instances), intDec(o.GPUCount)}, 4)
	return res
}
