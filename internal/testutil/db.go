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
	"testing"

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
	return store.MigrateDB(ctx, db)
}

// DBURL creates a fresh, fully migrated database for this test (from a
// template, so it takes milliseconds) and returns its URL. It is dropped
// when the test passes and kept for inspection when it fails.
func DBURL(t testing.TB) string {
	t.Helper()
	return pgtestdb.Custom(t, pgtestdbConfig(t), migrator{}).URL()
}

// Store opens a pool on a fresh database for this test.
func Store(t testing.TB) *store.Store {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), DBURL(t))
	if err != nil {
		t.Fatalf("open test pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return store.New(pool)
}
