package proposal_test

import (
	"errors"
	"testing"
	"time"

	"gpuquote/internal/proposal"
)

// TestQuotaCheck checks a person's bounds on proposing (docs/RULES.md
// §18.1): at most PerHour proposals in any hour, refused with the time
// until enough of them leave the hour; at most Storage bytes of files on
// their proposals not yet published, the new file included; zero bounds
// nothing, and a proposal without a file never hits the storage bound.
func TestQuotaCheck(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	ago := func(m int) time.Time { return now.Add(-time.Duration(m) * time.Minute) }
	q := proposal.Quota{PerHour: 3, Storage: 10 << 20}
	tests := []struct {
		name           string
		quota          proposal.Quota
		recent         []time.Time
		stored, adding int64
		wantRetry      time.Duration // a RateError with this RetryAfter
		wantStorage    bool
	}{
		{name: "first proposal", quota: q},
		{name: "two in the hour, a third allowed", quota: q, recent: []time.Time{ago(50), ago(10)}},
		{name: "three in the hour", quota: q, recent: []time.Time{ago(50), ago(20), ago(10)}, wantRetry: 10 * time.Minute},
		{name: "more than the bound (lowered since)", quota: q, recent: []time.Time{ago(55), ago(30), ago(20), ago(10)}, wantRetry: 30 * time.Minute},
		{name: "no hourly bound", quota: proposal.Quota{Storage: 1}, recent: []time.Time{ago(3), ago(2), ago(1)}},
		{name: "file fits exactly", quota: q, stored: 5 << 20, adding: 5 << 20},
		{name: "file one byte over", quota: q, stored: 5<<20 + 1, adding: 5 << 20, wantStorage: true},
		{name: "no file, storage full", quota: q, stored: 20 << 20},
		{name: "no storage bound", quota: proposal.Quota{PerHour: 3}, stored: 1 << 40, adding: 5 << 20},
		{name: "the hourly bound is told first", quota: q, recent: []time.Time{ago(59), ago(2), ago(1)}, stored: 20 << 20, adding: 1,
			wantRetry: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.quota.Check(now, tt.recent, tt.stored, tt.adding)
			var (
				rate    *proposal.RateError
				storage *proposal.StorageError
			)
			switch {
			case tt.wantRetry != 0:
				if !errors.As(err, &rate) || rate.RetryAfter != tt.wantRetry || rate.Limit != tt.quota.PerHour {
					t.Fatalf("Check = %v, want a RateError retrying after %s", err, tt.wantRetry)
				}
			case tt.wantStorage:
				if !errors.As(err, &storage) || storage.Used != tt.stored || storage.Size != tt.adding || storage.Limit != tt.quota.Storage {
					t.Fatalf("Check = %v, want a StorageError", err)
				}
			case err != nil:
				t.Fatalf("Check = %v, want nil", err)
			}
		})
	}
}

// TestRetryMinutes: the wait a refused proposal is told, in whole minutes
// rounded up, never 0.
func TestRetryMinutes(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Second: 1, time.Minute: 1, time.Minute + time.Second: 2, 59 * time.Minute: 59} {
		if got := (&proposal.RateError{RetryAfter: d}).RetryMinutes(); got != want {
			t.Errorf("RetryMinutes(%s) = %d, want %d", d, got, want)
		}
	}
}
