package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

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
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS=" + args}, env...)...)
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
	url := testutil.DBURL(t)
	_, stderr, code := runMain(t, "serve", "DATABASE_URL="+url, "GPUQUOTE_ADDR="+ln.Addr().String(), "GPUQUOTE_LOG_LEVEL=error")
	line := oneLine(t, stderr)
	if code == 0 || !strings.Contains(line, "cannot listen on "+ln.Addr().String()) || !strings.Contains(line, "address already in use") {
		t.Fatalf("exit %d, %q", code, line)
	}
}

func TestServeRefusesOlderSchema(t *testing.T) {
	st := testutil.Store(t)
	if _, err := st.Pool().Exec(context.Background(), `DELETE FROM goose_db_version WHERE version_id > 0`); err != nil {
		t.Fatal(err)
	}
	url := st.Pool().Config().ConnString()
	_, stderr, code := runMain(t, "serve", "DATABASE_URL="+url, "GPUQUOTE_ADDR=127.0.0.1:0")
	if line := oneLine(t, stderr); code == 0 || !strings.Contains(line, "gpuquote migrate") {
		t.Fatalf("exit %d, %q: want a refusal that says to run migrate", code, line)
	}
}

func TestUnknownCommand(t *testing.T) {
	_, stderr, code := runMain(t, "frobnicate")
	if code == 0 || !strings.Contains(stderr, "Usage:") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}
