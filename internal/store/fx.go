package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/user"
)

// ErrFXRateExists means the pair already has a rate for that day.
var ErrFXRateExists = errors.New("store: a rate for this pair and day exists")

// FXRateOn returns the newest rate for base → quote dated on or before day.
// Only the direct pair counts: inverting a rate would need a division and
// its rounding, which the person who keeps rates should decide, not us.
func (s *Store) FXRateOn(ctx context.Context, base, quote string, day time.Time) (market.FXRate, error) {
	var (
		r    market.FXRate
		rate string
	)
	// numeric travels as text and is parsed exactly; it never becomes a float.
	err := s.pool.QueryRow(ctx, `
		SELECT id, base_currency, quote_currency, rate::text, as_of, source
		FROM fx_rates
		WHERE base_currency = $1 AND quote_currency = $2 AND as_of <= $3
		ORDER BY as_of DESC LIMIT 1`, base, quote, day).Scan(&r.ID, &r.Base, &r.Quote, &rate, &r.AsOf, &r.Source)
	if err != nil {
		return market.FXRate{}, notFound(err)
	}
	if r.Rate, err = decimal.NewFromString(rate); err != nil {
		return market.FXRate{}, fmt.Errorf("fx rate %d: %w", r.ID, err)
	}
	return r, nil
}

// CreateFXRate stores a dated rate, audits it and evaluates the price
// watches it converts for.
func (s *Store) CreateFXRate(ctx context.Context, a user.Actor, r market.FXRate) (market.FXRate, error) {
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var createdBy *int64
		if a.UserID != 0 {
			createdBy = &a.UserID
		}
		err := tx.QueryRow(ctx, `
			INSERT INTO fx_rates (base_currency, quote_currency, rate, as_of, source, created_by)
			VALUES ($1, $2, $3::numeric, $4, $5, $6) RETURNING id`,
			r.Base, r.Quote, r.Rate.String(), r.AsOf, r.Source, createdBy).Scan(&r.ID)
		if isUniqueViolation(err, "") {
			return ErrFXRateExists
		}
		if err != nil {
			return fmt.Errorf("create fx rate: %w", err)
		}
		if err := audit(ctx, tx, a, AuditEntry{Action: ActionFXRateCreate, Entity: "fx_rate",
			EntityID: strconv.FormatInt(r.ID, 10), After: r}); err != nil {
			return err
		}
		// The price watches this rate converts for are evaluated in its
		// transaction (docs/RULES.md §24.2).
		return watchRateAdded(ctx, tx, time.Now(), r)
	})
	return r, err
}

const fxRateColumns = `id, base_currency, quote_currency, rate, as_of, source`

// scanFXRate reads fxRateColumns (plus extra destinations); the rate is
// scanned through decimal.Decimal's sql.Scanner, exactly, never as a float.
func scanFXRate(row pgx.Row, extra ...any) (market.FXRate, error) {
	var r market.FXRate
	dest := append([]any{&r.ID, &r.Base, &r.Quote, &r.Rate, &r.AsOf, &r.Source}, extra...)
	err := row.Scan(dest...)
	return r, err
}

// FXRateFilter narrows the exchange-rate history. Zero fields do not filter.
type FXRateFilter struct {
	Base   string
	Quote  string
	Offset int
	Limit  int
}

// FXRates lists the exchange-rate history newest first (by as-of day, then
// by entry), with the total count matching the filter.
func (s *Store) FXRates(ctx context.Context, f FXRateFilter) ([]market.FXRate, int, error) {
	f.Offset, f.Limit = pageWindow(f.Offset, f.Limit)
	rows, err := s.pool.Query(ctx, `
		SELECT `+fxRateColumns+`, count(*) OVER ()
		FROM fx_rates
		WHERE ($1 = '' OR base_currency = $1) AND ($2 = '' OR quote_currency = $2)
		ORDER BY as_of DESC, id DESC
		OFFSET $3 LIMIT $4`, f.Base, f.Quote, f.Offset, f.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("fx rates: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.FXRate, error) {
		return scanFXRate(row, &total)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("fx rates: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		// Past the last page: report the true total anyway.
		err = s.pool.QueryRow(ctx, `SELECT count(*) FROM fx_rates
			WHERE ($1 = '' OR base_currency = $1) AND ($2 = '' OR quote_currency = $2)`, f.Base, f.Quote).Scan(&total)
		if err != nil {
			return nil, 0, fmt.Errorf("fx rates: %w", err)
		}
	}
	return out, total, nil
}

// CurrentFXRates returns the rates in force on day: for each currency pair
// the newest rate dated on or before day, ordered by pair. Like FXRateOn,
// only stored directions count; no inverse is derived.
func (s *Store) CurrentFXRates(ctx context.Context, day time.Time) ([]market.FXRate, error) {
	// DISTINCT ON keeps the first row of each pair in ORDER BY order: the
	// newest as_of on or before day.
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (base_currency, quote_currency) `+fxRateColumns+`
		FROM fx_rates
		WHERE as_of <= $1
		ORDER BY base_currency, quote_currency, as_of DESC, id DESC`, day)
	if err != nil {
		return nil, fmt.Errorf("current fx rates: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.FXRate, error) { return scanFXRate(row) })
	if err != nil {
		return nil, fmt.Errorf("current fx rates: %w", err)
	}
	return out, nil
}
