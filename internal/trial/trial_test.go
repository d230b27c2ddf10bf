package trial

import (
	"testing"

	"gpuquote/internal/catalog"
)

// all returns every check in state s.
func all(s State) map[int]State {
	out := map[int]State{}
	for _, c := range catalog.TrialChecks {
		out[c.Number] = s
	}
	return out
}

func TestVerdict(t *testing.T) {
	with := func(base map[int]State, changes map[int]State) map[int]State {
		for k, v := range changes {
			base[k] = v
		}
		return base
	}
	cases := []struct {
		name   string
		states map[int]State
		want   Verdict
	}{
		{"nothing recorded", map[int]State{}, InProgress},
		{"all pass", all(Pass), Passed},
		{"pass and n.a.", with(all(Pass), map[int]State{5: NA, 14: NA}), Passed},
		{"one pending", with(all(Pass), map[int]State{30: Pending}), InProgress},
		{"day-1 failure with everything else pending", map[int]State{1: Fail}, Exit},
		{"day-1 failure last of day 1", with(all(Pass), map[int]State{8: Fail}), Exit},
		{"day-1 failure beats a later failure", with(all(Pass), map[int]State{11: Fail, 6: Fail}), Exit},
		{"later failure while pending", map[int]State{11: Fail}, Concerns},
		{"later failure, rest passed", with(all(Pass), map[int]State{28: Fail}), Concerns},
		{"billing failure", with(all(Pass), map[int]State{17: Fail}), Concerns},
		{"a corrected failure", with(all(Pass), map[int]State{1: Pass}), Passed},
		{"nonsense state counts as pending", with(all(Pass), map[int]State{3: "maybe"}), InProgress},
	}
	for _, c := range cases {
		if got := VerdictOf(c.states); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestEveryDayOneCheckMeansLeaving(t *testing.T) {
	for _, c := range catalog.TrialChecks {
		got := VerdictOf(map[int]State{c.Number: Fail})
		want := Concerns
		if c.Phase == catalog.PhaseDay1 {
			want = Exit
		}
		if got != want {
			t.Errorf("check %d (%s) failed: %s, want %s", c.Number, c.Phase, got, want)
		}
	}
}

func TestProgressAndFailed(t *testing.T) {
	states := map[int]State{1: Pass, 2: Fail, 3: NA, 9: Pass, 11: Fail, 17: Pass, 30: NA}
	p := ProgressOf(states)
	want := []Progress{
		{Phase: catalog.PhaseDay1, Total: 8, Pass: 1, Fail: 1, NA: 1, Pending: 5},
		{Phase: catalog.PhaseDays2To6, Total: 8, Pass: 1, Fail: 1, Pending: 6},
		{Phase: catalog.PhaseDays1To7, Total: 6, Pass: 1, Pending: 5},
		{Phase: catalog.PhaseDay7, Total: 8, NA: 1, Pending: 7},
	}
	if len(p) != len(want) {
		t.Fatalf("%d phases, want %d", len(p), len(want))
	}
	for i := range want {
		if p[i] != want[i] {
			t.Errorf("phase %d: %+v, want %+v", i, p[i], want[i])
		}
	}
	if p[0].Done() != 3 {
		t.Errorf("day 1 done %d, want 3", p[0].Done())
	}
	if f := Failed(states, false); len(f) != 2 || f[0].Number != 2 || f[1].Number != 11 {
		t.Errorf("failed: %+v", f)
	}
	if f := Failed(states, true); len(f) != 1 || f[0].Number != 2 {
		t.Errorf("day-1 failed: %+v", f)
	}
	if c, ok := Check(11); !ok || c.Key != "no_clock_throttling" {
		t.Errorf("check 11: %+v %v", c, ok)
	}
	for _, n := range []int{0, 31, -1} {
		if _, ok := Check(n); ok {
			t.Errorf("check %d exists", n)
		}
	}
}
