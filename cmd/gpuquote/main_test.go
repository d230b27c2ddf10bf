package main

import (
	"bytes"
	"context"
	"net"
	neturl "net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// TestMain lets a test run this binary's main() in a child process, to see
// its exit status and exactly what it prints.
func TestMain(m *testing.M) {
	if os.Getenv("GPUQUOTE_RUN_MAIN") == "1" {
		os.Args = append([]string{"gpuquote"}, strings.Fields(os.Getenv("GPUQUOTE_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runMain runs main() with args and env in a child process.
func runMain(t *testing.T, args string, env ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runChild(t, os.Environ(), args, "", env...)
}

// runChild runs main() with args in a child process whose environment is
// base and env, with stdin as its input.
func runChild(t *testing.T, base []string, args, stdin string, env ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(base, append([]string{"GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS=" + args}, env...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func oneLine(t *testing.T, s string) string {
	t.Helper()
	s = strings.TrimRight(s, "\n")
	if s == "" || strings.Contains(s, "\n") {
		t.Fatalf("want exactly one line, got %q", s)
	}
	return s
}

func TestBadDatabaseURLExitsWithOneLine(t *testing.T) {
	_, stderr, code := runMain(t, "serve", "DATABASE_URL=postgres://user:s3cret@host:notaport/db")
	line := oneLine(t, stderr)
	if code == 0 || !strings.Contains(line, "DATABASE_URL") || strings.Contains(line, "s3cret") {
		t.Fatalf("exit %d, %q: want non-zero, naming DATABASE_URL, never the password", code, line)
	}
}

func TestBadConfigurationExitsWithOneLine(t *testing.T) {
	_, stderr, code := runMain(t, "serve", "GPUQUOTE_SESSION_IDLE=soon")
	if line := oneLine(t, stderr); code == 0 || !strings.Contains(line, "GPUQUOTE_SESSION_IDLE") {
		t.Fatalf("exit %d, %q", code, line)
	}
}

func TestPortTakenExitsWithOneLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, url := testutil.DB(t)
	_, stderr, code := runMain(t, "serve", "DATABASE_URL="+url, "GPUQUOTE_ADDR="+ln.Addr().String(), "GPUQUOTE_LOG_LEVEL=error")
	line := oneLine(t, stderr)
	if code == 0 || !strings.Contains(line, "cannot listen on "+ln.Addr().String()) || !strings.Contains(line, "address already in use") {
		t.Fatalf("exit %d, %q", code, line)
	}
}

func TestServeRefusesOlderSchema(t *testing.T) {
	owner, url := testutil.DB(t)
	st := testutil.Open(t, owner)
	if _, err := st.Pool().Exec(context.Background(), `DELETE FROM goose_db_version WHERE version_id > 0`); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runMain(t, "serve", "DATABASE_URL="+url, "GPUQUOTE_ADDR=127.0.0.1:0")
	if line := oneLine(t, stderr); code == 0 || !strings.Contains(line, "gpuquote migrate") {
		t.Fatalf("exit %d, %q: want a refusal that says to run migrate", code, line)
	}
}

// TestServeRefusesPrivilegedRoles: serve connected as the tables' owner or
// as a superuser stops with one line naming the way out; with
// GPUQUOTE_ALLOW_SUPERUSER=1 it goes on (here as far as the taken port).
func TestServeRefusesPrivilegedRoles(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	owner, app := testutil.DB(t)
	superuser, err := store.URLForRole(owner, store.AppRole{Name: "postgres"})
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := neturl.Parse(testutil.ServerURL()); u.User.Username() != "postgres" {
		superuser = "" // the tests' server has another administrator
	}
	addr := "GPUQUOTE_ADDR=" + ln.Addr().String()
	for name, url := range map[string]string{"owner": owner, "superuser": superuser} {
		if url == "" {
			continue
		}
		_, stderr, code := runMain(t, "serve", "DATABASE_URL="+url, addr)
		if line := oneLine(t, stderr); code == 0 || !strings.Contains(line, "refuses to connect as a PostgreSQL superuser or as the owner") ||
			!strings.Contains(line, "GPUQUOTE_ALLOW_SUPERUSER=1") {
			t.Errorf("%s: exit %d, %q", name, code, line)
		}
		_, stderr, code = runMain(t, "serve", "DATABASE_URL="+url, addr, "GPUQUOTE_ALLOW_SUPERUSER=1", "GPUQUOTE_LOG_LEVEL=warn")
		if code == 0 || !strings.Contains(stderr, "GPUQUOTE_ALLOW_SUPERUSER=1") || !strings.Contains(stderr, "cannot listen on") {
			t.Errorf("%s allowed: exit %d, %q: want the warning, then the taken port", name, code, stderr)
		}
	}
	// The serving role passes the check and stops only at the port.
	_, stderr, code := runMain(t, "serve", "DATABASE_URL="+app, addr)
	if line := oneLine(t, stderr); code == 0 || !strings.Contains(line, "cannot listen on") {
		t.Errorf("serving role: exit %d, %q", code, line)
	}
}

// TestAppURL: app-url turns the owner's URL into the serving role's.
func TestAppURL(t *testing.T) {
	out, stderr, code := runMain(t, "app-url", "DATABASE_URL=postgres://owner:pw@db.example:5432/gq?sslmode=disable",
		"GPUQUOTE_APP_ROLE=gq_app", "GPUQUOTE_APP_PASSWORD=s3cret")
	if code != 0 || strings.TrimSpace(out) != "postgres://gq_app:s3cret@db.example:5432/gq?sslmode=disable" {
		t.Fatalf("exit %d, %q %q", code, out, stderr)
	}
	if _, stderr, code := runMain(t, "app-url", "DATABASE_URL=postgres://o@h/d", "GPUQUOTE_APP_ROLE=Robert'); DROP"); code == 0 || !strings.Contains(stderr, "GPUQUOTE_APP_ROLE") {
		t.Fatalf("a role name that is not an identifier: exit %d, %q", code, stderr)
	}
}

func TestUnknownCommand(t *testing.T) {
	_, stderr, code := runMain(t, "frobnicate")
	if code == 0 || !strings.Contains(stderr, "Usage:") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

// TestMigrateSeedAndUserCommands runs the maintenance commands against a
// database that does not exist yet: migrate creates it, seed fills it once.
func TestMigrateSeedAndUserCommands(t *testing.T) {
	name := "gpuquote_cmdtest_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	u, err := neturl.Parse(testutil.ServerURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	url := u.String()
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), testutil.ServerURL())
		if err == nil {
			_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			_ = c.Close(context.Background())
		}
	})
	env := "DATABASE_URL=" + url
	role := "GPUQUOTE_APP_ROLE=" + testutil.AppRoleName
	if out, stderr, code := runMain(t, "migrate", env, role); code != 0 || !strings.Contains(out, "schema at version") {
		t.Fatalf("migrate: %d %s %s", code, out, stderr)
	}
	out, stderr, code := runMain(t, "seed", env)
	if code != 0 || !strings.Contains(out, "LOCAL DEMO ACCOUNTS") || strings.Count(out, "@gpuquote.local") != 4 || !strings.Contains(out, "sample exchange rates") || !strings.Contains(out, "sample market data (3 platforms, 7 GPU models, 4 HOSTKEY quotes") ||
		!strings.Contains(out, "loaded 2 sample own-hardware options and 2 electricity prices (examples dated 2026-12-01") {
		t.Fatalf("seed: %d %s %s", code, out, stderr)
	}
	if out, _, code := runMain(t, "seed", env); code != 0 || !strings.Contains(out, "already has data") {
		t.Fatalf("second seed must load nothing: %s", out)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS=user create --email Boss@Example.test --role admin --password-stdin", env)
	cmd.Stdin = strings.NewReader("一个足够长的口令 passphrase\n")
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "created admin user Boss@Example.test") || strings.Contains(string(b), "shown once") {
		t.Fatalf("user create: %v %s", err, b)
	}
	// The password policy applies here too: not the account's own email or
	// name (docs/RULES.md §16.5).
	run := func(args, pw string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS="+args, env)
		cmd.Stdin = strings.NewReader(pw + "\n")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if out, err := run("user create --email q@example.test --name Kowalski --password-stdin", "rents four gpus"); err != nil {
		t.Fatalf("user create: %v %s", err, out)
	}
	for _, c := range []struct{ args, pw string }{
		{"user create --email zhang.wei@example.test --password-stdin", "zhang.wei2026"},
		{"user create --email z@example.test --name ZhangWei --password-stdin", "zhang wei 88"},
		{"user password --email q@example.test --password-stdin", "Kowalski 99"}, // the stored display name
	} {
		if out, err := run(c.args, c.pw); err == nil || !strings.Contains(out, "password refused") {
			t.Errorf("%s with %q: %v %s", c.args, c.pw, err, out)
		}
	}
	if _, stderr, code := runMain(t, "user create --email boss@example.TEST --role analyst", env); code == 0 || !strings.Contains(stderr, "already exists") {
		t.Fatalf("duplicate email (case-insensitive) accepted: %d %s", code, stderr)
	}
	if out, _, code := runMain(t, "user password --email boss@example.test", env); code != 0 || !strings.Contains(out, "password (shown once): ") {
		t.Fatalf("user password: %d %s", code, out)
	}
	if _, stderr, code := runMain(t, "user create --email x@example.test --role wizard", env); code == 0 || !strings.Contains(stderr, "--role") {
		t.Fatalf("bad role: %d %s", code, stderr)
	}
}
