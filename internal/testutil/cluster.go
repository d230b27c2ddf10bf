package testutil

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"gpuquote/internal/store"
)

// Cluster is a private PostgreSQL server started by a test, which the test
// may stop and start at will (never the shared server).
type Cluster struct {
	t       testing.TB
	bin     string
	dir     string
	port    int
	running bool
}

// pgBinDir finds initdb and pg_ctl: Debian's versioned folders first, then PATH.
func pgBinDir() (string, bool) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "pg_ctl")); err == nil {
			return d, true
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), true
	}
	return "", false
}

// StartCluster creates and starts a private cluster on a free loopback port.
// initdb and the server refuse to run as root, so as root they run as the
// postgres user.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	bin, ok := pgBinDir()
	if !ok {
		t.Skip("PostgreSQL server binaries (initdb, pg_ctl) not installed; make test installs them")
	}
	dir, err := os.MkdirTemp("", "gpuquote-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	c := &Cluster{t: t, bin: bin, dir: filepath.Join(dir, "data"), port: freePort(t)}
	c.run("initdb", "-D", c.dir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync")
	c.Start()
	t.Cleanup(func() {
		if c.running {
			c.Stop()
		}
	})
	return c
}

func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (c *Cluster) run(tool string, args ...string) {
	c.t.Helper()
	name := filepath.Join(c.bin, tool)
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	} else {
		cmd = exec.Command(name, args...)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("%s %v: %v\n%s", tool, args, err, out)
	}
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.dir, "-l", filepath.Join(filepath.Dir(c.dir), "server.log"), "-w", "-t", "30",
		"-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off", c.port, filepath.Dir(c.dir)), "start")
	c.running = true
}

// Stop stops the server at once, closing every connection.
func (c *Cluster) Stop() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.dir, "-w", "-t", "30", "-m", "fast", "stop")
	c.running = false
}

// URL is the connection URL of database db on this cluster.
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// StartStandby makes a hot standby of c — a base backup taken with
// pg_basebackup -R, so it streams the primary's WAL — and starts it on a
// port of its own.
func (c *Cluster) StartStandby() *Cluster {
	c.t.Helper()
	dir, err := os.MkdirTemp("", "gpuquote-standby-")
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			c.t.Fatalf("running as root needs a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			c.t.Fatal(err)
		}
	}
	s := &Cluster{t: c.t, bin: c.bin, dir: filepath.Join(dir, "data"), port: freePort(c.t)}
	c.run("pg_basebackup", "-D", s.dir, "-R", "-X", "stream", "-c", "fast", "--no-sync",
		"-h", "127.0.0.1", "-p", strconv.Itoa(c.port), "-U", "postgres")
	s.Start()
	c.t.Cleanup(func() {
		if s.running {
			s.Stop()
		}
	})
	return s
}

// MigratedPool opens a pool of maxConns on database db of this cluster,
// made and migrated first (with the serving role AppRoleName), closed when
// the test ends.
func (c *Cluster) MigratedPool(db string, maxConns int32) *pgxpool.Pool {
	c.t.Helper()
	ctx := context.Background()
	u := c.URL(db)
	if err := store.EnsureDatabase(ctx, u); err != nil {
		c.t.Fatal(err)
	}
	pool, err := store.Open(ctx, u, maxConns)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(pool.Close)
	if _, err := store.Migrate(ctx, pool, store.AppRole{Name: AppRoleName}); err != nil {
		c.t.Fatal(err)
	}
	return pool
}
