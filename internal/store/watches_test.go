package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"gpuquote/internal/avail"
	"gpuquote/internal/notify"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
	"gpuquote/internal/watch"
)

func watchCounts(t *testing.T, st *store.Store, userID int64) (events, notices int) {
	t.Helper()
	if err := st.Pool().QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM watch_events e JOIN watches w ON w.id = e.watch_id WHERE w.owner_id = $1),
		(SELECT count(*) FROM notifications WHERE user_id = $1 AND kind = 'watch_matched')`, userID).Scan(&events, &notices); err != nil {
		t.Fatal(err)
	}
	return events, notices
}

// TestWatchedReportsOnceAcrossProcesses: two processes run the check of
// report watches at once over one database; a superseded quote of an
// approved report is told once (docs/RULES.md §24.2), and running again
// tells nothing more.
func TestWatchedReportsOnceAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := testutil.DB(t)
	st1, st2 := testutil.Open(t, url), testutil.Open(t, url)
	w := newBillWorld(t, st1)
	if _, err := st1.CreateWatch(ctx, w.author, false, storeDay, watch.Watch{OwnerID: w.author.UserID, PlatformID: w.platformID,
		Kind: watch.ReportQuote, CooldownHours: 24}); err != nil {
		t.Fatal(err)
	}
	testfactory.NextVersion(t, st1, w.quote1, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.50") })
	var wg sync.WaitGroup
	for _, st := range []*store.Store{st1, st2, st1, st2} {
		wg.Go(func() {
			if _, err := st.CheckWatchedReports(ctx, time.Now()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ev, n := watchCounts(t, st1, w.author.UserID); ev != 1 || n != 1 {
		t.Fatalf("%d events, %d notices; want 1 and 1", ev, n)
	}
	if added, err := st2.CheckWatchedReports(ctx, time.Now().Add(48*time.Hour)); err != nil || added > 1 {
		t.Fatalf("a later run added %d: %v", added, err)
	}
	items, _, _, err := st1.Notifications(ctx, w.author.UserID, 0, 5)
	if err != nil || len(items) == 0 || items[0].Kind != notify.WatchMatched || items[0].About.WatchCause == "" {
		t.Fatalf("notices %+v %v", items, err)
	}
}

// TestWatchPriceAndAvailability: a price watch tells of a cheaper
// version once, in the publication's transaction; a paused watch tells
// nothing; an availability watch tells when the 30-day rate falls below
// its percentage, once; changes are audited; another user may not change
// the watch (docs/RULES.md §24.1–§24.3).
func TestWatchPriceAndAvailability(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	owner, other := reportUser(t, st, "analyst"), reportUser(t, st, "analyst")
	pid, gid := marketFixture(t, st)
	q1 := testfactory.Published(t, st, sampleQuote(pid, gid))
	price, err := st.CreateWatch(ctx, owner, false, storeDay, watch.Watch{OwnerID: owner.UserID, PlatformID: pid, GPUModelID: gid,
		Kind: watch.PriceBelow, Basis: watch.Hourly, Currency: "CNY", Target: testfactory.D("1.90"), CooldownHours: 24})
	if err != nil {
		t.Fatal(err)
	}
	paused, err := st.CreateWatch(ctx, owner, false, storeDay, watch.Watch{OwnerID: owner.UserID, GPUModelID: gid,
		Kind: watch.NewLow, CooldownHours: 24})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PauseWatch(ctx, owner, false, storeDay, paused.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := st.PauseWatch(ctx, other, false, storeDay, price.ID, true); err != store.ErrNotFound {
		t.Fatalf("another user paused the watch: %v", err)
	}
	if _, err := st.CreateWatch(ctx, other, false, storeDay, watch.Watch{GPUModelID: gid, Kind: watch.NewLow, CooldownHours: 24}); err != store.ErrWatchForbidden {
		t.Fatalf("an analyst made a shared watch: %v", err)
	}
	// 1.98 per hour with its tax: no match; 1.70: a match; 1.60: waits.
	q2 := testfactory.NextVersion(t, st, q1.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.70"); q.PricesIncludeTax = true })
	testfactory.NextVersion(t, st, q2.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.60"); q.PricesIncludeTax = true })
	if ev, n := watchCounts(t, st, owner.UserID); ev != 1 || n != 1 {
		t.Fatalf("after two cheaper versions: %d events, %d notices; want 1 and 1", ev, n)
	}

	if _, err := st.CreateWatch(ctx, owner, false, storeDay, watch.Watch{OwnerID: owner.UserID, PlatformID: pid, GPUModelID: gid,
		Kind: watch.AvailabilityBelow, Percent: testfactory.D("50"), CooldownHours: 24}); err != nil {
		t.Fatal(err)
	}
	for _, ok := range []bool{true, false, false, false} {
		if _, err := st.CreateAvailabilityRecord(ctx, owner, avail.Input{PlatformID: pid, GPUModelID: gid, GPUCount: 1,
			AttemptedAt: time.Now().Add(-time.Hour), Obtained: ok, WaitMinutes: 5}); err != nil {
			t.Fatal(err)
		}
	}
	// 1 of 2 is 50 %: no match; 1 of 3: a match; 1 of 4: waits.
	if ev, n := watchCounts(t, st, owner.UserID); ev != 2 || n != 2 {
		t.Fatalf("after the availability records: %d events, %d notices; want 2 and 2", ev, n)
	}
	var audited int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE entity = 'watch'`).Scan(&audited); err != nil || audited != 4 {
		t.Fatalf("%d watch audit entries, want 4: %v", audited, err)
	}
}

// BenchmarkWatchEvaluateStore publishes one quote version with 10,000
// live watches in the database (100 of them about its platform × GPU
// model): the publication's transaction, the evaluation included (the
// next version's draft is made outside the timer). Target: < 100 ms.
func BenchmarkWatchEvaluateStore(b *testing.B) {
	ctx := context.Background()
	st := testutil.Store(b)
	owner := reportUserB(b, st)
	var pid, gid int64
	if err := st.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ('基准云', 'Bench Cloud', 'CNY') RETURNING id`).Scan(&pid); err != nil {
		b.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'Bench', 24) RETURNING id`).Scan(&gid); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `
		WITH p AS (INSERT INTO platforms (name_zh, name_en, currency) SELECT '云' || i, 'Cloud ' || i, 'CNY' FROM generate_series(1, 99) i RETURNING id)
		INSERT INTO watches (owner_id, platform_id, gpu_model_id, kind, basis, currency, target, created_at, updated_at)
		SELECT $1, p.id, $2, 'price_below', 'hourly', 'CNY', 0.5, now(), now() FROM p, generate_series(1, 100)`, owner, gid); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `INSERT INTO watches (owner_id, platform_id, gpu_model_id, kind, basis, currency, target, created_at, updated_at)
		SELECT $1, $2, $3, 'price_below', 'hourly', 'CNY', 0.5, now(), now() FROM generate_series(1, 100)`, owner, pid, gid); err != nil {
		b.Fatal(err)
	}
	q := testfactory.Published(b, st, sampleQuote(pid, gid))
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		d, err := st.NewQuoteVersion(ctx, actor, q.ID)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if q, err = st.PublishQuote(ctx, actor, d.ID, d.LockVersion); err != nil {
			b.Fatal(err)
		}
	}
}

func reportUserB(b *testing.B, st *store.Store) int64 {
	u, err := st.CreateUser(context.Background(), actor, user.NewAccount{Email: "bench@example.test", DisplayName: "基准",
		Role: "analyst", PasswordHash: "x"})
	if err != nil {
		b.Fatal(err)
	}
	return u.ID
}
