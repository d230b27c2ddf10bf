package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/facts"
	"gpuquote/internal/user"
)

// ActionPlatformFactCreate is the audit action of adding a dated platform
// fact (docs/RULES.md §18.3).
const ActionPlatformFactCreate = "platform_fact.create"

// ErrTrialPlatform means a fact names a trial of another platform, or one
// that does not exist.
var ErrTrialPlatform = errors.New("store: the trial is not one of this platform's")

// Platform facts are append-only (a trigger refuses changes; the serving
// role may only add, docs/RULES.md §16.7): a correction is a newer record,
// and the fact in force is the newest by (as_of, id) (docs/RULES.md §18.3).
const factColumns = `f.id, f.platform_id, f.kind, f.value, f.minutes, f.note, f.source, f.as_of, coalesce(f.trial_id, 0),
	f.sample, coalesce(f.created_by, 0), coalesce(nullif(u.display_name, ''), u.email, ''), f.created_at`

const factFrom = ` FROM platform_facts f LEFT JOIN users u ON u.id = f.created_by`

func scanFacts(rows pgx.Rows) ([]facts.Fact, error) {
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (facts.Fact, error) {
		var f facts.Fact
		err := row.Scan(&f.ID, &f.PlatformID, &f.Kind, &f.Value, &f.Minutes, &f.Note, &f.Source, &f.AsOf, &f.TrialID,
			&f.Sample, &f.CreatedBy, &f.CreatedByName, &f.CreatedAt)
		return f, err
	})
	if err != nil {
		return nil, fmt.Errorf("platform facts: %w", err)
	}
	return out, nil
}

// PlatformFacts returns every fact record of a platform, newest first by
// (as_of, id): the history behind the facts in force (facts.InForce).
// ErrNotFound when the platform does not exist.
func (s *Store) PlatformFacts(ctx context.Context, platformID int64) ([]facts.Fact, error) {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM platforms WHERE id = $1)`, platformID).Scan(&exists); err != nil {
		return nil, fmt.Errorf("platform facts: %w", err)
	}
	if !exists {
		return nil, ErrNotFound
	}
	rows, err := s.pool.Query(ctx, `SELECT `+factColumns+factFrom+`
		WHERE f.platform_id = $1 ORDER BY f.as_of DESC, f.id DESC`, platformID)
	if err != nil {
		return nil, fmt.Errorf("platform facts: %w", err)
	}
	return scanFacts(rows)
}

// FactsInForceForQuotes returns, for the platform of each of the given
// quotes, the fact records in force on day (the newest of each kind by
// (as_of, id) dated on or before it), keyed by platform id. A kind not
// listed is unknown (facts.InForce fills it). The comparison reads it
// beside the quotes, so it names quotes, not platforms.
func (s *Store) FactsInForceForQuotes(ctx context.Context, quoteIDs []int64, day time.Time) (map[int64][]facts.Fact, error) {
	out := map[int64][]facts.Fact{}
	if len(quoteIDs) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT `+factColumns+` FROM (
			SELECT DISTINCT ON (pf.platform_id, pf.kind) pf.* FROM platform_facts pf
			WHERE pf.platform_id IN (SELECT platform_id FROM quotes WHERE id = ANY($1)) AND pf.as_of <= $2
			ORDER BY pf.platform_id, pf.kind, pf.as_of DESC, pf.id DESC) f
		LEFT JOIN users u ON u.id = f.created_by ORDER BY f.platform_id`, quoteIDs, day)
	if err != nil {
		return nil, fmt.Errorf("facts in force: %w", err)
	}
	list, err := scanFacts(rows)
	if err != nil {
		return nil, err
	}
	for _, f := range list {
		out[f.PlatformID] = append(out[f.PlatformID], f)
	}
	return out, nil
}

// CreatePlatformFact adds a dated fact record to a platform and audits it
// in the same transaction. Only editors and admins may (the role read in
// the transaction; the system actor may too): ErrNotAllowed otherwise.
// ErrNotFound for a missing platform; ErrTrialPlatform when the trial it
// names is not one of the platform's. The record is checked again here
// (facts.Check); latest is the latest day on Earth (docs/RULES.md §7.4).
func (s *Store) CreatePlatformFact(ctx context.Context, a user.Actor, f facts.Fact, latest time.Time) (facts.Fact, error) {
	if field, msg := facts.Check(f, latest); msg != "" {
		return facts.Fact{}, fmt.Errorf("platform fact: %s: %s", field, msg)
	}
	var out facts.Fact
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		role, err := actorRole(ctx, tx, a)
		if err != nil {
			return err
		}
		if a.UserID != 0 && role != "editor" && role != "admin" {
			return ErrNotAllowed
		}
		if err := tx.QueryRow(ctx, `SELECT id FROM platforms WHERE id = $1`, f.PlatformID).Scan(new(int64)); err != nil {
			return notFound(err)
		}
		var trial *int64
		if f.TrialID != 0 {
			var ok bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM trials WHERE id = $1 AND platform_id = $2)`,
				f.TrialID, f.PlatformID).Scan(&ok); err != nil {
				return fmt.Errorf("platform fact trial: %w", err)
			}
			if !ok {
				return ErrTrialPlatform
			}
			trial = &f.TrialID
		}
		y, m, d := f.AsOf.Date()
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO platform_facts (platform_id, kind, value, minutes, note, source, as_of, trial_id, sample, created_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
			f.PlatformID, f.Kind, f.Value, f.Minutes, f.Note, f.Source, time.Date(y, m, d, 0, 0, 0, 0, time.UTC),
			trial, f.Sample, nullableActorID(a)).Scan(&id); err != nil {
			return fmt.Errorf("create platform fact: %w", err)
		}
		rows, err := tx.Query(ctx, `SELECT `+factColumns+factFrom+` WHERE f.id = $1`, id)
		if err != nil {
			return fmt.Errorf("create platform fact: %w", err)
		}
		list, err := scanFacts(rows)
		if err != nil {
			return err
		}
		out = list[0]
		return audit(ctx, tx, a, AuditEntry{Action: ActionPlatformFactCreate, Entity: "platform",
			EntityID: strconv.FormatInt(f.PlatformID, 10), After: out})
	})
	if err != nil {
		return facts.Fact{}, err
	}
	return out, nil
}

// envWhere adds the compare page's env filter to a quote list's condition
// (docs/RULES.md §18.3): for each fact kind asked for (each once, only
// those a comparison may require), the quote's platform must have that
// fact in force on day with the value yes.
func envWhere(where []string, args []any, kinds []string, day time.Time) ([]string, []any) {
	seen := map[string]bool{}
	for _, k := range kinds {
		if seen[k] || !facts.Kind(k).Filterable() {
			continue
		}
		seen[k] = true
		args = append(args, k, day)
		kn, dn := "$"+strconv.Itoa(len(args)-1), "$"+strconv.Itoa(len(args))
		where = append(where, `EXISTS (SELECT 1 FROM (SELECT pf.value FROM platform_facts pf
			WHERE pf.platform_id = q.platform_id AND pf.kind = `+kn+` AND pf.as_of <= `+dn+`::date
			ORDER BY pf.as_of DESC, pf.id DESC LIMIT 1) cur WHERE cur.value = 'yes')`)
	}
	return where, args
}
