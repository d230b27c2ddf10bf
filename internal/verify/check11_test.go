package verify

import "testing"

// TestCheck11IsOneDecision: a card drawing ~40 W at 420 MHz under full
// load with the software power cap on (at the stock 350 W limit) fails
// every line of check 11; none explains the cap away as "running at its
// rated power" while the power or clock line shows it is not.
func TestCheck11IsOneDecision(t *testing.T) {
	r, err := Parse(fixture(t, "rtx3090_sw_power_cap.csv"))
	if err != nil {
		t.Fatal(err)
	}
	checks := Evaluate(r, spec3090)
	assertChecks(t, checks, map[string]verdict{
		CheckLoadPower: f("verify.load_power.fail", "GPU", "0", "DrawW", "40.12", "Count", "4"),
		CheckLoadClock: f("verify.load_clock.fail_range", "ClockMHz", "420"),
		CheckThrottle: f("verify.throttle.fail_power_cap_held", "Reasons", "sw_power_cap", "GPUs", "0",
			"Count", "4", "Total", "5", "LimitW", "350"),
	})
	for _, c := range checks {
		if c.TrialCheck == TrialCheckNumber(CheckThrottle) && c.Outcome != OutcomeFail {
			t.Errorf("check 11 line %s is %s (%s), want every line to fail", c.Key, c.Outcome, c.MessageID)
		}
	}
}

// TestCheck11PowerCapAgreesWithTheFigures: the stock-limit power cap is a
// pass only where the power and clock lines of check 11 pass too.
func TestCheck11PowerCapAgreesWithTheFigures(t *testing.T) {
	cases := []struct {
		name    string
		samples []Sample
		want    map[string]verdict
	}{
		{"at rated power and a healthy clock", []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "348", "350", "1710", "100", "sw_power_cap"),
			sample(1, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "349", "350", "1695", "100", "sw_power_cap")},
			map[string]verdict{CheckLoadPower: p("verify.load_power.pass"), CheckLoadClock: p("verify.load_clock.pass_range"),
				CheckThrottle: p("verify.throttle.pass_power_cap", "Count", "2", "LimitW", "350")}},
		{"at rated power but a low clock", []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "348", "350", "900", "100", "sw_power_cap"),
			sample(1, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "349", "350", "905", "100", "sw_power_cap")},
			map[string]verdict{CheckLoadPower: p("verify.load_power.pass"), CheckLoadClock: f("verify.load_clock.fail_range"),
				CheckThrottle: f("verify.throttle.fail_power_cap_held", "Reasons", "sw_power_cap", "Count", "2", "LimitW", "350")}},
		{"a fraction of rated power", []Sample{
			sample(0, 0, "NVIDIA GeForce RTX 3090", "24576", "20000", "41", "350", "1650", "100", "sw_power_cap")},
			map[string]verdict{CheckLoadPower: f("verify.load_power.fail"),
				CheckThrottle: f("verify.throttle.fail_power_cap_held", "Reasons", "sw_power_cap")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertChecks(t, Evaluate(Report{Samples: c.samples}, spec3090), c.want)
		})
	}
}
