//go:build !race

package tco

import "testing"

// maxEvaluateAllocs bounds the heap allocations of one evaluation of the
// benchmark's quote (twelve charged lines, four modes, a report currency,
// a task): half of what the engine needed before its allocations were
// counted. Every decimal result costs at least one allocation, so this is
// a count of the decimals an evaluation builds.
const maxEvaluateAllocs = 81

// TestEvaluateAllocations keeps an evaluation within maxEvaluateAllocs.
// The race detector changes allocation counts, hence the build tag.
func TestEvaluateAllocations(t *testing.T) {
	q, p, o := benchQuote(), benchProfile(), benchOptions()
	if _, err := Evaluate(q, p, o); err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(200, func() {
		if _, err := Evaluate(q, p, o); err != nil {
			t.Fatal(err)
		}
	})
	if n > maxEvaluateAllocs {
		t.Errorf("Evaluate allocates %.0f times per call, want at most %d", n, maxEvaluateAllocs)
	}
}
