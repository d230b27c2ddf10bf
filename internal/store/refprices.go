package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
	"gpuquote/internal/user"
)

// ErrReferencePriceExists means the item already has a price in that
// currency and unit for that day.
var ErrReferencePriceExists = errors.New("store: a reference price for this item, currency, unit and day exists")

// ErrReferencePriceUnit means the unit is not one the item may be priced in
// (docs/RULES.md §3).
var ErrReferencePriceUnit = errors.New("store: unit not allowed for this item")

// Reference prices, like exchange rates, are append-only history: a
// correction is a new dated row, and the newest row on or before a day is
// the one in force. numeric columns are scanned through decimal.Decimal's
// sql.Scanner (pgx hands it the exact text) and written through its
// driver.Valuer, so no value ever passes through a float.
const referencePriceColumns = `id, item, currency, unit, unit_price, as_of, source, created_at`

func scanReferencePrice(row pgx.Row, extra ...any) (market.ReferencePrice, error) {
	var r market.ReferencePrice
	dest := append([]any{&r.ID, &r.Item, &r.Currency, &r.Unit, &r.UnitPrice, &r.AsOf, &r.Source, &r.CreatedAt}, extra...)
	err := row.Scan(dest...)
	return r, err
}

// CreateReferencePrice stores a dated reference price and audits it in the
// same transaction. ErrReferencePriceExists when the item already has a
// price in that currency and unit on that day; ErrReferencePriceUnit when
// the unit is not allowed for the item.
func (s *Store) CreateReferencePrice(ctx context.Context, a user.Actor, r market.ReferencePrice) (market.ReferencePrice, error) {
	it, ok := catalog.LookupItem(catalog.ItemKey(r.Item))
	if !ok || !it.Allows(catalog.Unit(r.Unit)) {
		return market.ReferencePrice{}, fmt.Errorf("reference price %s/%s: %w", r.Item, r.Unit, ErrReferencePriceUnit)
	}
	var out market.ReferencePrice
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var createdBy *int64
		if a.UserID != 0 {
			createdBy = &a.UserID
		}
		var err error
		out, err = scanReferencePrice(tx.QueryRow(ctx, `
			INSERT INTO reference_prices (item, currency, unit, unit_price, as_of, source, created_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			RETURNING `+referencePriceColumns,
			r.Item, r.Currency, r.Unit, r.UnitPrice, r.AsOf, r.Source, createdBy))
		if isUniqueViolation(err, "") {
			return ErrReferencePriceExists
		}
		if err != nil {
			return fmt.Errorf("create reference price: %w", err)
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionReferencePriceCreate, Entity: "reference_price",
			EntityID: strconv.FormatInt(out.ID, 10), After: out})
	})
	if err != nil {
		return market.ReferencePrice{}, err
	}
	return out, nil
}

// ReferencePriceFilter narrows the reference price history. Zero fields do
// not filter.
type ReferencePriceFilter struct {
	Item     string
	Currency string
	Offset   int
	Limit    int
}

// ReferencePrices lists the reference price history newest first (by as-of
// day, then by entry), with the total count matching the filter.
func (s *Store) ReferencePrices(ctx context.Context, f ReferencePriceFilter) ([]market.ReferencePrice, int, error) {
	f.Offset, f.Limit = pageWindow(f.Offset, f.Limit)
	rows, err := s.pool.Query(ctx, `
		SELECT `+referencePriceColumns+`, count(*) OVER ()
		FROM reference_prices
		WHERE ($1 = '' OR item = $1) AND ($2 = '' OR currency = $2)
		ORDER BY as_of DESC, id DESC
		OFFSET $3 LIMIT $4`, f.Item, f.Currency, f.Offset, f.Limit)
	if err != nil {
		return nil, 0, fmt.Errorf("reference prices: %w", err)
	}
	var total int
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.ReferencePrice, error) {
		return scanReferencePrice(row, &total)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("reference prices: %w", err)
	}
	if len(out) == 0 && f.Offset > 0 {
		// Past the last page: report the true total anyway.
		err = s.pool.QueryRow(ctx, `SELECT count(*) FROM reference_prices
			WHERE ($1 = '' OR item = $1) AND ($2 = '' OR currency = $2)`, f.Item, f.Currency).Scan(&total)
		if err != nil {
			return nil, 0, fmt.Errorf("reference prices: %w", err)
		}
	}
	return out, total, nil
}

// CurrentReferencePrices returns the reference prices in force on day: for
// each item and unit in currency, the newest sample dated on or before day.
// An empty currency returns those of every currency. Rows come in currency
// order, then in the hidden-cost table's order of items and of each item's
// units.
func (s *Store) CurrentReferencePrices(ctx context.Context, currency string, day time.Time) ([]market.ReferencePrice, error) {
	// DISTINCT ON keeps the first row of each (currency, item, unit) group in
	// ORDER BY order, i.e. the newest as_of on or before day; id breaks ties
	// although the unique key already makes as_of unique per group.
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (currency, item, unit) `+referencePriceColumns+`
		FROM reference_prices
		WHERE ($1 = '' OR currency = $1) AND as_of <= $2
		ORDER BY currency, item, unit, as_of DESC, id DESC`, currency, day)
	if err != nil {
		return nil, fmt.Errorf("current reference prices: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.ReferencePrice, error) { return scanReferencePrice(row) })
	if err != nil {
		return nil, fmt.Errorf("current reference prices: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return refLess(a.Currency, a.Item, a.Unit, b.Currency, b.Item, b.Unit)
	})
	return out, nil
}

// refLess orders prices by currency, then the items' catalog order, then
// each item's units in its order.
func refLess(curA, itemA, unitA, curB, itemB, unitB string) bool {
	if curA != curB {
		return curA < curB
	}
	if ia, ib := catalog.ItemIndex(catalog.ItemKey(itemA)), catalog.ItemIndex(catalog.ItemKey(itemB)); ia != ib {
		return ia < ib
	}
	return refUnitOrder(itemA, unitA) < refUnitOrder(itemB, unitB)
}

// refUnitOrder is the position of unit among the item's allowed units
// (the table's default unit first); unknown ones sort last.
func refUnitOrder(item, unit string) int {
	it, _ := catalog.LookupItem(catalog.ItemKey(item))
	for i, u := range it.Units {
		if string(u) == unit {
			return i
		}
	}
	return len(catalog.Units)
}

// MarketPrices returns the market reference of every item, unit and
// currency on day (docs/RULES.md §3.6): among the quote versions published
// now whose as-of day lies within market.MarketReferenceDays before day
// (and not after it), the highest price a charged line names, one row per
// item, unit and quote currency. A tie goes to the newest as-of day, then
// the lowest quote id, so the same data always names the same quote. A
// price of zero is not a reference (it prices nothing). Rows come in
// catalog order: currency, item, the item's units.
//
// The aggregate reads every published quote's lines, so the store keeps the
// last one it read with the market stamp it read it under (migration
// 00009: the count of changes to the set of published quotes, kept by the
// database in the transaction of each change). Stamp and aggregate are read
// in one snapshot, so a kept aggregate is exactly what the query would
// return while the stamp and the day are unchanged, whichever server
// process published what.
func (s *Store) MarketPrices(ctx context.Context, day time.Time) ([]market.MarketPrice, error) {
	out, err := readMarket(ctx, s, s.market, day, func(tx pgx.Tx) ([]market.MarketPrice, error) { return marketPrices(ctx, tx, day) })
	return slices.Clone(out), err
}

// stampCache keeps the last value read from the published market, with
// its key and the market stamp it was read under (migration 00009).
type stampCache[K comparable, V any] struct {
	mu    sync.Mutex
	key   K
	stamp int64
	value V
	valid bool
}

func (c *stampCache[K, V]) get(key K, stamp int64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value, c.valid && c.stamp == stamp && c.key == key
}

func (c *stampCache[K, V]) put(key K, stamp int64, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.stamp, c.value, c.valid = key, stamp, v, true
}

// readMarket reads a value derived from the published market only: the
// market stamp first and, unless c holds the value for key under that
// stamp, read in the same snapshot, so what is kept is exactly what read
// would return while the stamp is unchanged, whichever server process
// publishes what.
func readMarket[K comparable, V any](ctx context.Context, s *Store, c *stampCache[K, V], key K, read func(pgx.Tx) (V, error)) (V, error) {
	var out V
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var stamp int64
		if err := tx.QueryRow(ctx, `SELECT n FROM market_stamp WHERE id = 1`).Scan(&stamp); err != nil {
			return fmt.Errorf("market stamp: %w", err)
		}
		if kept, ok := c.get(key, stamp); ok {
			out = kept
			return nil
		}
		v, err := read(tx)
		if err != nil {
			return err
		}
		c.put(key, stamp, v)
		out = v
		return nil
	})
	return out, err
}

// marketPrices runs the market aggregate of MarketPrices.
func marketPrices(ctx context.Context, q Querier, day time.Time) ([]market.MarketPrice, error) {
	rows, err := q.Query(ctx, `
		SELECT DISTINCT ON (q.currency, l.item, l.unit) l.item, l.unit, q.currency, l.unit_price, q.id, q.as_of
		FROM quote_lines l
		JOIN quotes q ON q.id = l.quote_id
		WHERE q.state = 'published' AND l.status = 'charged' AND l.unit_price > 0
		  AND q.as_of <= $1 AND q.as_of >= $1::date - $2::int
		ORDER BY q.currency, l.item, l.unit, l.unit_price DESC, q.as_of DESC, q.id`, day, market.MarketReferenceDays)
	if err != nil {
		return nil, fmt.Errorf("market prices: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.MarketPrice, error) {
		var m market.MarketPrice
		err := row.Scan(&m.Item, &m.Unit, &m.Currency, &m.UnitPrice, &m.QuoteID, &m.AsOf)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("market prices: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return refLess(a.Currency, a.Item, a.Unit, b.Currency, b.Item, b.Unit)
	})
	return out, nil
}
