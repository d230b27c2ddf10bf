package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// AllowRequest takes one request from key's bucket in rate_limits, shared
// by every serving process (docs/RULES.md §20.3): the bucket holds burst
// requests and refills one every interval (a token bucket, kept as the
// time it would next be full). It reports whether the request is within
// the limit; a refused request takes nothing. One statement decides and
// records, so requests sent at once to any number of processes are
// counted against one bucket.
func (s *Store) AllowRequest(ctx context.Context, key string, now time.Time, interval time.Duration, burst int) (bool, error) {
	if interval <= 0 || burst < 1 {
		return false, fmt.Errorf("rate limit: interval %s, burst %d", interval, burst)
	}
	every := interval.Microseconds()
	tolerance := every * int64(burst-1)
	var ok bool
	err := s.pool.QueryRow(ctx, `
		INSERT INTO rate_limits AS r (key, tat) VALUES ($1, $2::timestamptz + $3::bigint * interval '1 microsecond')
		ON CONFLICT (key) DO UPDATE SET tat = greatest(r.tat, $2) + $3::bigint * interval '1 microsecond'
		  WHERE r.tat <= $2 + $4::bigint * interval '1 microsecond'
		RETURNING true`,
		key, now, every, tolerance).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		// The bucket's row is there and its condition refused the update.
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("rate limit: %w", err)
	}
	return ok, nil
}

// SweepRateLimits deletes the buckets that are full again at now, which
// are the same as no row, and returns how many it deleted. Rows another
// request holds are left for the next sweep.
func (s *Store) SweepRateLimits(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `
		DELETE FROM rate_limits WHERE key IN (
		  SELECT key FROM rate_limits WHERE tat <= $1 FOR UPDATE SKIP LOCKED)`, now)
	if err != nil {
		return 0, fmt.Errorf("sweep rate limits: %w", err)
	}
	return tag.RowsAffected(), nil
}
