package server

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/sync/errgroup"

	"gpuquote/internal/catalog"
	"gpuquote/internal/compare"
	"gpuquote/internal/money"
	"gpuquote/internal/store"
	"gpuquote/internal/tco"
	"gpuquote/internal/tcoapi"
)

// comparison is one comparison computed from the page's state: the usage
// profile, the selected quote versions, the dated rates and reference
// prices in force, and the engine's rows. The compare page shows it; a
// saved report freezes it.
type comparison struct {
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
	// compare.MaxSelected; Seen holds them; TooMany says more were asked.
	SelectedIDs []int64
	Seen        map[int64]bool
	TooMany     bool
	// GPUs is every GPU model; GPUByID indexes it.
	GPUs    []store.GPUModel
	GPUByID map[int64]store.GPUModel
	// Selected are the selected quotes that may be compared (drafts never
	// are; archived versions are, marked).
	Selected []store.Quote
	// ReferencePrices are the dated reference prices in force.
	ReferencePrices []store.ReferencePrice
	// In is the engine input: profile, report currency, rates, reference
	// prices, measured performance and the day.
	In compare.Input
	// Rows are the priced rows in table order (SortKey, Desc).
	Rows    []compare.Row
	SortKey string
	Desc    bool
}

// loadComparison reads what a comparison needs and prices it. The reads are
// independent, so they run at once, each on its own pool connection, and
// the page waits for the slowest, not the sum; extra reads of the caller
// (the compare page's candidate list) join them.
func (s *Server) loadComparison(ctx context.Context, values url.Values, today time.Time, extra ...func(context.Context) error) (*comparison, error) {
	cmp := &comparison{Values: values, Seen: map[int64]bool{}, GPUByID: map[int64]store.GPUModel{}}
	cmp.Profile, cmp.ProfileErrors = tcoapi.ProfileFromForm(values)
	if len(cmp.ProfileErrors) == 0 {
		cmp.Floor = tco.ProfileVRAMFloor(cmp.Profile)
	}
	// The selection, in the order given, at most compare.MaxSelected.
	for _, raw := range values["q"] {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id <= 0 || cmp.Seen[id] {
			continue
		}
		cmp.Seen[id] = true
		cmp.SelectedIDs = append(cmp.SelectedIDs, id)
	}
	if len(cmp.SelectedIDs) > compare.MaxSelected {
		cmp.SelectedIDs, cmp.TooMany = cmp.SelectedIDs[:compare.MaxSelected], true
	}

	var (
		selected []store.Quote
		rates    []store.FXRate
		perf     map[compare.PlatformGPU]decimal.Decimal
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { cmp.GPUs, err = s.store.AllGPUModels(gctx); return })
	g.Go(func() (err error) { selected, err = s.store.QuotesByIDs(gctx, cmp.SelectedIDs); return })
	g.Go(func() (err error) { rates, err = s.store.CurrentFXRates(gctx, today); return })
	g.Go(func() (err error) { cmp.ReferencePrices, err = s.store.CurrentReferencePrices(gctx, "", today); return })
	g.Go(func() (err error) { perf, err = s.store.PerformanceRatios(gctx); return })
	for _, f := range extra {
		g.Go(func() error { return f(gctx) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for _, g := range cmp.GPUs {
		cmp.GPUByID[g.ID] = g
	}

	in := compare.Input{Profile: cmp.Profile, ReportCurrency: strings.ToUpper(strings.TrimSpace(values.Get("report_currency"))), Today: today}
	// A trial's measured performance, per platform × GPU model, replaces
	// the profile's ratio for that row.
	in.Performance = perf
	// Drafts are never compared; archived versions are, marked (an old
	// shared link still shows what it showed).
	for _, q := range selected {
		if q.State != store.QuoteDraft {
			cmp.Selected = append(cmp.Selected, q)
		}
	}
	if in.ReportCurrency == "" || !money.IsCurrency(in.ReportCurrency) {
		in.ReportCurrency = "CNY"
		if len(cmp.Selected) > 0 {
			in.ReportCurrency = cmp.Selected[0].Currency
		}
	}
	in.Rates = map[string]tco.FX{}
	for _, r := range rates {
		if r.Quote == in.ReportCurrency {
			in.Rates[r.Base] = tco.FX{Rate: r.Rate, Date: r.AsOf}
		}
	}
	for _, r := range cmp.ReferencePrices {
		in.ReferencePrices = append(in.ReferencePrices, tco.ReferencePrice{Item: catalog.ItemKey(r.Item),
			Unit: catalog.Unit(r.Unit), UnitPrice: r.UnitPrice, Currency: r.Currency})
	}
	cmp.In = in

	cmp.SortKey, cmp.Desc = values.Get("sort"), values.Get("dir") == "desc"
	if !validSort(cmp.SortKey) {
		cmp.SortKey = compare.SortTCO
	}
	if len(cmp.ProfileErrors) == 0 && len(cmp.Selected) > 0 {
		cs := make([]compare.Candidate, 0, len(cmp.Selected))
		for _, q := range cmp.Selected {
			cs = append(cs, compare.Candidate{Quote: q, GPU: cmp.GPUByID[q.GPUModelID]})
		}
		cmp.Rows = compare.Run(cs, in)
		compare.Sort(cmp.Rows, cmp.SortKey, cmp.Desc)
	}
	return cmp, nil
}
