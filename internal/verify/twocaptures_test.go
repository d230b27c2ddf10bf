package verify

import (
	"strings"
	"testing"
)

// idleCapture and loadCapture are one RTX 4090 captured with the trial
// page's command (nvidia-smi --query-gpu=index,… --format=csv -l 1),
// first with nothing running, then under a burn-in.
const (
	idleCapture = `index, name, memory.total [MiB], memory.used [MiB], power.draw [W], power.limit [W], clocks.sm [MHz], clocks.max.sm [MHz], utilization.gpu [%], temperature.gpu, clocks_throttle_reasons.active
0, NVIDIA GeForce RTX 4090, 24564 MiB, 1 MiB, 21.37 W, 450.00 W, 210 MHz, 3105 MHz, 0 %, 34, 0x0000000000000001
0, NVIDIA GeForce RTX 4090, 24564 MiB, 1 MiB, 20.95 W, 450.00 W, 210 MHz, 3105 MHz, 0 %, 34, 0x0000000000000001
0, NVIDIA GeForce RTX 4090, 24564 MiB, 1 MiB, 21.10 W, 450.00 W, 210 MHz, 3105 MHz, 1 %, 34, 0x0000000000000001
`
	loadCapture = `index, name, memory.total [MiB], memory.used [MiB], power.draw [W], power.limit [W], clocks.sm [MHz], clocks.max.sm [MHz], utilization.gpu [%], temperature.gpu, clocks_throttle_reasons.active
0, NVIDIA GeForce RTX 4090, 24564 MiB, 22870 MiB, 441.20 W, 450.00 W, 2700 MHz, 3105 MHz, 100 %, 71, 0x0000000000000000
0, NVIDIA GeForce RTX 4090, 24564 MiB, 22870 MiB, 443.05 W, 450.00 W, 2685 MHz, 3105 MHz, 100 %, 72, 0x0000000000000000
0, NVIDIA GeForce RTX 4090, 24564 MiB, 22870 MiB, 440.61 W, 450.00 W, 2700 MHz, 3105 MHz, 99 %, 72, 0x0000000000000000
`
)

// noHeader drops a capture's header line and its units, as
// --format=csv,noheader,nounits prints it.
func noHeader(capture string) string {
	lines := strings.SplitN(capture, "\n", 2)
	r := strings.NewReplacer(" MiB", "", " W", "", " MHz", "", " %", "")
	return r.Replace(lines[1])
}

// TestIdleAndLoadInOnePaste: the idle capture and the load capture pasted
// one after the other, as they are or with a separator line between them,
// decide checks 6 and 10 (idle samples) and 11 (samples under load) at
// once (docs/RULES.md §9.3).
func TestIdleAndLoadInOnePaste(t *testing.T) {
	pastes := map[string]string{
		"one after the other":        idleCapture + loadCapture,
		"labelled with comments":     "# idle\n" + idleCapture + "# load\n" + loadCapture,
		"separated by dashes":        idleCapture + "---\n" + loadCapture,
		"header-less, labelled":      "# idle\n" + noHeader(idleCapture) + "# under load\n" + noHeader(loadCapture),
		"header-less, dashes, CRLF":  strings.ReplaceAll(noHeader(idleCapture)+"-----\n"+noHeader(loadCapture), "\n", "\r\n"),
		"idle header-less then load": noHeader(idleCapture) + "\n" + loadCapture,
	}
	for name, paste := range pastes {
		t.Run(name, func(t *testing.T) {
			r, err := Parse(paste)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Samples) != 6 {
				t.Fatalf("%d samples, want 6", len(r.Samples))
			}
			for i, s := range r.Samples {
				if s.GPU != 0 || s.Sample != i {
					t.Errorf("row %d read as sample %d of GPU %d", i+1, s.Sample, s.GPU)
				}
			}
			assertChecks(t, Evaluate(r, spec4090), map[string]verdict{
				CheckVRAMAllocatable: p("verify.vram_free.pass", "FreeMiB", "24563"),
				CheckLoadPower:       p("verify.load_power.pass_tdp", "DrawW", "441.2", "Count", "3"),
				CheckLoadClock:       p("verify.load_clock.pass_boost", "ClockMHz", "2700"),
				CheckThrottle:        p("verify.throttle.pass", "Count", "3"),
				CheckIdleNoise:       p("verify.idle_noise.pass", "Count", "3", "MaxUtil", "1"),
			})
		})
	}
}
