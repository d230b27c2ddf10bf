package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/avail"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/user"
)

// ActionAvailabilityCreate is the audit action of a new availability
// record (docs/RULES.md §18.2).
const ActionAvailabilityCreate = "availability.create"

const availColumns = `r.id, r.platform_id, r.gpu_model_id, r.attempted_at, r.gpu_count, r.obtained, r.wait_minutes, r.note,
	coalesce(r.quote_id, 0), coalesce(r.trial_id, 0), coalesce(r.created_by, 0), coalesce(u.display_name, ''), r.created_at,
	p.name_zh, p.name_en, g.vendor, g.name`

const availFrom = ` FROM availability_records r JOIN platforms p ON p.id = r.platform_id
	JOIN gpu_models g ON g.id = r.gpu_model_id LEFT JOIN users u ON u.id = r.created_by`

func scanAvail(row pgx.Row, extra ...any) (avail.Record, error) {
	var r avail.Record
	err := row.Scan(append([]any{&r.ID, &r.PlatformID, &r.GPUModelID, &r.AttemptedAt, &r.GPUCount, &r.Obtained, &r.WaitMinutes,
		&r.Note, &r.QuoteID, &r.TrialID, &r.CreatedBy, &r.CreatedByName, &r.CreatedAt,
		&r.PlatformNameZH, &r.PlatformNameEN, &r.GPUVendor, &r.GPUName}, extra...)...)
	r.AttemptedAt, r.CreatedAt = r.AttemptedAt.UTC(), r.CreatedAt.UTC()
	return r, err
}

// resolveAvailPair decides the platform × GPU model of a record
// (docs/RULES.md §18.2): a trial's, else a quote version's (published or
// archived only), else the platform and GPU model named. Ids given besides must
// agree with it. Problems are *avail.RefError. A quote version the actor
// may not read (quote.MayRead, with the actor's role as it is now) is
// unknown, as an id that names none, so the answer never tells that
// someone's proposal or a draft exists (§18.1).
func resolveAvailPair(ctx context.Context, q Querier, a user.Actor, in avail.Input) (avail.Input, error) {
	ref := func(field, id string) error { return &avail.RefError{Field: field, MessageID: id} }
	pair := func(p, g int64) error {
		switch {
		case in.PlatformID != 0 && in.PlatformID != p:
			return ref("platform", avail.MsgPairMismatch)
		case in.GPUModelID != 0 && in.GPUModelID != g:
			return ref("gpu_model", avail.MsgPairMismatch)
		}
		in.PlatformID, in.GPUModelID = p, g
		return nil
	}
	if in.TrialID != 0 {
		var quoteID, p, g int64
		err := q.QueryRow(ctx, `SELECT quote_id, platform_id, gpu_model_id FROM trials WHERE id = $1`, in.TrialID).Scan(&quoteID, &p, &g)
		if errors.Is(err, pgx.ErrNoRows) {
			return in, ref("trial_id", avail.MsgUnknownRef)
		} else if err != nil {
			return in, fmt.Errorf("availability trial: %w", err)
		}
		if in.QuoteID != 0 && in.QuoteID != quoteID {
			return in, ref("quote_id", avail.MsgPairMismatch)
		}
		in.QuoteID = quoteID
		return in, pair(p, g)
	}
	if in.QuoteID != 0 {
		var p, g int64
		var seen quote.Quote
		var role string
		err := q.QueryRow(ctx, `SELECT platform_id, gpu_model_id, state, coalesce(created_by, 0),
				coalesce((SELECT u.role FROM users u WHERE u.id = $2), '')
			FROM quotes WHERE id = $1`, in.QuoteID, a.UserID).Scan(&p, &g, &seen.State, &seen.CreatedBy, &role)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return in, ref("quote_id", avail.MsgUnknownRef)
		case err != nil:
			return in, fmt.Errorf("availability quote: %w", err)
		case a.UserID != 0 && !quote.MayRead(seen, a.UserID, role):
			return in, ref("quote_id", avail.MsgUnknownRef)
		case !quote.InMarket(seen.State):
			// A draft may still be deleted and a proposal is not yet in
			// the market: only published or archived versions are named.
			return in, ref("quote_id", avail.MsgDraftQuote)
		}
		return in, pair(p, g)
	}
	var platformOK, gpuOK bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM platforms WHERE id = $1), EXISTS (SELECT 1 FROM gpu_models WHERE id = $2)`,
		in.PlatformID, in.GPUModelID).Scan(&platformOK, &gpuOK); err != nil {
		return in, fmt.Errorf("availability pair: %w", err)
	}
	switch {
	case !platformOK:
		return in, ref("platform", avail.MsgUnknownRef)
	case !gpuOK:
		return in, ref("gpu_model", avail.MsgUnknownRef)
	}
	return in, nil
}

// CreateAvailabilityRecord stores an attempt and audits it in the same
// transaction (docs/RULES.md §18.2); any signed-in user may record one,
// and nobody changes or withdraws one afterwards. An unknown or
// mismatched reference is *avail.RefError and nothing is written.
func (s *Store) CreateAvailabilityRecord(ctx context.Context, a user.Actor, in avail.Input) (avail.Record, error) {
	var out avail.Record
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		in, err := resolveAvailPair(ctx, tx, a, in)
		if err != nil {
			return err
		}
		var id int64
		if err := tx.QueryRow(ctx, `
			INSERT INTO availability_records (platform_id, gpu_model_id, attempted_at, gpu_count, obtained, wait_minutes, note,
				quote_id, trial_id, created_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
			in.PlatformID, in.GPUModelID, in.AttemptedAt, in.GPUCount, in.Obtained, in.WaitMinutes, in.Note,
			nullID(in.QuoteID), nullID(in.TrialID), nullID(a.UserID)).Scan(&id); err != nil {
			return fmt.Errorf("create availability record: %w", err)
		}
		if out, err = scanAvail(tx.QueryRow(ctx, `SELECT `+availColumns+availFrom+` WHERE r.id = $1`, id)); err != nil {
			return fmt.Errorf("create availability record: %w", err)
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionAvailabilityCreate, Entity: "availability_record",
			EntityID: strconv.FormatInt(id, 10), After: out}); err != nil {
			return err
		}
		// The pair's availability watches, in the record's transaction
		// (docs/RULES.md §24.2).
		return watchAvailability(ctx, tx, time.Now(), out)
	})
	if err != nil {
		return avail.Record{}, err
	}
	return out, nil
}

// AvailabilityRecords lists a platform × GPU model's records, latest
// attempt first, with their number.
func (s *Store) AvailabilityRecords(ctx context.Context, pair market.PlatformGPU, offset, limit int) ([]avail.Record, int, error) {
	offset, limit = pageWindow(offset, limit)
	rows, err := s.pool.Query(ctx, `SELECT `+availColumns+`, count(*) OVER ()`+availFrom+`
		WHERE r.platform_id = $1 AND r.gpu_model_id = $2
		ORDER BY r.attempted_at DESC, r.id DESC OFFSET $3 LIMIT $4`, pair.PlatformID, pair.GPUModelID, offset, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("availability records: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (avail.Record, error) { return scanAvail(row, &total) })
	if err != nil {
		return nil, 0, fmt.Errorf("availability records: %w", err)
	}
	if len(out) == 0 && offset > 0 {
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM availability_records WHERE platform_id = $1 AND gpu_model_id = $2`,
			pair.PlatformID, pair.GPUModelID).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("availability records: %w", err)
		}
	}
	return out, total, nil
}

// AvailabilityStats are the statistics of every pair for the windows of
// avail.Windows ending on day (docs/RULES.md §18.2), by pair; a pair
// without records has statistics that say so. One query reads the
// attempts of every pair in the widest window; avail.Compute counts them,
// so the window and the median have one home.
func (s *Store) AvailabilityStats(ctx context.Context, pairs []market.PlatformGPU, day time.Time) (map[market.PlatformGPU][]avail.Stat, error) {
	platforms := make([]int64, len(pairs))
	gpus := make([]int64, len(pairs))
	for i, p := range pairs {
		platforms[i], gpus[i] = p.PlatformID, p.GPUModelID
	}
	return s.availStats(ctx, `SELECT DISTINCT platform_id, gpu_model_id FROM unnest($1::bigint[], $2::bigint[]) AS x (platform_id, gpu_model_id)`,
		day, platforms, gpus)
}

// AvailabilityStatsOfQuotes is AvailabilityStats for the platform × GPU
// model of each quote version named (unknown ids are ignored): what a
// comparison reads beside its quotes, in the same round of reads.
func (s *Store) AvailabilityStatsOfQuotes(ctx context.Context, quoteIDs []int64, day time.Time) (map[market.PlatformGPU][]avail.Stat, error) {
	return s.availStats(ctx, `SELECT DISTINCT platform_id, gpu_model_id FROM quotes WHERE id = ANY($1::bigint[])`, day, quoteIDs)
}

// availStats reads the attempts in the widest window of the pairs that
// pairsSQL (over args $1…) selects and computes every window.
func (s *Store) availStats(ctx context.Context, pairsSQL string, day time.Time, args ...any) (map[market.PlatformGPU][]avail.Stat, error) {
	from, until := avail.Window(day, avail.Windows[len(avail.Windows)-1])
	n := len(args)
	rows, err := s.pool.Query(ctx, `
		SELECT x.platform_id, x.gpu_model_id, r.attempted_at, r.obtained, r.wait_minutes
		FROM (`+pairsSQL+`) x
		LEFT JOIN availability_records r ON r.platform_id = x.platform_id AND r.gpu_model_id = x.gpu_model_id
			AND r.attempted_at >= $`+strconv.Itoa(n+1)+` AND r.attempted_at < $`+strconv.Itoa(n+2),
		append(args, from, until)...)
	if err != nil {
		return nil, fmt.Errorf("availability stats: %w", err)
	}
	attempts := map[market.PlatformGPU][]avail.Attempt{}
	var (
		pair     market.PlatformGPU
		when     *time.Time
		obtained *bool
		wait     *int
	)
	_, err = pgx.ForEachRow(rows, []any{&pair.PlatformID, &pair.GPUModelID, &when, &obtained, &wait}, func() error {
		list := attempts[pair]
		if when != nil {
			list = append(list, avail.Attempt{At: *when, Obtained: *obtained, Wait: *wait})
		}
		attempts[pair] = list
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("availability stats: %w", err)
	}
	out := make(map[market.PlatformGPU][]avail.Stat, len(attempts))
	for p, list := range attempts {
		out[p] = avail.ComputeAll(list, day)
	}
	return out, nil
}

// AvailabilityFilter keeps quotes whose platform × GPU model obtained GPUs
// in at least MinPct percent of its attempts in the Days ending on Day
// (docs/RULES.md §18.2); a quote without records there is left out. The
// comparison is of the exact fraction: obtained × 100 ≥ MinPct × attempts,
// as avail.Stat.AtLeast.
type AvailabilityFilter struct {
	MinPct int
	Day    time.Time
	Days   int
}

// availWhere adds f's condition over quotes q (none when f is nil) to a
// filter's conditions and arguments.
func availWhere(where []string, args []any, f *AvailabilityFilter) ([]string, []any) {
	if f == nil {
		return where, args
	}
	from, until := avail.Window(f.Day, f.Days)
	n := len(args)
	p := func(i int) string { return "$" + strconv.Itoa(n+i) }
	return append(where, `EXISTS (SELECT 1 FROM availability_records r
		WHERE r.platform_id = q.platform_id AND r.gpu_model_id = q.gpu_model_id
		  AND r.attempted_at >= `+p(2)+`::timestamptz AND r.attempted_at < `+p(3)+`::timestamptz
		HAVING count(*) > 0 AND count(*) FILTER (WHERE r.obtained) * 100 >= `+p(1)+`::bigint * count(*))`,
	), append(args, f.MinPct, from, until)
}
