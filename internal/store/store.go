// Package store holds every SQL statement of gpuquote: one file per
// aggregate, explicit columns and scans, $N placeholders only.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"gpuquote/internal/market"
)

// ErrNotFound is returned when a requested row does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write loses to a concurrent one or breaks a
// uniqueness rule.
var ErrConflict = errors.New("store: conflict")

// Store is the data layer over one PostgreSQL connection pool, and the
// hot standbys' pools its reads may go to (replicas.go).
type Store struct {
	pool *dbRouter
	// market and marketCounts are the last market reference aggregate
	// (MarketPrices) and the editors' counts (HomeCounts) read, with the
	// market stamp they were read under.
	market       *stampCache[time.Time, []market.MarketPrice]
	marketCounts *stampCache[[2]time.Time, [2]int]
	// mail, when set (SetMail), queues a mail with every notice
	// (docs/RULES.md §18.4).
	mail *Mail
}

// New wraps an open pool.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: newRouter(pool), market: &stampCache[time.Time, []market.MarketPrice]{},
		marketCounts: &stampCache[[2]time.Time, [2]int]{}}
}

// Pool returns the underlying pool (for health checks and metrics).
func (s *Store) Pool() *pgxpool.Pool { return s.pool.primary }

// Querier is what both a pool and a transaction offer; store methods that
// may run inside a caller's transaction take one.
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// InTx runs fn in a transaction: committed when fn returns nil, rolled back
// otherwise, so a failure leaves the database as it was.
func (s *Store) InTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(s.txFor(tx)); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// PoolConfig parses a DATABASE_URL into a pool configuration. The error never
// repeats the URL, which may carry a password.
func PoolConfig(databaseURL string, maxConns int32) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		return nil, errors.New("DATABASE_URL cannot be parsed as a PostgreSQL connection string")
	}
	if maxConns > 0 {
		pc.MaxConns = maxConns
	}
	pc.MaxConnIdleTime = 5 * time.Minute
	pc.HealthCheckPeriod = 15 * time.Second
	pc.ConnConfig.ConnectTimeout = 5 * time.Second
	if pc.ConnConfig.RuntimeParams == nil {
		pc.ConnConfig.RuntimeParams = map[string]string{}
	}
	pc.ConnConfig.RuntimeParams["application_name"] = "gpuquote"
	// All times are stored and compared in UTC.
	pc.ConnConfig.RuntimeParams["timezone"] = "UTC"
	return pc, nil
}

// Open creates a pool without waiting for the server: the app starts (and
// /readyz says 503) even while PostgreSQL is down.
func Open(ctx context.Context, databaseURL string, maxConns int32) (*pgxpool.Pool, error) {
	pc, err := PoolConfig(databaseURL, maxConns)
	if err != nil {
		return nil, err
	}
	return pgxpool.NewWithConfig(ctx, pc)
}

// EnsureDatabase creates the database named in databaseURL when it does not
// exist yet, connecting to the server's "postgres" database to do so.
func EnsureDatabase(ctx context.Context, databaseURL string) error {
	cc, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return errors.New("DATABASE_URL cannot be parsed as a PostgreSQL connection string")
	}
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err == nil {
		return conn.Close(ctx)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "3D000" { // invalid_catalog_name
		return fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	name := cc.Database
	admin := cc.Copy()
	admin.Database = "postgres"
	aconn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("connect to PostgreSQL to create database %q: %w", name, err)
	}
	defer aconn.Close(ctx)
	if _, err := aconn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		// Created at the same moment by another process (a second
		// migrate or serve starting): PostgreSQL answers duplicate_database
		// when the other creation had committed, and a unique violation on
		// the catalog's name index when both were under way at once.
		if errors.As(err, &pgErr) && (pgErr.Code == "42P04" || isUniqueViolation(err, "pg_database_datname_index")) {
			return nil
		}
		return fmt.Errorf("create database %q: %w", name, err)
	}
	return nil
}

// isUniqueViolation reports a unique_violation on the given constraint
// (any constraint when name is empty).
func isUniqueViolation(err error, name string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && (name == "" || pgErr.ConstraintName == name)
}

// exists reads the error of a single-row lookup whose absence is an
// ordinary outcome (signing in with an unknown email): no row is found ==
// false, not an error.
func exists(err error) (bool, error) {
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// notFound maps pgx.ErrNoRows to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// pageWindow bounds a list's page: a negative offset starts at the
// beginning, and a limit outside 1–200 becomes 50.
func pageWindow(offset, limit int) (int, int) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	return max(offset, 0), limit
}

// isForeignKeyViolation reports a foreign_key_violation (a row naming
// another that does not exist).
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}
