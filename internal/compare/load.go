package compare

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"gpuquote/internal/avail"
	"gpuquote/internal/catalog"
	"gpuquote/internal/facts"
	"gpuquote/internal/market"
	"gpuquote/internal/money"
	"gpuquote/internal/quote"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
)

// Reader is what a comparison reads; the store implements it. Every read
// is of what is in force on a day (rates, reference prices) or of
// immutable records (published quote versions), so a comparison needs no
// transaction.
type Reader interface {
	AllGPUModels(ctx context.Context) ([]market.GPUModel, error)
	QuotesByIDs(ctx context.Context, ids []int64) ([]quote.Quote, error)
	CurrentFXRates(ctx context.Context, day time.Time) ([]market.FXRate, error)
	CurrentReferencePrices(ctx context.Context, currency string, day time.Time) ([]market.ReferencePrice, error)
	MarketPrices(ctx context.Context, day time.Time) ([]market.MarketPrice, error)
	PerformanceRatios(ctx context.Context) (map[market.PlatformGPU]decimal.Decimal, error)
	OwnReader
}

// Comparison is one comparison computed from a page's state: the usage
// profile, the selected quote versions, the dated rates and reference
// prices in force, and the engine's rows. The compare page shows it; a
// saved report freezes it (Freeze).
type Comparison struct {
	// Values is the page state it was computed from (profile fields,
	// report_currency, q…, sort, dir and the candidate filters).
	Values url.Values
	// Profile is the usage profile; ProfileErrors are its field errors
	// (no rows are priced while there are any).
	Profile       tco.Profile
	ProfileErrors []tcoapi.FieldError
	// Floor is the task's VRAM floor per GPU, when the profile names one.
	Floor decimal.NullDecimal
	// SelectedIDs are the quote ids asked for, in order, at most
	// MaxSelected; Seen holds them; TooMany says more were asked.
	SelectedIDs []int64
	Seen        map[int64]bool
	TooMany     bool
	// GPUs is every GPU model; GPUByID indexes it.
	GPUs    []market.GPUModel
	GPUByID map[int64]market.GPUModel
	// Selected are the selected quotes that may be compared (drafts never
	// are; archived versions are, marked).
	Selected []quote.Quote
	// ReferencePrices are the editors' dated reference prices in force;
	// MarketPrices the market references (docs/RULES.md §3.6).
	ReferencePrices []market.ReferencePrice
	MarketPrices    []market.MarketPrice
	// In is the engine input: profile, report currency, rates, reference
	// prices, measured performance and the day.
	In Input
	// Rows are the priced rows in table order (SortKey, Desc).
	Rows    []Row
	SortKey string
	Desc    bool
	// B is the second usage profile's pricing of the same quotes, when the
	// page state has one (nil otherwise).
	B *Scenario
	// OwnSelectedIDs are the own-hardware option versions asked for
	// (OwnParam), in order, at most MaxOwnSelected; Own are those the
	// reader may see, priced (docs/RULES.md §17).
	OwnSelectedIDs []int64
	Own            []OwnRow
	// OwnTooMany says more than MaxOwnSelected options were asked for.
	OwnTooMany bool
	// Facts are the fact records in force today of the selected quotes'
	// platforms, by platform id (RowFacts, docs/RULES.md §18.3).
	Facts map[int64][]facts.Fact
	// Availability are the selected quotes' platform × GPU model pairs'
	// availability statistics for the day (AvailabilityOf, docs/RULES.md
	// §18.2); nil when the reader keeps none.
	Availability map[market.PlatformGPU][]avail.Stat
	// Drawings keep the charts drawn from the kept figures when the
	// figures came from a Cache (docs/RULES.md §20.4); nil otherwise, and
	// then every request draws its own.
	Drawings *Drawings
}

// DefaultCurrency is the report currency when the page names none and the
// selected quotes share none.
const DefaultCurrency = "CNY"

// Selection reads the quote ids of a page state ("q", in the order given,
// each once, at most MaxSelected); tooMany says more were asked for.
func Selection(values url.Values) (ids []int64, tooMany bool) {
	seen := map[int64]bool{}
	for _, raw := range values["q"] {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if len(ids) > MaxSelected {
		return ids[:MaxSelected], true
	}
	return ids, false
}

// Load reads what the comparison of a page state needs and prices it for
// today. The reads are independent, so they run at once (each on its own
// pool connection): the page waits for the slowest, not the sum. The
// caller's own reads (extra: the compare page's candidate list) join them.
// Own-hardware options are priced for the zero Viewer (shared ones only);
// LoadFor names the viewer.
func Load(ctx context.Context, r Reader, values url.Values, today time.Time, extra ...func(context.Context) error) (*Comparison, error) {
	return LoadFor(ctx, r, values, today, Viewer{}, "", extra...)
}

// LoadRemembering is Load for a reader who last asked for the report
// currency remembered: the default when the page asks for none and the
// selected quotes share no currency (DefaultReportCurrency).
func LoadRemembering(ctx context.Context, r Reader, values url.Values, today time.Time, remembered string,
	extra ...func(context.Context) error) (*Comparison, error) {
	return LoadFor(ctx, r, values, today, Viewer{}, remembered, extra...)
}

// LoadFor is LoadRemembering for viewer: the own-hardware options asked
// for (OwnParam) that viewer may read are priced beside the quotes; the
// others are dropped like an unknown quote id (docs/RULES.md §8.6).
func LoadFor(ctx context.Context, r Reader, values url.Values, today time.Time, viewer Viewer, remembered string,
	extra ...func(context.Context) error) (*Comparison, error) {
	return loadFor(ctx, r, nil, values, today, viewer, remembered, extra...)
}

// loadFor is LoadFor priced through cache (nil: priced on the spot;
// docs/RULES.md §20.1).
func loadFor(ctx context.Context, r Reader, cache *Cache, values url.Values, today time.Time, viewer Viewer, remembered string,
	extra ...func(context.Context) error) (*Comparison, error) {
	cmp := &Comparison{Values: values, Seen: map[int64]bool{}, GPUByID: map[int64]market.GPUModel{}}
	cmp.Profile, cmp.ProfileErrors = tcoapi.ProfileFromForm(values)
	if len(cmp.ProfileErrors) == 0 {
		cmp.Floor = tco.ProfileVRAMFloor(cmp.Profile)
	}
	cmp.SelectedIDs, cmp.TooMany = Selection(values)
	for _, id := range cmp.SelectedIDs {
		cmp.Seen[id] = true
	}
	cmp.OwnSelectedIDs, cmp.OwnTooMany = OwnSelection(values)
	ownSlots := make([]*ownSlot, len(cmp.OwnSelectedIDs))

	var (
		selected []quote.Quote
		rates    []market.FXRate
		perf     map[market.PlatformGPU]decimal.Decimal
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { cmp.GPUs, err = r.AllGPUModels(gctx); return })
	g.Go(func() (err error) { selected, err = r.QuotesByIDs(gctx, cmp.SelectedIDs); return })
	g.Go(func() (err error) { rates, err = r.CurrentFXRates(gctx, today); return })
	g.Go(func() (err error) { cmp.ReferencePrices, err = r.CurrentReferencePrices(gctx, "", today); return })
	g.Go(func() (err error) { cmp.MarketPrices, err = r.MarketPrices(gctx, today); return })
	g.Go(func() (err error) { perf, err = r.PerformanceRatios(gctx); return })
	if fr, ok := r.(FactsReader); ok {
		g.Go(func() (err error) { cmp.Facts, err = fr.FactsInForceForQuotes(gctx, cmp.SelectedIDs, today); return })
	}
	g.Go(func() error { return loadAvailability(gctx, r, cmp, today) })
	for i, id := range cmp.OwnSelectedIDs {
		g.Go(func() (err error) { ownSlots[i], err = loadOwn(gctx, r, viewer, id, today); return })
	}
	for _, f := range extra {
		g.Go(func() error { return f(gctx) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, g := range cmp.GPUs {
		cmp.GPUByID[g.ID] = g
	}
	// Drafts are never compared; archived versions are, marked (an old
	// shared link still shows what it showed); a proposal only for its
	// author, editors and admins, marked not yet reviewed (docs/RULES.md
	// §18.1), and dropped like a draft for everyone else.
	for _, q := range selected {
		if quote.InMarket(q.State) || (quote.IsProposal(q.State) && quote.MayRead(q, viewer.UserID, viewer.Role)) {
			cmp.Selected = append(cmp.Selected, q)
		}
	}
	var (
		ownCands []OwnCandidate
		noPower  []bool
	)
	// The options' currencies count with the quotes' for the default
	// report currency (docs/RULES.md §8.6).
	currencies := cmp.Selected
	for _, s := range ownSlots {
		if s != nil {
			ownCands = append(ownCands, s.cand)
			noPower = append(noPower, s.noPower)
			currencies = append(currencies[:len(currencies):len(currencies)],
				quote.Quote{Currency: s.cand.Version.Currency, State: quote.Published})
		}
	}
	cmp.In = inputOf(cmp.Profile, values.Get("report_currency"), remembered, currencies, rates, cmp.ReferencePrices,
		cmp.MarketPrices, perf, today)
	cmp.SortKey, cmp.Desc = values.Get("sort"), values.Get("dir") == "desc"
	if !slices.Contains(SortKeys, cmp.SortKey) {
		cmp.SortKey = SortTCO
	}
	var cs []Candidate
	if len(cmp.ProfileErrors) == 0 && len(cmp.Selected) > 0 {
		cs = make([]Candidate, 0, len(cmp.Selected))
		for _, q := range cmp.Selected {
			cs = append(cs, Candidate{Quote: q, GPU: cmp.GPUByID[q.GPUModelID]})
		}
	}
	cache.price(cmp, values, cs, ownCands, noPower)
	return cmp, nil
}

// inputOf is the engine input of a comparison: the report currency asked
// for (else the selected quotes' common one, else DefaultCurrency), the dated
// rates into it and between every pair of currencies (for references), the
// editors' reference prices in force and the market references after them
// (docs/RULES.md §3.6), and the trials' measured performance (which replaces
// the profile's ratio for its platform × GPU model).
func inputOf(p tco.Profile, currency, remembered string, selected []quote.Quote, rates []market.FXRate, refs []market.ReferencePrice,
	marketPrices []market.MarketPrice, perf map[market.PlatformGPU]decimal.Decimal, today time.Time) Input {
	in := Input{Profile: p, ReportCurrency: strings.ToUpper(strings.TrimSpace(currency)), Today: today, Performance: perf}
	if in.ReportCurrency == "" || !money.IsCurrency(in.ReportCurrency) {
		in.ReportCurrency = DefaultReportCurrency(selected, remembered)
	}
	in.Rates = map[string]tco.FX{}
	in.AllRates = map[CurrencyPair]tco.FX{}
	for _, r := range rates {
		in.AllRates[CurrencyPair{From: r.Base, To: r.Quote}] = tco.FX{Rate: r.Rate, Date: r.AsOf}
		if r.Quote == in.ReportCurrency {
			in.Rates[r.Base] = tco.FX{Rate: r.Rate, Date: r.AsOf}
		}
	}
	for _, r := range refs {
		in.ReferencePrices = append(in.ReferencePrices, tco.ReferencePrice{Item: catalog.ItemKey(r.Item),
			Unit: catalog.Unit(r.Unit), UnitPrice: r.UnitPrice, Currency: r.Currency, Source: tco.SourceEditor})
	}
	for _, m := range marketPrices {
		in.ReferencePrices = append(in.ReferencePrices, tco.ReferencePrice{Item: catalog.ItemKey(m.Item),
			Unit: catalog.Unit(m.Unit), UnitPrice: m.UnitPrice, Currency: m.Currency, Source: tco.SourceMarket, QuoteID: m.QuoteID})
	}
	return in
}
