package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/feed"
	"gpuquote/internal/notify"
	"gpuquote/internal/user"
)

// Audit actions of feed tokens (docs/RULES.md §24.6).
const (
	ActionFeedTokenCreate = "feed_token.create"
	ActionFeedTokenRevoke = "feed_token.revoke"
)

const feedTokenColumns = `user_id, created_at, last_used_at`

func feedTokenDest(t *user.FeedToken) []any {
	return []any{&t.UserID, &t.CreatedAt, &t.LastUsedAt}
}

// FeedToken returns the user's feed token (never its hash); found is
// false when they hold none.
func (s *Store) FeedToken(ctx context.Context, userID int64) (t user.FeedToken, found bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT `+feedTokenColumns+` FROM feed_tokens WHERE user_id = $1`, userID).Scan(feedTokenDest(&t)...)
	found, err = exists(err)
	return t, found, err
}

// CreateFeedToken gives the acting user a feed token with this hash,
// replacing the one they held (whose addresses stop working at once), and
// audits it: the replaced token as before (the hash is in neither).
// ErrNotFound when the user is disabled or gone.
func (s *Store) CreateFeedToken(ctx context.Context, a user.Actor, tokenHash []byte, now time.Time) (user.FeedToken, error) {
	var out user.FeedToken
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		// Locking the user serialises a creation with disabling them.
		var disabled bool
		if err := tx.QueryRow(ctx, `SELECT disabled FROM users WHERE id = $1 FOR UPDATE`, a.UserID).Scan(&disabled); err != nil {
			return notFound(err)
		}
		if disabled {
			return ErrNotFound
		}
		var before *user.FeedToken
		var old user.FeedToken
		err := tx.QueryRow(ctx, `DELETE FROM feed_tokens WHERE user_id = $1 RETURNING `+feedTokenColumns, a.UserID).Scan(feedTokenDest(&old)...)
		if found, err := exists(err); err != nil {
			return fmt.Errorf("replace feed token: %w", err)
		} else if found {
			before = &old
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO feed_tokens (user_id, token_hash, created_at) VALUES ($1, $2, $3)
			RETURNING `+feedTokenColumns, a.UserID, tokenHash, now).Scan(feedTokenDest(&out)...); err != nil {
			return fmt.Errorf("create feed token: %w", err)
		}
		e := AuditEntry{Action: ActionFeedTokenCreate, Entity: "feed_token", EntityID: strconv.FormatInt(a.UserID, 10), After: out}
		if before != nil {
			e.Before = before
		}
		return audit(ctx, tx, a, e)
	})
	return out, err
}

// RevokeFeedToken removes the acting user's feed token and audits it.
// ErrNotFound when they hold none.
func (s *Store) RevokeFeedToken(ctx context.Context, a user.Actor) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var before user.FeedToken
		err := tx.QueryRow(ctx, `DELETE FROM feed_tokens WHERE user_id = $1 RETURNING `+feedTokenColumns, a.UserID).Scan(feedTokenDest(&before)...)
		if err != nil {
			return notFound(err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionFeedTokenRevoke, Entity: "feed_token",
			EntityID: strconv.FormatInt(a.UserID, 10), Before: before})
	})
}

// removeFeedToken ends a user's feed token with their API tokens (a
// password change, a role change, disabling them); the audit entry of
// that change records it.
func removeFeedToken(ctx context.Context, tx pgx.Tx, userID int64) error {
	if _, err := tx.Exec(ctx, `DELETE FROM feed_tokens WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("remove feed token: %w", err)
	}
	return nil
}

// FeedTokenUser returns the feed token with this hash when its user is
// not disabled; found is false otherwise (an unknown token, a revoked or
// replaced one and a disabled user's look the same).
func (s *Store) FeedTokenUser(ctx context.Context, tokenHash []byte) (t user.FeedToken, found bool, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT t.user_id, t.created_at, t.last_used_at
		FROM feed_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = $1 AND NOT u.disabled`, tokenHash).Scan(feedTokenDest(&t)...)
	found, err = exists(err)
	return t, found, err
}

// TouchFeedToken records that a feed token was used, at most once a
// minute. It is bookkeeping, not a user's write, so it is not audited.
func (s *Store) TouchFeedToken(ctx context.Context, userID int64, now time.Time) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE feed_tokens SET last_used_at = $2::timestamptz
		WHERE user_id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '1 minute')`, userID, now)
	if err != nil {
		return fmt.Errorf("touch feed token: %w", err)
	}
	return nil
}

// FeedQuoteVersions lists the newest limit quote versions ever published
// (published or archived since), newest publication first (then the
// newest id), each with the prices of the previous version of the same
// offer (samplesCTE, as the price history shows them; docs/RULES.md
// §7.2, §24.5).
func (s *Store) FeedQuoteVersions(ctx context.Context, limit int) ([]feed.QuoteVersion, error) {
	if limit <= 0 || limit > feed.MaxEntries {
		limit = feed.MaxEntries
	}
	rows, err := s.pool.Query(ctx, fmt.Sprintf(samplesCTE, ``)+`
		SELECT s.id, s.version, p.name_zh, p.name_en, g.vendor, g.name, s.gpu_count, s.label, s.currency,
		       s.hourly, s.monthly, coalesce(s.prev_id, 0), s.prev_hourly, s.prev_monthly, q.published_at
		FROM samples s
		JOIN quotes q ON q.id = s.id
		JOIN platforms p ON p.id = s.platform_id
		JOIN gpu_models g ON g.id = s.gpu_model_id
		ORDER BY q.published_at DESC, s.id DESC
		LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("feed quote versions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (feed.QuoteVersion, error) {
		var v feed.QuoteVersion
		err := row.Scan(&v.ID, &v.Version, &v.PlatformNameZH, &v.PlatformNameEN, &v.GPUVendor, &v.GPUName, &v.GPUCount,
			&v.Label, &v.Currency, &v.Hourly, &v.Monthly, &v.PrevID, &v.PrevHourly, &v.PrevMonthly, &v.PublishedAt)
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("feed quote versions: %w", err)
	}
	return out, nil
}

// WatchNotices returns userID's notices that a watch matched, newest first,
// at most limit: what the watch feed lists (docs/RULES.md §24.5). They are
// the user's own watches' matches and, for an editor, the shared ones'
// (§24.1), each event once, as the notifications page shows them.
func (s *Store) WatchNotices(ctx context.Context, userID int64, limit int) ([]notify.Item, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+notificationColumns+notificationFrom+`
		WHERE n.user_id = $1 AND n.kind = $2 ORDER BY n.created_at DESC, n.id DESC LIMIT $3`, userID, string(notify.WatchMatched), limit)
	if err != nil {
		return nil, fmt.Errorf("watch notices: %w", err)
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (notify.Item, error) { return scanNotification(r) })
	if err != nil {
		return nil, fmt.Errorf("watch notices: %w", err)
	}
	return items, nil
}
