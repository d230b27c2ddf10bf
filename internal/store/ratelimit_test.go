package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gpuquote/internal/testutil"
)

// TestAllowRequestIsOneSharedBucket: requests sent at once through two
// pools on one database (two serving processes) take from one bucket, so
// exactly its burst are allowed; it refills one request per interval and
// never holds more than its burst; the sweep deletes the buckets full
// again (docs/RULES.md §20.3).
func TestAllowRequestIsOneSharedBucket(t *testing.T) {
	t.Parallel()
	_, appURL := testutil.DB(t)
	a, b := testutil.Open(t, appURL), testutil.Open(t, appURL)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	const interval, burst = 100 * time.Millisecond, 6
	var allowed atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			st := a
			if i%2 == 1 {
				st = b
			}
			ok, err := st.AllowRequest(ctx, "public:192.0.2.1", now, interval, burst)
			if err != nil {
				t.Error(err)
				return
			}
			if ok {
				allowed.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := allowed.Load(); n != burst {
		t.Fatalf("%d of 30 requests at once allowed, want the burst of %d", n, burst)
	}

	allow := func(key string, at time.Time) bool {
		t.Helper()
		ok, err := a.AllowRequest(ctx, key, at, interval, burst)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	// One interval later one request is back, and only one.
	if !allow("public:192.0.2.1", now.Add(interval)) || allow("public:192.0.2.1", now.Add(interval)) {
		t.Fatal("after one interval: want exactly one more request allowed")
	}
	// Another client has a bucket of its own.
	if !allow("public:192.0.2.2", now.Add(interval)) {
		t.Fatal("another client refused")
	}
	// After a long pause the bucket is full again: the burst, no more.
	later := now.Add(time.Hour)
	n := 0
	for range 2 * burst {
		if allow("public:192.0.2.1", later) {
			n++
		}
	}
	if n != burst {
		t.Fatalf("after an hour %d allowed, want the burst of %d", n, burst)
	}
	// The sweep deletes the buckets full again and keeps the others.
	n2, err := a.SweepRateLimits(ctx, later)
	if err != nil || n2 != 1 {
		t.Fatalf("swept %d (%v), want the other client's full bucket", n2, err)
	}
	var left []string
	rows, err := a.Pool().Query(ctx, `SELECT key FROM rate_limits ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		left = append(left, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != "public:192.0.2.1" {
		t.Fatalf("buckets left %v, want the first client's only", left)
	}
}

// BenchmarkAllowRequest is one limited request's statement.
func BenchmarkAllowRequest(b *testing.B) {
	st := testutil.Store(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := st.AllowRequest(ctx, "public:192.0.2.1", time.Now(), time.Microsecond, 1<<30); err != nil {
			b.Fatal(err)
		}
	}
}
