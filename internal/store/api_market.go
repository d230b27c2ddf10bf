package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/avail"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
)

// The data API's market lists are paged by keyset (docs/RULES.md §19.3): a
// page continues after the position of the previous page's last row, in
// the list's own order, so a deep page walks the same index as the first
// and costs what it does.

// QuoteKey is a position in the quote list's order (as_of DESC, id DESC);
// the zero key is the start of the list.
type QuoteKey struct {
	AsOf time.Time
	ID   int64
}

// quoteSummaryColumns are the list's columns and what an API summary adds:
// the billing terms, the source, when it was published or archived and
// who created it (for quote.MayRead).
const quoteSummaryColumns = quoteListColumns + `, coalesce(q.billing_granularity, ''), q.commitment_months, q.source,
	q.published_at, q.archived_at, coalesce(q.created_by, 0)`

func scanQuoteSummary(row pgx.Row) (quote.Quote, error) {
	var q quote.Quote
	err := row.Scan(&q.ID, &q.SeriesID, &q.Version, &q.State, &q.PlatformID, &q.GPUModelID, &q.Label, &q.GPUCount,
		&q.VRAMGB, &q.Sharing, &q.Region, &q.Currency, &q.Hourly, &q.Monthly, &q.Yearly, &q.SpotHourly, &q.AsOf,
		&q.PlatformNameZH, &q.PlatformNameEN, &q.GPUVendor, &q.GPUName,
		&q.BillingGranularity, &q.CommitmentMonths, &q.Source, &q.PublishedAt, &q.ArchivedAt, &q.CreatedBy)
	return q, err
}

// QuotesAfter lists at most limit quotes matching f (its Offset, Limit and
// NoCount are ignored) that come after key in the list's order, newest
// sample first: the list fields plus billing granularity, commitment,
// source and the publishing times, no lines. The page of ids is chosen
// from quotes alone, continuing the (state, as_of, id) index from key.
func (s *Store) QuotesAfter(ctx context.Context, f QuoteFilter, after QuoteKey, limit int) ([]quote.Quote, error) {
	// The names a search matches, looked up first, so the search can use
	// the trigram index (docs/RULES.md §20.2).
	f, err := withNames(ctx, s.pool, f)
	if err != nil {
		return nil, err
	}
	cond, args := f.where()
	if after.ID != 0 {
		args = append(args, after.AsOf, after.ID)
		cond += ` AND (q.as_of, q.id) < ($` + strconv.Itoa(len(args)-1) + `::date, $` + strconv.Itoa(len(args)) + `::bigint)`
	}
	args = append(args, limit)
	rows, err := s.pool.Query(ctx, `SELECT `+quoteSummaryColumns+`
		FROM (SELECT * FROM quotes q WHERE `+cond+` ORDER BY q.as_of DESC, q.id DESC LIMIT $`+strconv.Itoa(len(args))+`) q
		JOIN platforms p ON p.id = q.platform_id JOIN gpu_models g ON g.id = q.gpu_model_id
		ORDER BY q.as_of DESC, q.id DESC`, args...)
	if err != nil {
		return nil, fmt.Errorf("quotes after: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Quote, error) { return scanQuoteSummary(row) })
	if err != nil {
		return nil, fmt.Errorf("quotes after: %w", err)
	}
	return out, nil
}

// QuoteSeriesVersions lists every version of a series, oldest first, with
// the summary fields (no lines) and who created each, whatever its state:
// the caller keeps those the reader may read (quote.MayRead).
func (s *Store) QuoteSeriesVersions(ctx context.Context, seriesID int64) ([]quote.Quote, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+quoteSummaryColumns+quoteFrom+` WHERE q.series_id = $1 ORDER BY q.version`, seriesID)
	if err != nil {
		return nil, fmt.Errorf("quote series versions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (quote.Quote, error) { return scanQuoteSummary(row) })
	if err != nil {
		return nil, fmt.Errorf("quote series versions: %w", err)
	}
	return out, nil
}

// PlatformsAfter lists at most limit platforms matching f (Offset and
// Limit ignored) after platform afterID (0: from the first) in the
// platform list's order.
func (s *Store) PlatformsAfter(ctx context.Context, f PlatformFilter, afterID int64, limit int) ([]market.Platform, error) {
	args := append(platformFilterArgs(f), afterID, limit)
	rows, err := s.pool.Query(ctx, `
		SELECT `+platformColumns+`
		FROM platforms
		WHERE `+platformWhere+`
		  AND ($5 = 0 OR (`+platformOrder+`) > (SELECT `+platformOrder+` FROM platforms WHERE id = $5))
		ORDER BY `+platformOrder+`
		LIMIT $6`, args...)
	if err != nil {
		return nil, fmt.Errorf("platforms after: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.Platform, error) { return scanPlatform(row) })
	if err != nil {
		return nil, fmt.Errorf("platforms after: %w", err)
	}
	return out, nil
}

// GPUModelsAfter lists at most limit GPU models matching f (Offset and
// Limit ignored), with their perf rows, after model afterID (0: from the
// first) in the GPU list's order.
func (s *Store) GPUModelsAfter(ctx context.Context, f GPUModelFilter, afterID int64, limit int) ([]market.GPUModel, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+gpuModelColumns+`
		FROM gpu_models
		WHERE `+gpuModelWhere+`
		  AND ($3 = 0 OR (`+gpuModelOrder+`) > (SELECT `+gpuModelOrder+` FROM gpu_models WHERE id = $3))
		ORDER BY `+gpuModelOrder+`
		LIMIT $4`, escapeLike(f.Query), f.Interconnect, afterID, limit)
	if err != nil {
		return nil, fmt.Errorf("gpu models after: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.GPUModel, error) { return scanGPUModel(row) })
	if err != nil {
		return nil, fmt.Errorf("gpu models after: %w", err)
	}
	if err := loadGPUPerf(ctx, s.pool, out); err != nil {
		return nil, err
	}
	return out, nil
}

// AvailabilityKey is a position in a pair's records, latest attempt first
// (attempted_at DESC, id DESC); the zero key is the start.
type AvailabilityKey struct {
	At time.Time
	ID int64
}

// AvailabilityRecordsAfter lists at most limit of a platform × GPU model's
// records after key, latest attempt first, continuing the pair's index.
func (s *Store) AvailabilityRecordsAfter(ctx context.Context, pair market.PlatformGPU, after AvailabilityKey, limit int) ([]avail.Record, error) {
	cond, args := `r.platform_id = $1 AND r.gpu_model_id = $2`, []any{pair.PlatformID, pair.GPUModelID}
	if after.ID != 0 {
		cond += ` AND (r.attempted_at, r.id) < ($3::timestamptz, $4::bigint)`
		args = append(args, after.At, after.ID)
	}
	args = append(args, limit)
	rows, err := s.pool.Query(ctx, `SELECT `+availColumns+availFrom+` WHERE `+cond+`
		ORDER BY r.attempted_at DESC, r.id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("availability records after: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (avail.Record, error) { return scanAvail(row) })
	if err != nil {
		return nil, fmt.Errorf("availability records after: %w", err)
	}
	return out, nil
}
