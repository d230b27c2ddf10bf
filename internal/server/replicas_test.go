package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
)

// replicaSetup is a private primary with one hot standby streaming from it
// (pg_basebackup -R): real PostgreSQL replication, nothing mocked.
type replicaSetup struct {
	primary, standby *testutil.Cluster
	owner            *store.Store
	platform, gpu    int64
}

func startReplicaSetup(t *testing.T) *replicaSetup {
	t.Helper()
	primary := testutil.StartCluster(t)
	pool := primary.MigratedPool("gpuquote", 4)
	owner := store.New(pool)
	p := testfactory.Platform(t, owner, market.Platform{})
	g := testfactory.GPUModel(t, owner, market.GPUModel{})
	return &replicaSetup{primary: primary, standby: primary.StartStandby(), owner: owner, platform: p.ID, gpu: g.ID}
}

// app serves over a store of its own whose reads may go to the standby, a
// replica lagging more than maxLag being skipped; its replicas are checked
// every 50 ms while the test runs.
func (r *replicaSetup) app(t *testing.T, maxLag time.Duration) *testutil.App {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := store.Open(ctx, r.primary.URL("gpuquote"), 8)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(pool)
	if err := st.OpenReplicas(ctx, []string{r.standby.URL("gpuquote")}, 8, maxLag); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); st.RunReplicaChecks(ctx, 50*time.Millisecond) }()
	t.Cleanup(func() { cancel(); <-done; st.CloseReplicas(); pool.Close() })
	return testutil.NewAppOn(t, st, func(d *server.Deps) { d.Config.ReplicaMaxLag = maxLag })
}

// sql runs statements on the standby as its superuser (pausing and
// resuming replay).
func (r *replicaSetup) onStandby(t *testing.T, sql string) {
	t.Helper()
	ctx := context.Background()
	pool, err := store.Open(ctx, r.standby.URL("gpuquote"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// waitReplayed waits until app's replica has replayed everything the
// primary has written so far.
func (r *replicaSetup) waitReplayed(t *testing.T, app *testutil.App) {
	t.Helper()
	lsn, err := r.owner.WriteLSN(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the replica to replay "+lsn.String(), func() bool { return app.Store.Replicas()[0].Replay >= lsn })
}

// readyReplica is what /readyz says of the app's one replica.
func readyReplica(t *testing.T, app *testutil.App) (state string, inUse bool) {
	t.Helper()
	r := app.Client().Get("/readyz")
	var body struct {
		Status   string `json:"status"`
		Replicas []struct {
			Name  string `json:"name"`
			InUse bool   `json:"in_use"`
			State string `json:"state"`
		} `json:"replicas"`
	}
	if err := json.Unmarshal([]byte(r.Body), &body); err != nil || r.StatusCode != http.StatusOK || len(body.Replicas) != 1 {
		t.Fatalf("/readyz: %d %s (%v)", r.StatusCode, r.Body, err)
	}
	if strings.Contains(r.Body, "postgres://") {
		t.Fatalf("/readyz gives a replica's URL away: %s", r.Body)
	}
	return body.Replicas[0].State, body.Replicas[0].InUse
}

// waitUntil polls cond every 20 ms for up to 15 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 15 s still not: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lists says whether the quote list's search for the quote's label shows
// it (a link to it: the search box repeats the label anyway).
func lists(t *testing.T, c *testutil.Client, q listed) bool {
	t.Helper()
	r := c.Get("/quotes?q=" + url.QueryEscape(q.label))
	if r.StatusCode != http.StatusOK {
		t.Fatalf("/quotes?q=%s: %d", q.label, r.StatusCode)
	}
	return strings.Contains(r.Body, `href="/quotes/`+strconv.FormatInt(q.id, 10)+`"`)
}

type listed struct {
	id    int64
	label string
}

// publish has editor publish a new draft labelled label through the page,
// as a person does.
func (r *replicaSetup) publish(t *testing.T, editor *testutil.Client, label string) listed {
	t.Helper()
	d := testfactory.Draft(t, r.owner, quote.Quote{PlatformID: r.platform, GPUModelID: r.gpu, Label: label,
		Hourly: testfactory.ND("2.50")})
	res := editor.PostForm("/quotes/"+strconv.FormatInt(d.ID, 10)+"/publish", url.Values{"lock_version": {strconv.Itoa(d.LockVersion)}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("publish %s: %d %.300s", label, res.StatusCode, res.Body)
	}
	return listed{id: d.ID, label: label}
}

// TestReplicas runs the app on a private primary with a real hot standby
// (one of each for the three parts, which run in turn: the last stops the
// standby).
func TestReplicas(t *testing.T) {
	t.Parallel()
	rs := startReplicaSetup(t)
	t.Run("the WAL cookie is signed", func(t *testing.T) { walCookieIsSigned(t, rs) })
	t.Run("the market stamp read on a replica", func(t *testing.T) { marketStampOnAReplica(t, rs) })
	t.Run("reads on a replica", func(t *testing.T) { readsOnAReplica(t, rs) })
}

// readsOnAReplica: reads go to the replica, a writer reads their own write
// at once from the primary, another reader sees it once the standby has
// replayed it; with replay paused past the lag bound, or the standby
// stopped, reads go to the primary and the pages keep working.
func readsOnAReplica(t *testing.T, rs *replicaSetup) {
	app := rs.app(t, time.Minute)
	waitUntil(t, "the replica in use", func() bool { _, in := readyReplica(t, app); return in })

	editor, _ := app.AsUser(auth.RoleEditor)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	if editor.Cookie("gpuquote_wal") == nil {
		t.Fatal("signing in wrote a session, yet left no WAL position in the cookie")
	}
	// Each sign-in pins its reader to the primary until the replica has
	// replayed it.
	rs.waitReplayed(t, app)
	queries := func() uint64 { return app.Store.Replicas()[0].Queries }
	before := queries()
	analyst.Get("/quotes")
	if queries() == before {
		t.Fatal("the quote list read nothing on the replica")
	}

	// Replay paused: the editor's publication is on the primary only.
	rs.onStandby(t, `SELECT pg_wal_replay_pause()`)
	one := rs.publish(t, editor, "Replica proof one")
	if !lists(t, editor, one) {
		t.Fatal("the author does not see their own publication at once")
	}
	if lists(t, analyst, one) {
		t.Fatal("another reader saw the publication while the replica had not replayed it: their read did not go to the replica")
	}
	if own := app.Store.RouterStats().FallbackOwnWrite; own == 0 {
		t.Fatal("the author's read was not counted as a fallback for their own write")
	}
	rs.onStandby(t, `SELECT pg_wal_replay_resume()`)
	waitUntil(t, "another reader sees the publication once replayed", func() bool { return lists(t, analyst, one) })

	// The lag bound: a second process that skips a replica 300 ms behind.
	strict := rs.app(t, 300*time.Millisecond)
	waitUntil(t, "the strict process's replica in use", func() bool { _, in := readyReplica(t, strict); return in })
	reader := analyst.On(strict)
	rs.onStandby(t, `SELECT pg_wal_replay_pause()`)
	two := rs.publish(t, editor, "Replica proof two")
	waitUntil(t, "the paused replica skipped for its lag", func() bool { s, _ := readyReplica(t, strict); return s == "lagging" })
	if !lists(t, reader, two) {
		t.Fatal("with the replica past the lag bound, a reader's page still read from it")
	}
	if lists(t, analyst, two) {
		t.Fatal("the lenient process should still read from the paused replica")
	}
	if strict.Store.RouterStats().FallbackNoReplica == 0 {
		t.Fatal("fallbacks for a lagging replica not counted")
	}
	metrics := scrapeMetrics(t, strict)
	for _, want := range []string{`gpuquote_db_replica_in_use{pool="replica `, `gpuquote_db_replica_fallbacks_total{reason="no_replica"}`, `gpuquote_db_queries_total{pool="primary"}`, `gpuquote_db_replica_lag_seconds{pool="replica `} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	rs.onStandby(t, `SELECT pg_wal_replay_resume()`)
	waitUntil(t, "the replica back in use", func() bool { _, in := readyReplica(t, strict); return in })

	// The standby stopped: the next read finds it gone and reads on the
	// primary, and so does every one after it.
	rs.standby.Stop()
	for i := range 3 {
		if !lists(t, analyst, two) {
			t.Fatalf("read %d with the standby stopped", i+1)
		}
	}
	if r := analyst.Get("/compare"); r.StatusCode != http.StatusOK {
		t.Fatalf("compare page with the standby stopped: %d", r.StatusCode)
	}
	waitUntil(t, "/readyz to say the replica is down", func() bool { s, in := readyReplica(t, app); return s == "down" && !in })
}

// walCookieIsSigned: a reader cannot pin themselves to a position of their
// choosing, nor forge one the server would believe.
func walCookieIsSigned(t *testing.T, rs *replicaSetup) {
	app := rs.app(t, time.Minute)
	waitUntil(t, "the replica in use", func() bool { _, in := readyReplica(t, app); return in })
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	u, _ := url.Parse(app.URL)
	ck := analyst.Cookie("gpuquote_wal")
	if ck == nil {
		t.Fatal("no WAL cookie after signing in")
	}
	rs.waitReplayed(t, app)
	msg, _, _ := strings.Cut(ck.Value, ".")
	analyst.HTTP.Jar.SetCookies(u, []*http.Cookie{{Name: "gpuquote_wal", Value: "ffffffffffff-" + strings.SplitN(msg, "-", 2)[1] + ".forged", Path: "/"}})
	before := app.Store.Replicas()[0].Queries
	own := app.Store.RouterStats().FallbackOwnWrite
	analyst.Get("/quotes")
	if app.Store.Replicas()[0].Queries == before || app.Store.RouterStats().FallbackOwnWrite != own {
		t.Fatal("a forged WAL position sent the reader to the primary")
	}
}

// marketStampOnAReplica proves the kept market reference (docs/RULES.md
// §20.1, §20.7) right when its stamp is read on a replica: the stamp and
// the prices are read in one snapshot of one server, so a replica behind
// the primary reads its own older stamp and older prices together — a
// miss, never a kept newer value taken for its stamp, nor an older value
// kept under a newer stamp — and once it has replayed, the new prices.
func marketStampOnAReplica(t *testing.T, rs *replicaSetup) {
	app := rs.app(t, time.Minute)
	waitUntil(t, "the replica in use", func() bool { _, in := readyReplica(t, app); return in })
	st := app.Store
	day := testfactory.Day
	first := testutil.FullQuote(rs.platform, rs.gpu, day)
	testfactory.Published(t, rs.owner, first)
	higher := testutil.FullQuote(rs.platform, rs.gpu, day)
	var item string
	for i, l := range higher.Lines {
		if l.UnitPrice.Valid {
			higher.Lines[i].UnitPrice.Decimal = l.UnitPrice.Decimal.Add(testfactory.D("10"))
			item = l.Item
			break
		}
	}
	price := func(replica bool) string {
		t.Helper()
		ctx, reads := st.Reads(context.Background(), replica, 0)
		before := st.Replicas()[0].Queries
		prices, err := st.MarketPrices(ctx, day)
		if err != nil {
			t.Fatal(err)
		}
		if onReplica := st.Replicas()[0].Queries > before; onReplica != replica || reads.Wrote() {
			t.Fatalf("market prices read on the replica: %v, want %v", onReplica, replica)
		}
		for _, p := range prices {
			if p.Item == item {
				return p.UnitPrice.String()
			}
		}
		t.Fatalf("no market price for %s", item)
		return ""
	}
	rs.waitReplayed(t, app)
	old := price(true) // kept under the replica's stamp
	rs.onStandby(t, `SELECT pg_wal_replay_pause()`)
	testfactory.Published(t, rs.owner, higher) // bumps the stamp on the primary
	want := price(false)
	if want == old {
		t.Fatalf("the higher quote did not move the market price of %s (%s)", item, old)
	}
	if got := price(true); got != old {
		t.Fatalf("the paused replica's stamp gave %s, the value kept under the primary's newer stamp; want its own %s", got, old)
	}
	if got := price(false); got != want {
		t.Fatalf("primary after the replica's read: %s, want %s (an older value kept under the newer stamp?)", got, want)
	}
	rs.onStandby(t, `SELECT pg_wal_replay_resume()`)
	rs.waitReplayed(t, app)
	if got := price(true); got != want {
		t.Fatalf("the replica once replayed: %s, want the new %s", got, want)
	}
}
