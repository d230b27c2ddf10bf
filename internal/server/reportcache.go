package server

import (
	"context"
	"fmt"
	"sync"

	"gpuquote/internal/report"
)

// frozenCache keeps what a saved report's snapshot yields — the decoded
// snapshot, the parts of its page drawn from it, its export files — so a
// report read often is decoded and drawn once, not on every request. A
// snapshot never changes (a database trigger forbids it), so an entry
// drawn from the snapshot alone never goes stale; what also shows the
// report's status or names carries them in its key. The cache only bounds
// its size: the oldest entry goes first.
type frozenCache struct {
	mu      sync.Mutex
	max     int
	entries map[FrozenKey]any
	order   []FrozenKey
}

// FrozenKey names one cached thing of one report.
type FrozenKey struct {
	ID   int64
	Kind string // "snapshot", "view", "csv", "xlsx"
	// lang and state are the reader's language and, for what shows the
	// report's status or people, their current values.
	Lang, State string
}

// frozenCacheEntries bounds the cache: a 20-quote report's decoded
// snapshot and page parts take about a megabyte.
const frozenCacheEntries = 96

func newFrozenCache(max int) *frozenCache {
	return &frozenCache{max: max, entries: map[FrozenKey]any{}}
}

func (fc *frozenCache) Get(k FrozenKey) (any, bool) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	v, ok := fc.entries[k]
	return v, ok
}

func (fc *frozenCache) Put(k FrozenKey, v any) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if _, ok := fc.entries[k]; ok {
		fc.entries[k] = v
		return
	}
	for len(fc.order) >= fc.max {
		delete(fc.entries, fc.order[0])
		fc.order = fc.order[1:]
	}
	fc.entries[k] = v
	fc.order = append(fc.order, k)
}

// ReportSnapshot is a report's decoded snapshot, read and decoded once.
func (s *Server) ReportSnapshot(ctx context.Context, id int64) (report.Snapshot, error) {
	k := FrozenKey{ID: id, Kind: "snapshot"}
	if v, ok := s.Frozen.Get(k); ok {
		return v.(report.Snapshot), nil
	}
	raw, err := s.Store.ReportSnapshot(ctx, id)
	if err != nil {
		return report.Snapshot{}, err
	}
	snap, err := report.Decode(raw)
	if err != nil {
		return report.Snapshot{}, fmt.Errorf("report %d snapshot: %w", id, err)
	}
	s.Frozen.Put(k, snap)
	return snap, nil
}
