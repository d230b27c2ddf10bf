package store

import (
	"container/list"
	"context"
	"fmt"
	"strings"
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
// only a stamped change can change (docs/RULES.md §20.6): the filter's
// platform and GPU model names, and up to a bound of pages of published
// quotes with their counts. Its zero value keeps no pages; it is safe for
// concurrent use.
type QuoteListCache struct {
	mu    sync.Mutex
	names keptNames
	max   int
	pages map[quoteListKey]*list.Element // of *keptPage, most recently used first in order
	order list.List
}

// QuoteListPages is how many pages a QuoteListCache keeps by default.
const QuoteListPages = 256

// keptNames are the platforms and GPU models QuoteRefNames returned, read
// in one snapshot with the names stamp.
type keptNames struct {
	valid           bool
	stamp           int64
	platforms, gpus []market.RefName
}

// quoteListKey is everything a page of published quotes is read by: the
// filters a list of published quotes may have, and the page.
type quoteListKey struct {
	query             string
	platform, gpu     int64
	currency, sharing string
	before            int64 // as_of < this day (Unix seconds), when stale is set
	stale             bool
	offset, limit     int
}

// keptPage is one page of published quotes and their count, read in one
// snapshot with the stamps.
type keptPage struct {
	key    quoteListKey
	stamps ListStamps
	quotes []quote.Quote
	total  int
	// drawn holds what was drawn of the page, by what else the drawing
	// depends on (QuoteListPage.Drawn).
	mu    sync.Mutex
	drawn map[string]string
}

// keptDrawings bounds the drawings a kept page holds (a language and a day
// each, say): past it, they are all dropped and drawn again.
const keptDrawings = 4

// NewQuoteListCache returns an empty cache that keeps up to pages pages.
func NewQuoteListCache(pages int) *QuoteListCache {
	return &QuoteListCache{max: pages, pages: map[quoteListKey]*list.Element{}}
}

// listKey is f's key, and whether a page of f may be kept: only lists of
// published quotes (whose versions never change but by leaving the
// published set, which bumps the market stamp) filtered by what the list
// page offers; anything else reads more than the two stamps cover.
func listKey(f QuoteFilter) (quoteListKey, bool) {
	published := len(f.States) == 0 || len(f.States) == 1 && f.States[0] == quote.Published
	if !published || f.MinVRAMGB.Valid || !f.AsOfFrom.IsZero() || len(f.Qualifications) > 0 || len(f.Env) > 0 ||
		f.Availability != nil || f.NoCount || f.names != nil {
		return quoteListKey{}, false
	}
	k := quoteListKey{query: strings.TrimSpace(f.Query), platform: f.PlatformID, gpu: f.GPUModelID, currency: f.Currency,
		sharing: f.Sharing, offset: f.Offset, limit: f.Limit}
	if !f.AsOfBefore.IsZero() {
		k.stale, k.before = true, f.AsOfBefore.Unix()
	}
	return k, true
}

func (c *QuoteListCache) namesAt(stamp int64) (keptNames, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names, c.names.valid && c.names.stamp == stamp
}

func (c *QuoteListCache) keepNames(n keptNames) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.names.valid || n.stamp >= c.names.stamp {
		c.names = n
	}
}

// hasPage says whether a page is kept for key, current or not.
func (c *QuoteListCache) hasPage(key quoteListKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pages[key]
	return ok
}

// pageAt returns the page kept for key when it was read under stamps.
func (c *QuoteListCache) pageAt(key quoteListKey, stamps ListStamps) (*keptPage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.pages[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	p := e.Value.(*keptPage)
	return p, p.stamps == stamps
}

// keepPage keeps p in place of what was kept for its key, the page used
// longest ago going when the cache is full. A page read under older stamps
// than the one kept (a read that began before the other, or on a server
// further behind) does not replace it: the stamps only grow.
func (c *QuoteListCache) keepPage(p *keptPage) {
	if c.max <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.pages[p.key]; ok {
		c.order.MoveToFront(e)
		if old := e.Value.(*keptPage).stamps; p.stamps.Market >= old.Market && p.stamps.Names >= old.Names {
			e.Value = p
		}
		return
	}
	c.pages[p.key] = c.order.PushFront(p)
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.pages, last.Value.(*keptPage).key)
	}
}

// QuoteListPage is one page of the quote list with the names its filters
// offer.
type QuoteListPage struct {
	Quotes          []quote.Quote
	Total           int
	Platforms, GPUs []market.RefName
	// kept is the kept page the quotes and total are, nil when they were
	// read for this request only.
	kept *keptPage
}

// Kept says whether the page is kept, so that Drawn keeps what it draws.
func (p QuoteListPage) Kept() bool { return p.kept != nil }

// Drawn returns draw's result for this page and key, which names whatever
// else than the page's quotes the drawing depends on (the reader's
// language and the day). A kept page keeps it, so the same page drawn for
// the same key again is not drawn again; a drawing that failed is not
// kept. Drawings at once for the same page and key may each draw.
func (p QuoteListPage) Drawn(key string, draw func() (string, error)) (string, error) {
	k := p.kept
	if k == nil {
		return draw()
	}
	k.mu.Lock()
	out, ok := k.drawn[key]
	k.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err := draw()
	if err != nil {
		return "", err
	}
	k.mu.Lock()
	if k.drawn == nil || len(k.drawn) >= keptDrawings {
		k.drawn = map[string]string{}
	}
	k.drawn[key] = out
	k.mu.Unlock()
	return out, nil
}

// QuoteList reads one page of the quote list (as Quotes) and the platform
// and GPU model names its filters offer (as QuoteRefNames), keeping them in
// c (docs/RULES.md §20.6). What c kept is used only when the stamps read
// for this request, in one statement, are the ones it was read under;
// anything else is read with the stamps in one snapshot and kept. A list
// that is not of published quotes alone is read every time, and so is
// every list when c is nil. The slices
// returned are shared with c: callers must not change them.
func (s *Store) QuoteList(ctx context.Context, f QuoteFilter, c *QuoteListCache) (QuoteListPage, error) {
	var out QuoteListPage
	if c == nil {
		c = NewQuoteListCache(0) // keeps nothing past this request
	}
	if f.Limit <= 0 || f.Limit > 200 {
		f.Limit = 50
	}
	key, keep := listKey(f)
	// A page never kept is read in a snapshot at once; else the stamps
	// say whether what is kept is current.
	if !keep || c.hasPage(key) {
		st, err := readListStamps(ctx, s.pool)
		if err != nil {
			return out, err
		}
		n, namesOK := c.namesAt(st.Names)
		if namesOK {
			out.Platforms, out.GPUs = n.platforms, n.gpus
			if !keep {
				out.Quotes, out.Total, err = s.Quotes(ctx, f)
				return out, err
			}
			if p, ok := c.pageAt(key, st); ok {
				out.Quotes, out.Total, out.kept = p.quotes, p.total, p
				return out, nil
			}
		}
	}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		st, err := readListStamps(ctx, tx)
		if err != nil {
			return err
		}
		n, ok := c.namesAt(st.Names)
		if !ok {
			n = keptNames{valid: true, stamp: st.Names}
			if n.platforms, n.gpus, err = quoteRefNames(ctx, tx); err != nil {
				return err
			}
			c.keepNames(n)
		}
		out.Platforms, out.GPUs = n.platforms, n.gpus
		if out.Quotes, out.Total, err = quotesIn(ctx, tx, f); err != nil {
			return err
		}
		if keep {
			out.kept = &keptPage{key: key, stamps: st, quotes: out.Quotes, total: out.Total}
			c.keepPage(out.kept)
		}
		return nil
	})
	return out, err
}
