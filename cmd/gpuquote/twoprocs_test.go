package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// serveProcess is one `gpuquote serve` child process.
type serveProcess struct {
	url    string
	stderr *lockedBuffer
}

// lockedBuffer is the child's output, written by exec's copier while the
// test may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs `serve` on a loopback port over databaseURL and waits
// until its /readyz answers 200 (at most 60 s, checking every 100 ms).
func startServe(t *testing.T, databaseURL string, env ...string) *serveProcess {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS=serve",
		"DATABASE_URL=" + databaseURL, "GPUQUOTE_ADDR=" + addr, "GPUQUOTE_LOG_LEVEL=warn"}, env...)...)
	p := &serveProcess{url: "http://" + addr, stderr: &lockedBuffer{}}
	cmd.Stdout, cmd.Stderr = p.stderr, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	client := &http.Client{Timeout: 5 * time.Second}
	for range 600 {
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v\n%s", err, p.stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		if r, err := client.Get(p.url + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return p
			}
		}
	}
	t.Fatalf("serve at %s not ready after 60 s\n%s", p.url, p.stderr.String())
	return nil
}

// backendHeader names, on each answer of the round-robin proxy, the
// process that gave it.
const backendHeader = "X-Test-Backend"

// roundRobin is a load balancer in miniature: each request goes to the
// next process in turn, whatever its cookies say.
func roundRobin(t *testing.T, procs ...*serveProcess) *httptest.Server {
	t.Helper()
	transport := &http.Transport{ResponseHeaderTimeout: 60 * time.Second, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(transport.CloseIdleConnections)
	proxies := make([]*httputil.ReverseProxy, len(procs))
	for i, p := range procs {
		target, err := neturl.Parse(p.url)
		if err != nil {
			t.Fatal(err)
		}
		proxies[i] = &httputil.ReverseProxy{Transport: transport, Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
		}}
	}
	var next atomic.Uint64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int((next.Add(1) - 1) % uint64(len(procs)))
		w.Header().Set(backendHeader, strconv.Itoa(i))
		// The request body is read whole before it is passed on: passing
		// the client's body stream through let the proxy's transport fail
		// now and then on a reused connection (under load, about one run
		// in ten: "ReverseProxy read error during body copy: use of closed
		// network connection" on a sign-in's answer). The bodies here are
		// a few hundred bytes.
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		proxies[i].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

var reportLocation = regexp.MustCompile(`^/reports/(\d+)$`)

// TestTwoServeProcessesOneDatabase runs two `serve` processes on one
// database behind a round-robin proxy, so consecutive requests alternate
// between them (docs/RULES.md §20.3): the public rate limit and login
// throttling count across both, a session made on one is used on the
// other, a report saved through one is the same bytes from the other, and
// a quote published through one is in the other's next comparison.
func TestTwoServeProcessesOneDatabase(t *testing.T) {
	t.Parallel()
	_, appURL := testutil.DB(t)
	st := testutil.Open(t, appURL)
	// Rate 1 a second, burst 3.
	a := startServe(t, appURL, "GPUQUOTE_PUBLIC_RATE_LIMIT=1")
	b := startServe(t, appURL, "GPUQUOTE_PUBLIC_RATE_LIMIT=1")
	px := roundRobin(t, a, b)
	app := &testutil.App{T: t, Store: st, URL: px.URL}
	logs := func() string { return "process 0:\n" + a.stderr.String() + "\nprocess 1:\n" + b.stderr.String() }

	t.Run("public rate limit", func(t *testing.T) {
		// Twelve quick requests from one address: each process alone would
		// allow its own burst of 3 (6 in all). Shared, at most the burst
		// plus one a second of the time they took are allowed, however
		// slow the machine.
		c := app.Client()
		allowed, refusedBy := 0, map[string]bool{}
		start := time.Now()
		for range 12 {
			req, _ := http.NewRequest(http.MethodPost, px.URL+"/api/v1/tco/evaluate", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			r := c.Do(req)
			switch {
			case r.StatusCode == http.StatusTooManyRequests:
				refusedBy[r.Header.Get(backendHeader)] = true
				if r.Header.Get("Retry-After") == "" {
					t.Errorf("429 without Retry-After")
				}
			case r.StatusCode >= 500:
				t.Fatalf("status %d\n%s", r.StatusCode, logs())
			default:
				allowed++
			}
		}
		elapsed := time.Since(start)
		if most := 3 + int(elapsed/time.Second); allowed > most {
			t.Errorf("%d of 12 requests in %s allowed, want at most %d: the processes do not share the limit", allowed, elapsed, most)
		}
		if !refusedBy["0"] || !refusedBy["1"] {
			t.Errorf("refused by %v, want both processes", refusedBy)
		}
	})

	t.Run("session", func(t *testing.T) {
		email, pw, _ := app.CreateUser(auth.RoleAnalyst)
		c := app.Client()
		c.Login(email, pw) // the form from one process, the sign-in to the other
		seen := map[string]bool{}
		for range 2 {
			r := c.Get("/account")
			if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, email) {
				t.Fatalf("account page from process %s: %d, want the signed-in user's page", r.Header.Get(backendHeader), r.StatusCode)
			}
			seen[r.Header.Get(backendHeader)] = true
		}
		if len(seen) != 2 {
			t.Fatalf("answered by %v, want both processes", seen)
		}
	})

	t.Run("login throttling", func(t *testing.T) {
		// Five wrong passwords split between the two, then the right one:
		// the account bucket (5 a window, docs/RULES.md §16.2) counted all
		// five, so the sixth is refused.
		email, pw, _ := app.CreateUser(auth.RoleAnalyst)
		c := app.Client()
		c.Get("/login")
		seen := map[string]int{}
		for i := range 5 {
			r := c.PostForm("/login", neturl.Values{"email": {email}, "password": {"wrong password " + strconv.Itoa(i)}})
			if r.StatusCode == http.StatusSeeOther || r.StatusCode == http.StatusTooManyRequests || r.StatusCode >= 500 {
				t.Fatalf("wrong password %d: status %d", i+1, r.StatusCode)
			}
			seen[r.Header.Get(backendHeader)]++
		}
		if len(seen) != 2 {
			t.Fatalf("attempts answered by %v, want both processes", seen)
		}
		r := c.PostForm("/login", neturl.Values{"email": {email}, "password": {pw}})
		if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Fatalf("right password as the sixth attempt: %d (Retry-After %q), want 429", r.StatusCode, r.Header.Get("Retry-After"))
		}
	})

	editor := app.Client()
	editorEmail, editorPW, _ := app.CreateUser(auth.RoleEditor)
	editor.Login(editorEmail, editorPW)

	t.Run("report", func(t *testing.T) {
		q := publishTestQuote(t, st, "两个进程的报价 A")
		form := neturl.Values{"title": {"两个进程"}, "purpose": {"LoRA 微调，一个月"}, "profile.hours_per_month": {"200"},
			"profile.months": {"1"}, "profile.instances": {"1"}, "report_currency": {"EUR"}, "q": {strconv.FormatInt(q, 10)}}
		r := editor.PostForm("/reports", form)
		m := reportLocation.FindStringSubmatch(r.Header.Get("Location"))
		if r.StatusCode != http.StatusSeeOther || m == nil {
			t.Fatalf("save report: %d, location %q\n%s", r.StatusCode, r.Header.Get("Location"), logs())
		}
		path := "/reports/" + m[1]
		editor.Get(path) // shows the one-time "saved" notice
		for _, p := range []string{path, path + "/export.csv"} {
			one, two := editor.Get(p), editor.Get(p)
			if one.StatusCode != http.StatusOK || two.StatusCode != http.StatusOK || one.Header.Get(backendHeader) == two.Header.Get(backendHeader) {
				t.Fatalf("%s: %d from %s, %d from %s", p, one.StatusCode, one.Header.Get(backendHeader), two.StatusCode, two.Header.Get(backendHeader))
			}
			if one.Body != two.Body {
				t.Fatalf("%s differs between the processes", p)
			}
		}
		// Both processes have drawn the report now; a new title given
		// through one is on the page and in the CSV of both.
		if r := editor.PostForm(path+"/retitle", neturl.Values{"title": {"两个进程（改名）"}}); r.StatusCode != http.StatusSeeOther {
			t.Fatalf("retitle: %d", r.StatusCode)
		}
		editor.Get(path) // the notice
		for _, p := range []string{path, path, path + "/export.csv", path + "/export.csv"} {
			if r := editor.Get(p); !strings.Contains(r.Body, "两个进程（改名）") {
				t.Fatalf("%s from process %s keeps the old title", p, r.Header.Get(backendHeader))
			}
		}
	})

	t.Run("published quote", func(t *testing.T) {
		const label = "两个进程的报价 B"
		draft := draftTestQuote(t, st, label)
		compare := "/compare?" + neturl.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"},
			"profile.instances": {"1"}, "report_currency": {"EUR"}, "q": {strconv.FormatInt(draft.ID, 10)}}.Encode()
		// Both processes compare before the quote is published.
		for range 2 {
			if r := editor.Get(compare); r.StatusCode != http.StatusOK || strings.Contains(r.Body, label) {
				t.Fatalf("compare before publishing: %d, label shown %v", r.StatusCode, strings.Contains(r.Body, label))
			}
		}
		r := editor.PostForm(fmt.Sprintf("/quotes/%d/publish", draft.ID), neturl.Values{"lock_version": {strconv.Itoa(draft.LockVersion)}})
		if r.StatusCode != http.StatusSeeOther {
			t.Fatalf("publish: %d", r.StatusCode)
		}
		publishedBy := r.Header.Get(backendHeader)
		r = editor.Get(compare)
		if r.Header.Get(backendHeader) == publishedBy || r.StatusCode != http.StatusOK || !strings.Contains(r.Body, label) {
			t.Fatalf("the other process's next comparison (process %s after %s): %d, label shown %v",
				r.Header.Get(backendHeader), publishedBy, r.StatusCode, strings.Contains(r.Body, label))
		}
		for range 2 {
			r := editor.Get("/api/v1/quotes")
			if r.StatusCode != http.StatusOK || !strings.Contains(r.Body, label) {
				t.Fatalf("/api/v1/quotes from process %s: %d, label shown %v", r.Header.Get(backendHeader), r.StatusCode, strings.Contains(r.Body, label))
			}
		}
	})
}

// draftTestQuote adds a draft one-GPU EUR quote, all items included, on a
// platform and GPU model of its own.
func draftTestQuote(t *testing.T, st *store.Store, label string) quote.Quote {
	t.Helper()
	ctx := context.Background()
	// Names that do not contain the label, which only the quote shows.
	var pid, gid int64
	name := strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := st.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ($1, $1, 'EUR') RETURNING id`, "平台 "+name).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('AMD', $1, 32) RETURNING id`, "GPU "+name).Scan(&gid); err != nil {
		t.Fatal(err)
	}
	var lines []quote.Line
	for _, it := range []string{"bandwidth", "egress", "data_migration", "public_ip", "system_disk", "data_disk",
		"object_storage", "bundled_addon", "snapshot", "image", "stopped_retention", "start_stop_schedule"} {
		lines = append(lines, quote.Line{Item: it, Status: "included", InWriting: true})
	}
	q := quote.Quote{PlatformID: pid, GPUModelID: gid, GPUCount: 1, Sharing: "dedicated", Currency: "EUR",
		BillingGranularity: "second", PricesIncludeTax: true, AsOf: time.Now().UTC().Truncate(24 * time.Hour),
		Source: "test", Lines: lines, Label: label, Hourly: decimal.NewNullDecimal(decimal.RequireFromString("0.471"))}
	d, err := st.CreateQuoteDraft(ctx, user.SystemActor, q)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// publishTestQuote is draftTestQuote, published; it returns the id.
func publishTestQuote(t *testing.T, st *store.Store, label string) int64 {
	t.Helper()
	d := draftTestQuote(t, st, label)
	p, err := st.PublishQuote(context.Background(), user.SystemActor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

// TestMigrateTwiceAtOnce starts `migrate` twice at once on a new, empty
// database: both succeed, and each migration is applied once
// (goose's advisory lock; docs/RULES.md §20.3).
func TestMigrateTwiceAtOnce(t *testing.T) {
	t.Parallel()
	name := "gpuquote_twice_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	u, err := neturl.Parse(testutil.ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, testutil.ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), testutil.ServerURL())
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	outs := make([]string, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS=migrate",
				"DATABASE_URL="+u.String(), "GPUQUOTE_APP_ROLE="+testutil.AppRoleName)
			b, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(b), err
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil || !strings.Contains(outs[i], "schema at version") {
			t.Fatalf("migrate %d: %v\n%s", i+1, errs[i], outs[i])
		}
	}
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var applied, distinct int64
	if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT version_id) FROM goose_db_version WHERE version_id > 0`).Scan(&applied, &distinct); err != nil {
		t.Fatal(err)
	}
	if applied != store.SchemaVersion || distinct != store.SchemaVersion {
		t.Fatalf("goose_db_version holds %d rows for %d migrations, want each of the %d once", applied, distinct, store.SchemaVersion)
	}
}
