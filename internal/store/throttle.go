package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/user"
)

// LoginFailures returns, for each key, the failures counted in the window
// that is still open at now (keys without an open window are absent).
func (s *Store) LoginFailures(ctx context.Context, keys []string, now time.Time, window time.Duration) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT key, failures FROM login_throttle
		WHERE key = ANY($1) AND window_start > $2`, keys, now.Add(-window))
	if err != nil {
		return nil, fmt.Errorf("login failures: %w", err)
	}
	defer rows.Close()
	out := make(map[string]int, len(keys))
	for rows.Next() {
		var (
			k string
			n int
		)
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// RecordLoginFailure counts one failed login against every key and audits
// the attempt (email as typed, never the password), in one transaction. A
// key whose window has passed starts a new window at one failure.
func (s *Store) RecordLoginFailure(ctx context.Context, a user.Actor, email string, keys []string, now time.Time, window time.Duration) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		for _, k := range keys {
			_, err := tx.Exec(ctx, `
				INSERT INTO login_throttle (key, failures, window_start) VALUES ($1, 1, $2)
				ON CONFLICT (key) DO UPDATE SET
				  failures     = CASE WHEN login_throttle.window_start > $3 THEN login_throttle.failures + 1 ELSE 1 END,
				  window_start = CASE WHEN login_throttle.window_start > $3 THEN login_throttle.window_start ELSE $2 END`,
				k, now, now.Add(-window))
			if err != nil {
				return fmt.Errorf("record login failure: %w", err)
			}
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionLoginFailed, Entity: "login",
			After: map[string]any{"email": email}})
	})
}

// ClearLoginFailures forgets the failures of a key (after a successful login).
func (s *Store) ClearLoginFailures(ctx context.Context, key string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM login_throttle WHERE key = $1`, key)
	return err
}
