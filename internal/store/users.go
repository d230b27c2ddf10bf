package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/notify"
	"gpuquote/internal/user"
)

// Audit actions, one per kind of write.
const (
	ActionUserCreate           = "user.create"
	ActionUserRole             = "user.role"
	ActionUserDisable          = "user.disable"
	ActionUserEnable           = "user.enable"
	ActionUserPassword         = "user.password"
	ActionUserMailChoice       = "user.mail_choice"
	ActionLogin                = "session.login"
	ActionLoginFailed          = "session.login_failed"
	ActionLogout               = "session.logout"
	ActionFXRateCreate         = "fx_rate.create"
	ActionPlatformCreate       = "platform.create"
	ActionPlatformUpdate       = "platform.update"
	ActionGPUModelCreate       = "gpu_model.create"
	ActionGPUModelUpdate       = "gpu_model.update"
	ActionQuoteCreate          = "quote.create"
	ActionQuoteUpdate          = "quote.update"
	ActionQuotePublish         = "quote.publish"
	ActionQuoteNewVersion      = "quote.new_version"
	ActionQuoteArchive         = "quote.archive"
	ActionQuoteDeleteDraft     = "quote.delete_draft"
	ActionQuoteImport          = "quote.import"
	ActionReferencePriceCreate = "reference_price.create"
	ActionProfileSave          = "usage_profile.save"
	ActionProfileDelete        = "usage_profile.delete"
)

// ErrEmailTaken means another user already has this email (case-insensitively).
var ErrEmailTaken = errors.New("store: email already in use")

const userColumns = `id, email, display_name, role, password_hash, disabled, created_at, updated_at`

func scanUser(row pgx.Row) (user.User, error) {
	var u user.User
	err := row.Scan(&u.ID, &u.Email, &u.DisplayName, &u.Role, &u.PasswordHash, &u.Disabled, &u.CreatedAt, &u.UpdatedAt)
	return u, err
}

// CreateUser inserts a user and audits it. ErrEmailTaken on a duplicate.
func (s *Store) CreateUser(ctx context.Context, a user.Actor, n user.NewAccount) (user.User, error) {
	var u user.User
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRow(ctx, `
			INSERT INTO users (email, display_name, role, password_hash)
			VALUES ($1, $2, $3, $4)
			RETURNING `+userColumns,
			strings.TrimSpace(n.Email), strings.TrimSpace(n.DisplayName), n.Role, n.PasswordHash))
		if isUniqueViolation(err, "users_email_lower_key") {
			return ErrEmailTaken
		}
		if err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionUserCreate, Entity: "user",
			EntityID: strconv.FormatInt(u.ID, 10), After: u})
	})
	return u, err
}

// UserByEmail finds a user case-insensitively; found is false when there
// is none.
func (s *Store) UserByEmail(ctx context.Context, email string) (u user.User, found bool, err error) {
	u, err = scanUser(s.pool.QueryRow(ctx,
		`SELECT `+userColumns+` FROM users WHERE lower(email) = lower($1)`, strings.TrimSpace(email)))
	found, err = exists(err)
	return u, found, err
}

// UserByID finds a user by id.
func (s *Store) UserByID(ctx context.Context, id int64) (user.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	return u, notFound(err)
}

// CountUsers returns the number of accounts.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&n)
	return n, err
}

// UserFilter narrows the user list. Zero fields do not filter.
type UserFilter struct {
	Query  string // substring of email or display name
	Role   string
	Offset int
	Limit  int
}

// Users lists accounts by email with the total count matching the filter.
func (s *Store) Users(ctx context.Context, f UserFilter) ([]user.User, int, error) {
	if f.Limit <= 0 || f.Limit > 200 {
		f.Limit = 50
	}
	rows, err := s.pool.Query(ctx, `
		SELECT `+userColumns+`, count(*) OVER ()
		FROM users
		WHERE ($1 = '' OR email ILIKE '%' || $1 || '%' OR display_name ILIKE '%' || $1 || '%')
		  AND ($2 = '' OR role = $2)
		ORDER BY lower(email)
		OFFSET $3 LIMIT $4`, escapeLike(strings.TrimSpace(f.Query)), f.Role, f.Offset, f.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("users: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (user.User, error) {
		var u user.User
		err := row.Scan(&u.ID, &u.Email, &u.DisplayName, &u.Role, &u.PasswordHash, &u.Disabled,
			&u.CreatedAt, &u.UpdatedAt, &total)
		return u, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("users: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		// Past the last page: report the true total anyway.
		err = s.pool.QueryRow(ctx, `SELECT count(*) FROM users
			WHERE ($1 = '' OR email ILIKE '%' || $1 || '%' OR display_name ILIKE '%' || $1 || '%')
			  AND ($2 = '' OR role = $2)`, escapeLike(strings.TrimSpace(f.Query)), f.Role).Scan(&total)
	}
	return out, total, err
}

// updateUser locks the user row, applies change, writes it back, audits it
// and revokes the user's sessions when revoke says so — all in one
// transaction.
func (s *Store) updateUser(ctx context.Context, a user.Actor, id int64, action string,
	change func(u *user.User) (revoke bool, err error)) (user.User, error) {
	var after user.User
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := scanUser(tx.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return notFound(err)
		}
		after = before
		revoke, err := change(&after)
		if err != nil {
			return err
		}
		after, err = scanUser(tx.QueryRow(ctx, `
			UPDATE users SET role = $2, disabled = $3, password_hash = $4, updated_at = now()
			WHERE id = $1 RETURNING `+userColumns, id, after.Role, after.Disabled, after.PasswordHash))
		if err != nil {
			return fmt.Errorf("update user: %w", err)
		}
		if revoke {
			if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, id); err != nil {
				return fmt.Errorf("revoke sessions: %w", err)
			}
			if err := revokeAPITokens(ctx, tx, id); err != nil {
				return err
			}
			if err := removeFeedToken(ctx, tx, id); err != nil {
				return err
			}
		}
		return audit(ctx, tx, a, AuditEntry{Action: action, Entity: "user",
			EntityID: strconv.FormatInt(id, 10), Before: before, After: after})
	})
	return after, err
}

// revokeAPITokens ends every live personal API token of a user: a token
// is worth what the password, the role and the account it was made under
// were, and ends with them (a new one is made after).
func revokeAPITokens(ctx context.Context, tx pgx.Tx, userID int64) error {
	if _, err := tx.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
		return fmt.Errorf("revoke api tokens: %w", err)
	}
	return nil
}

// SetUserRole changes a user's role and revokes their sessions and API
// tokens, so the new role takes effect at the next login.
func (s *Store) SetUserRole(ctx context.Context, a user.Actor, id int64, role string) (user.User, error) {
	return s.updateUser(ctx, a, id, ActionUserRole, func(u *user.User) (bool, error) {
		changed := u.Role != role
		u.Role = role
		return changed, nil
	})
}

// SetUserDisabled disables or re-enables a user; disabling revokes every
// session and API token the user holds (re-enabling revives none).
func (s *Store) SetUserDisabled(ctx context.Context, a user.Actor, id int64, disabled bool) (user.User, error) {
	action := ActionUserEnable
	if disabled {
		action = ActionUserDisable
	}
	return s.updateUser(ctx, a, id, action, func(u *user.User) (bool, error) {
		u.Disabled = disabled
		return disabled, nil
	})
}

// SetUserPassword stores a new password hash. The user's other sessions,
// every API token and the feed token are revoked; keepSession (a session token hash, may be
// nil) survives so the person who changed it stays signed in.
func (s *Store) SetUserPassword(ctx context.Context, a user.Actor, id int64, hash string, keepSession []byte) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1`, id, hash)
		if err != nil {
			return fmt.Errorf("set password: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1 AND token_hash IS DISTINCT FROM $2`, id, keepSession); err != nil {
			return fmt.Errorf("revoke sessions: %w", err)
		}
		if err := revokeAPITokens(ctx, tx, id); err != nil {
			return err
		}
		if err := removeFeedToken(ctx, tx, id); err != nil {
			return err
		}
		// The hash itself is never written to the log.
		return audit(ctx, tx, a, AuditEntry{Action: ActionUserPassword, Entity: "user",
			EntityID: strconv.FormatInt(id, 10)})
	})
}

// MailChoice is how user id's notices reach them by mail (notify.Mail…).
func (s *Store) MailChoice(ctx context.Context, id int64) (string, error) {
	var c string
	err := s.pool.QueryRow(ctx, `SELECT mail_choice FROM users WHERE id = $1`, id).Scan(&c)
	if err != nil {
		return "", notFound(fmt.Errorf("mail choice: %w", err))
	}
	return c, nil
}

// SetMailChoice records how user id's notices reach them by mail
// (docs/RULES.md §18.4), audited. Leaving the daily digest drops the list
// of notices waiting for it in the same transaction: they stay on
// /notifications and are never mailed. Choosing what is already chosen
// changes and records nothing.
func (s *Store) SetMailChoice(ctx context.Context, a user.Actor, id int64, choice string) error {
	if !notify.ValidMailChoice(choice) {
		return fmt.Errorf("set mail choice: %q is not a choice", choice)
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var before string
		err := tx.QueryRow(ctx, `SELECT mail_choice FROM users WHERE id = $1 FOR UPDATE`, id).Scan(&before)
		if err != nil {
			return notFound(fmt.Errorf("set mail choice: %w", err))
		}
		if before == choice {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET mail_choice = $2, updated_at = now() WHERE id = $1`, id, choice); err != nil {
			return fmt.Errorf("set mail choice: %w", err)
		}
		if before == notify.MailDaily {
			if _, err := tx.Exec(ctx, `DELETE FROM mail_digest_notices WHERE user_id = $1 AND mail_id IS NULL`, id); err != nil {
				return fmt.Errorf("set mail choice: %w", err)
			}
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionUserMailChoice, Entity: "user", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]string{"mail_choice": before}, After: map[string]string{"mail_choice": choice}})
	})
}
