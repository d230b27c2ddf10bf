package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// bareEnv is this process's environment without DATABASE_URL, any
// GPUQUOTE_* variable and the variables an outer make passes down.
func bareEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "DATABASE_URL" || strings.HasPrefix(k, "GPUQUOTE_") || strings.HasPrefix(k, "MAKE") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// TestOwnerCommandsNameTheirVariables: with no database configured at all,
// migrate, seed, user and app-url say that they need
// GPUQUOTE_OWNER_DATABASE_URL or DATABASE_URL, and serve that it needs
// DATABASE_URL; with only the owner's URL set, app-url works.
func TestOwnerCommandsNameTheirVariables(t *testing.T) {
	t.Parallel()
	for _, args := range []string{"migrate", "seed", "app-url", "user create --email a@example.test --password-stdin", "user password --email a@example.test --password-stdin"} {
		_, stderr, code := runBare(t, args, "一个足够长的口令 passphrase\n")
		line := oneLine(t, stderr)
		if code == 0 || !strings.Contains(line, "GPUQUOTE_OWNER_DATABASE_URL") || !strings.Contains(line, "DATABASE_URL is set") {
			t.Errorf("%s with no database: exit %d, %q", args, code, line)
		}
	}
	if _, stderr, code := runBare(t, "serve", ""); code == 0 || !strings.Contains(oneLine(t, stderr), "DATABASE_URL is not set") {
		t.Errorf("serve with no database: exit %d, %q", code, stderr)
	}
	out, stderr, code := runBare(t, "app-url", "", "GPUQUOTE_OWNER_DATABASE_URL=postgres://owner@db.example:5432/gq?sslmode=disable")
	if want := fmt.Sprintf("postgres://%s@db.example:5432/gq?sslmode=disable", "gpuquote_app"); code != 0 || strings.TrimSpace(out) != want {
		t.Errorf("app-url with the owner's URL alone: exit %d, %q %q, want %q", code, out, stderr, want)
	}
}

// runBare runs main() with args in a child process whose environment holds
// no DATABASE_URL and no GPUQUOTE_* variable but env, with stdin as its
// input.
func runBare(t *testing.T, args, stdin string, env ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runChild(t, bareEnv(), args, stdin, env...)
}
