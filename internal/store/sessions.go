package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/user"
)

// CreateSession stores a new session and audits the login in one transaction.
func (s *Store) CreateSession(ctx context.Context, a user.Actor, ses user.Session) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO sessions (token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at, client_ip, user_agent)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			ses.TokenHash, ses.UserID, ses.CSRFToken, ses.CreatedAt, ses.LastSeenAt, ses.ExpiresAt, ses.ClientIP, ses.UserAgent)
		if err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionLogin, Entity: "user",
			EntityID: strconv.FormatInt(ses.UserID, 10),
			After:    map[string]any{"client_ip": ses.ClientIP, "user_agent": ses.UserAgent}})
	})
}

// ActiveSession returns the session with this token hash and its user, when
// the session is within both its absolute expiry and the idle limit at now
// and the user is not disabled; found is false otherwise.
func (s *Store) ActiveSession(ctx context.Context, tokenHash []byte, now time.Time, idle time.Duration) (ses user.Session, u user.User, found bool, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT s.token_hash, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at, s.client_ip, s.user_agent,
		       u.id, u.email, u.display_name, u.role, u.password_hash, u.disabled, u.created_at, u.updated_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.last_seen_at > $3 AND NOT u.disabled`,
		tokenHash, now, now.Add(-idle)).Scan(
		&ses.TokenHash, &ses.UserID, &ses.CSRFToken, &ses.CreatedAt, &ses.LastSeenAt, &ses.ExpiresAt, &ses.ClientIP, &ses.UserAgent,
		&u.ID, &u.Email, &u.DisplayName, &u.Role, &u.PasswordHash, &u.Disabled, &u.CreatedAt, &u.UpdatedAt)
	found, err = exists(err)
	return ses, u, found, err
}

// TouchSession records activity. It is bookkeeping, not a user's write, so
// it is not audited.
func (s *Store) TouchSession(ctx context.Context, tokenHash []byte, now time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE sessions SET last_seen_at = $2 WHERE token_hash = $1 AND last_seen_at < $2`, tokenHash, now)
	return err
}

// DeleteUserSessions ends every session of the user (logout signs out
// everywhere) and audits it.
func (s *Store) DeleteUserSessions(ctx context.Context, a user.Actor, userID int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID)
		if err != nil {
			return fmt.Errorf("delete sessions: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionLogout, Entity: "user", EntityID: strconv.FormatInt(userID, 10),
			After: map[string]any{"sessions_ended": tag.RowsAffected()}})
	})
}

// DeleteStaleSessions removes sessions past either limit at now; it is
// housekeeping of rows nobody can use any more, so it is not audited.
func (s *Store) DeleteStaleSessions(ctx context.Context, now time.Time, idle time.Duration) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2`, now, now.Add(-idle))
	if err != nil {
		return 0, fmt.Errorf("delete stale sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// ActionSessionEnd: a user ended one of their sessions from the account page.
const ActionSessionEnd = "session.end"

// UserSession is one live session as the account page lists it
// (user.LiveSession).
type UserSession = user.LiveSession

// UserSessions lists the user's live sessions at now — within both the
// absolute expiry and the idle limit — the one whose token hash is current
// first, then the most recently seen.
func (s *Store) UserSessions(ctx context.Context, userID int64, current []byte, now time.Time, idle time.Duration) ([]UserSession, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT public_id::text, created_at, last_seen_at, client_ip, user_agent, token_hash = $2
		FROM sessions
		WHERE user_id = $1 AND expires_at > $3 AND last_seen_at > $4
		ORDER BY token_hash = $2 DESC, last_seen_at DESC, created_at DESC, public_id`,
		userID, current, now, now.Add(-idle))
	if err != nil {
		return nil, fmt.Errorf("user sessions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (UserSession, error) {
		var us UserSession
		err := row.Scan(&us.PublicID, &us.CreatedAt, &us.LastSeenAt, &us.ClientIP, &us.UserAgent, &us.Current)
		return us, err
	})
	if err != nil {
		return nil, fmt.Errorf("user sessions: %w", err)
	}
	return out, nil
}

// EndSession ends the acting user's session publicID and audits it in the
// same transaction; current is the token hash of the request's own session,
// and wasCurrent says whether the session ended was that one. ErrNotFound
// when the user has no session with that id (someone else's included).
func (s *Store) EndSession(ctx context.Context, a user.Actor, publicID string, current []byte) (wasCurrent bool, err error) {
	err = s.InTx(ctx, func(tx pgx.Tx) error {
		var ended UserSession
		err := tx.QueryRow(ctx, `
			DELETE FROM sessions WHERE user_id = $1 AND public_id::text = $2
			RETURNING public_id::text, created_at, last_seen_at, client_ip, user_agent, token_hash = $3`,
			a.UserID, publicID, current).Scan(
			&ended.PublicID, &ended.CreatedAt, &ended.LastSeenAt, &ended.ClientIP, &ended.UserAgent, &ended.Current)
		if err != nil {
			return notFound(err)
		}
		wasCurrent = ended.Current
		return audit(ctx, tx, a, AuditEntry{Action: ActionSessionEnd, Entity: "user", EntityID: strconv.FormatInt(a.UserID, 10),
			Before: map[string]any{"session": ended.PublicID, "client_ip": ended.ClientIP, "user_agent": ended.UserAgent,
				"signed_in_at": ended.CreatedAt, "last_seen_at": ended.LastSeenAt},
			After: map[string]any{"this_browser": ended.Current}})
	})
	return wasCurrent, err
}
