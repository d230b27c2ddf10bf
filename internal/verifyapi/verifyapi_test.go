package verifyapi

import (
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/verify"
)

// TestFiguresKeepTheirWrittenPrecision: every figure goes out as
// nvidia-smi printed it — 657.90 W stays "657.90", 350.00 W "350.00",
// 24576 MiB "24576" — and a figure converted to the field's unit (GiB to
// MiB, KiB to MiB, GHz to MHz) is written without padding zeros.
func TestFiguresKeepTheirWrittenPrecision(t *testing.T) {
	text := "name, memory.total, memory.used, power.draw, power.limit, clocks.sm, clocks.max.sm, utilization.gpu, temperature.gpu\n" +
		"NVIDIA H100 80GB HBM3, 81559 MiB, 2048 KiB, 657.90 W, 700.00 W, 1.98 GHz, 1980 MHz, 100 %, 45.0\n"
	r, err := verify.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	g := market.GPUModel{ID: 1, Vendor: "NVIDIA", Name: "H100", VRAMGB: decimal.New(80, 0)}
	res := NewResponse(r, g, nil, func(id string, _ map[string]any) string { return id })
	s := res.Samples[0]
	for name, got := range map[string]*string{"memory_total_mib": s.MemoryTotalMiB, "memory_used_mib": s.MemoryUsedMiB,
		"power_draw_w": s.PowerDrawW, "power_limit_w": s.PowerLimitW, "clock_sm_mhz": s.ClockSMMHz,
		"clock_max_sm_mhz": s.ClockMaxSMMHz, "utilization_gpu_pct": s.UtilizationGPUPct, "temperature_c": s.TemperatureC} {
		want := map[string]string{"memory_total_mib": "81559", "memory_used_mib": "2", "power_draw_w": "657.90",
			"power_limit_w": "700.00", "clock_sm_mhz": "1980", "clock_max_sm_mhz": "1980", "utilization_gpu_pct": "100",
			"temperature_c": "45.0"}[name]
		if got == nil || *got != want {
			v := "null"
			if got != nil {
				v = *got
			}
			t.Errorf("%s = %q, want %q", name, v, want)
		}
	}
}
