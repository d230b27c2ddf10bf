//go:build !race

// The newcomer's make run builds and runs the server as separate
// processes, which -race does not watch: make test runs it in its pass
// without -race (scripts/test.sh), beside the browser tests.

package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/testutil"
)

// TestMakeRunAsNewcomer runs the README's first command the way a newcomer
// does: `make run` in a copy of the working tree, with an environment that
// holds no DATABASE_URL and no GPUQUOTE_* variable but a free GPUQUOTE_ADDR,
// on a database nobody uses. It waits for the printed URL, checks /readyz,
// signs in with a printed demo account and compares the sample quotes; then
// runs `make run` a second time on the same tree (schema current, sample
// data kept, no new demo accounts, the URL printed again). Once on the
// server answering on 127.0.0.1:5432 and once on a private cluster
// (GPUQUOTE_PRIVATE_PG=1) that make run creates in the copy. The two run
// one after the other: the first copy's build (-trimpath, so the copy's
// folder is not part of the build) leaves the Go cache warm for the second.
func TestMakeRunAsNewcomer(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("make is not installed: the README's first command needs it")
	}
	t.Run("server on 5432", func(t *testing.T) {
		tree := copyWorkingTree(t)
		db := "gpuquote_newcomer_" + strconv.FormatInt(time.Now().UnixNano(), 36)
		want := "provision-db: using PostgreSQL at 127.0.0.1:5432"
		if !answers("postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable") {
			// Where no server answers there, make run takes the private
			// path; the test below checks that one in full.
			want = "provision-db: creating a private cluster in .data/postgres"
			t.Cleanup(func() { stopPrivateCluster(t, tree) })
		} else {
			t.Cleanup(func() { dropDatabase("postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", db) })
		}
		newcomerRuns(t, tree, db, nil, want)
	})
	t.Run("private cluster", func(t *testing.T) {
		tree := copyWorkingTree(t)
		t.Cleanup(func() { stopPrivateCluster(t, tree) })
		db := "gpuquote_newcomer_" + strconv.FormatInt(time.Now().UnixNano(), 36)
		newcomerRuns(t, tree, db, []string{"GPUQUOTE_PRIVATE_PG=1"}, "provision-db: creating a private cluster in .data/postgres")
	})
}

// newcomerRuns runs make run twice in tree and checks what a newcomer sees.
func newcomerRuns(t *testing.T, tree, db string, env []string, firstSays string) {
	t.Helper()
	first := startMakeRun(t, tree, db, env)
	out := first.output()
	if !strings.Contains(out, firstSays) {
		t.Errorf("first make run does not say %q:\n%s", firstSays, out)
	}
	accounts := demoAccounts(out)
	if len(accounts) != len(demoUsers) {
		t.Fatalf("first make run printed %d demo accounts, want %d:\n%s", len(accounts), len(demoUsers), out)
	}
	analyst := accounts["analyst@gpuquote.local"]
	if analyst == "" {
		t.Fatalf("no analyst demo account printed:\n%s", out)
	}
	useAsNewcomer(t, first.url, "analyst@gpuquote.local", analyst)
	first.stop(t)

	// The second time: the database is kept as it was.
	second := startMakeRun(t, tree, db, env)
	out = second.output()
	if !strings.Contains(out, "database already has data; sample data not loaded") || strings.Contains(out, "LOCAL DEMO ACCOUNTS") {
		t.Errorf("second make run must keep the sample data and print no new accounts:\n%s", out)
	}
	if strings.Contains(out, "creating a private cluster") {
		t.Errorf("second make run created the private cluster again:\n%s", out)
	}
	useAsNewcomer(t, second.url, "analyst@gpuquote.local", analyst)
	second.stop(t)
}

// makeRun is one `make run` process group.
type makeRun struct {
	cmd   *exec.Cmd
	out   *lockedBuffer
	done  chan error
	ended bool // make has exited and been waited for
	url   string
}

func (m *makeRun) output() string { return m.out.String() }

// servingLine is what serve prints once it listens.
var servingLine = regexp.MustCompile(`gpuquote is serving at (http://\S+)`)

// startMakeRun starts `make run DB_NAME=db` in tree and waits for the
// printed URL: at most 5 minutes, enough for a build on a cold Go cache.
func startMakeRun(t *testing.T, tree, db string, extra []string) *makeRun {
	t.Helper()
	cmd := exec.Command("make", "--no-print-directory", "run", "DB_NAME="+db)
	cmd.Dir = tree
	cmd.Env = append(newcomerEnv(t), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	m := &makeRun{cmd: cmd, out: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stdout, cmd.Stderr = m.out, m.out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { m.done <- cmd.Wait() }()
	t.Cleanup(m.kill)
	deadline := time.After(5 * time.Minute)
	for m.url == "" {
		select {
		case err := <-m.done:
			m.ended = true
			t.Fatalf("make run stopped before serving (%v):\n%s", err, m.output())
		case <-deadline:
			t.Fatalf("make run printed no URL in 5 minutes:\n%s", m.output())
		case <-time.After(100 * time.Millisecond):
		}
		if s := servingLine.FindStringSubmatch(m.output()); s != nil {
			m.url = s[1]
		}
	}
	t.Logf("make run served at %s after %s", m.url, time.Since(start).Round(time.Millisecond))
	return m
}

// stop interrupts the process group, as Ctrl-C in a terminal does, and
// waits for it to end.
func (m *makeRun) stop(t *testing.T) {
	t.Helper()
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-m.done:
		m.ended = true
	case <-time.After(30 * time.Second):
		m.kill()
		t.Fatalf("make run did not stop within 30 s of Ctrl-C:\n%s", m.output())
	}
}

// kill ends the process group at once and waits for make.
func (m *makeRun) kill() {
	if m.ended {
		return
	}
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-m.done:
		m.ended = true
	case <-time.After(10 * time.Second):
	}
}

// newcomerEnv is bareEnv with a free GPUQUOTE_ADDR.
func newcomerEnv(t *testing.T) []string {
	t.Helper()
	return append(bareEnv(), "GPUQUOTE_ADDR="+freeLoopback(t))
}

// demoAccountLine is one row of seed's table: role, email, password.
var demoAccountLine = regexp.MustCompile(`(?m)^\w+\s+(\S+@gpuquote\.local)\s+(\S+)\s*$`)

func demoAccounts(out string) map[string]string {
	m := map[string]string{}
	for _, s := range demoAccountLine.FindAllStringSubmatch(out, -1) {
		m[s[1]] = s[2]
	}
	return m
}

var candidateBox = regexp.MustCompile(`<input type="checkbox" name="q" value="(\d+)"`)

// useAsNewcomer checks /readyz, signs in and compares every sample quote
// the compare page offers.
func useAsNewcomer(t *testing.T, url, email, password string) {
	t.Helper()
	r, err := (&http.Client{Timeout: 10 * time.Second}).Get(url + "/readyz")
	if err != nil {
		t.Fatalf("/readyz: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("/readyz: %d", r.StatusCode)
	}
	c := (&testutil.App{T: t, URL: url}).Client()
	c.Login(email, password)
	page := c.Get("/compare")
	ids := candidateBox.FindAllStringSubmatch(page.Body, -1)
	if page.StatusCode != http.StatusOK || len(ids) < 4 || !strings.Contains(page.Body, "HOSTKEY") {
		t.Fatalf("/compare: %d with %d candidates, want the sample HOSTKEY quotes", page.StatusCode, len(ids))
	}
	q := neturl.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"}, "report_currency": {"EUR"}}
	for _, id := range ids {
		q.Add("q", id[1])
	}
	page = c.Get("/compare?" + q.Encode())
	if page.StatusCode != http.StatusOK {
		t.Fatalf("/compare with the sample quotes: %d", page.StatusCode)
	}
	for _, id := range ids {
		row := regexp.MustCompile(`(?s)data-testid="row-` + id[1] + `".*?data-testid="tco">([^<]*)<`).FindStringSubmatch(page.Body)
		if row == nil || !regexp.MustCompile(`\d`).MatchString(row[1]) {
			t.Errorf("sample quote %s has no TCO on the compare page", id[1])
		}
	}
}

// copyWorkingTree copies the repository's files — tracked, and untracked
// ones git does not ignore — into a new directory that the postgres user
// can enter (a private cluster's server runs as that user when we are
// root), and returns it.
func copyWorkingTree(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	list, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the test copies the working tree of a git checkout)", err)
	}
	tmp := t.TempDir()
	for d := tmp; d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tree := filepath.Join(tmp, "gpuquote")
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		dst := filepath.Join(tree, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(src, dst, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return tree
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, bufio.NewReader(in)); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// answers says whether PostgreSQL accepts url within 3 s.
func answers(url string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return false
	}
	_ = c.Close(ctx)
	return true
}

func dropDatabase(serverURL, name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, serverURL)
	if err != nil {
		return
	}
	defer c.Close(ctx)
	_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
}

// stopPrivateCluster stops the cluster make run left running in tree, if
// any (as the postgres user when we are root, as make run started it).
func stopPrivateCluster(t *testing.T, tree string) {
	data := filepath.Join(tree, ".data", "postgres")
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err != nil {
		return
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	pgCtl := "pg_ctl"
	if len(bins) > 0 {
		pgCtl = bins[len(bins)-1]
	}
	args := []string{pgCtl, "-D", data, "-w", "-t", "30", "-m", "fast", "stop"}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err == nil {
			args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
		}
	}
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Errorf("stopping the private cluster: %v\n%s", err, out)
	}
}
