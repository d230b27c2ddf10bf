package verify

import (
	"strings"
	"testing"
)

// TestNoHeaderIndexGroupsSamples: five rows of one card captured with
// --query-gpu=index,… --format=csv,noheader,nounits -l 1 are five samples
// of GPU 0, so the idle-noise check can see the card busy with nothing of
// the user's running (docs/RULES.md §9.3, §9.4).
func TestNoHeaderIndexGroupsSamples(t *testing.T) {
	r, err := Parse(fixture(t, "rtx4090_noheader_nounits_index.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != FormatCSVNoHeader || len(r.Samples) != 5 {
		t.Fatalf("format %s, %d samples, want csv_noheader and 5", r.Format, len(r.Samples))
	}
	for i, s := range r.Samples {
		if s.GPU != 0 || s.Sample != i || s.Name != "NVIDIA GeForce RTX 4090" || !s.PowerDrawW.Valid || !s.ThrottleKnown {
			t.Errorf("row %d read as sample %d of GPU %d: %+v", i+1, s.Sample, s.GPU, s)
		}
	}
	assertChecks(t, Evaluate(r, spec4090), map[string]verdict{
		CheckModel:     p("verify.model.pass"),
		CheckIdleNoise: f("verify.idle_noise.fail", "GPU", "0", "MaxUtil", "62", "Noisy", "4", "Idle", "5"),
	})
}

// TestNoHeaderBusIDGroupsSamples: the same with pci.bus_id first, on a
// machine of two cards: three samples of each.
func TestNoHeaderBusIDGroupsSamples(t *testing.T) {
	r, err := Parse(fixture(t, "a100_x2_noheader_nounits_busid.csv"))
	if err != nil {
		t.Fatal(err)
	}
	per := map[int]int{}
	for _, s := range r.Samples {
		per[s.GPU]++
	}
	if len(per) != 2 || per[0] != 3 || per[1] != 3 {
		t.Fatalf("samples per GPU %v, want 3 of each of 2", per)
	}
	assertChecks(t, Evaluate(r, specA100), map[string]verdict{
		CheckIdleNoise: p("verify.idle_noise.pass", "Count", "6", "GPUs", "2"),
	})
}

// TestNoHeaderOrdersInTheError: a header-less row in no accepted order
// names every accepted order.
func TestNoHeaderOrdersInTheError(t *testing.T) {
	_, err := Parse("0, NVIDIA GeForce RTX 4090, 24564, 0, 117.85\n")
	pe, ok := err.(*ParseError)
	if !ok || pe.MessageID != "verify.parse.columns_noheader" || pe.Line != 1 {
		t.Fatalf("error %v, want verify.parse.columns_noheader on line 1", err)
	}
	orders, _ := pe.Args["Orders"].(string)
	for _, o := range NoHeaderOrderList() {
		if !strings.Contains(orders, o) {
			t.Errorf("Orders %q lacks %q", orders, o)
		}
	}
	if !strings.HasPrefix(NoHeaderOrderList()[0], "index,name,") || Query() != NoHeaderOrderList()[0] {
		t.Errorf("the recommended order is %q", Query())
	}
}
