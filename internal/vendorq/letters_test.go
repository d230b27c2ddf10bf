package vendorq

import (
	"reflect"
	"testing"
)

// TestMergeLetters: letters whose questions are word for word the same
// become one, headed by every quote's title in order; a letter differing
// in one word keeps its own.
func TestMergeLetters(t *testing.T) {
	t.Parallel()
	body := "Hello\n\nEgress\n1. Is egress free?\n\nThanks\n"
	letters := []string{"A · v1\n\n" + body, "B · v2\n\n" + body + "2. Snapshots?\n", "C · v1\n\n" + body}
	merged, members := MergeLetters(letters)
	want := []string{"A · v1\nC · v1\n\n" + body, letters[1]}
	if !reflect.DeepEqual(merged, want) || !reflect.DeepEqual(members, [][]int{{0, 2}, {1}}) {
		t.Errorf("merged %q, members %v", merged, members)
	}
	if m, _ := MergeLetters(nil); len(m) != 0 {
		t.Errorf("no letters: %q", m)
	}
}
