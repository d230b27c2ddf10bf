package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestCountLoginAttemptIsAtomic: attempts counted at once each see a
// different count, so no more than a limit of them are ever within it
// (docs/RULES.md §16.2); only the first refusal of a window is audited.
func TestCountLoginAttemptIsAtomic(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	const n = 30
	buckets := []user.AttemptBucket{{Key: "ip:192.0.2.1"}, {Key: "account:a@example.test", Limit: 5}}
	seen := make([][]user.AttemptCount, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := st.CountLoginAttempt(ctx, user.Actor{ClientIP: "192.0.2.1"}, "a@example.test", buckets, now, 15*time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			seen[i] = c
		}()
	}
	close(start)
	wg.Wait()
	var acct, addr []int
	for _, c := range seen {
		if len(c) != 2 || c[0].Key != "ip:192.0.2.1" || c[1].Key != "account:a@example.test" {
			t.Fatalf("counts %+v not in the buckets' order", c)
		}
		addr, acct = append(addr, c[0].Attempts), append(acct, c[1].Attempts)
	}
	slices.Sort(acct)
	slices.Sort(addr)
	for i := range n {
		if acct[i] != i+1 || addr[i] != i+1 {
			t.Fatalf("counts seen: account %v, address %v; want each of 1..%d once", acct, addr, n)
		}
	}
	recs, err := st.AuditLog(ctx, store.AuditFilter{Action: store.ActionLoginFailed})
	if err != nil || len(recs) != 1 {
		t.Fatalf("audited %d refusals (%v), want the first only", len(recs), err)
	}

	// A window that has passed starts again at one, and the counters of
	// passed windows are swept.
	later := now.Add(15*time.Minute + time.Second)
	c, err := st.CountLoginAttempt(ctx, user.Actor{}, "b@example.test", []user.AttemptBucket{{Key: "account:b@example.test", Limit: 5}}, later, 15*time.Minute)
	if err != nil || c[0].Attempts != 1 || !c[0].WindowStart.Equal(later) {
		t.Fatalf("new key: %+v (%v)", c, err)
	}
	var left int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM login_throttle`).Scan(&left); err != nil || left != 1 {
		t.Fatalf("%d counters left after the sweep (%v), want 1", left, err)
	}
	c, err = st.CountLoginAttempt(ctx, user.Actor{}, "a@example.test", buckets[1:], later, 15*time.Minute)
	if err != nil || c[0].Attempts != 1 {
		t.Fatalf("account after its window: %+v (%v), want a new window at 1", c, err)
	}
}
