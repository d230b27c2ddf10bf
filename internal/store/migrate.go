package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"gpuquote/migrations"
)

// ErrSchemaOutdated means the database schema is older than this binary.
var ErrSchemaOutdated = errors.New("database schema is older than this binary: run 'gpuquote migrate'")

// newProvider builds a goose provider over the embedded migrations. A
// session lock serialises concurrent 'migrate' runs from several processes.
func newProvider(db *sql.DB) (*goose.Provider, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, db, migrations.FS,
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true))
}

// Migrate applies every pending migration and returns the resulting version.
func Migrate(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := newProvider(db)
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	return p.GetDBVersion(ctx)
}

// MigrateDB applies the migrations through a database/sql handle (used by
// the per-test database template).
func MigrateDB(ctx context.Context, db *sql.DB) error {
	p, err := newProvider(db)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	_, err = p.Up(ctx)
	return err
}

// SchemaVersion is the newest migration embedded in this binary.
var SchemaVersion = func() int64 {
	var newest int64
	entries, err := migrations.FS.ReadDir(".")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			continue
		}
		newest = max(newest, v)
	}
	return newest
}()

// DBVersion returns the newest applied migration (0 on an empty database).
func (s *Store) DBVersion(ctx context.Context) (int64, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, err
	}
	if !exists {
		return 0, nil
	}
	var v int64
	err := s.pool.QueryRow(ctx,
		`SELECT coalesce(max(version_id), 0) FROM goose_db_version WHERE is_applied`).Scan(&v)
	return v, err
}

// CheckSchema returns ErrSchemaOutdated when the database lags this binary.
func (s *Store) CheckSchema(ctx context.Context) error {
	v, err := s.DBVersion(ctx)
	if err != nil {
		return err
	}
	if v < SchemaVersion {
		return fmt.Errorf("%w (database at %d, binary needs %d)", ErrSchemaOutdated, v, SchemaVersion)
	}
	return nil
}
