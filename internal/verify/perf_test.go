package verify

import (
	"testing"

	"github.com/shopspring/decimal"
)

func TestPerformance(t *testing.T) {
	dec := decimal.RequireFromString
	ref := func(s string) decimal.NullDecimal { return nd(s) }
	cases := []struct {
		name                        string
		measured, nominal           string
		reference                   decimal.NullDecimal
		basis, basisTF              string
		ratio, toNominal, threshold string
		below                       bool
		id                          string
		percent                     string
	}{
		// The guide's figures: nominal 132 → threshold 112.20; 111 is below.
		{"guide 4090", "111", "132", decimal.NullDecimal{}, BasisNominal, "132", "0.8409", "0.8409", "112.20", true, "verify.perf.below_nominal", "84.09"},
		{"exactly 85 % is not below", "112.2", "132", decimal.NullDecimal{}, BasisNominal, "132", "0.85", "0.85", "112.20", false, "verify.perf.ok_nominal", "85.00"},
		{"just under 85 %", "112.19", "132", decimal.NullDecimal{}, BasisNominal, "132", "0.8499", "0.8499", "112.20", true, "verify.perf.below_nominal", "84.99"},
		// A healthy H200 measures ~770–800 dense BF16 against a ~989 spec:
		// judged against the reference measurement, not the spec sheet.
		{"healthy H200 against the reference", "780", "989", ref("770"), BasisReference, "770", "1.013", "0.7887", "654.50", false, "verify.perf.ok_reference", "101.30"},
		{"slow H200 against the reference", "640", "989", ref("770"), BasisReference, "770", "0.8312", "0.6471", "654.50", true, "verify.perf.below_reference", "83.12"},
		{"reference of zero is no reference", "780", "989", ref("0"), BasisNominal, "989", "0.7887", "0.7887", "840.65", true, "verify.perf.below_nominal", "78.87"},
		{"half-up at the fourth decimal", "1", "3", decimal.NullDecimal{}, BasisNominal, "3", "0.3333", "0.3333", "2.55", true, "verify.perf.below_nominal", "33.33"},
		{"zero measured", "0", "132", decimal.NullDecimal{}, BasisNominal, "132", "0", "0", "112.20", true, "verify.perf.below_nominal", "0.00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Performance(dec(c.measured), dec(c.nominal), c.reference)
			if v.Basis != c.basis || !v.BasisTFLOPS.Equal(dec(c.basisTF)) {
				t.Errorf("basis %s %s, want %s %s", v.Basis, v.BasisTFLOPS, c.basis, c.basisTF)
			}
			if !v.Ratio.Equal(dec(c.ratio)) || !v.RatioToNominal.Equal(dec(c.toNominal)) {
				t.Errorf("ratio %s to nominal %s, want %s %s", v.Ratio, v.RatioToNominal, c.ratio, c.toNominal)
			}
			if v.Threshold.StringFixed(2) != c.threshold || v.Args["Threshold"] != c.threshold {
				t.Errorf("threshold %s (arg %v), want %s", v.Threshold, v.Args["Threshold"], c.threshold)
			}
			if v.Below != c.below || v.MessageID != c.id || v.Args["Percent"] != c.percent {
				t.Errorf("below %v %s %v, want %v %s %s", v.Below, v.MessageID, v.Args["Percent"], c.below, c.id, c.percent)
			}
			for _, a := range messageArgs[v.MessageID] {
				if _, ok := v.Args[a].(string); !ok {
					t.Errorf("arg %s missing: %v", a, v.Args)
				}
			}
		})
	}
	if v := Performance(dec("100"), decimal.Zero, decimal.NullDecimal{}); v.MessageID != "verify.perf.no_basis" || v.Below {
		t.Errorf("no basis: %+v", v)
	}
	if v := Performance(dec("-1"), dec("132"), decimal.NullDecimal{}); v.MessageID != "verify.perf.bad_measured" || v.Below {
		t.Errorf("negative: %+v", v)
	}
}

// TestGoldenPerformanceRule: nominal 132 TFLOPS → threshold 112.20;
// measured 111 is below; exactly 85 % is not.
func TestGoldenPerformanceRule(t *testing.T) {
	dec := decimal.RequireFromString
	if got := PerformanceThreshold(dec("132")); got.StringFixed(2) != "112.20" {
		t.Errorf("threshold %s", got)
	}
	for m, below := range map[string]bool{"111": true, "112.2": false, "112.19": true} {
		if BelowPerformanceRule(dec(m), dec("132")) != below {
			t.Errorf("%s of 132: below should be %v", m, below)
		}
	}
	if !RatioBelowRule(dec("0.849999")) || RatioBelowRule(dec("0.85")) {
		t.Error("ratio rule")
	}
}
