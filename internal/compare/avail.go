package compare

import (
	"context"
	"strconv"
	"time"

	"gpuquote/internal/avail"
	"gpuquote/internal/market"
	"gpuquote/internal/report"
)

// AvailReader reads the availability records' statistics of the selected
// quotes' platform × GPU model pairs (docs/RULES.md §18.2); the store
// implements it.
type AvailReader interface {
	AvailabilityStatsOfQuotes(ctx context.Context, quoteIDs []int64, day time.Time) (map[market.PlatformGPU][]avail.Stat, error)
}

// AvailParam is the candidate filter's page-state field: the minimum
// success rate (percent) over avail.FilterWindow days.
const AvailParam = "avail"

// AvailFilterPct is the minimum success rate a page state asks for: one
// of avail.FilterRates, or 0 (no filter) for anything else.
func AvailFilterPct(raw string) int {
	n, err := strconv.Atoi(raw)
	if err != nil {
		return 0
	}
	for _, p := range avail.FilterRates {
		if n == p {
			return n
		}
	}
	return 0
}

// loadAvailability reads the statistics for the comparison's day, when r
// keeps availability records.
func loadAvailability(ctx context.Context, r Reader, cmp *Comparison, today time.Time) error {
	ar, ok := r.(AvailReader)
	if !ok {
		return nil
	}
	stats, err := ar.AvailabilityStatsOfQuotes(ctx, cmp.SelectedIDs, today)
	if err != nil {
		return err
	}
	cmp.Availability = stats
	return nil
}

// AvailabilityOf is the statistics of a row's platform × GPU model (nil
// when the comparison read none).
func (c *Comparison) AvailabilityOf(r Row) []avail.Stat {
	return c.Availability[market.PlatformGPU{PlatformID: r.Quote.PlatformID, GPUModelID: r.Quote.GPUModelID}]
}

// frozenAvailability freezes the statistics of each compared platform ×
// GPU model once, in the rows' order (docs/RULES.md §18.2); nil when the
// comparison read none, so the snapshot has no "availability" at all.
func frozenAvailability(cmp *Comparison) []report.AvailabilityStat {
	if cmp.Availability == nil {
		return nil
	}
	var out []report.AvailabilityStat
	seen := map[market.PlatformGPU]bool{}
	for _, r := range cmp.Rows {
		p := market.PlatformGPU{PlatformID: r.Quote.PlatformID, GPUModelID: r.Quote.GPUModelID}
		stats, ok := cmp.Availability[p]
		if !ok || seen[p] {
			continue
		}
		seen[p] = true
		fs := report.AvailabilityStat{PlatformID: p.PlatformID, GPUModelID: p.GPUModelID, PlatformNameZH: r.Quote.PlatformNameZH,
			PlatformNameEN: r.Quote.PlatformNameEN, GPUVendor: r.GPU.Vendor, GPUName: r.GPU.Name,
			Day: report.DateText(cmp.In.Today), Windows: []report.AvailabilityWindow{}}
		for _, s := range stats {
			fs.Windows = append(fs.Windows, report.AvailabilityWindow{Days: s.Days, Attempts: s.Attempts, Obtained: s.Obtained,
				RatePct: s.RatePct(), MedianWaitMinutes: s.MedianWait})
		}
		out = append(out, fs)
	}
	return out
}
