package tco

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/money"
)

// Input bounds (docs/RULES.md §2, §14.1). The rules fix only 0 < H ≤ 730, M ≥ 1, N ≥ 1, S ≥ 1 and
// gpu_count ≥ 1; the upper bounds below are decided: they sit far above any
// real rental and far below where a typo could pass for a plan.
const (
	// MaxPlaces is the most decimal places of a price, quantity, hours,
	// rate or ratio (a vendor price of 0.000123 per GB exists; 7 places do not).
	MaxPlaces = 6
	// MaxFXPlaces is the most decimal places of an exchange rate.
	MaxFXPlaces = 10
	// MaxMonths bounds the horizon and the commitment: ten years.
	MaxMonths = 120
	// MaxInstances bounds N.
	MaxInstances = 10000
	// MaxGPUCount bounds GPUs per instance.
	MaxGPUCount = 1024
	// MaxStartsPerMonth bounds S (about 14 starts an hour).
	MaxStartsPerMonth = 10000
	// MaxPublicIPs bounds the public IPs per instance.
	MaxPublicIPs = 10000
	// MaxLines is the number of hidden-cost items.
	MaxLines = catalog.ItemCount
	// MaxReferencePrices bounds the reference prices of one evaluation.
	MaxReferencePrices = 100
	// MaxReferencePlaces bounds the decimal places of a reference price as
	// the engine reads it: one converted from another currency carries the
	// exact product of a price (MaxPlaces) and a rate (MaxFXPlaces)
	// (docs/RULES.md §3.6). Requests keep MaxPlaces for what they send.
	MaxReferencePlaces = MaxPlaces + MaxFXPlaces
	// MaxTextLen bounds gpu_model; MaxNoteLen bounds a line's note (characters).
	MaxTextLen = 200
	// MaxNoteLen bounds a line's note, in characters.
	MaxNoteLen = 1000
)

// Decimal bounds, decided as above.
var (
	// MaxAmount bounds every price, quantity and deposit: 10¹².
	MaxAmount = decimal.New(1, 12)
	// MaxFXRate bounds an exchange rate.
	MaxFXRate = decimal.New(1, 6)
	// MaxVRAMGB bounds the memory of one GPU.
	MaxVRAMGB = decimal.New(10000, 0)
	// MaxSpotOverhead bounds spot_overhead (1000 % rework).
	MaxSpotOverhead = decimal.New(10, 0)
	// MaxPerformanceRatio bounds performance_ratio.
	MaxPerformanceRatio = decimal.New(10, 0)
	// MaxTokensPerSecond bounds tokens_per_second_per_gpu.
	MaxTokensPerSecond = decimal.New(1, 9)
	// MaxParamsBillions bounds params_billions (a 100-trillion-parameter model).
	MaxParamsBillions = decimal.New(100000, 0)
	// MaxPercent bounds early_termination_pct.
	MaxPercent = decimal.New(100, 0)
	// MaxReferencePrice bounds a reference price as the engine reads it:
	// MaxAmount converted at any rate a server may hold (stored rates stay
	// below 10¹⁶), see MaxReferencePlaces.
	MaxReferencePrice = MaxAmount.Mul(decimal.New(1, 16))
)

type validator struct {
	errs []FieldError
}

func (v *validator) add(field, code string, args ...string) {
	v.errs = append(v.errs, NewFieldError(field, code, args...))
}

// amount checks a non-negative amount or quantity: ≥ 0, ≤ MaxAmount, at
// most MaxPlaces decimal places.
func (v *validator) amount(field string, d decimal.Decimal) {
	v.bounded(field, d, MaxAmount, MaxPlaces)
}

func (v *validator) bounded(field string, d, max decimal.Decimal, places int) {
	if code, args := checkBounded(d, max, places); code != "" {
		v.add(field, code, args...)
	}
}

// checkBounded returns the error code (and its args) of a non-negative
// decimal that is negative, above max or has more than places decimal
// places; "" when it is fine.
func checkBounded(d, max decimal.Decimal, places int) (string, []string) {
	switch {
	case d.Sign() < 0:
		return CodeNegative, nil
	case above(d, max):
		return CodeTooLarge, []string{"Max", money.String(max)}
	case money.Places(d) > places:
		return CodeTooManyDecimals, []string{"Max", strconv.Itoa(places)}
	}
	return "", nil
}

// above reports d > max for d ≥ 0. Most inputs have far fewer integer
// digits than the bound, which the digit count shows without the big-int
// rescaling of Cmp.
func above(d, max decimal.Decimal) bool {
	if d.Sign() == 0 || d.NumDigits()+int(d.Exponent()) < max.NumDigits()+int(max.Exponent()) {
		return false
	}
	return d.GreaterThan(max)
}

// positive checks 0 < d ≤ max with at most places decimal places.
func (v *validator) positive(field string, d, max decimal.Decimal, places int) {
	switch {
	case d.Sign() <= 0:
		v.add(field, CodeMustBePositive)
	case above(d, max):
		v.add(field, CodeTooLarge, "Max", money.String(max))
	case money.Places(d) > places:
		v.add(field, CodeTooManyDecimals, "Max", strconv.Itoa(places))
	}
}

func (v *validator) intRange(field string, n, min, max int) {
	if n < min || n > max {
		v.add(field, CodeIntOutOfRange, "Min", strconv.Itoa(min), "Max", strconv.Itoa(max))
	}
}

func (v *validator) text(field, s string, max int) {
	if utf8.RuneCountInString(s) > max {
		v.add(field, CodeTooLong, "Max", strconv.Itoa(max))
	}
}

// echo shortens a user-supplied value before it goes into a message.
func echo(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

func (v *validator) currency(field, code string, required bool) {
	if code == "" {
		if required {
			v.add(field, CodeRequired)
		}
		return
	}
	if !money.IsCurrency(code) {
		v.add(field, CodeUnknownCurrency, "Value", echo(code))
	}
}

func unitList(units []catalog.Unit) string {
	s := make([]string, len(units))
	for i, u := range units {
		s[i] = string(u)
	}
	return strings.Join(s, ", ")
}

// Validate checks a quote, a profile and options and returns every bad
// field at once, each with the JSON path of the evaluation API. An empty
// result means Evaluate will price the input.
func Validate(q Quote, p Profile, opts Options) []FieldError {
	v := &validator{}
	v.quote(q)
	v.profile(p)
	v.options(q, opts)
	// A quote priced only on spot has no allowed mode for a profile that
	// cannot resume (docs/RULES.md §4.4: spot is never chosen then), so there is nothing
	// to report a TCO for.
	if q.SpotHourly.Valid && !q.Hourly.Valid && !q.Monthly.Valid && !q.Yearly.Valid && !p.Resumable {
		v.add("profile.resumable", CodeNoAllowedMode)
	}
	return v.errs
}

// ValidateProfile checks a usage profile alone (a comparison prices many
// quotes for one profile), with the same paths and rules as Validate.
func ValidateProfile(p Profile) []FieldError {
	v := &validator{}
	v.profile(p)
	return v.errs
}

func (v *validator) quote(q Quote) {
	v.currency("quote.currency", q.Currency, true)
	v.text("quote.gpu_model", q.GPUModel, MaxTextLen)
	v.intRange("quote.gpu_count", q.GPUCount, 1, MaxGPUCount)
	if q.VRAMGB.Valid {
		v.positive("quote.vram_gb", q.VRAMGB.Decimal, MaxVRAMGB, MaxPlaces)
	}
	if q.Sharing != "" && !q.Sharing.Valid() {
		v.add("quote.sharing", CodeUnknownSharing, "Value", echo(string(q.Sharing)))
	}
	prices := []struct {
		field string
		d     decimal.NullDecimal
	}{
		{"quote.hourly", q.Hourly}, {"quote.monthly", q.Monthly},
		{"quote.yearly", q.Yearly}, {"quote.spot_hourly", q.SpotHourly},
	}
	anyPrice := false
	for _, pr := range prices {
		if pr.d.Valid {
			anyPrice = true
			v.amount(pr.field, pr.d.Decimal)
		}
	}
	if !anyPrice {
		v.add("quote", CodeNoPrice)
	}
	switch {
	case q.BillingGranularity == "":
		if q.Hourly.Valid || q.SpotHourly.Valid {
			v.add("quote.billing_granularity", CodeRequired)
		}
	case !q.BillingGranularity.Valid():
		v.add("quote.billing_granularity", CodeUnknownGranularity, "Value", echo(string(q.BillingGranularity)))
	}
	v.amount("quote.included_mbps", q.IncludedMbps)
	v.amount("quote.included_system_disk_gb", q.IncludedSystemDiskGB)
	v.amount("quote.included_data_disk_gb", q.IncludedDataDiskGB)
	v.intRange("quote.commitment_months", q.CommitmentMonths, 0, MaxMonths)
	if q.EarlyTerminationPct.Valid {
		d := q.EarlyTerminationPct.Decimal
		if d.Sign() < 0 || d.GreaterThan(MaxPercent) {
			v.add("quote.early_termination_pct", CodeOutOfRange, "Min", "0", "Max", "100")
		} else if money.Places(d) > MaxPlaces {
			v.add("quote.early_termination_pct", CodeTooManyDecimals, "Max", strconv.Itoa(MaxPlaces))
		}
	}
	if q.Deposit.Valid {
		v.amount("quote.deposit", q.Deposit.Decimal)
	}
	if q.TaxRate.Valid {
		d := q.TaxRate.Decimal
		if d.Sign() < 0 || money.Cmp(d, one) >= 0 {
			v.add("quote.tax_rate", CodeTaxRateOutOfRange)
		} else if money.Places(d) > MaxPlaces {
			v.add("quote.tax_rate", CodeTooManyDecimals, "Max", strconv.Itoa(MaxPlaces))
		}
	} else if !q.PricesIncludeTax {
		// Tax-exclusive prices cannot be normalised without the rate (docs/RULES.md §5.1).
		v.add("quote.tax_rate", CodeRequired)
	}
	if len(q.Lines) > MaxLines {
		v.add("quote.lines", CodeTooMany, "Max", strconv.Itoa(MaxLines))
		return
	}
	var seen [catalog.ItemCount]bool
	for i, l := range q.Lines {
		v.line(i, l, &seen)
	}
}

// AllowanceAllowed reports whether a line of item may carry the free
// allowance a. The bundled add-on is one per instance, bought whole: an
// allowance there is an input error, not a discount that silently zeroes
// the charge (docs/RULES.md §3.4). Zero is always allowed. The quote form and
// the CSV import (package quote) apply the same rule through this function.
func AllowanceAllowed(item catalog.ItemKey, a decimal.Decimal) bool {
	return a.IsZero() || item != catalog.ItemBundledAddon
}

// linePath is the JSON path of a field of quote line i. It is built only
// when there is an error to report.
func linePath(i int, field string) string {
	return "quote.lines[" + strconv.Itoa(i) + "]." + field
}

func (v *validator) line(i int, l Line, seen *[catalog.ItemCount]bool) {
	idx := -1
	switch {
	case l.Item == "":
		v.add(linePath(i, "item"), CodeRequired)
	default:
		idx = catalog.ItemIndex(l.Item)
		if idx < 0 {
			v.add(linePath(i, "item"), CodeUnknownItem, "Value", echo(string(l.Item)))
		} else if seen[idx] {
			v.add(linePath(i, "item"), CodeDuplicateItem, "Item", string(l.Item))
			idx = -1
		} else {
			seen[idx] = true
		}
	}
	switch {
	case l.Status == "":
		v.add(linePath(i, "status"), CodeRequired)
	case !l.Status.Valid():
		v.add(linePath(i, "status"), CodeUnknownStatus, "Value", echo(string(l.Status)))
	}
	if l.Unit != "" {
		if !l.Unit.Valid() {
			v.add(linePath(i, "unit"), CodeUnknownUnit, "Value", echo(string(l.Unit)))
		} else if idx >= 0 && !catalog.Items[idx].Allows(l.Unit) {
			it := catalog.Items[idx]
			v.add(linePath(i, "unit"), CodeUnitNotAllowed, "Item", string(it.Key), "Unit", string(l.Unit), "Allowed", unitList(it.Units))
		}
	}
	switch {
	case l.UnitPrice.Valid && (l.Status == catalog.StatusIncluded || l.Status == catalog.StatusNotApplicable):
		// A price on a line said to cost nothing is a contradiction, not a
		// detail to guess about: the user says which one is true.
		v.add(linePath(i, "unit_price"), CodePriceOnFreeLine, "Status", string(l.Status))
	case l.UnitPrice.Valid:
		if code, args := checkBounded(l.UnitPrice.Decimal, MaxAmount, MaxPlaces); code != "" {
			v.add(linePath(i, "unit_price"), code, args...)
		}
	case l.Status == catalog.StatusCharged:
		v.add(linePath(i, "unit_price"), CodeRequired)
	}
	if code, args := checkBounded(l.FreeAllowance, MaxAmount, MaxPlaces); code != "" {
		v.add(linePath(i, "free_allowance"), code, args...)
	} else if !AllowanceAllowed(l.Item, l.FreeAllowance) {
		v.add(linePath(i, "free_allowance"), CodeAllowanceNotAllowed, "Item", string(l.Item))
	}
	if len(l.Note) > MaxNoteLen && utf8.RuneCountInString(l.Note) > MaxNoteLen {
		v.add(linePath(i, "note"), CodeTooLong, "Max", strconv.Itoa(MaxNoteLen))
	}
}

func (v *validator) profile(p Profile) {
	h := p.HoursPerMonth
	if h.Sign() <= 0 || money.Cmp(h, HoursPerMonth) > 0 {
		v.add("profile.hours_per_month", CodeHoursOutOfRange, "Max", "730")
	} else if money.Places(h) > MaxPlaces {
		v.add("profile.hours_per_month", CodeTooManyDecimals, "Max", strconv.Itoa(MaxPlaces))
	}
	v.intRange("profile.months", p.Months, 1, MaxMonths)
	v.intRange("profile.instances", p.Instances, 1, MaxInstances)
	// 0 means "not given" and takes the default 1 (docs/RULES.md §2.1: S ≥ 1, default 1).
	v.intRange("profile.starts_per_month", p.StartsPerMonth, 0, MaxStartsPerMonth)
	if p.BetweenRuns != "" && !p.BetweenRuns.Valid() {
		v.add("profile.between_runs", CodeUnknownBetweenRuns, "Value", echo(string(p.BetweenRuns)))
	}
	if p.SpotOverhead.Valid {
		d := p.SpotOverhead.Decimal
		if d.Sign() < 0 || d.GreaterThan(MaxSpotOverhead) {
			v.add("profile.spot_overhead", CodeOutOfRange, "Min", "0", "Max", money.String(MaxSpotOverhead))
		} else if money.Places(d) > MaxPlaces {
			v.add("profile.spot_overhead", CodeTooManyDecimals, "Max", strconv.Itoa(MaxPlaces))
		}
	}
	v.amount("profile.mbps", p.Mbps)
	v.amount("profile.system_disk_gb", p.SystemDiskGB)
	v.amount("profile.data_disk_gb", p.DataDiskGB)
	v.amount("profile.object_storage_gb", p.ObjectStorageGB)
	v.amount("profile.snapshot_gb", p.SnapshotGB)
	v.amount("profile.image_gb", p.ImageGB)
	v.amount("profile.egress_gb_per_month", p.EgressGBPerMonth)
	v.amount("profile.migration_gb", p.MigrationGB)
	v.intRange("profile.public_ips", p.PublicIPs, 0, MaxPublicIPs)
	if p.TokensPerSecondPerGPU.Valid {
		v.positive("profile.tokens_per_second_per_gpu", p.TokensPerSecondPerGPU.Decimal, MaxTokensPerSecond, MaxPlaces)
	}
	if p.PerformanceRatio.Valid {
		v.positive("profile.performance_ratio", p.PerformanceRatio.Decimal, MaxPerformanceRatio, MaxPlaces)
	}
	taskOK := false
	switch {
	case p.Task == "":
	case !p.Task.Valid():
		v.add("profile.task", CodeUnknownTask, "Value", echo(string(p.Task)))
	default:
		taskOK = true
	}
	if p.ParamsBillions.Valid {
		v.positive("profile.params_billions", p.ParamsBillions.Decimal, MaxParamsBillions, MaxPlaces)
	} else if taskOK && p.Task != catalog.TaskRendering {
		v.add("profile.params_billions", CodeRequired)
	}
	switch {
	case p.Precision == "":
	case !p.Precision.Valid():
		v.add("profile.precision", CodeUnknownPrecision, "Value", echo(string(p.Precision)))
	case taskOK && !precisionFits(p.Task, p.Precision):
		v.add("profile.precision", CodePrecisionNotForTask, "Task", string(p.Task), "Precision", string(p.Precision))
	}
}

func (v *validator) options(q Quote, o Options) {
	v.currency("report_currency", o.ReportCurrency, false)
	if o.FXRate.Valid {
		v.positive("fx_rate", o.FXRate.Decimal, MaxFXRate, MaxFXPlaces)
	}
	report := o.ReportCurrency
	if report == "" {
		report = q.Currency
	}
	if q.Currency != "" && money.IsCurrency(q.Currency) && money.IsCurrency(report) {
		if report == q.Currency {
			if o.FXRate.Valid && !o.FXRate.Decimal.Equal(one) {
				v.add("fx_rate", CodeFXRateNotOne)
			}
		} else if !o.FXRate.Valid {
			if _, ok := o.Rates[q.Currency]; !ok {
				v.add("fx_rate", CodeFXRateRequired, "From", q.Currency, "To", report)
			}
		}
	}
	v.references(o.ReferencePrices)
	if o.VRAMFloorGB.Valid {
		v.positive("vram_floor_gb", o.VRAMFloorGB.Decimal, MaxVRAMGB, MaxPlaces)
	}
}

// ValidateQuote checks a quote and reference prices alone, with the paths
// and rules of Validate (the bill check prices a quote without a profile).
func ValidateQuote(q Quote, refs []ReferencePrice) []FieldError {
	v := &validator{}
	v.quote(q)
	v.references(refs)
	return v.errs
}

// references checks the reference prices of an evaluation.
func (v *validator) references(refs []ReferencePrice) {
	if len(refs) > MaxReferencePrices {
		v.add("reference_prices", CodeTooMany, "Max", strconv.Itoa(MaxReferencePrices))
		return
	}
	// Several references may stand for one item and unit (converted from
	// different currencies, or one per source): the line takes the editors'
	// before the market's and the highest amount within a source
	// (docs/RULES.md §3.6), so the engine refuses no duplicates; a request
	// may send only one per item, unit, currency and source (package tcoapi).
	for i, r := range refs {
		path := "reference_prices[" + strconv.Itoa(i) + "]"
		idx := -1
		if r.Item == "" {
			v.add(path+".item", CodeRequired)
		} else if idx = catalog.ItemIndex(r.Item); idx < 0 {
			v.add(path+".item", CodeUnknownItem, "Value", echo(string(r.Item)))
		}
		switch {
		case r.Unit == "":
			v.add(path+".unit", CodeRequired)
		case !r.Unit.Valid():
			v.add(path+".unit", CodeUnknownUnit, "Value", echo(string(r.Unit)))
		case idx >= 0 && !catalog.Items[idx].Allows(r.Unit):
			it := catalog.Items[idx]
			v.add(path+".unit", CodeUnitNotAllowed, "Item", string(it.Key), "Unit", string(r.Unit), "Allowed", unitList(it.Units))
		}
		v.bounded(path+".unit_price", r.UnitPrice, MaxReferencePrice, MaxReferencePlaces)
		v.currency(path+".currency", r.Currency, false)
		switch r.Source {
		case "", SourceEditor:
			if r.QuoteID != 0 {
				v.add(path+".quote_id", CodeQuoteIDNotMarket)
			}
		case SourceMarket:
			// The market reference names the published quote it comes from.
			if r.QuoteID == 0 {
				v.add(path+".quote_id", CodeRequired)
			} else if r.QuoteID < 0 {
				v.add(path+".quote_id", CodeMustBePositive)
			}
		default:
			v.add(path+".source", CodeUnknownSource, "Value", echo(string(r.Source)))
		}
	}
}
