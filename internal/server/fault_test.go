package server_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/auth"
	"gpuquote/internal/config"
	"gpuquote/internal/routes"
	"gpuquote/internal/server"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// privateApp is the app over a fresh database on a private PostgreSQL
// cluster the test may stop and start (never the shared server).
func privateApp(t *testing.T, maxConns int32, opts ...testutil.Option) (*testutil.App, *testutil.Cluster) {
	t.Helper()
	cluster := testutil.StartCluster(t)
	pool := cluster.MigratedPool("gpuquote", maxConns)
	return testutil.NewAppOn(t, store.New(pool), opts...), cluster
}

// is503Page reports whether a response is the styled "temporarily
// unavailable" page, not a bare error or a 500.
func is503Page(r *testutil.Response) bool {
	return r.StatusCode == http.StatusServiceUnavailable && strings.Contains(r.Body, `data-testid="error-page"`) &&
		strings.Contains(r.Body, "503")
}

// TestFaultDatabaseRestart restarts PostgreSQL while readers and writers
// keep calling: every answer is a success or the 503 page (never a 500 or
// a hang), the app serves again once the database is back without being
// restarted, and a write the restart cut off mid-transaction left nothing
// behind — no quote without its lines, no audit entry.
func TestFaultDatabaseRestart(t *testing.T) {
	app, cluster := privateApp(t, 8)
	ctx := context.Background()
	editor, _ := app.AsUser(auth.RoleEditor)
	reader, _ := app.AsUser(auth.RoleAnalyst)
	if r := editor.PostForm("/quotes", quoteForm(app)); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("a first quote: %d", r.StatusCode)
	}
	count := func(sql string) int {
		t.Helper()
		var n int
		if err := app.Store.Pool().QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	quotesBefore, auditBefore := count(`SELECT count(*) FROM quotes`), count(`SELECT count(*) FROM audit_log`)

	// A write held mid-transaction: its quote row is in, its lines wait
	// for a lock another session holds, when the server goes down.
	// (The lock is held on a connection of its own, outside the app's pool.)
	locker, err := pgx.Connect(ctx, cluster.URL("gpuquote"))
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(context.Background())
	if _, err := locker.Exec(ctx, `BEGIN; LOCK TABLE quote_lines IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	cut := make(chan *testutil.Response, 1)
	form := quoteForm(app)
	form.Set("label", "cut off mid-transaction")
	go func() { cut <- editor.PostForm("/quotes", form) }()
	waitFor(t, 5*time.Second, "the write to wait on the lock", func() bool {
		// (While the statement is still being parsed, pg_stat_activity
		// shows the transaction's previous statement, so only the wait
		// itself is checked.)
		var waiting int
		_ = locker.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()`).Scan(&waiting)
		return waiting > 0
	})

	// Readers keep calling, bounded in count and time.
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		bad      []string
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := reader.Get("/quotes")
				mu.Lock()
				statuses[r.StatusCode]++
				if r.StatusCode != http.StatusOK && !is503Page(r) {
					bad = append(bad, r.Status+": "+firstLine(r.Body))
				}
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	cluster.Stop()
	select {
	case r := <-cut:
		if !is503Page(r) {
			t.Errorf("the write cut off by the restart: %d, want the 503 page", r.StatusCode)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write cut off by the restart did not answer within 10 s")
	}
	time.Sleep(300 * time.Millisecond) // calls while the database is down
	cluster.Start()

	// Back without restarting the app: once one call succeeds, every
	// later one does.
	waitFor(t, 10*time.Second, "a page after the restart", func() bool { return reader.Get("/quotes").StatusCode == http.StatusOK })
	close(stop)
	wg.Wait()
	for i := 0; i < 20; i++ {
		if r := reader.Get("/quotes"); r.StatusCode != http.StatusOK {
			t.Fatalf("call %d after recovery: %d", i, r.StatusCode)
		}
	}
	if r := editor.PostForm("/quotes", quoteForm(app)); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("a write after recovery: %d", r.StatusCode)
	}
	if len(bad) > 0 {
		t.Errorf("answers other than 200 or the 503 page while the database restarted: %v", bad)
	}
	if statuses[http.StatusServiceUnavailable] == 0 || statuses[http.StatusOK] == 0 {
		t.Errorf("the restart was not exercised: statuses %v", statuses)
	}
	t.Logf("statuses while PostgreSQL restarted: %v", statuses)

	// Nothing half-written: the cut-off quote is gone entirely, the one
	// written after recovery is whole with its audit entry.
	if n := count(`SELECT count(*) FROM quotes WHERE label = 'cut off mid-transaction'`); n != 0 {
		t.Errorf("%d rows of the cut-off quote survived", n)
	}
	if n := count(`SELECT count(*) FROM quotes q WHERE NOT EXISTS (SELECT 1 FROM quote_lines l WHERE l.quote_id = q.id)`); n != 0 {
		t.Errorf("%d quotes without their lines", n)
	}
	if q, a := count(`SELECT count(*) FROM quotes`), count(`SELECT count(*) FROM audit_log`); q != quotesBefore+1 || a != auditBefore+1 {
		t.Errorf("quotes %d → %d, audit entries %d → %d; want one more of each (the write after recovery)", quotesBefore, q, auditBefore, a)
	}
}

// TestFaultPoolExhausted holds every pool connection: a page answers 503
// within the request deadline instead of waiting for a connection forever.
func TestFaultPoolExhausted(t *testing.T) {
	const deadline = time.Second
	app, _ := privateApp(t, 2, func(d *server.Deps) { d.Config.RequestTimeout = deadline })
	reader, _ := app.AsUser(auth.RoleAnalyst)
	ctx := context.Background()
	var held []interface{ Release() }
	for i := 0; i < 2; i++ {
		c, err := app.Store.Pool().Acquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			for _, c := range held {
				c.Release()
			}
		})
	}
	t.Cleanup(release) // before the pool closes, even when the test fails
	// Ten seconds tells a hang from a slow machine; the answer must still
	// come soon after the deadline (rendering the error page, a loaded CPU).
	client := &http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	req, _ := http.NewRequest(http.MethodGet, app.URL+"/quotes", nil)
	req.AddCookie(reader.Cookie("gq_session"))
	resp, err := client.Do(req)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("no answer within 10 s while the pool was exhausted (a hang): %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `data-testid="error-page"`) {
		t.Fatalf("pool exhausted: %d after %v, want the 503 page", resp.StatusCode, took)
	}
	if took > deadline+4*time.Second {
		t.Errorf("the 503 came after %v, long past the %v request deadline", took, deadline)
	}
	release()
	if r := reader.Get("/quotes"); r.StatusCode != http.StatusOK {
		t.Fatalf("after the connections were released: %d", r.StatusCode)
	}
}

// TestFaultLargeBody sends a 10 MB form: 413, whoever sends it.
func TestFaultLargeBody(t *testing.T) {
	app := testutil.NewApp(t)
	client := app.Client()
	client.Get("/login") // the anonymous CSRF cookie
	big := strings.Repeat("x", 10<<20)
	for _, path := range []string{"/login", "/calculator"} {
		r := client.PostForm(path, url.Values{"email": {"a@example.test"}, "password": {big}})
		if r.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("POST %s with a 10 MB body: %d, want 413", path, r.StatusCode)
		}
	}
}

// TestFaultSlowHeaders opens a connection that trickles its request
// headers, one line every 200 ms: the server cuts it off at its header
// timeout instead of holding the connection.
func TestFaultSlowHeaders(t *testing.T) {
	st := testutil.Store(t)
	app := testutil.NewAppOn(t, st)
	srv, err := routes.New(context.Background(), server.Deps{Config: func() (c config.Config) {
		c = app.Config
		c.HeaderTimeout = 500 * time.Millisecond
		return
	}(), Store: st, Catalog: app.Catalog, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Hasher: auth.NewHasher(testutil.FastArgon2, 2)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })

	conn, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	closed := make(chan time.Duration, 1)
	go func() {
		// The server writes nothing useful; the read ends when it hangs up.
		_, _ = io.Copy(io.Discard, bufio.NewReader(conn))
		closed <- time.Since(start)
	}()
	if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ { // at most 10 s of trickling
		select {
		case took := <-closed:
			if took > 3*time.Second {
				t.Fatalf("cut off only after %v", took)
			}
			t.Logf("a client trickling headers was cut off after %v", took.Round(time.Millisecond))
			return
		case <-time.After(200 * time.Millisecond):
		}
		if _, err := conn.Write([]byte("X-Slow: " + strings.Repeat("a", 8) + "\r\n")); err != nil {
			var ne net.Error
			if errors.As(err, &ne) || errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "broken pipe") || strings.Contains(err.Error(), "reset") {
				continue // the server hung up; the reader reports when
			}
			t.Fatal(err)
		}
	}
	t.Fatal("a client trickling headers for 10 s was never cut off")
}

// waitFor polls cond every 50 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("waited %v for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}

// TestBenchCeilings serves the load test's two ceilings when configured:
// the fixed bytes, and the Fortunes-style page with its 12 rows plus one,
// sorted, the added one escaped.
func TestBenchCeilings(t *testing.T) {
	app := testutil.NewApp(t, func(d *server.Deps) { d.Config.BenchRoutes = true })
	ctx := context.Background()
	if _, err := app.Store.Pool().Exec(ctx, `INSERT INTO platforms (name_zh, name_en, currency)
		SELECT '平台' || i, 'Platform ' || lpad(i::text, 2, '0'), 'CNY' FROM generate_series(1, 13) i`); err != nil {
		t.Fatal(err)
	}
	client := app.Client()
	if r := client.Get("/bench/plaintext"); r.StatusCode != http.StatusOK || r.Body != "Hello, World!" {
		t.Fatalf("plaintext: %d %q", r.StatusCode, r.Body)
	}
	r := client.Get("/bench/fortunes")
	if r.StatusCode != http.StatusOK {
		t.Fatalf("fortunes: %d", r.StatusCode)
	}
	if strings.Contains(r.Body, "<script>alert") || !strings.Contains(r.Body, "&lt;script&gt;alert") {
		t.Error("the added row is not escaped")
	}
	if strings.Contains(r.Body, "Platform 13") || !strings.Contains(r.Body, "Platform 12") {
		t.Error("want exactly the first 12 platforms")
	}
	if i, j := strings.Index(r.Body, "&lt;script"), strings.Index(r.Body, "Platform 01"); i < 0 || j < 0 || i > j {
		t.Error("rows are not sorted by text")
	}
}
