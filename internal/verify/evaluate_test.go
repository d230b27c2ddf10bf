package verify

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
)

// Catalog figures as the sample data holds them (cmd/gpuquote/sample.go),
// plus load ranges where the guide gives them.
var (
	spec4090 = Spec{Name: "NVIDIA GeForce RTX 4090", VRAMGB: decimal.RequireFromString("24"), TDPW: 450, BoostClockMHz: 2520}
	spec3090 = Spec{Name: "NVIDIA GeForce RTX 3090", VRAMGB: decimal.RequireFromString("24"), TDPW: 350, BoostClockMHz: 1695,
		LoadPowerMinW: 280, LoadPowerMaxW: 350, LoadClockMinMHz: 1600, LoadClockMaxMHz: 1800}
	specA100 = Spec{Name: "NVIDIA A100 SXM4 80GB", VRAMGB: decimal.RequireFromString("80"), TDPW: 400, BoostClockMHz: 1410}
	specH100 = Spec{Name: "NVIDIA H100 SXM5 80GB", VRAMGB: decimal.RequireFromString("80"), TDPW: 700, BoostClockMHz: 1980,
		LoadPowerMinW: 550, LoadPowerMaxW: 700, LoadClockMinMHz: 1600, LoadClockMaxMHz: 1980}
	specH200 = Spec{Name: "NVIDIA H200 SXM 141GB", VRAMGB: decimal.RequireFromString("141"), TDPW: 700}
)

// verdict is the expected outcome and message of one check, with some of
// its arguments.
type verdict struct {
	outcome Outcome
	id      string
	args    map[string]string
}

func p(id string, args ...string) verdict { return verdict{OutcomePass, id, pairs(args)} }
func f(id string, args ...string) verdict { return verdict{OutcomeFail, id, pairs(args)} }
func u(id string, args ...string) verdict { return verdict{OutcomeUnknown, id, pairs(args)} }

func pairs(args []string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		m[args[i]] = args[i+1]
	}
	return m
}

func assertChecks(t *testing.T, got []Check, want map[string]verdict) {
	t.Helper()
	if len(got) != len(CheckKeys) {
		t.Fatalf("%d checks, want %d", len(got), len(CheckKeys))
	}
	for i, c := range got {
		if c.Key != CheckKeys[i] {
			t.Errorf("check %d is %s, want %s", i, c.Key, CheckKeys[i])
		}
		if _, ok := messageArgs[c.MessageID]; !ok {
			t.Errorf("%s: message %s is not registered", c.Key, c.MessageID)
		}
		for _, a := range messageArgs[c.MessageID] {
			if _, ok := c.Args[a].(string); !ok {
				t.Errorf("%s: %s lacks string arg %s: %v", c.Key, c.MessageID, a, c.Args)
			}
		}
		w, ok := want[c.Key]
		if !ok {
			continue
		}
		if c.Outcome != w.outcome || c.MessageID != w.id {
			t.Errorf("%s = %s %s %v, want %s %s", c.Key, c.Outcome, c.MessageID, c.Args, w.outcome, w.id)
		}
		for k, v := range w.args {
			if c.Args[k] != v {
				t.Errorf("%s arg %s = %v, want %q", c.Key, k, c.Args[k], v)
			}
		}
	}
}

func TestEvaluateFixtures(t *testing.T) {
	cases := []struct {
		file string
		spec Spec
		want map[string]verdict
	}{
		{"rtx4090_healthy.csv", spec4090, map[string]verdict{
			CheckModel:           p("verify.model.pass", "Reported", "NVIDIA GeForce RTX 4090"),
			CheckVRAMTotal:       p("verify.vram_total.pass", "TotalMiB", "24564", "NominalMiB", "24576", "Percent", "99.95"),
			CheckVRAMAllocatable: p("verify.vram_free.pass", "FreeMiB", "24562", "UsedMiB", "2"),
			CheckLoadPower:       p("verify.load_power.pass_tdp", "DrawW", "441.2", "Count", "4", "TDPW", "450"),
			CheckLoadClock:       p("verify.load_clock.pass_boost", "ClockMHz", "2700", "BoostMHz", "2520"),
			CheckThrottle:        p("verify.throttle.pass_power_cap", "Count", "4", "LimitW", "450"),
			CheckIdleNoise:       p("verify.idle_noise.pass", "Count", "3", "MaxUtil", "1"),
		}},
		// The guide's case: an RTX 3090 at ~40 W and 420 MHz under load.
		{"rtx3090_throttled.csv", spec3090, map[string]verdict{
			CheckModel:           p("verify.model.pass"),
			CheckVRAMTotal:       p("verify.vram_total.pass"),
			CheckVRAMAllocatable: p("verify.vram_free.pass"),
			CheckLoadPower:       f("verify.load_power.fail", "GPU", "0", "DrawW", "40.21", "MinW", "280", "MaxW", "350", "Count", "4"),
			CheckLoadClock:       f("verify.load_clock.fail_range", "ClockMHz", "420", "MinMHz", "1600", "MaxMHz", "1800"),
			CheckThrottle:        f("verify.throttle.fail", "Reasons", "hw_slowdown, hw_power_brake_slowdown", "GPUs", "0", "Count", "4", "Total", "5"),
			CheckIdleNoise:       u("verify.idle_noise.few", "Count", "1", "Min", "3"),
		}},
		{"a100_80gb_noheader_units.csv", specA100, map[string]verdict{
			CheckModel:           p("verify.model.pass"),
			CheckVRAMTotal:       p("verify.vram_total.pass", "Percent", "100.00"),
			CheckVRAMAllocatable: p("verify.vram_free.pass"),
			CheckLoadPower:       u("verify.load_power.no_load"),
			CheckLoadClock:       u("verify.load_clock.no_load"),
			CheckThrottle:        u("verify.throttle.no_load", "Total", "4"),
			CheckIdleNoise:       u("verify.idle_noise.few"),
		}},
		{"h100_x2_query.txt", specH100, map[string]verdict{
			CheckModel:           p("verify.model.pass", "Reported", "NVIDIA H100 80GB HBM3"),
			CheckVRAMTotal:       p("verify.vram_total.pass", "Percent", "99.56"),
			CheckVRAMAllocatable: u("verify.vram_free.busy", "GPU", "1", "UsedMiB", "76898", "Util", "100"),
			CheckLoadPower:       p("verify.load_power.pass", "GPU", "1", "DrawW", "689.92"),
			CheckLoadClock:       p("verify.load_clock.pass_range", "ClockMHz", "1755"),
			CheckThrottle:        p("verify.throttle.pass_power_cap", "LimitW", "700"),
			CheckIdleNoise:       u("verify.idle_noise.few"),
		}},
		{"h200_x4_query_loop.txt", specH200, map[string]verdict{
			CheckModel:           p("verify.model.pass"),
			CheckVRAMTotal:       p("verify.vram_total.pass", "TotalMiB", "143771", "NominalMiB", "144384", "Percent", "99.58"),
			CheckVRAMAllocatable: u("verify.vram_free.busy"),
			CheckLoadPower:       p("verify.load_power.pass_tdp", "GPU", "2", "DrawW", "674.9", "Count", "2"),
			CheckLoadClock:       p("verify.load_clock.pass_max", "GPU", "1", "ClockMHz", "1755", "MaxMHz", "1980"),
			CheckThrottle:        p("verify.throttle.pass_power_cap", "Count", "8"),
			CheckIdleNoise:       u("verify.idle_noise.no_idle"),
		}},
		// A vGPU slice sold as a whole A100 80GB.
		{"a100_vgpu_slice_query.txt", specA100, map[string]verdict{
			CheckModel:           f("verify.model.fail", "Reported", "NVIDIA A100DX-40C", "Ordered", "NVIDIA A100 SXM4 80GB"),
			CheckVRAMTotal:       f("verify.vram_total.short", "TotalMiB", "40960", "Percent", "50.00", "MinPercent", "93"),
			CheckVRAMAllocatable: f("verify.vram_free.fail_total", "FreeMiB", "40960", "Percent", "50.00"),
			CheckLoadPower:       u("verify.load_power.no_load"),
			CheckLoadClock:       u("verify.load_clock.no_load"),
			CheckThrottle:        u("verify.throttle.no_data"),
			CheckIdleNoise:       u("verify.idle_noise.few"),
		}},
		// Utilisation with no memory in use: someone else is on the card.
		{"idle_noise_oversell.csv", spec4090, map[string]verdict{
			CheckModel:           p("verify.model.pass"),
			CheckVRAMAllocatable: p("verify.vram_free.pass", "FreeMiB", "24564"),
			CheckLoadPower:       u("verify.load_power.no_load"),
			CheckThrottle:        u("verify.throttle.no_load"),
			CheckIdleNoise:       f("verify.idle_noise.fail", "GPU", "0", "MaxUtil", "64", "Noisy", "6", "Idle", "8"),
		}},
		{"zh_locale_crlf_bom.csv", spec4090, map[string]verdict{
			CheckModel:     p("verify.model.pass"),
			CheckLoadPower: p("verify.load_power.pass_tdp", "GPU", "0", "DrawW", "412.35"),
			CheckLoadClock: p("verify.load_clock.pass_boost", "GPU", "1", "ClockMHz", "2715"),
			CheckThrottle:  p("verify.throttle.pass", "Count", "2"),
			CheckIdleNoise: u("verify.idle_noise.no_idle"),
		}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			r, err := Parse(fixture(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			assertChecks(t, Evaluate(r, c.spec), c.want)
		})
	}
}

// sample builds a one-GPU sample from readings as strings ("" = N/A).
func sample(n, gpu int, name, total, used, draw, limit, sm, util string, reasons ...string) Sample {
	s := Sample{Sample: n, GPU: gpu, Name: name, MemoryTotalMiB: nd(total), MemoryUsedMiB: nd(used), PowerDrawW: nd(draw),
		PowerLimitW: nd(limit), ClockSMMHz: nd(sm), UtilizationGPUPct: nd(util), ClockMaxSMMHz: nd("1980")}
	if reasons != nil {
		s.ThrottleKnown = true
		if reasons[0] == "-" {
			reasons = []string{}
		}
		s.ThrottleReasons = reasons
	}
	return s
}

func TestEvaluateRules(t *testing.T) {
	l40s := Spec{Name: "NVIDIA L40S", VRAMGB: decimal.RequireFromString("48"), TDPW: 350}
	t4 := Spec{Name: "Tesla T4", VRAMGB: decimal.RequireFromString("16"), TDPW: 70}
	bare := Spec{Name: "NVIDIA H100 PCIe", VRAMGB: decimal.RequireFromString("80")}
	cases := []struct {
		name    string
		spec    Spec
		samples []Sample
		want    map[string]verdict
	}{
		{"L40S with ECC shows 93.7 %", l40s, []Sample{sample(0, 0, "NVIDIA L40S", "46068", "0", "", "", "", "0")},
			map[string]verdict{CheckVRAMTotal: p("verify.vram_total.pass", "Percent", "93.73"), CheckVRAMAllocatable: p("verify.vram_free.pass")}},
		{"T4 with ECC shows 15/16", t4, []Sample{sample(0, 0, "Tesla T4", "15360", "0", "", "", "", "0")},
			map[string]verdict{CheckModel: p("verify.model.pass"), CheckVRAMTotal: p("verify.vram_total.pass", "Percent", "93.75")}},
		{"just under 93 %", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "22855", "0", "", "", "", "0")},
			map[string]verdict{CheckVRAMTotal: f("verify.vram_total.short", "Percent", "93.00")}},
		{"inflated memory", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "24564", "0", "", "", "", "0"),
			sample(0, 1, "NVIDIA GeForce RTX 4090", "49140", "0", "", "", "", "0")},
			map[string]verdict{CheckVRAMTotal: f("verify.vram_total.inflated", "GPU", "1", "TotalMiB", "49140", "Percent", "199.95")}},
		{"1 % over is still fine", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "24821", "0", "", "", "", "0")},
			map[string]verdict{CheckVRAMTotal: p("verify.vram_total.pass")}},
		{"memory held by someone at idle", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "24564", "4000", "", "", "", "3")},
			map[string]verdict{CheckVRAMAllocatable: f("verify.vram_free.fail", "FreeMiB", "20564", "UsedMiB", "4000", "Percent", "83.68")}},
		{"the most idle sample counts", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "24564", "20000", "", "", "", "99"),
			sample(1, 0, "NVIDIA GeForce RTX 4090", "24564", "100", "", "", "", "0")},
			map[string]verdict{CheckVRAMAllocatable: p("verify.vram_free.pass", "FreeMiB", "24464")}},
		{"no memory.used: total counts as free", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "24564", "", "", "", "", "0")},
			map[string]verdict{CheckVRAMAllocatable: p("verify.vram_free.pass_no_used"), CheckIdleNoise: u("verify.idle_noise.no_idle")}},
		{"no memory.used and too small", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "20480", "", "", "", "", "0")},
			map[string]verdict{CheckVRAMAllocatable: f("verify.vram_free.fail_total", "Percent", "83.33")}},
		// Found by FuzzParseCSV: a too-small card under load, memory in use not printed.
		{"too small under load, no memory.used", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "12288", "", "", "", "", "100")},
			map[string]verdict{CheckVRAMAllocatable: f("verify.vram_free.fail_total", "TotalMiB", "12288", "Percent", "50.00")}},
		{"too small under load, nothing in use", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "12288", "3", "", "", "", "100")},
			map[string]verdict{CheckVRAMAllocatable: f("verify.vram_free.fail_total", "UsedMiB", "3")}},
		{"power limit lowered, seen at idle", spec3090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "1", "20", "100.00", "210", "0", "gpu_idle")},
			map[string]verdict{CheckLoadPower: f("verify.load_power.limit_capped", "LimitW", "100", "MinW", "280", "MaxW", "350"),
				CheckLoadClock: u("verify.load_clock.no_load"), CheckThrottle: u("verify.throttle.no_load")}},
		{"power limit lowered, rated power only", spec4090, []Sample{sample(0, 0, "NVIDIA GeForce RTX 4090", "24564", "1", "20", "150", "210", "0")},
			map[string]verdict{CheckLoadPower: f("verify.load_power.limit_capped_tdp", "LimitW", "150", "TDPW", "450")}},
		{"power cap under a lowered limit fails", spec3090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "249.6", "250", "1650", "100", "sw_power_cap"),
			sample(1, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "249.1", "250", "1635", "100", "sw_power_cap")},
			map[string]verdict{CheckLoadPower: p("verify.load_power.pass", "DrawW", "249.1"), CheckLoadClock: p("verify.load_clock.pass_range"),
				CheckThrottle: f("verify.throttle.fail", "Reasons", "sw_power_cap", "Count", "2", "Total", "2")}},
		{"power cap without a rated power fails", bare, []Sample{
			sample(0, 0, "NVIDIA H100 PCIe", "81559", "70000", "349", "350", "1755", "100", "sw_power_cap")},
			map[string]verdict{CheckThrottle: f("verify.throttle.fail", "Reasons", "sw_power_cap"), CheckLoadPower: u("verify.load_power.no_spec"),
				CheckLoadClock: p("verify.load_clock.pass_max", "MaxMHz", "1980")}},
		{"clock far under the card's own maximum", bare, []Sample{
			sample(0, 0, "NVIDIA H100 PCIe", "81559", "70000", "120", "350", "900", "100", "-")},
			map[string]verdict{CheckLoadClock: f("verify.load_clock.fail_max", "ClockMHz", "900", "MaxMHz", "1980"),
				CheckThrottle: p("verify.throttle.pass", "Count", "1")}},
		{"clock just under 90 % of the range", spec3090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "300", "350", "1439", "100")},
			map[string]verdict{CheckLoadClock: f("verify.load_clock.fail_range", "ClockMHz", "1439")}},
		{"clock at 90 % of the range", spec3090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "300", "350", "1440", "100")},
			map[string]verdict{CheckLoadClock: p("verify.load_clock.pass_range", "ClockMHz", "1440")}},
		{"power at 80 % of the range's floor", spec3090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "224", "350", "1700", "100")},
			map[string]verdict{CheckLoadPower: p("verify.load_power.pass", "DrawW", "224")}},
		{"one dip is outvoted by the median", spec3090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "60", "350", "700", "100"),
			sample(1, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "330", "350", "1750", "100"),
			sample(2, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "335", "350", "1755", "100")},
			map[string]verdict{CheckLoadPower: p("verify.load_power.pass", "DrawW", "330"), CheckLoadClock: p("verify.load_clock.pass_range", "ClockMHz", "1750")}},
		{"one card of two is throttled", spec3090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "330", "350", "1750", "100", "-"),
			sample(0, 1, "NVIDIA GeForce RTX 3090", "24576", "20000", "41", "350", "420", "100", "hw_slowdown")},
			map[string]verdict{CheckLoadPower: f("verify.load_power.fail", "GPU", "1", "DrawW", "41"),
				CheckLoadClock: f("verify.load_clock.fail_range", "GPU", "1", "ClockMHz", "420"),
				CheckThrottle:  f("verify.throttle.fail", "Reasons", "hw_slowdown", "GPUs", "1", "Count", "1", "Total", "2")}},
		{"under load without power readings", spec3090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "", "", "", "100")},
			map[string]verdict{CheckLoadPower: u("verify.load_power.no_data"), CheckLoadClock: u("verify.load_clock.no_data")}},
		{"one noisy idle sample is a blip", spec4090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 4090", "24564", "2", "", "", "", "0"),
			sample(1, 0, "NVIDIA GeForce RTX 4090", "24564", "2", "", "", "", "12"),
			sample(2, 0, "NVIDIA GeForce RTX 4090", "24564", "2", "", "", "", "0"),
			sample(3, 0, "NVIDIA GeForce RTX 4090", "24564", "2", "", "", "", "4")},
			map[string]verdict{CheckIdleNoise: u("verify.idle_noise.blip", "GPU", "0", "MaxUtil", "12")}},
		{"another card's model", spec4090, []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 4090", "24564", "2", "", "", "", "0"),
			sample(0, 1, "NVIDIA GeForce RTX 4090 D", "24564", "2", "", "", "", "0")},
			map[string]verdict{CheckModel: f("verify.model.fail", "GPU", "1", "Reported", "NVIDIA GeForce RTX 4090 D")}},
		{"no name printed", spec4090, []Sample{sample(0, 0, "", "24564", "2", "", "", "", "0")},
			map[string]verdict{CheckModel: u("verify.model.no_data")}},
		{"nothing known", Spec{}, []Sample{{}},
			map[string]verdict{CheckModel: u("verify.model.no_spec"), CheckVRAMTotal: u("verify.vram_total.no_spec"),
				CheckVRAMAllocatable: u("verify.vram_free.no_spec"), CheckLoadPower: u("verify.load_power.no_spec"),
				CheckLoadClock: u("verify.load_clock.no_load"), CheckThrottle: u("verify.throttle.no_data"), CheckIdleNoise: u("verify.idle_noise.no_idle")}},
		{"no samples at all", spec3090, nil,
			map[string]verdict{CheckModel: u("verify.model.no_data"), CheckVRAMTotal: u("verify.vram_total.no_data"),
				CheckVRAMAllocatable: u("verify.vram_free.no_data"), CheckLoadPower: u("verify.load_power.no_load"),
				CheckLoadClock: u("verify.load_clock.no_load"), CheckThrottle: u("verify.throttle.no_data"), CheckIdleNoise: u("verify.idle_noise.no_idle")}},
		{"load clock without any reference", Spec{Name: "X"}, []Sample{{UtilizationGPUPct: nd("100"), ClockSMMHz: nd("1500")}},
			map[string]verdict{CheckLoadClock: u("verify.load_clock.no_spec")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertChecks(t, Evaluate(Report{Samples: c.samples}, c.spec), c.want)
		})
	}
}

func TestTrialCheckNumbers(t *testing.T) {
	want := map[string]int{CheckModel: 1, CheckVRAMTotal: 2, CheckVRAMAllocatable: 6, CheckLoadPower: 11,
		CheckLoadClock: 11, CheckThrottle: 11, CheckIdleNoise: 10}
	for _, k := range CheckKeys {
		if got := TrialCheckNumber(k); got != want[k] {
			t.Errorf("TrialCheckNumber(%s) = %d, want %d", k, got, want[k])
		}
		// The number names the catalog check its key says.
		n := TrialCheckNumber(k)
		if catalog.TrialChecks[n-1].Key != trialCheckKeys[k] {
			t.Errorf("%s evidences check %d %s, want %s", k, n, catalog.TrialChecks[n-1].Key, trialCheckKeys[k])
		}
	}
	if TrialCheckNumber("nope") != 0 {
		t.Error("unknown key has a number")
	}
}

func TestSameModel(t *testing.T) {
	cases := []struct {
		reported, ordered string
		want              bool
	}{
		{"NVIDIA GeForce RTX 4090", "NVIDIA RTX 4090", true},
		{"NVIDIA GeForce RTX 4090", "RTX 4090", true},
		{"NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090", true},
		{"NVIDIA GeForce RTX 4090", "RTX 4090 24G", true},
		{"NVIDIA GeForce RTX 4090 D", "NVIDIA RTX 4090", false},
		{"NVIDIA GeForce RTX 4090D", "NVIDIA RTX 4090 D", true},
		{"NVIDIA GeForce RTX 3090", "NVIDIA RTX 4090", false},
		{"NVIDIA GeForce RTX 3090 Ti", "RTX 3090", false},
		{"NVIDIA GeForce RTX 4090 Laptop GPU", "RTX 4090", false},
		{"NVIDIA A100-SXM4-80GB", "NVIDIA A100 80G", true},
		{"NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB", true},
		{"NVIDIA A100-SXM4-40GB", "A100 SXM4 80GB", false},
		{"NVIDIA A100-PCIE-80GB", "A100 SXM4 80GB", false},
		{"NVIDIA A100 80GB PCIe", "A100 80 GB PCI-E", true},
		{"NVIDIA A800-SXM4-80GB", "A100 SXM4 80GB", false},
		{"NVIDIA A100DX-40C", "A100 SXM4 80GB", false},
		{"NVIDIA H100 80GB HBM3", "H100 SXM5 80GB", true},
		{"NVIDIA H100 PCIe", "H100 SXM5 80GB", false},
		{"NVIDIA H100 NVL", "H100 SXM5 80GB", false},
		{"NVIDIA H200", "H200 SXM 141GB", true},
		{"NVIDIA H200 NVL", "H200 SXM 141GB", false},
		{"NVIDIA H20", "H200", false},
		{"NVIDIA L40S", "L40S", true},
		{"NVIDIA L40", "L40S", false},
		{"Tesla V100-SXM2-32GB", "V100 32GB", true},
		{"Tesla V100-SXM2-16GB", "V100 32GB", false},
		{"NVIDIA RTX 6000 Ada Generation", "RTX 6000 Ada", true},
		{"Quadro RTX 6000", "RTX 6000 Ada", false},
		{"", "RTX 4090", false},
		{"NVIDIA", "NVIDIA", false},
	}
	for _, c := range cases {
		if got := SameModel(c.reported, c.ordered); got != c.want {
			t.Errorf("SameModel(%q, %q) = %v, want %v", c.reported, c.ordered, got, c.want)
		}
	}
}

func TestEvaluateMessagesRegistered(t *testing.T) {
	for id := range messageArgs {
		if !strings.HasPrefix(id, "verify.") {
			t.Errorf("%s is outside verify.*", id)
		}
	}
}
