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

// Migrate applies every pending migration, then makes sure the serving
// role exists and holds exactly its grants (docs/RULES.md §16.7); it
// returns the resulting version.
func Migrate(ctx context.Context, pool *pgxpool.Pool, app AppRole) (int64, error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := newProvider(db)
	if err != nil {
		return 0, fmt.Errorf("migrations: %w", err)
	}
	if err := migrateDB(ctx, db, p, app); err != nil {
		return 0, err
	}
	return p.GetDBVersion(ctx)
}

// MigrateDB is Migrate through a database/sql handle (used by the per-test
// database template).
func MigrateDB(ctx context.Context, db *sql.DB, app AppRole) error {
	p, err := newProvider(db)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	return migrateDB(ctx, db, p, app)
}

func migrateDB(ctx context.Context, db *sql.DB, p *goose.Provider, app AppRole) error {
	if err := app.Validate(); err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	q := sqlDB{db}
	if err := ensureAppRole(ctx, q, app); err != nil {
		return err
	}
	return grantAppRole(ctx, q, app)
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
