package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
)

// ListStamps are the two counts of changes a kept part of the quote list
// is read under (docs/RULES.md §20.6): Market counts the changes to the
// set of published quotes (migration 00009; a published version never
// changes otherwise), Names the writes to platforms and GPU models
// (migration 00035). The database bumps each in the transaction of the
// change.
type ListStamps struct{ Market, Names int64 }

const listStampsSQL = `SELECT (SELECT n FROM market_stamp WHERE id = 1), (SELECT n FROM names_stamp WHERE id = 1)`

func readListStamps(ctx context.Context, q Querier) (ListStamps, error) {
	var st ListStamps
	if err := q.QueryRow(ctx, listStampsSQL).Scan(&st.Market, &st.Names); err != nil {
		return st, fmt.Errorf("list stamps: %w", err)
	}
	return st, nil
}

// QuoteListCache keeps, per server process, what the quote list reads that
// only a stamped change can change: the filter's platform and GPU model
// names. Its zero value keeps nothing yet; it is safe for concurrent use.
type QuoteListCache struct {
	mu    sync.Mutex
	names keptNames
}

// keptNames are the platforms and GPU models QuoteRefNames returned, read
// in one snapshot with the names stamp.
type keptNames struct {
	valid           bool
	stamp           int64
	platforms, gpus []market.RefName
}

// NewQuoteListCache returns an empty cache.
func NewQuoteListCache() *QuoteListCache { return &QuoteListCache{} }

func (c *QuoteListCache) namesAt(stamp int64) (keptNames, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names, c.names.valid && c.names.stamp == stamp
}

func (c *QuoteListCache) keepNames(n keptNames) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.names = n
}

// QuoteListPage is one page of the quote list with the names its filters
// offer.
type QuoteListPage struct {
	Quotes          []quote.Quote
	Total           int
	Platforms, GPUs []market.RefName
}

// QuoteList reads one page of the quote list (as Quotes) and the platform
// and GPU model names its filters offer (as QuoteRefNames). The names come
// from c when the names stamp read for this request is the one c read them
// with; else they are read with the stamp in one snapshot and kept. The
// slices returned are shared with c: callers must not change them.
func (s *Store) QuoteList(ctx context.Context, f QuoteFilter, c *QuoteListCache) (QuoteListPage, error) {
	var out QuoteListPage
	st, err := readListStamps(ctx, s.pool)
	if err != nil {
		return out, err
	}
	n, ok := c.namesAt(st.Names)
	if !ok {
		err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			st, err := readListStamps(ctx, tx)
			if err != nil {
				return err
			}
			n = keptNames{valid: true, stamp: st.Names}
			n.platforms, n.gpus, err = quoteRefNames(ctx, tx)
			return err
		})
		if err != nil {
			return out, err
		}
		c.keepNames(n)
	}
	out.Platforms, out.GPUs = n.platforms, n.gpus
	out.Quotes, out.Total, err = s.Quotes(ctx, f)
	return out, err
}
