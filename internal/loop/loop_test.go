package loop

import (
	"context"
	"testing"
	"time"
)

// TestEveryRunsAtOnceAndStops: the first pass runs before any interval
// has passed, and Every returns once its context is done.
func TestEveryRunsAtOnceAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	passes := 0
	done := make(chan struct{})
	go func() {
		Every(ctx, time.Hour, func() {
			passes++
			cancel()
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Every did not return after its context ended")
	}
	if passes != 1 {
		t.Fatalf("%d passes, want the first one at once", passes)
	}
}
