package extract

// The reasons a price-bearing phrase gave no value (docs/RULES.md §22.7);
// each is a message of the catalogs (internal/i18n/locales/extract.*.toml).
const (
	// MsgSkipRange: a range of prices ("¥1.8–2.2", "$0.30–0.45/hr").
	MsgSkipRange = "extract.skip.range"
	// MsgSkipConditional: a price under a condition or a "from" price
	// ("from $1.99", "¥2.72/小时起", "新用户首月", "if you commit").
	MsgSkipConditional = "extract.skip.conditional"
	// MsgSkipDiscount: a discount without a price ("包年 8 折", "15% off").
	MsgSkipDiscount = "extract.skip.discount"
	// MsgSkipApprox: an estimate ("约 ¥2", "about $2/hr", "¥1,000 左右").
	MsgSkipApprox = "extract.skip.approximate"
	// MsgSkipEquivalent: a figure worked out from another price ("相当于",
	// "that is $800/month equivalent", "¥1.98 × 8").
	MsgSkipEquivalent = "extract.skip.equivalent"
	// MsgSkipFormer: a former or list price ("原价", "was $2.49").
	MsgSkipFormer = "extract.skip.former"
	// MsgSkipConflict: the field was read with two different values.
	MsgSkipConflict = "extract.skip.conflict"
	// MsgSkipCurrency: prices in more than one currency, or in a dollar
	// of another country.
	MsgSkipCurrency = "extract.skip.currency"
	// MsgSkipNoCurrency: a price whose currency the message never states.
	MsgSkipNoCurrency = "extract.skip.no_currency"
	// MsgSkipPerGPU: a price per GPU where the message does not say how
	// many GPUs the instance has.
	MsgSkipPerGPU = "extract.skip.per_gpu"
	// MsgSkipPeriod: a price whose period does not fit its mode ("包年
	// ¥980/月", a deposit per month).
	MsgSkipPeriod = "extract.skip.period"
	// MsgSkipUnit: a hidden-cost price in a unit its line does not take.
	MsgSkipUnit = "extract.skip.unit"
	// MsgSkipBounds: a value the form would refuse (too many places, too
	// large).
	MsgSkipBounds = "extract.skip.bounds"
)

// Reasons lists every reason id, for the catalogs' test.
var Reasons = []string{
	MsgSkipRange, MsgSkipConditional, MsgSkipDiscount, MsgSkipApprox, MsgSkipEquivalent, MsgSkipFormer,
	MsgSkipConflict, MsgSkipCurrency, MsgSkipNoCurrency, MsgSkipPerGPU, MsgSkipPeriod, MsgSkipUnit, MsgSkipBounds,
}
