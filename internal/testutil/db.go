// Package testutil gives tests real infrastructure: a freshly migrated
// PostgreSQL database per test, the whole HTTP server on a loopback port,
// a private PostgreSQL cluster a test may stop and start, and a headless
// Chromium. There are no database mocks.
package testutil

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/peterldowns/pgtestdb"

	"gpuquote/internal/store"
	"gpuquote/migrations"
)

// ServerURL is the PostgreSQL server tests create their databases on:
// GPUQUOTE_TEST_DATABASE_URL, else DATABASE_URL, else the local default.
// Only its host, port and credentials matter.
func ServerURL() string {
	for _, k := range []string{"GPUQUOTE_TEST_DATABASE_URL", "DATABASE_URL"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

func pgtestdbConfig(t testing.TB) pgtestdb.Config {
	u, err := url.Parse(ServerURL())
	if err != nil {
		t.Fatalf("test database URL: %v", err)
	}
	pw, _ := u.User.Password()
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	db := u.Path
	if len(db) > 1 {
		db = db[1:]
	} else {
		db = "postgres"
	}
	opts := u.Query()
	if opts.Get("sslmode") == "" {
		opts.Set("sslmode", "disable")
	}
	return pgtestdb.Config{DriverName: "pgx", Host: u.Hostname(), Port: port, User: u.User.Username(),
		Password: pw, Database: db, Options: opts.Encode(), ForceTerminateConnections: true}
}

// migrator builds pgtestdb's template database with our goose migrations;
// its hash covers every migration file, so a changed migration makes a new
// template.
type migrator struct{}

func (migrator) Hash() (string, error) {
	h := sha256.New()
	h.Write([]byte("grants " + store.GrantsVersion + " " + AppRoleName + "\n"))
	err := fs.WalkDir(migrations.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(migrations.FS, p)
		if err != nil {
			return err
		}
		h.Write([]byte(p))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)), err
}

func (migrator) Migrate(ctx context.Context, db *sql.DB, _ pgtestdb.Config) error {
	return store.MigrateDB(ctx, db, store.AppRole{Name: AppRoleName})
}

// AppRoleName and appRolePassword are the serving role the tests' servers
// and stores connect as, with the grants 'gpuquote migrate' gives
// (docs/RULES.md §16.7). The role belongs to the test server only; it is
// created once, by the administrator of the tests' PostgreSQL, because the
// role that owns the test databases may not create roles.
const (
	AppRoleName     = "gpuquote_test_app"
	appRolePassword = "gpuquote_test_app"
)

var appRole struct {
	once sync.Once
	err  error
}

// ensureAppRole creates the tests' serving role when the server lacks it.
func ensureAppRole(t testing.TB) {
	t.Helper()
	appRole.once.Do(func() {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, ServerURL())
		if err != nil {
			appRole.err = err
			return
		}
		defer conn.Close(ctx)
		// One creator at a time across the test binaries that run at once.
		tx, err := conn.Begin(ctx)
		if err != nil {
			appRole.err = err
			return
		}
		defer tx.Rollback(ctx) //nolint:errcheck // committed below
		if _, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7318590412)`); err != nil {
			appRole.err = err
			return
		}
		var exists bool
		if err = tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, AppRoleName).Scan(&exists); err != nil {
			appRole.err = err
			return
		}
		if !exists {
			_, err = tx.Exec(ctx, "CREATE ROLE "+AppRoleName+" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD '"+appRolePassword+"'")
			if err != nil {
				appRole.err = err
				return
			}
		}
		appRole.err = tx.Commit(ctx)
	})
	if appRole.err != nil {
		t.Fatalf("create the tests' serving role %s: %v", AppRoleName, appRole.err)
	}
}

// DB creates a fresh, fully migrated database for this test (from a
// template, so it takes milliseconds) and returns two URLs for it: as the
// tables' owner (what 'gpuquote migrate' uses) and as the serving role
// (what the server uses). It is dropped when the test passes and kept for
// inspection when it fails.
func DB(t testing.TB) (owner, app string) {
	t.Helper()
	ensureAppRole(t)
	owner = pgtestdb.Custom(t, pgtestdbConfig(t), migrator{}).URL()
	app, err := store.URLForRole(owner, store.AppRole{Name: AppRoleName, Password: appRolePassword})
	if err != nil {
		t.Fatal(err)
	}
	return owner, app
}

// DBURL is DB's owner URL.
func DBURL(t testing.TB) string {
	t.Helper()
	owner, _ := DB(t)
	return owner
}

// Store opens a pool as the serving role on a fresh database for this
// test: tests see the privileges the server has.
func Store(t testing.TB) *store.Store {
	t.Helper()
	_, app := DB(t)
	return Open(t, app)
}

// OwnerStore is Store connected as the tables' owner, for the few tests
// that need more than the server may do (rewinding the schema version).
func OwnerStore(t testing.TB) *store.Store {
	t.Helper()
	return Open(t, DBURL(t))
}

// Open opens a pool on url, closed when the test ends.
func Open(t testing.TB, url string) *store.Store {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatalf("open test pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return store.New(pool)
}
