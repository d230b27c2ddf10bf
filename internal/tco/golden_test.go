package tco

import (
	"testing"

	"gpuquote/internal/catalog"
)

// TestGoldenHourly: the guide's R9700 tier, €0.471/h, billed by the second.
func TestGoldenHourly(t *testing.T) {
	tests := []struct{ hours, want string }{
		{"200", "94.20"},  // 0.471 × 200 = 94.2
		{"730", "343.83"}, // 0.471 × 730 = 343.83
		{"50", "23.55"},   // 0.471 × 50 = 23.55
	}
	for _, tt := range tests {
		r := mustEval(t, hostkey(), profile(tt.hours, 1), Options{})
		if r.ChosenMode != catalog.ModeHourly {
			t.Errorf("H=%s chosen %s", tt.hours, r.ChosenMode)
		}
		eq(t, "hourly compute H="+tt.hours, mode(r, catalog.ModeHourly).ComputeTotal, tt.want)
		eq(t, "tco H="+tt.hours, r.TCO, tt.want)
		eq(t, "tco_pessimistic H="+tt.hours, r.TCOPessimistic, tt.want)
		if len(r.Flags) != 0 {
			t.Errorf("H=%s flags %v", tt.hours, r.Flags)
		}
	}
}

// TestGoldenBreakEven: monthly ÷ hourly for the page's three packages.
func TestGoldenBreakEven(t *testing.T) {
	tests := []struct{ monthly, want string }{
		{"70", "148.62"},  // 148.6199…
		{"118", "250.53"}, // 250.5307…
		{"284", "602.97"}, // 602.9723…
	}
	for _, tt := range tests {
		q := hostkey()
		q.Monthly = nd(tt.monthly)
		r := mustEval(t, q, profile("200", 1), Options{})
		eqNull(t, "break_even_hours for "+tt.monthly, r.BreakEvenHours, tt.want)
		eqNull(t, "break_even_months", r.BreakEvenMonths, "")
	}
}

// TestGoldenChosenMode: monthly 70 beside hourly 0.471.
func TestGoldenChosenMode(t *testing.T) {
	q := hostkey()
	q.Monthly = nd("70")

	r := mustEval(t, q, profile("200", 1), Options{})
	if r.ChosenMode != catalog.ModeMonthly {
		t.Errorf("H=200 chosen %s, want monthly", r.ChosenMode)
	}
	eq(t, "tco", r.TCO, "70.00")
	eq(t, "hourly beside", mode(r, catalog.ModeHourly).TCO, "94.20")
	if len(r.Modes) != 2 || r.Modes[0].Mode != catalog.ModeHourly || r.Modes[1].Mode != catalog.ModeMonthly {
		t.Errorf("modes %+v", r.Modes)
	}

	r = mustEval(t, q, profile("100", 1), Options{})
	if r.ChosenMode != catalog.ModeHourly {
		t.Errorf("H=100 chosen %s, want hourly", r.ChosenMode)
	}
	eq(t, "tco", r.TCO, "47.10") // 0.471 × 100
	eq(t, "monthly beside", mode(r, catalog.ModeMonthly).TCO, "70.00")
}

// TestGoldenPerformanceRule: the 85 % rule (package verify: nominal 132
// TFLOPS → threshold 112.20, measured 111 is below) as the engine's flag:
// r = 111 ÷ 132 = 0.840909…
func TestGoldenPerformanceRule(t *testing.T) {
	p := profile("200", 1)
	p.PerformanceRatio = nd("0.840909")
	r := mustEval(t, hostkey(), p, Options{})
	if !hasFlag(r, catalog.FlagPerformanceBelow85Pct) {
		t.Errorf("flags %v", r.Flags)
	}
}
