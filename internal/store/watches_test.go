package store_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"gpuquote/internal/avail"
	"gpuquote/internal/market"
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

// TestWatchTCOAndRates: a TCO watch prices a USD quote for a saved
// profile in CNY at the rate in force; adding a rate evaluates the price
// watches it converts for, in its transaction, each quote version telling
// a watch once (a re-armed watch is not told again of the same version; a
// cheaper version is); a rate not in force today changes nothing; a
// deleted profile leaves the watch matching nothing (docs/RULES.md
// §24.1–§24.3).
func TestWatchTCOAndRates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	owner := reportUser(t, st, "analyst")
	pid, gid := marketFixture(t, st)
	today := notify.DigestDay(time.Now())
	rate := func(days int, r string) {
		t.Helper()
		if _, err := st.CreateFXRate(ctx, actor, market.FXRate{Base: "USD", Quote: "CNY", Rate: testfactory.D(r),
			AsOf: today.AddDate(0, 0, days), Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	rate(-3, "7.2")
	q := sampleQuote(pid, gid)
	q.Currency, q.Hourly = "USD", testfactory.ND("2.00")
	q1 := testfactory.Published(t, st, q)
	profile := testfactory.UsageProfile(t, st, owner.UserID, "推理 100 小时",
		map[string]string{"profile.hours_per_month": "100", "profile.months": "2", "profile.instances": "1"})
	tcoWatch, err := st.CreateWatch(ctx, owner, false, storeDay, watch.Watch{OwnerID: owner.UserID, PlatformID: pid, GPUModelID: gid,
		Kind: watch.PriceBelow, Basis: watch.TCO, ProfileID: profile, Currency: "CNY", Target: testfactory.D("2850"), CooldownHours: 24})
	if err != nil {
		t.Fatal(err)
	}
	if tcoWatch.ProfileID != profile || tcoWatch.ProfileName != "推理 100 小时" {
		t.Fatalf("the watch reads profile %d %q", tcoWatch.ProfileID, tcoWatch.ProfileName)
	}
	if _, err := st.CreateWatch(ctx, owner, false, storeDay, watch.Watch{OwnerID: owner.UserID, PlatformID: pid,
		Kind: watch.PriceBelow, Basis: watch.Hourly, Currency: "CNY", Target: testfactory.D("14.20"), CooldownHours: 24}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateWatch(ctx, owner, false, storeDay, watch.Watch{OwnerID: owner.UserID, PlatformID: pid,
		Kind: watch.PriceBelow, Basis: watch.Hourly, ProfileID: profile, Currency: "CNY", Target: testfactory.D("1")}); err == nil {
		t.Fatal("a watch with no cooldown was stored")
	}

	// 400 USD at 7.1 is 2,840 CNY ≤ 2,850; 2 USD an hour is 14.20 CNY.
	rate(-2, "7.1")
	if ev, n := watchCounts(t, st, owner.UserID); ev != 2 || n != 2 {
		t.Fatalf("after a lower rate: %d events, %d notices; want 2 and 2", ev, n)
	}
	items, _, _, err := st.Notifications(ctx, owner.UserID, 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	var tcoValue string
	for _, it := range items {
		if it.About.WatchBasis == "tco" {
			tcoValue = it.About.WatchValue.Decimal.String()
			if it.About.WatchProfile != "推理 100 小时" || it.About.WatchCause != "quote:"+itoa(q1.ID) {
				t.Errorf("the TCO notice reads %+v", it.About)
			}
		}
	}
	if tcoValue != "2840" {
		t.Fatalf("the TCO matched at %q, want 2840", tcoValue)
	}

	// Changing the watch re-arms it; a later rate finds the same version
	// below the target again: told already, nothing more.
	if _, err := st.UpdateWatch(ctx, owner, false, storeDay, tcoWatch); err != nil {
		t.Fatal(err)
	}
	rate(-1, "7.0")
	if ev, n := watchCounts(t, st, owner.UserID); ev != 2 || n != 2 {
		t.Fatalf("the same version again: %d events, %d notices; want 2 and 2", ev, n)
	}
	// A cheaper version tells the re-armed TCO watch (not the hourly one,
	// waiting for its cooldown).
	q2 := testfactory.NextVersion(t, st, q1.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.99") })
	if ev, n := watchCounts(t, st, owner.UserID); ev != 3 || n != 3 {
		t.Fatalf("after a cheaper version: %d events, %d notices; want 3 and 3", ev, n)
	}
	// Rates that are not in force today: dated tomorrow, or before the
	// one in force.
	rate(1, "5")
	rate(-5, "5")
	if ev, _ := watchCounts(t, st, owner.UserID); ev != 3 {
		t.Fatalf("rates not in force added events: %d", ev)
	}

	// A deleted profile: the watch stays, with none, and matches nothing.
	if err := st.DeleteUsageProfile(ctx, owner, profile); err != nil {
		t.Fatal(err)
	}
	got, err := st.WatchByID(ctx, tcoWatch.ID)
	if err != nil || got.ProfileID != 0 || got.Basis != watch.TCO {
		t.Fatalf("after deleting its profile: %+v %v", got, err)
	}
	if _, err := st.UpdateWatch(ctx, owner, false, storeDay, got); err != nil {
		t.Fatal(err)
	}
	testfactory.NextVersion(t, st, q2.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.50") })
	var tcoEvents int
	if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM watch_events WHERE watch_id = $1`, tcoWatch.ID).Scan(&tcoEvents); err != nil || tcoEvents != 2 {
		t.Fatalf("the watch without its profile has %d events, want 2: %v", tcoEvents, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
