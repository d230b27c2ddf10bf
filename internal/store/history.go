package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
)

// samplesCTE puts beside every published or archived quote the prices of
// the previous sample of the same offer: its previous version (LAG over
// as_of, id within the series), in the same currency and GPU count. Two
// offers of one platform × GPU model (an hourly tier and a monthly package
// of another spec) are different products, and comparing across
// currencies or instance sizes would flag conversions and configurations,
// not price moves.
const samplesCTE = `
WITH samples AS (
	SELECT q.id, q.series_id, q.version, q.state, q.platform_id, q.gpu_model_id, q.as_of, q.currency,
	       q.hourly, q.monthly, q.label, q.gpu_count, q.source,
	       lag(q.id) OVER w AS prev_id,
	       lag(q.as_of) OVER w AS prev_as_of,
	       lag(q.hourly) OVER w AS prev_hourly,
	       lag(q.monthly) OVER w AS prev_monthly
	FROM quotes q
	WHERE q.state IN ('published', 'archived') %s
	WINDOW w AS (PARTITION BY q.series_id, q.currency, q.gpu_count ORDER BY q.as_of, q.id)
)`

// jumpExpr is true when price moved more than pct percent from prev:
// |price − prev| × 100 > pct × prev, in exact numeric arithmetic (no
// division, so a move away from a price of 0 counts and 0 → 0 does not).
// A missing price on either side is no move.
func jumpExpr(price, prev, pct string) string {
	return `coalesce(abs(` + price + ` - ` + prev + `) * 100 > ` + pct + ` * ` + prev + `, false)`
}

// PriceHistory returns every published or archived quote of the platform ×
// GPU model, oldest sample first (as_of, then id), with the jump flags.
func (s *Store) PriceHistory(ctx context.Context, platformID, gpuModelID int64) ([]market.PricePoint, error) {
	rows, err := s.pool.Query(ctx, fmt.Sprintf(samplesCTE, `AND q.platform_id = $1 AND q.gpu_model_id = $2`)+`
		SELECT id, series_id, version, state, as_of, currency, hourly, monthly, label, gpu_count, source,
		       coalesce(prev_id, 0), prev_hourly, prev_monthly,
		       `+jumpExpr("hourly", "prev_hourly", "$3")+`, `+jumpExpr("monthly", "prev_monthly", "$3")+`
		FROM samples ORDER BY as_of, id`, platformID, gpuModelID, market.JumpPercent)
	if err != nil {
		return nil, fmt.Errorf("price history: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.PricePoint, error) {
		var p market.PricePoint
		err := row.Scan(&p.ID, &p.SeriesID, &p.Version, &p.State, &p.AsOf, &p.Currency, &p.Hourly, &p.Monthly,
			&p.Label, &p.GPUCount, &p.Source, &p.PrevID, &p.PrevHourly, &p.PrevMonthly, &p.HourlyJump, &p.MonthlyJump)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("price history: %w", err)
	}
	return out, nil
}

// PriceJumps lists current published quotes dated on or after since whose
// hourly or monthly price moved more than pct percent from the previous
// sample of the same offer (see samplesCTE), newest
// first, at most limit of them, with the total.
func (s *Store) PriceJumps(ctx context.Context, since time.Time, pct decimal.Decimal, limit int) ([]market.PriceJump, int, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	hj, mj := jumpExpr("j.hourly", "j.prev_hourly", "$2"), jumpExpr("j.monthly", "j.prev_monthly", "$2")
	rows, err := s.pool.Query(ctx, fmt.Sprintf(samplesCTE, ``)+`
		SELECT j.id, j.platform_id, j.gpu_model_id, p.name_zh, p.name_en, g.vendor, g.name, j.label, j.currency,
		       j.gpu_count, j.as_of, j.hourly, j.monthly, j.prev_id, j.prev_as_of, j.prev_hourly, j.prev_monthly,
		       `+hj+`, `+mj+`, count(*) OVER ()
		FROM samples j JOIN platforms p ON p.id = j.platform_id JOIN gpu_models g ON g.id = j.gpu_model_id
		WHERE j.state = 'published' AND j.prev_id IS NOT NULL AND j.as_of >= $1 AND (`+hj+` OR `+mj+`)
		ORDER BY j.as_of DESC, j.id DESC LIMIT $3`, since, pct, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("price jumps: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.PriceJump, error) {
		var j market.PriceJump
		err := row.Scan(&j.QuoteID, &j.PlatformID, &j.GPUModelID, &j.PlatformNameZH, &j.PlatformNameEN, &j.GPUVendor,
			&j.GPUName, &j.Label, &j.Currency, &j.GPUCount, &j.AsOf, &j.Hourly, &j.Monthly, &j.PrevID, &j.PrevAsOf,
			&j.PrevHourly, &j.PrevMonthly, &j.HourlyJump, &j.MonthlyJump, &total)
		return j, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("price jumps: %w", err)
	}
	return out, total, nil
}

// StaleQuotes lists current published quotes dated before the given day
// (as_of < before), oldest first, with the total.
func (s *Store) StaleQuotes(ctx context.Context, before time.Time, offset, limit int) ([]quote.Quote, int, error) {
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM quotes WHERE state = 'published' AND as_of < $1`, before).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count stale quotes: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+quoteColumns+quoteFrom+`
		WHERE q.state = 'published' AND q.as_of < $1 ORDER BY q.as_of, q.id OFFSET $2 LIMIT $3`, before, offset, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("stale quotes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Quote, error) { return scanQuote(row) })
	if err != nil {
		return nil, 0, fmt.Errorf("stale quotes: %w", err)
	}
	return out, total, nil
}

// QuoteCounts is how many quotes are in each state.
type QuoteCounts struct {
	Published int
	Drafts    int
	Archived  int
}

// CountQuotes counts quotes by state.
func (s *Store) CountQuotes(ctx context.Context) (QuoteCounts, error) {
	var c QuoteCounts
	err := s.pool.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE state = 'published'), count(*) FILTER (WHERE state = 'draft'),
		       count(*) FILTER (WHERE state = 'archived')
		FROM quotes`).Scan(&c.Published, &c.Drafts, &c.Archived)
	if err != nil {
		return QuoteCounts{}, fmt.Errorf("count quotes: %w", err)
	}
	return c, nil
}

// ExportQuotes calls fn for every quote (with its lines) matching the quote
// list's filter f (its Offset and Limit aside), in id order, from one
// consistent snapshot (a repeatable-read transaction), reading in batches
// so memory is bounded by a batch, not the export.
func (s *Store) ExportQuotes(ctx context.Context, f QuoteFilter, fn func(quote.Quote) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	const batch = 500
	f, err = withNames(ctx, tx, f) // docs/RULES.md §20.2
	if err != nil {
		return err
	}
	cond, args := f.where()
	n := len(args)
	args = append(args, int64(0), batch)
	sql := `SELECT ` + quoteColumns + quoteFrom + ` WHERE ` + cond +
		` AND q.id > $` + strconv.Itoa(n+1) + ` ORDER BY q.id LIMIT $` + strconv.Itoa(n+2)
	for {
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("export quotes: %w", err)
		}
		page, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Quote, error) { return scanQuote(row) })
		if err != nil {
			return fmt.Errorf("export quotes: %w", err)
		}
		if len(page) == 0 {
			return nil
		}
		ids := make([]int64, len(page))
		for i, q := range page {
			ids[i] = q.ID
		}
		lines, err := quoteLines(ctx, tx, ids)
		if err != nil {
			return err
		}
		for _, q := range page {
			q.Lines = lines[q.ID]
			if err := fn(q); err != nil {
				return err
			}
		}
		if len(page) < batch {
			return nil
		}
		args[n] = page[len(page)-1].ID
	}
}
