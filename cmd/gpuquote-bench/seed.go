package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"gpuquote/internal/auth"
	"gpuquote/internal/store"
)

// volume is what the seed made and the targets need.
type volume struct {
	databaseURL  string
	platforms    int
	gpus         int
	quotes       int
	lines        int
	users        int
	reports      int
	analystEmail string
	password     string
	// compareIDs are 20 published quotes across the three currencies.
	compareIDs []int64
	// filterGPU is a GPU model id for the filtered quote list; it has
	// quotes in every currency (the currency cycles every 30 quotes, the
	// GPU model every quote), so its EUR pages are full.
	filterGPU int64
}

func (v volume) String() string {
	return fmt.Sprintf("%d platforms, %d GPU models, %d quotes with %d lines, %d users", v.platforms, v.gpus, v.quotes, v.lines, v.users)
}

// withDatabase returns base with its database name replaced.
func withDatabase(base, name string) (string, error) {
	cc, err := pgx.ParseConfig(base)
	if err != nil {
		return "", errors.New("the database URL cannot be parsed")
	}
	u := fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", cc.User, cc.Host, cc.Port, name)
	if cc.Password != "" {
		u = fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", cc.User, cc.Password, cc.Host, cc.Port, name)
	}
	return u, nil
}

// createDatabase makes a fresh, empty database name on the server of base
// (dropping an earlier run's) and returns its URL.
func createDatabase(ctx context.Context, base, name string) (string, error) {
	admin, err := withDatabase(base, "postgres")
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`); err != nil {
		return "", fmt.Errorf("drop an earlier bench database: %w", err)
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("create the bench database: %w", err)
	}
	return withDatabase(base, name)
}

func dropDatabase(ctx context.Context, base, name string) error {
	admin, err := withDatabase(base, "postgres")
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `DROP DATABASE IF EXISTS `+pgx.Identifier{name}.Sanitize()+` WITH (FORCE)`)
	return err
}

// seed migrates the database and fills it: 50 platforms, 30 GPU models,
// n dated quotes across three currencies each with its twelve lines, dated
// exchange rates and reference prices, and 200 users sharing one password.
// Bulk rows go in with triggers off (the immutability triggers forbid
// adding lines to a published quote, which is what a bulk load does).
func seed(ctx context.Context, dbURL string, n int) (volume, error) {
	v := volume{databaseURL: dbURL, platforms: 50, gpus: 30, quotes: n, users: 200}
	pool, err := store.Open(ctx, dbURL, 4)
	if err != nil {
		return v, err
	}
	defer pool.Close()
	if _, err := store.Migrate(ctx, pool, store.AppRole{Name: store.DefaultAppRole}); err != nil {
		return v, fmt.Errorf("migrate: %w", err)
	}
	v.password = auth.NewToken()[:20]
	hash, err := auth.NewHasher(auth.DefaultArgon2, 1).Hash(ctx, v.password)
	if err != nil {
		return v, err
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return v, err
	}
	defer conn.Release()
	steps := []struct {
		what string
		sql  string
		args []any
	}{
		{"triggers off", `SET session_replication_role = replica`, nil},
		{"users", `
			INSERT INTO users (email, display_name, role, password_hash)
			SELECT 'bench-' || lpad(i::text, 3, '0') || '@example.test', 'Bench user ' || i,
			       CASE WHEN i <= 5 THEN 'admin' WHEN i <= 25 THEN 'finance' WHEN i <= 45 THEN 'editor' ELSE 'analyst' END, $1
			FROM generate_series(1, 200) i`, []any{hash}},
		{"platforms", `
			INSERT INTO platforms (name_zh, name_en, currency, country, operating_since, idc_licence, iso27001, mlps3)
			SELECT '算力平台' || i, 'Platform ' || lpad(i::text, 2, '0'), (ARRAY['CNY','EUR','USD'])[1 + i % 3],
			       (ARRAY['CN','DE','US'])[1 + i % 3], 2010 + i % 15, i % 2 = 0, i % 3 = 0, i % 4 = 0
			FROM generate_series(1, 50) i`, nil},
		{"GPU models", `
			INSERT INTO gpu_models (vendor, name, vram_gb, interconnect, tdp_w, boost_clock_mhz)
			SELECT 'NVIDIA', 'Model ' || lpad(i::text, 2, '0'), 16 + (i % 6) * 16,
			       CASE WHEN i % 3 = 0 THEN 'nvlink' ELSE 'pcie' END, 250 + (i % 5) * 100, 1500 + (i % 5) * 100
			FROM generate_series(1, 30) i`, nil},
		{"quotes", `
			INSERT INTO quotes (id, series_id, version, state, platform_id, gpu_model_id, label, gpu_count, currency,
			                    hourly, monthly, spot_hourly, billing_granularity, commitment_months, early_termination_pct,
			                    as_of, source, published_at)
			SELECT i, i, 1, 'published', p.min + i % 50, g.min + i % 30, 'tier ' || i, 1 + i % 8,
			       (ARRAY['CNY','EUR','USD'])[1 + (i / 30) % 3],
			       round((0.3 + (i % 1000) / 100.0)::numeric, 3), round((200 + i % 5000)::numeric, 2),
			       CASE WHEN i % 4 = 0 THEN round((0.1 + (i % 1000) / 300.0)::numeric, 3) END, 'second',
			       CASE WHEN i % 5 = 0 THEN 12 ELSE 0 END, CASE WHEN i % 5 = 0 THEN 25 END,
			       date '2026-12-01' - (i % 730), 'https://example.test/prices/' || i, now()
			FROM generate_series(1, $1) i,
			     (SELECT min(id) FROM platforms) p, (SELECT min(id) FROM gpu_models) g`, []any{n}},
		{"quote id sequence", `SELECT setval(pg_get_serial_sequence('quotes', 'id'), $1)`, []any{n}},
		// Twelve lines each: most included in writing, egress charged per
		// GB, the snapshot line unconfirmed on every third quote.
		{"quote lines", `
			INSERT INTO quote_lines (quote_id, item, status, unit, unit_price, in_writing)
			SELECT q, item,
			       CASE WHEN item = 'egress' THEN 'charged' WHEN item = 'snapshot' AND q % 3 = 0 THEN 'unconfirmed' ELSE 'included' END,
			       CASE WHEN item = 'egress' THEN 'per_gb' END,
			       CASE WHEN item = 'egress' THEN round((0.2 + (q % 10) / 10.0)::numeric, 2) END,
			       NOT (item = 'snapshot' AND q % 3 = 0)
			FROM generate_series(1, $1) q,
			     unnest(ARRAY['bandwidth', 'egress', 'data_migration', 'public_ip', 'system_disk', 'data_disk', 'object_storage',
			                  'bundled_addon', 'snapshot', 'image', 'stopped_retention', 'start_stop_schedule']) item`, []any{n}},
		{"exchange rates", `
			INSERT INTO fx_rates (base_currency, quote_currency, rate, as_of, source) VALUES
			  ('EUR', 'CNY', 7.8, '2026-11-01', 'bench'), ('USD', 'CNY', 7.1, '2026-11-01', 'bench'),
			  ('CNY', 'EUR', 0.128, '2026-11-01', 'bench'), ('USD', 'EUR', 0.91, '2026-11-01', 'bench'),
			  ('CNY', 'USD', 0.141, '2026-11-01', 'bench'), ('EUR', 'USD', 1.1, '2026-11-01', 'bench')`, nil},
		{"reference prices", `
			INSERT INTO reference_prices (item, currency, unit, unit_price, as_of, source)
			SELECT 'snapshot', c, 'per_month', 0.1, '2026-11-01', 'bench' FROM unnest(ARRAY['CNY','EUR','USD']) c`, nil},
		{"triggers on", `SET session_replication_role = DEFAULT`, nil},
		// What autovacuum does soon after a bulk load: statistics for the
		// planner and the visibility map that lets an index answer alone.
		{"vacuum and statistics", `VACUUM (ANALYZE)`, nil},
	}
	for _, s := range steps {
		t := time.Now()
		var tag pgconn.CommandTag
		if tag, err = conn.Exec(ctx, s.sql, s.args...); err != nil {
			return v, fmt.Errorf("%s: %w", s.what, err)
		}
		if s.what == "quote lines" {
			v.lines = int(tag.RowsAffected())
		}
		logf("  %s: %v", s.what, time.Since(t).Round(time.Millisecond))
	}
	v.analystEmail = "bench-200@example.test"
	// Twenty quotes to compare: the newest of 20 different offers, all
	// three currencies, one GPU model in three.
	rows, err := conn.Query(ctx, `SELECT id FROM quotes WHERE id % 7 = 1 ORDER BY id LIMIT 20`)
	if err != nil {
		return v, err
	}
	v.compareIDs, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return v, err
	}
	if err := conn.QueryRow(ctx, `SELECT min(id) FROM gpu_models`).Scan(&v.filterGPU); err != nil {
		return v, err
	}
	return v, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
