// Package trial derives the state of a 7-day trial from the latest
// recorded state of each of its 30 acceptance checks: progress per phase
// and the verdict (docs/RULES.md §9.1, §9.2).
// It is pure: the store records results, this package reads them.
package trial

import "gpuquote/internal/catalog"

// State is the recorded state of one check.
type State string

// The states a check may be recorded in.
const (
	// Pending: not checked yet (also what a check without any recording is).
	Pending State = "pending"
	// Pass: checked, as ordered.
	Pass State = "pass"
	// Fail: checked, not as ordered.
	Fail State = "fail"
	// NA: does not apply to this rental (e.g. cross-node bandwidth on one node).
	NA State = "na"
)

// States lists the states in the order forms offer them.
var States = []State{Pending, Pass, Fail, NA}

// Valid reports whether s is one of States.
func (s State) Valid() bool { return s == Pending || s == Pass || s == Fail || s == NA }

// LabelID is the message ID of the state's label.
func (s State) LabelID() string { return "trials.state." + string(s) }

// Verdict is what the trial says about the rental so far.
type Verdict string

// The verdicts, from the guide's rule for day 1 and the checklist's states.
const (
	// InProgress: no failure yet, and checks are still pending.
	InProgress Verdict = "in_progress"
	// Passed: every check passed or does not apply.
	Passed Verdict = "pass"
	// Concerns: a check after day 1 failed; the card is not what was sold
	// in some respect, to be raised with the vendor before committing.
	Concerns Verdict = "concerns"
	// Exit: a day-1 (hardware and model) check failed. The guide: leave,
	// don't "watch a few more days".
	Exit Verdict = "exit"
)

// Verdicts lists the verdicts in the order filters offer them.
var Verdicts = []Verdict{InProgress, Passed, Concerns, Exit}

// Valid reports whether v is one of Verdicts.
func (v Verdict) Valid() bool { return v == InProgress || v == Passed || v == Concerns || v == Exit }

// LabelID is the message ID of the verdict's label.
func (v Verdict) LabelID() string { return "trials.verdict." + string(v) }

// CheckCount is the number of acceptance checks of a trial.
const CheckCount = 30

// Check returns acceptance check n (1–30).
func Check(n int) (catalog.TrialCheck, bool) {
	if n < 1 || n > len(catalog.TrialChecks) {
		return catalog.TrialCheck{}, false
	}
	return catalog.TrialChecks[n-1], true
}

// stateOf is the state of check n: its latest recording, pending without one.
func stateOf(states map[int]State, n int) State {
	if s, ok := states[n]; ok && s.Valid() {
		return s
	}
	return Pending
}

// VerdictOf returns the verdict of a trial whose latest check states are
// states (check number → state; a check not in the map is pending):
//   - exit when any day-1 check failed (LeaveOnFailure: the guide says a
//     hardware or model failure on day 1 means leave at once);
//   - concerns when any later check failed;
//   - in progress while a check is pending;
//   - pass when all 30 passed or do not apply.
func VerdictOf(states map[int]State) Verdict {
	pending, failed := false, false
	for _, c := range catalog.TrialChecks {
		switch stateOf(states, c.Number) {
		case Fail:
			if c.LeaveOnFailure {
				return Exit
			}
			failed = true
		case Pending:
			pending = true
		}
	}
	switch {
	case failed:
		return Concerns
	case pending:
		return InProgress
	}
	return Passed
}

// Failed returns the checks whose latest state is fail, in number order;
// with leaveOnly, only those that mean leaving (day 1).
func Failed(states map[int]State, leaveOnly bool) []catalog.TrialCheck {
	var out []catalog.TrialCheck
	for _, c := range catalog.TrialChecks {
		if stateOf(states, c.Number) == Fail && (!leaveOnly || c.LeaveOnFailure) {
			out = append(out, c)
		}
	}
	return out
}

// Progress counts the states of one phase's checks.
type Progress struct {
	Phase                          catalog.TrialPhase
	Total, Pass, Fail, NA, Pending int
}

// Done is the number of checks of the phase that have been decided.
func (p Progress) Done() int { return p.Pass + p.Fail + p.NA }

// ProgressOf counts the states per phase, in catalog.TrialPhases order.
func ProgressOf(states map[int]State) []Progress {
	out := make([]Progress, len(catalog.TrialPhases))
	at := make(map[catalog.TrialPhase]int, len(catalog.TrialPhases))
	for i, p := range catalog.TrialPhases {
		out[i].Phase = p
		at[p] = i
	}
	for _, c := range catalog.TrialChecks {
		p := &out[at[c.Phase]]
		p.Total++
		switch stateOf(states, c.Number) {
		case Pass:
			p.Pass++
		case Fail:
			p.Fail++
		case NA:
			p.NA++
		default:
			p.Pending++
		}
	}
	return out
}

// Latest splits a trial's recordings (oldest first, as the store returns
// them) into the latest recording of each check, which is its state, and
// the older ones of each check, newest first, which are its history. This
// is the one place the "latest recording wins" rule is written.
func Latest(results []Result) (latest map[int]Result, older map[int][]Result) {
	latest, older = map[int]Result{}, map[int][]Result{}
	for _, r := range results {
		if prev, ok := latest[r.Check]; ok {
			older[r.Check] = append([]Result{prev}, older[r.Check]...)
		}
		latest[r.Check] = r
	}
	return latest, older
}

// StatesOf is the state of every recorded check.
func StatesOf(latest map[int]Result) map[int]State {
	out := make(map[int]State, len(latest))
	for n, r := range latest {
		out[n] = r.State
	}
	return out
}

// Decided counts the checks decided (pass, fail or not applicable).
func Decided(states map[int]State) int {
	n := 0
	for _, p := range ProgressOf(states) {
		n += p.Done()
	}
	return n
}
