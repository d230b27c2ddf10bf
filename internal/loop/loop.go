// Package loop runs a process's background passes: the mail sender, the
// webhook sender and the check of watched reports each run one pass at
// once and then one every interval until the process stops
// (docs/RULES.md §20.3).
package loop

import (
	"context"
	"time"
)

// Every runs pass at once, then once every interval, until ctx is done. A
// pass that overruns the interval is followed by the next without a
// second one queued behind it.
func Every(ctx context.Context, interval time.Duration, pass func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		pass()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
