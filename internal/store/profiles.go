package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/user"
)

// UsageProfile is a usage profile saved by name: the comparison form's
// profile fields as typed.
type UsageProfile struct {
	ID         int64             `json:"id"`
	Name       string            `json:"name"`
	OwnerID    int64             `json:"owner_id"`
	OwnerEmail string            `json:"-"`
	Params     map[string]string `json:"params"`
	UpdatedAt  time.Time         `json:"updated_at"`
}

// SaveUsageProfile stores the profile under the owner's name for it,
// replacing a profile of the same name (case-insensitive) of that owner,
// and audits the write.
func (s *Store) SaveUsageProfile(ctx context.Context, a user.Actor, name string, params map[string]string) (UsageProfile, error) {
	var out UsageProfile
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		raw, err := json.Marshal(params)
		if err != nil {
			return err
		}
		var before *UsageProfile
		if old, err := scanProfile(tx.QueryRow(ctx, profileSelect+` WHERE u.owner_id = $1 AND lower(u.name) = lower($2) FOR UPDATE OF u`,
			a.UserID, strings.TrimSpace(name))); err == nil {
			before = &old
		} else if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("usage profile: %w", err)
		}
		var id int64
		err = tx.QueryRow(ctx, `
			INSERT INTO usage_profiles (name, owner_id, params) VALUES ($1, $2, $3)
			ON CONFLICT (owner_id, lower(name)) DO UPDATE SET params = EXCLUDED.params, name = EXCLUDED.name, updated_at = now()
			RETURNING id`, strings.TrimSpace(name), a.UserID, raw).Scan(&id)
		if err != nil {
			return fmt.Errorf("save usage profile: %w", err)
		}
		if out, err = scanProfile(tx.QueryRow(ctx, profileSelect+` WHERE u.id = $1`, id)); err != nil {
			return err
		}
		e := AuditEntry{Action: ActionProfileSave, Entity: "usage_profile", EntityID: strconv.FormatInt(id, 10), After: out}
		if before != nil {
			e.Before = before
		}
		return audit(ctx, tx, a, e)
	})
	return out, err
}

const profileSelect = `SELECT u.id, u.name, u.owner_id, coalesce(us.email, ''), u.params, u.updated_at
	FROM usage_profiles u LEFT JOIN users us ON us.id = u.owner_id`

func scanProfile(row pgx.Row) (UsageProfile, error) {
	var (
		p   UsageProfile
		raw []byte
	)
	if err := row.Scan(&p.ID, &p.Name, &p.OwnerID, &p.OwnerEmail, &raw, &p.UpdatedAt); err != nil {
		return p, err
	}
	return p, json.Unmarshal(raw, &p.Params)
}

// UsageProfiles lists the team's saved profiles by name (everyone may reuse
// anyone's; only the owner or an admin deletes).
func (s *Store) UsageProfiles(ctx context.Context) ([]UsageProfile, error) {
	rows, err := s.pool.Query(ctx, profileSelect+` ORDER BY lower(u.name), u.id LIMIT 500`)
	if err != nil {
		return nil, fmt.Errorf("usage profiles: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (UsageProfile, error) { return scanProfile(row) })
}

// UsageProfileByID returns one saved profile.
func (s *Store) UsageProfileByID(ctx context.Context, id int64) (UsageProfile, error) {
	p, err := scanProfile(s.pool.QueryRow(ctx, profileSelect+` WHERE u.id = $1`, id))
	return p, notFound(err)
}

// DeleteUsageProfile removes a saved profile and audits it.
func (s *Store) DeleteUsageProfile(ctx context.Context, a user.Actor, id int64) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := scanProfile(tx.QueryRow(ctx, profileSelect+` WHERE u.id = $1 FOR UPDATE OF u`, id))
		if err != nil {
			return notFound(err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM usage_profiles WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete usage profile: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionProfileDelete, Entity: "usage_profile", EntityID: strconv.FormatInt(id, 10), Before: before})
	})
}
