package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// FXRate is one dated exchange-rate sample: 1 Base = Rate Quote, as of AsOf.
type FXRate struct {
	ID     int64           `json:"id"`
	Base   string          `json:"base_currency"`
	Quote  string          `json:"quote_currency"`
	Rate   decimal.Decimal `json:"rate"`
	AsOf   time.Time       `json:"as_of"`
	Source string          `json:"source"`
}

// ErrFXRateExists means the pair already has a rate for that day.
var ErrFXRateExists = errors.New("store: a rate for this pair and day exists")

// FXRateOn returns the newest rate for base → quote dated on or before day.
// Only the direct pair counts: inverting a rate would need a division and
// its rounding, which the person who keeps rates should decide, not us.
func (s *Store) FXRateOn(ctx context.Context, base, quote string, day time.Time) (FXRate, error) {
	var (
		r    FXRate
		rate string
	)
	// numeric travels as text and is parsed exactly; it never becomes a float.
	err := s.pool.QueryRow(ctx, `
		SELECT id, base_currency, quote_currency, rate::text, as_of, source
		FROM fx_rates
		WHERE base_currency = $1 AND quote_currency = $2 AND as_of <= $3
		ORDER BY as_of DESC LIMIT 1`, base, quote, day).Scan(&r.ID, &r.Base, &r.Quote, &rate, &r.AsOf, &r.Source)
	if err != nil {
		return FXRate{}, notFound(err)
	}
	if r.Rate, err = decimal.NewFromString(rate); err != nil {
		return FXRate{}, fmt.Errorf("fx rate %d: %w", r.ID, err)
	}
	return r, nil
}

// CreateFXRate stores a dated rate and audits it.
func (s *Store) CreateFXRate(ctx context.Context, a Actor, r FXRate) (FXRate, error) {
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
		return audit(ctx, tx, a, AuditEntry{Action: ActionFXRateCreate, Entity: "fx_rate",
			EntityID: strconv.FormatInt(r.ID, 10), After: r})
	})
	return r, err
}
