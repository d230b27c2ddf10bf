package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/user"
)

// Audit actions of personal API tokens.
const (
	ActionAPITokenCreate = "api_token.create"
	ActionAPITokenRevoke = "api_token.revoke"
)

// MaxAPITokens is how many live tokens one user may hold.
const MaxAPITokens = 20

// ErrTooManyTokens means the user already holds MaxAPITokens live tokens.
var ErrTooManyTokens = errors.New("store: too many API tokens")

const apiTokenColumns = `id, user_id, name, created_at, last_used_at, revoked_at, scopes, expires_at`

func apiTokenDest(t *user.APIToken) []any {
	return []any{&t.ID, &t.UserID, &t.Name, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt, &t.Scopes, &t.ExpiresAt}
}

// CreateAPIToken stores a new token of the acting user with t's name,
// scopes and expiry and the hash of its secret, and audits it (the hash is
// not in the audit record). ErrTooManyTokens when the user holds
// MaxAPITokens live ones.
func (s *Store) CreateAPIToken(ctx context.Context, a user.Actor, t user.APIToken, tokenHash []byte, now time.Time) (user.APIToken, error) {
	var out user.APIToken
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		// Locking the user serialises concurrent creations, so the limit holds.
		var disabled bool
		if err := tx.QueryRow(ctx, `SELECT disabled FROM users WHERE id = $1 FOR UPDATE`, a.UserID).Scan(&disabled); err != nil {
			return notFound(err)
		}
		if disabled {
			return ErrNotFound
		}
		var live int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL`, a.UserID).Scan(&live); err != nil {
			return fmt.Errorf("count api tokens: %w", err)
		}
		if live >= MaxAPITokens {
			return ErrTooManyTokens
		}
		err := tx.QueryRow(ctx, `
			INSERT INTO api_tokens (user_id, name, token_hash, created_at, scopes, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6)
			RETURNING `+apiTokenColumns,
			a.UserID, strings.TrimSpace(t.Name), tokenHash, now, t.Scopes, t.ExpiresAt).Scan(apiTokenDest(&out)...)
		if err != nil {
			return fmt.Errorf("create api token: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionAPITokenCreate, Entity: "api_token",
			EntityID: strconv.FormatInt(out.ID, 10), After: out})
	})
	return out, err
}

// APITokens lists the user's live (not revoked) tokens, newest first.
func (s *Store) APITokens(ctx context.Context, userID int64) ([]user.APIToken, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+apiTokenColumns+`
		FROM api_tokens
		WHERE user_id = $1 AND revoked_at IS NULL
		ORDER BY created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("api tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (user.APIToken, error) {
		var t user.APIToken
		err := row.Scan(apiTokenDest(&t)...)
		return t, err
	})
	if err != nil {
		return nil, fmt.Errorf("api tokens: %w", err)
	}
	return out, nil
}

// RevokeAPIToken revokes the acting user's live token id, audits it and
// returns it as it is now. ErrNotFound when the user holds no live token
// with that id (someone else's token included).
func (s *Store) RevokeAPIToken(ctx context.Context, a user.Actor, id int64, now time.Time) (user.APIToken, error) {
	var after user.APIToken
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var before user.APIToken
		err := tx.QueryRow(ctx, `
			SELECT `+apiTokenColumns+` FROM api_tokens
			WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL
			FOR UPDATE`, id, a.UserID).Scan(apiTokenDest(&before)...)
		if err != nil {
			return notFound(err)
		}
		if err := tx.QueryRow(ctx, `
			UPDATE api_tokens SET revoked_at = $2 WHERE id = $1
			RETURNING `+apiTokenColumns, id, now).Scan(apiTokenDest(&after)...); err != nil {
			return fmt.Errorf("revoke api token: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionAPITokenRevoke, Entity: "api_token",
			EntityID: strconv.FormatInt(id, 10), Before: before, After: after})
	})
	return after, err
}

// UserByAPIToken returns the live token with this hash and its user when
// the user is not disabled; found is false otherwise (unknown, revoked, or
// a disabled user's token look the same). Whether it has expired is the
// caller's to decide against its clock (user.APIToken.Expired).
func (s *Store) UserByAPIToken(ctx context.Context, tokenHash []byte) (t user.APIToken, u user.User, found bool, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT t.id, t.user_id, t.name, t.created_at, t.last_used_at, t.revoked_at, t.scopes, t.expires_at,
		       u.id, u.email, u.display_name, u.role, u.password_hash, u.disabled, u.created_at, u.updated_at
		FROM api_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND NOT u.disabled`, tokenHash).Scan(
		&t.ID, &t.UserID, &t.Name, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt, &t.Scopes, &t.ExpiresAt,
		&u.ID, &u.Email, &u.DisplayName, &u.Role, &u.PasswordHash, &u.Disabled, &u.CreatedAt, &u.UpdatedAt)
	found, err = exists(err)
	return t, u, found, err
}

// TouchAPIToken records that a token was used, at most once a minute. It
// is bookkeeping, not a user's write, so it is not audited.
func (s *Store) TouchAPIToken(ctx context.Context, id int64, now time.Time) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE api_tokens SET last_used_at = $2::timestamptz
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $2::timestamptz - interval '1 minute')`, id, now)
	if err != nil {
		return fmt.Errorf("touch api token: %w", err)
	}
	return nil
}
