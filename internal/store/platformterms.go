package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/market"
	"gpuquote/internal/user"
)

// ActionPlatformTermsUpdate is the audit action of saving a platform's SLA
// clauses and written confirmations.
const ActionPlatformTermsUpdate = "platform_terms.update"

// PlatformTerms returns the recorded terms of a platform (only those ever
// saved), SLA clauses first, in no further order. ErrNotFound when the
// platform does not exist.
func (s *Store) PlatformTerms(ctx context.Context, platformID int64) ([]market.PlatformTerm, error) {
	return platformTerms(ctx, s.pool, platformID, false)
}

func platformTerms(ctx context.Context, q Querier, platformID int64, lock bool) ([]market.PlatformTerm, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM platforms WHERE id = $1)`, platformID).Scan(&exists); err != nil {
		return nil, fmt.Errorf("platform terms: %w", err)
	}
	if !exists {
		return nil, ErrNotFound
	}
	sql := `SELECT ` + platformTermColumns + platformTermFrom + ` WHERE pt.platform_id = $1 ORDER BY pt.kind DESC, pt.key`
	if lock {
		sql += ` FOR UPDATE OF pt`
	}
	rows, err := q.Query(ctx, sql, platformID)
	if err != nil {
		return nil, fmt.Errorf("platform terms: %w", err)
	}
	return scanPlatformTerms(rows)
}

const platformTermColumns = `pt.platform_id, pt.kind, pt.key, pt.answer, pt.in_writing, pt.answered_on, pt.lock_version,
	coalesce(pt.updated_by, 0), coalesce(nullif(u.display_name, ''), u.email, ''), pt.updated_at`

const platformTermFrom = ` FROM platform_terms pt LEFT JOIN users u ON u.id = pt.updated_by`

// scanPlatformTerms reads rows of platformTermColumns and closes them.
func scanPlatformTerms(rows pgx.Rows) ([]market.PlatformTerm, error) {
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.PlatformTerm, error) {
		var t market.PlatformTerm
		err := row.Scan(&t.PlatformID, &t.Kind, &t.Key, &t.Answer, &t.InWriting, &t.AnsweredOn, &t.LockVersion,
			&t.UpdatedBy, &t.UpdatedByName, &t.UpdatedAt)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("platform terms: %w", err)
	}
	return out, nil
}

// termKey identifies a term of one platform.
type termKey struct{ kind, key string }

// SavePlatformTerms saves the given terms of a platform under optimistic
// locking: each term carries the LockVersion it was read at (0 for one
// never saved), and if any stored term has moved on since, nothing is
// written and ErrConflict is returned. Terms whose content did not change
// are left as they are; the changed ones are audited in one entry, before
// and after. ErrNotFound for a missing platform.
func (s *Store) SavePlatformTerms(ctx context.Context, a user.Actor, platformID int64, terms []market.PlatformTerm) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		// Lock the platform row too: two first saves of the same term
		// serialise here instead of one failing on the primary key.
		if err := tx.QueryRow(ctx, `SELECT id FROM platforms WHERE id = $1 FOR UPDATE`, platformID).Scan(new(int64)); err != nil {
			return notFound(err)
		}
		stored, err := platformTerms(ctx, tx, platformID, true)
		if err != nil {
			return err
		}
		byKey := make(map[termKey]market.PlatformTerm, len(stored))
		for _, t := range stored {
			byKey[termKey{t.Kind, t.Key}] = t
		}
		var before, after []market.PlatformTerm
		for _, t := range terms {
			t.PlatformID = platformID
			t.Answer = strings.TrimSpace(t.Answer)
			if t.AnsweredOn != nil {
				y, m, d := t.AnsweredOn.Date()
				day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
				t.AnsweredOn = &day
			}
			old, had := byKey[termKey{t.Kind, t.Key}]
			if old.LockVersion != t.LockVersion {
				return ErrConflict
			}
			if had && old.Answer == t.Answer && old.InWriting == t.InWriting && sameDay(old.AnsweredOn, t.AnsweredOn) {
				continue
			}
			if !had && t.Answer == "" && !t.InWriting && t.AnsweredOn == nil {
				continue // nothing to record for a term never answered
			}
			var n int64
			if had {
				ct, err := tx.Exec(ctx, `
					UPDATE platform_terms SET answer = $4, in_writing = $5, answered_on = $6, updated_by = $7,
						updated_at = now(), lock_version = lock_version + 1
					WHERE platform_id = $1 AND kind = $2 AND key = $3 AND lock_version = $8`,
					platformID, t.Kind, t.Key, t.Answer, t.InWriting, t.AnsweredOn, nullableActorID(a), t.LockVersion)
				if err != nil {
					return fmt.Errorf("update platform term %s.%s: %w", t.Kind, t.Key, err)
				}
				n = ct.RowsAffected()
				before = append(before, old)
			} else {
				ct, err := tx.Exec(ctx, `
					INSERT INTO platform_terms (platform_id, kind, key, answer, in_writing, answered_on, updated_by)
					VALUES ($1, $2, $3, $4, $5, $6, $7)`,
					platformID, t.Kind, t.Key, t.Answer, t.InWriting, t.AnsweredOn, nullableActorID(a))
				if err != nil {
					return fmt.Errorf("insert platform term %s.%s: %w", t.Kind, t.Key, err)
				}
				n = ct.RowsAffected()
			}
			if n != 1 {
				return ErrConflict
			}
			t.LockVersion++
			after = append(after, t)
		}
		if len(after) == 0 {
			return nil
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionPlatformTermsUpdate, Entity: "platform",
			EntityID: strconv.FormatInt(platformID, 10), Before: before, After: after})
	})
}

// sameDay compares two optional dates.
func sameDay(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Format(time.DateOnly) == b.Format(time.DateOnly)
}

// PlatformTermsByPlatform returns the recorded terms of several platforms
// at once, keyed by platform id (a platform without any has no entry).
func (s *Store) PlatformTermsByPlatform(ctx context.Context, platformIDs []int64) (map[int64][]market.PlatformTerm, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+platformTermColumns+platformTermFrom+`
		WHERE pt.platform_id = ANY($1) ORDER BY pt.platform_id, pt.kind DESC, pt.key`, platformIDs)
	if err != nil {
		return nil, fmt.Errorf("platform terms: %w", err)
	}
	terms, err := scanPlatformTerms(rows)
	if err != nil {
		return nil, err
	}
	out := map[int64][]market.PlatformTerm{}
	for _, t := range terms {
		out[t.PlatformID] = append(out[t.PlatformID], t)
	}
	return out, nil
}
