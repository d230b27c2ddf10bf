package main

import (
	"context"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"go.yaml.in/yaml/v4"

	"gpuquote/internal/testutil"
)

// composeFile is the part of docker-compose.yml the test reads.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Build       string            `yaml:"build"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Healthcheck struct {
			Test []string `yaml:"test"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

// TestComposeCommandLines checks docker-compose.yml as far as a machine
// without a Docker engine can: the services start in the order migrate →
// seed → app, and each one's command and environment, run as they are with
// only the addresses moved to this machine (the database host "db" to a
// private PostgreSQL cluster set up as the postgres image would set it up
// from the db service's environment, listen addresses to free loopback
// ports), does its work: migrate creates the serving role the app's URL
// names, seed prints the demo accounts, the app serves as that role and is
// ready, its metrics answer on their own address. The db service's
// healthcheck runs against the cluster.
func TestComposeCommandLines(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cf composeFile
	if err := yaml.Unmarshal(raw, &cf); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	names := make([]string, 0, len(cf.Services))
	for n := range cf.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	if !slices.Equal(names, []string{"app", "db", "migrate", "seed"}) {
		t.Fatalf("services %v, want app, db, migrate, seed", names)
	}
	for svc, want := range map[string]struct{ cmd, after, condition string }{
		"migrate": {"migrate", "db", "service_healthy"},
		"seed":    {"seed", "migrate", "service_completed_successfully"},
		"app":     {"serve", "seed", "service_completed_successfully"},
	} {
		s := cf.Services[svc]
		if s.Build != "." || !slices.Equal(s.Command, []string{want.cmd}) {
			t.Errorf("%s: build %q command %v, want the image built here running %q", svc, s.Build, s.Command, want.cmd)
		}
		if d, ok := s.DependsOn[want.after]; !ok || d.Condition != want.condition || len(s.DependsOn) != 1 {
			t.Errorf("%s depends on %v, want %s (%s)", svc, s.DependsOn, want.after, want.condition)
		}
	}

	// The db service, as the postgres image sets it up: POSTGRES_USER a
	// superuser with POSTGRES_PASSWORD, owning the database POSTGRES_DB.
	db := cf.Services["db"].Environment
	cluster := testutil.StartCluster(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, cluster.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	owner := pgx.Identifier{db["POSTGRES_USER"]}.Sanitize()
	for _, q := range []string{
		"CREATE ROLE " + owner + " SUPERUSER LOGIN PASSWORD " + quoteLiteral(db["POSTGRES_PASSWORD"]),
		"CREATE DATABASE " + pgx.Identifier{db["POSTGRES_DB"]}.Sanitize() + " OWNER " + owner,
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	_ = c.Close(ctx)
	clusterURL, _ := neturl.Parse(cluster.URL("postgres"))

	// The healthcheck, with the cluster's binaries and address.
	hc := cf.Services["db"].Healthcheck.Test
	if len(hc) != 2 || hc[0] != "CMD-SHELL" {
		t.Fatalf("db healthcheck %v, want CMD-SHELL and a command", hc)
	}
	check := exec.Command("sh", "-c", hc[1])
	check.Env = append(os.Environ(), "PATH="+pgBinPath()+":"+os.Getenv("PATH"), "PGHOST=127.0.0.1", "PGPORT="+clusterURL.Port())
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("db healthcheck %q: %v\n%s", hc[1], err, out)
	}

	// env is a service's environment with the addresses moved here.
	addr, metricsAddr := freeLoopback(t), freeLoopback(t)
	env := func(svc string) []string {
		var out []string
		for k, v := range cf.Services[svc].Environment {
			switch k {
			case "DATABASE_URL", "GPUQUOTE_OWNER_DATABASE_URL":
				u, err := neturl.Parse(v)
				if err != nil || u.Host != "db:5432" {
					t.Fatalf("%s %s=%q: want a URL of host db:5432", svc, k, v)
				}
				u.Host = clusterURL.Host
				v = u.String()
			case "GPUQUOTE_ADDR":
				v = addr
			case "GPUQUOTE_METRICS_ADDR":
				v = metricsAddr
			case "GPUQUOTE_PUBLIC_URL":
				v = "http://" + addr
			}
			out = append(out, k+"="+v)
		}
		sort.Strings(out)
		return out
	}
	if out, stderr, code := runBare(t, "migrate", "", env("migrate")...); code != 0 || !strings.Contains(out, "schema at version") {
		t.Fatalf("compose's migrate: exit %d\n%s%s", code, out, stderr)
	}
	if out, stderr, code := runBare(t, "seed", "", env("seed")...); code != 0 || strings.Count(out, "@gpuquote.local") != len(demoUsers) {
		t.Fatalf("compose's seed: exit %d\n%s%s", code, out, stderr)
	}

	// The app, as long as the test needs it.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(bareEnv(), append([]string{"GPUQUOTE_RUN_MAIN=1", "GPUQUOTE_ARGS=serve"}, env("app")...)...)
	logs := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	client := &http.Client{Timeout: 5 * time.Second}
	ready := false
	for range 300 {
		select {
		case err := <-done:
			t.Fatalf("compose's app stopped (%v):\n%s", err, logs.String())
		case <-time.After(100 * time.Millisecond):
		}
		if r, err := client.Get("http://" + addr + "/readyz"); err == nil {
			r.Body.Close()
			if ready = r.StatusCode == http.StatusOK; ready {
				break
			}
		}
	}
	if !ready {
		t.Fatalf("compose's app not ready in 30 s:\n%s", logs.String())
	}
	r, err := client.Get("http://" + metricsAddr + "/metrics")
	if err != nil {
		t.Fatalf("metrics address: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusOK {
		t.Fatalf("metrics address: %d", r.StatusCode)
	}
}

var fromGolang = regexp.MustCompile(`(?m)^FROM golang:(\d+\.\d+(?:\.\d+)?)\S* AS build$`)

// TestDockerfileBuilds checks the Dockerfile's build stage as far as a
// machine without a Docker engine can: its Go is the one go.mod asks for,
// and every package of the server builds without cgo, as its
// `CGO_ENABLED=0 go build` needs for the static distroless image.
func TestDockerfileBuilds(t *testing.T) {
	t.Parallel()
	df, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := fromGolang.FindSubmatch(df)
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if m == nil || goLine == nil || string(m[1]) != string(goLine[1]) {
		t.Fatalf("the Dockerfile's Go image and go.mod's go line differ: %q vs %q", m, goLine)
	}
	if !strings.Contains(string(df), "CGO_ENABLED=0 go build") || !strings.Contains(string(df), "./cmd/gpuquote") {
		t.Fatal("the Dockerfile no longer builds ./cmd/gpuquote without cgo")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if .Error}}{{.ImportPath}}: {{.Error}}{{end}}{{range .DepsErrors}}{{.}}{{end}}", "./cmd/gpuquote")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("CGO_ENABLED=0 go list ./cmd/gpuquote: %v\n%s", err, out)
	}
}

// pgBinPath is the folder of the installed PostgreSQL client and server
// programs (Debian's versioned one first), or "" when on PATH only.
func pgBinPath() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	if len(dirs) > 0 {
		return dirs[0]
	}
	return ""
}

func freeLoopback(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// quoteLiteral is s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
