package proposal

import (
	"fmt"
	"time"
)

// Quota bounds what one person may propose (docs/RULES.md §18.1): PerHour
// proposals (new ones and returned ones proposed again, each of which tells
// every editor) in any hour, and Storage bytes of vendor's files held by
// their proposals no editor has published yet (proposed or returned, files
// withdrawn not counted). Zero means no bound.
type Quota struct {
	PerHour int
	Storage int64
}

// RateError is a proposal refused because its author proposed Limit in
// the last hour; the oldest of them leaves the hour after RetryAfter.
type RateError struct {
	Limit      int
	RetryAfter time.Duration
}

func (e *RateError) Error() string {
	return fmt.Sprintf("proposal: %d proposals in the last hour, the most allowed; retry after %s", e.Limit, e.RetryAfter)
}

// RetryMinutes is RetryAfter in whole minutes, rounded up, at least 1.
func (e *RateError) RetryMinutes() int {
	m := int((e.RetryAfter + time.Minute - 1) / time.Minute)
	return max(m, 1)
}

// StorageError is a vendor's file of Size bytes refused because its
// author's proposals not yet published hold Used of the Limit bytes.
type StorageError struct {
	Limit, Used, Size int64
}

func (e *StorageError) Error() string {
	return fmt.Sprintf("proposal: a file of %d bytes does not fit: %d of %d bytes held", e.Size, e.Used, e.Limit)
}

// Check is the problem with proposing at now, with a file of adding bytes
// (0 without one), for a person who proposed at the times recent (oldest
// first) in the hour before now and whose proposals not yet published hold
// stored bytes: a *RateError (which says when enough of recent have left
// the hour), a *StorageError, or nil.
func (q Quota) Check(now time.Time, recent []time.Time, stored, adding int64) error {
	if n := len(recent); q.PerHour > 0 && n >= q.PerHour {
		return &RateError{Limit: q.PerHour, RetryAfter: max(recent[n-q.PerHour].Add(time.Hour).Sub(now), 0)}
	}
	if q.Storage > 0 && adding > 0 && stored+adding > q.Storage {
		return &StorageError{Limit: q.Storage, Used: stored, Size: adding}
	}
	return nil
}
