package verify

import "github.com/shopspring/decimal"

// PerformanceRuleRatio is the 85 % rule (docs/RULES.md §9.6): measured
// compute below 85 % of the figure it is held against is de-facto false
// advertising; nominal 132 TFLOPS → threshold 112.20, measured 111 is
// below. This is the rule's one home: the TCO engine's
// performance_below_85pct flag asks RatioBelowRule.
var PerformanceRuleRatio = decimal.New(85, -2)

// PerformanceThreshold is the rule's line for a figure, rounded half-up to
// 0.01 for reading: 132 → 112.20.
func PerformanceThreshold(basis decimal.Decimal) decimal.Decimal {
	return basis.Mul(PerformanceRuleRatio).Round(2)
}

// BelowPerformanceRule reports whether measured is below 85 % of basis,
// exactly, against the unrounded threshold: exactly 85 % is not below.
func BelowPerformanceRule(measured, basis decimal.Decimal) bool {
	return measured.LessThan(basis.Mul(PerformanceRuleRatio))
}

// RatioBelowRule reports whether a measured ratio (measured ÷ the figure
// held against) is below 85 %.
func RatioBelowRule(ratio decimal.Decimal) bool { return ratio.LessThan(PerformanceRuleRatio) }

// PerfVerdict is the 85 % rule applied to one measured figure.
type PerfVerdict struct {
	Basis          string          // "reference" when a reference measured figure for that precision exists, else "nominal"
	BasisTFLOPS    decimal.Decimal // the figure compared against
	Ratio          decimal.Decimal // measured ÷ basis, 4 decimals half-up
	RatioToNominal decimal.Decimal // measured ÷ nominal, 4 decimals half-up (0 when nominal is unknown)
	Threshold      decimal.Decimal // 85 % of the basis, 2 decimals (nominal 132 → 112.20)
	Below          bool            // measured < 85 % of the basis
	MessageID      string          // the verdict, a catalog message (verify.perf.*)
	Args           map[string]any  // placeholder values as strings
}

// The bases a PerfVerdict compares against.
const (
	BasisReference = "reference"
	BasisNominal   = "nominal"
)

// Performance applies the 85 % rule to a measured TFLOPS figure. A
// datacenter card's realistic matmul reaches less than its spec-sheet peak
// even when healthy (an H200 measures about 770–800 dense BF16 TFLOP/s
// against ~989), so when the catalog holds a reference measured figure for
// the precision, the rule is applied to it; otherwise to the nominal one.
// The verdict says which. Below compares exactly, against the unrounded
// threshold: exactly 85 % is not below.
func Performance(measured decimal.Decimal, nominal decimal.Decimal, reference decimal.NullDecimal) PerfVerdict {
	v := PerfVerdict{Basis: BasisNominal, BasisTFLOPS: nominal}
	if reference.Valid && reference.Decimal.IsPositive() {
		v.Basis, v.BasisTFLOPS = BasisReference, reference.Decimal
	}
	args := map[string]any{"Measured": measured.String(), "Basis": v.BasisTFLOPS.String(), "Nominal": nominal.String()}
	v.Args = args
	if measured.IsNegative() {
		v.MessageID = "verify.perf.bad_measured"
		return v
	}
	if !v.BasisTFLOPS.IsPositive() {
		v.MessageID = "verify.perf.no_basis"
		return v
	}
	v.Threshold = PerformanceThreshold(v.BasisTFLOPS)
	v.Ratio = measured.DivRound(v.BasisTFLOPS, 4)
	if nominal.IsPositive() {
		v.RatioToNominal = measured.DivRound(nominal, 4)
		args["PercentOfNominal"] = measured.Mul(hundred).DivRound(nominal, 2).StringFixed(2)
	}
	v.Below = BelowPerformanceRule(measured, v.BasisTFLOPS)
	args["Threshold"] = v.Threshold.StringFixed(2)
	args["Percent"] = measured.Mul(hundred).DivRound(v.BasisTFLOPS, 2).StringFixed(2)
	switch {
	case v.Below && v.Basis == BasisReference:
		v.MessageID = "verify.perf.below_reference"
	case v.Below:
		v.MessageID = "verify.perf.below_nominal"
	case v.Basis == BasisReference:
		v.MessageID = "verify.perf.ok_reference"
	default:
		v.MessageID = "verify.perf.ok_nominal"
	}
	return v
}
