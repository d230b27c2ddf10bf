package compare

import (
	"container/list"
	"context"
	"crypto/sha256"
	"hash"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/gzsplice"
	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
)

// Cache keeps priced comparisons: the engine's figures for the rows, for
// profile B and for the own-hardware options of a comparison, under a key
// made of everything the pricing reads (docs/RULES.md §20.1). The key is
// built from the inputs as they were read for this request — ids of rows
// the database never changes, and the values of everything else — so a
// kept entry is exactly what pricing would compute again: it cannot go
// stale, it can only stop being asked for. The cache only bounds its size
// (least recently used first out). It is safe for concurrent use and
// starts no goroutine. A nil *Cache keeps nothing.
//
// What is kept is shared by every request that hits it: the rows' results
// are read, never changed, by the code that shows them.
type Cache struct {
	max int
	// rules is the engine's rules edition the kept figures were computed
	// under (tco.RulesVersion; a test names another).
	rules string

	mu    sync.Mutex
	order *list.List // of *cacheEntry, most recently used first
	byKey map[cacheKey]*list.Element

	hits, misses atomic.Uint64
}

// cacheKey is the SHA-256 of a comparison's pricing inputs (keyOf).
type cacheKey [sha256.Size]byte

type cacheEntry struct {
	key cacheKey
	val *keptPricing
}

// keptPricing is what pricing a comparison yields, without the candidates
// (each request joins its own freshly read quotes, GPU models and option
// versions back in: docs/RULES.md §20.1).
type keptPricing struct {
	// rows are the priced rows in table order without their Candidate;
	// rowIdx[i] is rows[i]'s candidate's index in the candidates.
	rows   []Row
	rowIdx []int
	// b is profile B (nil without one), its Rows without candidates.
	b *Scenario
	// own are the own-hardware rows without their OwnCandidate, in the
	// order of the candidates.
	own []OwnRow
	// drawings are the charts drawn from these figures (docs/RULES.md
	// §20.4), shared by every request that finds them.
	drawings *Drawings
}

// Drawings keeps what was drawn from one kept comparison: its two charts,
// at most one drawing per language (docs/RULES.md §20.4). A chart shows
// words, so it is kept per language, and the quotes' names as read for the
// request, which are no part of the pricing key (a platform may be renamed
// in place): each drawing is kept with a note of those names, and names
// that differ draw anew and replace it. So the entry holds at most one
// drawing per language and goes with it. It is safe for concurrent use:
// requests for the same comparison in the same language at once draw it
// once. A nil *Drawings keeps nothing (a comparison not kept).
type Drawings struct {
	mu     sync.Mutex
	byLang map[string]*drawing
	// results are the results' HTML kept per language (docs/RULES.md
	// §20.5).
	results map[string]keptResults
}

// keptResults is one language's results as drawn from inputs.
type keptResults struct {
	inputs string
	block  *gzsplice.Block
}

// Results is the results' HTML kept for lang, drawn from the kept figures
// and inputs (whatever else the drawing read: docs/RULES.md §20.5); nil
// when none is kept for them.
func (d *Drawings) Results(lang, inputs string) *gzsplice.Block {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.results[lang]; ok && r.inputs == inputs {
		return r.block
	}
	return nil
}

// KeepResults keeps b as lang's results drawn from inputs, in the place of
// what that language kept before. A nil *Drawings keeps nothing.
func (d *Drawings) KeepResults(lang, inputs string, b *gzsplice.Block) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.results == nil {
		d.results = map[string]keptResults{}
	}
	d.results[lang] = keptResults{inputs: inputs, block: b}
}

// drawing is one language's charts; mu is held while they are drawn.
type drawing struct {
	mu           sync.Mutex
	names        string
	drawn        bool
	curves, bars string
}

// Charts are the charts of lang for the names given (whatever else the
// drawing reads besides the kept figures), drawn by draw unless kept;
// drew says whether draw was called.
func (d *Drawings) Charts(lang, names string, draw func() (curves, bars string)) (curves, bars string, drew bool) {
	if d == nil {
		curves, bars = draw()
		return curves, bars, true
	}
	d.mu.Lock()
	if d.byLang == nil {
		d.byLang = map[string]*drawing{}
	}
	g := d.byLang[lang]
	if g == nil {
		g = &drawing{}
		d.byLang[lang] = g
	}
	d.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.drawn || g.names != names {
		// Marked drawn only once draw returns: a panic leaves none kept.
		g.drawn = false
		g.curves, g.bars = draw()
		g.names, g.drawn, drew = names, true, true
	}
	return g.curves, g.bars, drew
}

// CacheStats are a cache's size and use since it was made.
type CacheStats struct {
	Entries      int
	Hits, Misses uint64
}

// NewCache makes a cache of at most entries priced comparisons; nil (keep
// nothing) when entries is 0 or less.
func NewCache(entries int) *Cache {
	if entries <= 0 {
		return nil
	}
	return &Cache{max: entries, rules: tco.RulesVersion, order: list.New(), byKey: map[cacheKey]*list.Element{}}
}

// Stats are c's size and use; all zero for a nil cache.
func (c *Cache) Stats() CacheStats {
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	n := c.order.Len()
	c.mu.Unlock()
	return CacheStats{Entries: n, Hits: c.hits.Load(), Misses: c.misses.Load()}
}

// LoadFor is compare.LoadFor with the comparison priced through c: kept
// figures are used when every input is as it was, and the figures
// computed are kept otherwise.
func (c *Cache) LoadFor(ctx context.Context, r Reader, values url.Values, today time.Time, viewer Viewer, remembered string,
	extra ...func(context.Context) error) (*Comparison, error) {
	return loadFor(ctx, r, c, values, today, viewer, remembered, extra...)
}

func (c *Cache) get(k cacheKey) (*keptPricing, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[k]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).val, true
}

// put keeps v under k and returns what is kept there: v, or the entry
// another request kept first.
func (c *Cache) put(k cacheKey, v *keptPricing) *keptPricing {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[k]; ok {
		// Two requests priced the same inputs at once: the same figures.
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry).val
	}
	c.byKey[k] = c.order.PushFront(&cacheEntry{key: k, val: v})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cacheEntry).key)
	}
	return v
}

// price fills cmp's Rows, B and Own from the candidates cs (nil when the
// profile has errors or nothing is selected) and the own-hardware options
// read, through c when c keeps anything.
func (c *Cache) price(cmp *Comparison, values url.Values, cs []Candidate, ownCands []OwnCandidate, noPower []bool) {
	priceOwn := len(cmp.ProfileErrors) == 0 && len(ownCands) > 0
	if c == nil || (len(cs) == 0 && !priceOwn) || !keepable(cs) {
		priceNow(cmp, values, cs, ownCands, noPower)
		return
	}
	k := c.keyOf(cmp, values, cs, ownCands, noPower)
	if kept, ok := c.get(k); ok {
		c.hits.Add(1)
		kept.fill(cmp, cs, ownCands)
		cmp.Drawings = kept.drawings
		return
	}
	c.misses.Add(1)
	priceNow(cmp, values, cs, ownCands, noPower)
	cmp.Drawings = c.put(k, keep(cmp, cs)).drawings
}

// priceNow prices the rows in table order, profile B and the own-hardware
// options.
func priceNow(cmp *Comparison, values url.Values, cs []Candidate, ownCands []OwnCandidate, noPower []bool) {
	if len(cs) > 0 {
		cmp.Rows = Run(cs, cmp.In)
		Sort(cmp.Rows, cmp.SortKey, cmp.Desc)
	}
	cmp.B = runScenario(values, cs, cmp.In)
	if len(cmp.ProfileErrors) == 0 && len(ownCands) > 0 {
		cmp.Own = RunOwn(ownCands, noPower, cmp.Rows, cmp.In)
	}
}

// keepable says whether a comparison of cs may be kept: only when every
// quote is a published or archived version, which the database never
// changes (a proposal may be edited in place while returned to its
// author, docs/RULES.md §18.1).
func keepable(cs []Candidate) bool {
	for _, c := range cs {
		if !quote.InMarket(c.Quote.State) {
			return false
		}
	}
	return true
}

// keep is cmp's priced figures without the candidates.
func keep(cmp *Comparison, cs []Candidate) *keptPricing {
	k := &keptPricing{rows: make([]Row, len(cmp.Rows)), rowIdx: make([]int, len(cmp.Rows)), drawings: &Drawings{}}
	idx := make(map[int64]int, len(cs))
	for i, c := range cs {
		idx[c.Quote.ID] = i
	}
	for i, r := range cmp.Rows {
		k.rowIdx[i] = idx[r.Quote.ID]
		r.Candidate = Candidate{}
		k.rows[i] = r
	}
	if cmp.B != nil {
		b := *cmp.B
		b.Rows = make(map[int64]Row, len(cmp.B.Rows))
		for id, r := range cmp.B.Rows {
			r.Candidate = Candidate{}
			b.Rows[id] = r
		}
		k.b = &b
	}
	if cmp.Own != nil {
		k.own = make([]OwnRow, len(cmp.Own))
		for i, o := range cmp.Own {
			o.OwnCandidate = OwnCandidate{}
			k.own[i] = o
		}
	}
	return k
}

// fill gives cmp the kept figures with this request's candidates.
func (k *keptPricing) fill(cmp *Comparison, cs []Candidate, ownCands []OwnCandidate) {
	if len(k.rows) > 0 {
		cmp.Rows = make([]Row, len(k.rows))
		for i, r := range k.rows {
			r.Candidate = cs[k.rowIdx[i]]
			cmp.Rows[i] = r
		}
	}
	if k.b != nil {
		b := *k.b
		b.Rows = make(map[int64]Row, len(k.b.Rows))
		byID := make(map[int64]Candidate, len(cs))
		for _, c := range cs {
			byID[c.Quote.ID] = c
		}
		for id, r := range k.b.Rows {
			r.Candidate = byID[id]
			b.Rows[id] = r
		}
		cmp.B = &b
	}
	if k.own != nil {
		cmp.Own = make([]OwnRow, len(k.own))
		for i, o := range k.own {
			o.OwnCandidate = ownCands[i]
			cmp.Own[i] = o
		}
	}
}

// keyOf is the key of everything pricing reads (docs/RULES.md §20.1):
//   - the rules edition;
//   - the page state's profile fields, A's and B's, as typed, and the
//     sort order (the own options' crossings follow the table's order);
//   - the report currency as resolved, and the evaluation day;
//   - each quote by its version id (a published or archived version never
//     changes), with its GPU model's id, lock version and the figures
//     pricing reads of it (models are edited in place), and the ratio a
//     trial measured for its platform × GPU model, if any;
//   - every dated rate in force (pair, rate, date) and every reference
//     price in the order applied (editors' then market's: item, unit,
//     currency, price, source, the market's quote);
//   - each own-hardware option by its version id (versions never change),
//     with its GPU model's name as read and the kWh price resolved for the
//     day, or that none was in force.
//
// Language is not in the key: what is kept holds message ids and
// arguments, never words.
func (c *Cache) keyOf(cmp *Comparison, values url.Values, cs []Candidate, ownCands []OwnCandidate, noPower []bool) cacheKey {
	w := keyWriter{h: sha256.New()}
	w.str("rules").str(c.rules)
	w.str("profile")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range values {
			if strings.HasPrefix(k, "profile.") || strings.HasPrefix(k, ScenarioPrefix+"profile.") {
				if !yield(k) {
					return
				}
			}
		}
	}) {
		w.str(k).int(int64(len(values[k])))
		for _, v := range values[k] {
			w.str(v)
		}
	}
	w.str("sort").str(cmp.SortKey).bool(cmp.Desc)
	w.str("currency").str(cmp.In.ReportCurrency)
	w.str("day").time(cmp.In.Today)
	w.str("quotes").int(int64(len(cs)))
	for _, cand := range cs {
		q, g := cand.Quote, cand.GPU
		w.int(q.ID).int(g.ID).int(int64(g.LockVersion)).str(g.Vendor).str(g.Name).dec(g.VRAMGB).str(g.Interconnect)
		ratio, ok := cmp.In.Performance[market.PlatformGPU{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID}]
		w.bool(ok).dec(ratio)
	}
	w.str("rates").int(int64(len(cmp.In.AllRates)))
	pairs := make([]CurrencyPair, 0, len(cmp.In.AllRates))
	for p := range cmp.In.AllRates {
		pairs = append(pairs, p)
	}
	slices.SortFunc(pairs, func(a, b CurrencyPair) int {
		return strings.Compare(a.From+"/"+a.To, b.From+"/"+b.To)
	})
	for _, p := range pairs {
		fx := cmp.In.AllRates[p]
		w.str(p.From).str(p.To).dec(fx.Rate).time(fx.Date)
	}
	w.str("references").int(int64(len(cmp.In.ReferencePrices)))
	for _, r := range cmp.In.ReferencePrices {
		w.str(string(r.Item)).str(string(r.Unit)).str(r.Currency).dec(r.UnitPrice).str(string(r.Source)).int(r.QuoteID)
	}
	w.str("own").int(int64(len(ownCands)))
	for i, o := range ownCands {
		w.int(o.Version.ID).str(o.Version.GPU()).dec(o.Electricity.KWhPrice).bool(i < len(noPower) && noPower[i])
	}
	var k cacheKey
	w.h.Sum(k[:0])
	return k
}

// keyWriter writes values into a hash so that no two different sequences
// write the same bytes: every string is preceded by its length.
type keyWriter struct {
	h   hash.Hash
	buf []byte
}

func (w *keyWriter) str(s string) *keyWriter {
	w.buf = strconv.AppendInt(w.buf[:0], int64(len(s)), 10)
	w.buf = append(w.buf, ':')
	w.buf = append(w.buf, s...)
	w.h.Write(w.buf)
	return w
}

func (w *keyWriter) int(n int64) *keyWriter {
	w.buf = strconv.AppendInt(w.buf[:0], n, 10)
	w.buf = append(w.buf, ';')
	w.h.Write(w.buf)
	return w
}

func (w *keyWriter) bool(b bool) *keyWriter {
	if b {
		return w.str("t")
	}
	return w.str("f")
}

// dec writes d exactly: its coefficient and exponent, so 1.5 and 1.50
// differ (they may be shown differently).
func (w *keyWriter) dec(d decimal.Decimal) *keyWriter {
	w.buf = d.Coefficient().Append(w.buf[:0], 10)
	w.buf = append(w.buf, 'e')
	w.buf = strconv.AppendInt(w.buf, int64(d.Exponent()), 10)
	w.buf = append(w.buf, ';')
	w.h.Write(w.buf)
	return w
}

func (w *keyWriter) time(t time.Time) *keyWriter {
	w.buf = t.AppendFormat(w.buf[:0], time.RFC3339Nano)
	w.buf = append(w.buf, ';')
	w.h.Write(w.buf)
	return w
}
