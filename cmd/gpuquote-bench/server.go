package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/store"
)

// server is the gpuquote process under test.
type server struct {
	cmd *exec.Cmd
	url string
	pid int
	// metricsURL is the metrics listener's address (off the site's port).
	metricsURL string
}

// startServer runs the binary on a free loopback port with GOMAXPROCS=2,
// the load test's ceilings on and the public rate limit off, and env's
// settings besides, and waits until it is ready.
func startServer(ctx context.Context, bin, dbURL string, env ...string) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return nil, err
	}
	metricsAddr := mln.Addr().String()
	mln.Close()
	ln.Close()
	// The server runs as the serving role the seed's migration granted,
	// as in production (docs/RULES.md §16.7).
	dbURL, err = store.URLForRole(dbURL, store.AppRole{Name: store.DefaultAppRole})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "GPUQUOTE_ADDR="+addr, "GOMAXPROCS=2",
		"GPUQUOTE_BENCH_ROUTES=true", "GPUQUOTE_PUBLIC_RATE_LIMIT=0", "GPUQUOTE_LOG_LEVEL=error")
	cmd.Env = append(cmd.Env, "GPUQUOTE_METRICS_ADDR="+metricsAddr)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &server{cmd: cmd, url: "http://" + addr, pid: cmd.Process.Pid, metricsURL: "http://" + metricsAddr}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				logf("server %s ready at %s (pid %d)", bin, s.url, s.pid)
				return s, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.stop()
			return nil, errors.New("the server did not become ready within 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends the server process this tool started (by its own PID).
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(25 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// session is a signed-in browser: its cookies and CSRF token.
type session struct {
	cookie string
	csrf   string
}

var csrfField = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`)

// login signs in through the login form, as a browser does.
func login(ctx context.Context, base, email, password string) (session, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	token, err := pageCSRF(c, base+"/login")
	if err != nil {
		return session{}, err
	}
	resp, err := c.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}, "_csrf": {token}})
	if err != nil {
		return session{}, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return session{}, fmt.Errorf("login: status %d", resp.StatusCode)
	}
	u, _ := url.Parse(base)
	var parts []string
	for _, ck := range jar.Cookies(u) {
		parts = append(parts, ck.Name+"="+ck.Value)
	}
	s := session{cookie: strings.Join(parts, "; ")}
	// The signed-in session's CSRF token, from any page with a form.
	s.csrf, err = pageCSRF(c, base+"/account")
	return s, err
}

func pageCSRF(c *http.Client, page string) (string, error) {
	resp, err := c.Get(page)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := csrfField.FindSubmatch(body)
	if m == nil {
		return "", fmt.Errorf("no CSRF token on %s (status %d)", page, resp.StatusCode)
	}
	return string(m[1]), nil
}

// post sends a form as the session and returns the redirect target.
func (s session) post(ctx context.Context, target string, form url.Values) (string, error) {
	form.Set("_csrf", s.csrf)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", s.cookie)
	resp, err := (&http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		body, _ := io.ReadAll(resp.Body)
		return "", fmt.Errorf("POST %s: status %d: %.300s", target, resp.StatusCode, body)
	}
	return resp.Header.Get("Location"), nil
}

// seedReports saves one real report of the 20-quote comparison through the
// app, then copies it to 1,000 reports by different authors and in every
// status, as a year of use would leave them. It returns the real one's id.
func seedReports(ctx context.Context, base string, s session, dbURL string, v volume) (int64, error) {
	form := compareForm(v)
	form.Set("title", "GPU rental for the 2027 training plan")
	form.Set("purpose", "Benchmark report: twenty offers compared for steady use.")
	loc, err := s.post(ctx, base+"/reports", form)
	if err != nil {
		return 0, err
	}
	var id int64
	if _, err := fmt.Sscanf(strings.TrimPrefix(loc, "/reports/"), "%d", &id); err != nil {
		return 0, fmt.Errorf("saved report at %q: %w", loc, err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	// Copies in every status stand for a year of workflow steps, which the
	// table only accepts one guarded step at a time (a report is inserted
	// as a draft): the bulk copy goes in with triggers off, as the quotes'
	// bulk load does, on this private database only.
	if _, err := conn.Exec(ctx, `SET session_replication_role = replica`); err != nil {
		return 0, err
	}
	tag, err := conn.Exec(ctx, `
		INSERT INTO reports (number, revision, author_id, title, purpose, status, snapshot, snapshot_version, rules_version,
		                     figures_date, report_currency, quote_count, platform_ids, recommended_tco, recommended_tco_pessimistic,
		                     created_at, updated_at, submitted_at, decided_at, decided_by, decision_comment)
		SELECT 'R-2026-' || lpad(i::text, 4, '0'), 1, a.id, r.title || ' #' || i, r.purpose, st.status, r.snapshot, r.snapshot_version,
		       r.rules_version, r.figures_date, r.report_currency, r.quote_count, r.platform_ids, r.recommended_tco,
		       r.recommended_tco_pessimistic, r.created_at - make_interval(hours => i), r.updated_at - make_interval(hours => i),
		       CASE WHEN st.status <> 'draft' THEN r.created_at - make_interval(hours => i) END,
		       CASE WHEN st.status IN ('approved', 'returned') THEN r.created_at - make_interval(hours => i) END,
		       CASE WHEN st.status IN ('approved', 'returned') THEN f.id END,
		       CASE WHEN st.status = 'returned' THEN 'Please confirm the egress price in writing.' ELSE '' END
		FROM reports r, generate_series(2, 1000) i
		CROSS JOIN LATERAL (SELECT id FROM users WHERE email = 'bench-' || lpad((46 + i % 155)::text, 3, '0') || '@example.test') a
		CROSS JOIN LATERAL (SELECT (ARRAY['draft', 'submitted', 'approved', 'returned'])[1 + i % 4] AS status) st
		CROSS JOIN LATERAL (SELECT id FROM users WHERE email = 'bench-' || lpad((6 + i % 20)::text, 3, '0') || '@example.test') f
		WHERE r.id = $1`, id)
	if err != nil {
		return 0, fmt.Errorf("copy the report: %w", err)
	}
	if _, err := conn.Exec(ctx, `
		RESET session_replication_role;
		INSERT INTO report_counters (year, last) VALUES (2026, 1000)
		ON CONFLICT (year) DO UPDATE SET last = greatest(report_counters.last, 1000);
		ANALYZE reports`); err != nil {
		return 0, err
	}
	logf("  reports: 1 saved through the app, %d copies", tag.RowsAffected())
	return id, nil
}
