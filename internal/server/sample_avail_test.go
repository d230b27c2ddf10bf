package server_test

import (
	"context"
	"io"
	"testing"
	"time"

	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
)

// TestSampleAvailabilityFollowsToday: loaded on any day, the sample
// availability records lie in the days before it, inside the statistics'
// 90-day window (docs/RULES.md §18.2); they were dated before a fixed day
// in December 2026 and left the window in March 2027.
func TestSampleAvailabilityFollowsToday(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	today := time.Date(2027, 6, 15, 0, 0, 0, 0, time.UTC)
	if err := sample.LoadAvailability(ctx, app.Store, io.Discard, today); err != nil {
		t.Fatal(err)
	}
	var first, last time.Time
	if err := app.Store.Pool().QueryRow(ctx, `SELECT min(attempted_at), max(attempted_at) FROM availability_records`).Scan(&first, &last); err != nil {
		t.Fatal(err)
	}
	if first.Before(today.AddDate(0, 0, -90)) || !last.Before(today) {
		t.Errorf("loaded on %s, the sample attempts run from %s to %s", today.Format(time.DateOnly), first, last)
	}
}
