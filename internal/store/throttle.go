package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/user"
)

// sweepExpired is how many counters of past windows one counted attempt
// deletes, which keeps login_throttle about as small as its open windows.
const sweepExpired = 10

// CountLoginAttempt counts one password attempt against every bucket before
// the password is checked (docs/RULES.md §16.2) and returns each bucket's
// count in its open window, this attempt included, in the order given. One
// statement both counts and reads the counts, so of any number of attempts
// sent at once exactly one sees each count, and no more than a bucket's
// limit are ever told they are within it. A bucket whose window has passed
// starts a new window at this attempt. The first attempt a bucket refuses
// in a window is audited (email as typed, never the password) in the same
// transaction; later refusals in that window are not, so a flood cannot
// fill the audit log.
func (s *Store) CountLoginAttempt(ctx context.Context, a user.Actor, email string, buckets []user.AttemptBucket, now time.Time, window time.Duration) ([]user.AttemptCount, error) {
	// Keys in one order, so two attempts never lock the same rows in
	// opposite orders.
	keys := make([]string, len(buckets))
	for i, b := range buckets {
		keys[i] = b.Key
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	counts := make(map[string]user.AttemptCount, len(keys))
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			INSERT INTO login_throttle AS t (key, attempts, window_start)
			SELECT k, 1, $2 FROM unnest($1::text[]) WITH ORDINALITY AS u(k, n) ORDER BY n
			ON CONFLICT (key) DO UPDATE SET
			  attempts     = CASE WHEN t.window_start > $3 THEN t.attempts + 1 ELSE 1 END,
			  window_start = CASE WHEN t.window_start > $3 THEN t.window_start ELSE $2 END
			RETURNING key, attempts, window_start`,
			keys, now, now.Add(-window))
		if err != nil {
			return fmt.Errorf("count login attempt: %w", err)
		}
		for rows.Next() {
			var c user.AttemptCount
			if err := rows.Scan(&c.Key, &c.Attempts, &c.WindowStart); err != nil {
				rows.Close()
				return err
			}
			counts[c.Key] = c
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("count login attempt: %w", err)
		}
		for _, b := range buckets {
			if b.Limit > 0 && counts[b.Key].Attempts == b.Limit+1 {
				kind, _, _ := strings.Cut(b.Key, ":")
				if err := audit(ctx, tx, a, AuditEntry{Action: ActionLoginFailed, Entity: "login",
					After: map[string]any{"email": email, "throttled": kind}}); err != nil {
					return err
				}
			}
		}
		// Forget a few counters whose windows have passed; rows another
		// attempt holds are left for a later sweep.
		_, err = tx.Exec(ctx, `
			DELETE FROM login_throttle WHERE key IN (
			  SELECT key FROM login_throttle WHERE window_start <= $1
			  ORDER BY window_start LIMIT $2 FOR UPDATE SKIP LOCKED)`,
			now.Add(-window), sweepExpired)
		if err != nil {
			return fmt.Errorf("sweep login counters: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]user.AttemptCount, len(buckets))
	for i, b := range buckets {
		out[i] = counts[b.Key]
	}
	return out, nil
}

// RecordLoginFailure audits a failed sign-in whose password was checked
// (email as typed, never the password). The attempt itself was counted
// before the check by CountLoginAttempt.
func (s *Store) RecordLoginFailure(ctx context.Context, a user.Actor, email string) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		return audit(ctx, tx, a, AuditEntry{Action: ActionLoginFailed, Entity: "login",
			After: map[string]any{"email": email}})
	})
}

// RefundLoginAttempt takes one counted attempt back off key, when its window
// is still the one that opened at windowStart: a successful sign-in does not
// count towards its address's slow-down (docs/RULES.md §16.2).
func (s *Store) RefundLoginAttempt(ctx context.Context, key string, windowStart time.Time) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE login_throttle SET attempts = attempts - 1
		WHERE key = $1 AND window_start = $2 AND attempts > 0`, key, windowStart)
	if err != nil {
		return fmt.Errorf("refund login attempt: %w", err)
	}
	return nil
}
