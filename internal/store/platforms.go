package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/market"
	"gpuquote/internal/user"
)

// ErrNameTaken means another row already has this name; a *NameTakenError
// says which field, and errors.Is(err, ErrNameTaken) holds for it.
var ErrNameTaken = errors.New("store: name already in use")

// NameTakenError is a unique-name violation on one form field.
type NameTakenError struct {
	// Field is the column (and form field) that clashes: name_zh or name_en
	// for platforms, name for GPU models (vendor and name together).
	Field string
	// Name is set when the clash is with another row's alias, or an alias
	// with another row's name or alias (docs/RULES.md §7.6): the name.
	Name string
}

// Error describes the clash.
func (e *NameTakenError) Error() string { return "store: " + e.Field + " already in use" }

// Is makes errors.Is(err, ErrNameTaken) true.
func (e *NameTakenError) Is(target error) bool { return target == ErrNameTaken }

const platformColumns = `id, name_zh, name_en, website, country, currency, operating_since,
	idc_licence, isp_licence, iso27001, mlps3, third_party_guarantee, guarantee_note,
	support_channel, billing_granularities, notes, lock_version,
	coalesce(created_by, 0), created_at, coalesce(updated_by, 0), updated_at, aliases`

// platformOrder sorts by the English name where there is one (Latin names
// sort meaningfully; code-point order of Chinese does not), then the
// Chinese name, then id so pages are stable.
const platformOrder = `lower(coalesce(nullif(name_en, ''), name_zh)), name_zh, id`

func platformDest(p *market.Platform) []any {
	return []any{&p.ID, &p.NameZH, &p.NameEN, &p.Website, &p.Country, &p.Currency, &p.OperatingSince,
		&p.IDCLicence, &p.ISPLicence, &p.ISO27001, &p.MLPS3, &p.ThirdPartyGuarantee, &p.GuaranteeNote,
		&p.SupportChannel, &p.BillingGranularities, &p.Notes, &p.LockVersion,
		&p.CreatedBy, &p.CreatedAt, &p.UpdatedBy, &p.UpdatedAt, &p.Aliases}
}

func scanPlatform(row pgx.Row) (market.Platform, error) {
	var p market.Platform
	err := row.Scan(platformDest(&p)...)
	return p, err
}

// platformNameTaken maps a unique violation of either name index to the
// field it concerns.
func platformNameTaken(err error) error {
	switch {
	case isUniqueViolation(err, "platforms_name_zh_key"):
		return &NameTakenError{Field: "name_zh"}
	case isUniqueViolation(err, "platforms_name_en_key"):
		return &NameTakenError{Field: "name_en"}
	}
	return nil
}

// normalisePlatform trims the text fields and gives the array column a
// non-nil value (a nil slice would be written as NULL).
func normalisePlatform(p *market.Platform) {
	for _, s := range []*string{&p.NameZH, &p.NameEN, &p.Website, &p.Country, &p.Currency, &p.GuaranteeNote, &p.Notes} {
		*s = strings.TrimSpace(*s)
	}
	if p.BillingGranularities == nil {
		p.BillingGranularities = []string{}
	}
	if p.Aliases == nil {
		p.Aliases = []string{}
	}
}

// checkAliases applies docs/RULES.md §7.6 to a row of table (gpu_models or
// platforms) about to be saved with id (0 for a new one): none of its
// aliases may equal another row's name or alias, nor any of its names
// (field → name) another row's alias. It takes a transaction lock per
// table, so two saves cannot each pass the check with the same alias.
func checkAliases(ctx context.Context, tx pgx.Tx, table string, id int64, names [][2]string, aliases []string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('gpuquote.aliases.' || $1))`, table); err != nil {
		return fmt.Errorf("aliases lock: %w", err)
	}
	query := `SELECT name_zh, name_en, aliases FROM platforms WHERE id <> $1`
	if table == "gpu_models" {
		query = `SELECT vendor || ' ' || name, name, aliases FROM gpu_models WHERE id <> $1`
	}
	rows, err := tx.Query(ctx, query, id)
	if err != nil {
		return fmt.Errorf("aliases check: %w", err)
	}
	otherNames, otherAliases := map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var a, b string
		var al []string
		if err := rows.Scan(&a, &b, &al); err != nil {
			rows.Close()
			return fmt.Errorf("aliases check: %w", err)
		}
		otherNames[market.NameKey(a)], otherNames[market.NameKey(b)] = true, true
		for _, x := range al {
			otherAliases[market.NameKey(x)] = true
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("aliases check: %w", err)
	}
	for _, a := range aliases {
		if k := market.NameKey(a); otherNames[k] || otherAliases[k] {
			return &NameTakenError{Field: "aliases", Name: a}
		}
	}
	for _, n := range names {
		if k := market.NameKey(n[1]); k != "" && otherAliases[k] {
			return &NameTakenError{Field: n[0], Name: n[1]}
		}
	}
	return nil
}

// platformNames are a platform's names by form field, for checkAliases.
func platformNames(p market.Platform) [][2]string {
	return [][2]string{{"name_zh", p.NameZH}, {"name_en", p.NameEN}}
}

// nullableActorID is the actor's user id for created_by/updated_by (NULL for the
// system).
func nullableActorID(a user.Actor) *int64 {
	if a.UserID == 0 {
		return nil
	}
	return &a.UserID
}

// CreatePlatform inserts a platform and audits it. A *NameTakenError
// (ErrNameTaken) when either name is in use.
func (s *Store) CreatePlatform(ctx context.Context, a user.Actor, p market.Platform) (market.Platform, error) {
	normalisePlatform(&p)
	var out market.Platform
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if err := checkAliases(ctx, tx, "platforms", 0, platformNames(p), p.Aliases); err != nil {
			return err
		}
		var err error
		out, err = scanPlatform(tx.QueryRow(ctx, `
			INSERT INTO platforms (name_zh, name_en, website, country, currency, operating_since,
				idc_licence, isp_licence, iso27001, mlps3, third_party_guarantee, guarantee_note,
				support_channel, billing_granularities, notes, created_by, updated_by, aliases)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16, $17)
			RETURNING `+platformColumns,
			p.NameZH, p.NameEN, p.Website, p.Country, p.Currency, p.OperatingSince,
			p.IDCLicence, p.ISPLicence, p.ISO27001, p.MLPS3, p.ThirdPartyGuarantee, p.GuaranteeNote,
			p.SupportChannel, p.BillingGranularities, p.Notes, nullableActorID(a), p.Aliases))
		if taken := platformNameTaken(err); taken != nil {
			return taken
		}
		if err != nil {
			return fmt.Errorf("create platform: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionPlatformCreate, Entity: "platform",
			EntityID: strconv.FormatInt(out.ID, 10), After: out})
	})
	return out, err
}

// UpdatePlatform saves p over the stored platform p.ID when it is still at
// p.LockVersion (optimistic locking: the form carries the version it
// edited), bumps the version and audits before and after. ErrNotFound for
// a missing id, ErrConflict when someone saved in between, a
// *NameTakenError (ErrNameTaken) when a name is in use.
func (s *Store) UpdatePlatform(ctx context.Context, a user.Actor, p market.Platform) (market.Platform, error) {
	normalisePlatform(&p)
	var after market.Platform
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		before, err := scanPlatform(tx.QueryRow(ctx, `SELECT `+platformColumns+` FROM platforms WHERE id = $1 FOR UPDATE`, p.ID))
		if err != nil {
			return notFound(err)
		}
		if before.LockVersion != p.LockVersion {
			return ErrConflict
		}
		if err := checkAliases(ctx, tx, "platforms", p.ID, platformNames(p), p.Aliases); err != nil {
			return err
		}
		// The row is locked, so the version test cannot fail here; it stays
		// in the statement so the update is safe on its own.
		after, err = scanPlatform(tx.QueryRow(ctx, `
			UPDATE platforms SET name_zh = $3, name_en = $4, website = $5, country = $6, currency = $7,
				operating_since = $8, idc_licence = $9, isp_licence = $10, iso27001 = $11, mlps3 = $12,
				third_party_guarantee = $13, guarantee_note = $14, support_channel = $15,
				billing_granularities = $16, notes = $17, updated_by = $18, updated_at = now(),
				lock_version = lock_version + 1, aliases = $19
			WHERE id = $1 AND lock_version = $2
			RETURNING `+platformColumns,
			p.ID, p.LockVersion, p.NameZH, p.NameEN, p.Website, p.Country, p.Currency, p.OperatingSince,
			p.IDCLicence, p.ISPLicence, p.ISO27001, p.MLPS3, p.ThirdPartyGuarantee, p.GuaranteeNote,
			p.SupportChannel, p.BillingGranularities, p.Notes, nullableActorID(a), p.Aliases))
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrConflict
		}
		if taken := platformNameTaken(err); taken != nil {
			return taken
		}
		if err != nil {
			return fmt.Errorf("update platform: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionPlatformUpdate, Entity: "platform",
			EntityID: strconv.FormatInt(p.ID, 10), Before: before, After: after})
	})
	return after, err
}

// PlatformByID finds a platform by id.
func (s *Store) PlatformByID(ctx context.Context, id int64) (market.Platform, error) {
	p, err := scanPlatform(s.pool.QueryRow(ctx, `SELECT `+platformColumns+` FROM platforms WHERE id = $1`, id))
	return p, notFound(err)
}

// PlatformFilter narrows the platform list. Zero fields do not filter.
type PlatformFilter struct {
	// Query is a substring of either name or the website, case-insensitive.
	Query string
	// Qualification is one of PlatformQualifications; with it, Has picks the state.
	Qualification string
	// Has is "yes", "no" or "unknown" ("" means "yes").
	Has    string
	Offset int
	Limit  int
}

// platformWhere is the list's condition: $1 the escaped query, $2 the
// qualification column name (matched against constants, never spliced into
// the SQL), $3 whether the state is known, $4 the known state.
const platformWhere = `
	($1 = '' OR name_zh ILIKE '%' || $1 || '%' OR name_en ILIKE '%' || $1 || '%' OR website ILIKE '%' || $1 || '%')
	AND ($2 = '' OR (CASE $2
		WHEN 'idc_licence' THEN idc_licence
		WHEN 'isp_licence' THEN isp_licence
		WHEN 'iso27001' THEN iso27001
		WHEN 'mlps3' THEN mlps3
		WHEN 'third_party_guarantee' THEN third_party_guarantee
	END) IS NOT DISTINCT FROM (CASE WHEN $3 THEN $4::boolean END))`

func platformFilterArgs(f PlatformFilter) []any {
	qual := ""
	for _, q := range market.PlatformQualifications {
		if q == f.Qualification {
			qual = q
		}
	}
	known, state := true, true
	switch f.Has {
	case "no":
		state = false
	case "unknown":
		known = false
	}
	return []any{escapeLike(strings.TrimSpace(f.Query)), qual, known, state}
}

// Platforms lists platforms by name with the total count matching the
// filter.
func (s *Store) Platforms(ctx context.Context, f PlatformFilter) ([]market.Platform, int, error) {
	f.Offset, f.Limit = pageWindow(f.Offset, f.Limit)
	args := platformFilterArgs(f)
	rows, err := s.pool.Query(ctx, `
		SELECT `+platformColumns+`, count(*) OVER ()
		FROM platforms
		WHERE `+platformWhere+`
		ORDER BY `+platformOrder+`
		OFFSET $5 LIMIT $6`, append(args, f.Offset, f.Limit)...)
	if err != nil {
		return nil, 0, fmt.Errorf("platforms: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.Platform, error) {
		var p market.Platform
		err := row.Scan(append(platformDest(&p), &total)...)
		return p, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("platforms: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		// Past the last page: report the true total anyway.
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM platforms WHERE `+platformWhere, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("platforms: %w", err)
		}
	}
	return out, total, nil
}

// AllPlatforms lists every platform by name, for choosing one in a form.
func (s *Store) AllPlatforms(ctx context.Context) ([]market.Platform, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+platformColumns+` FROM platforms ORDER BY `+platformOrder)
	if err != nil {
		return nil, fmt.Errorf("all platforms: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.Platform, error) { return scanPlatform(row) })
	if err != nil {
		return nil, fmt.Errorf("all platforms: %w", err)
	}
	return out, nil
}

// PlatformName is a platform's id and a display name.
type PlatformName struct {
	ID   int64
	Name string
}

// PlatformNames returns the first n platforms by id with their English
// name (else the Chinese one): the load test's Fortunes-style ceiling.
func (s *Store) PlatformNames(ctx context.Context, n int) ([]PlatformName, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, CASE WHEN name_en <> '' THEN name_en ELSE name_zh END AS name
		FROM platforms ORDER BY id LIMIT $1`, n)
	if err != nil {
		return nil, fmt.Errorf("platform names: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowToStructByName[PlatformName])
}
