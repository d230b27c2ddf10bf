package compare

import (
	"slices"
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/catalog"
	"gpuquote/internal/market"
)

// onPlatform is cand on a platform and GPU model.
func onPlatform(id, platform, gpuID int64, hourly string) Candidate {
	c := cand(id, "EUR", hourly, "", "", r9700)
	c.Quote.PlatformID, c.Quote.GPUModelID = platform, gpuID
	return c
}

// The guide's RTX 4090: 111 measured against 132 nominal is 0.840909…,
// below 85 %: the pair's rows get the flag and a cost per
// reference-equivalent GPU-hour, other platforms' rows of the same model do
// not.
func TestRunAppliesTheMeasuredRatioPerPlatformAndModel(t *testing.T) {
	in := input(profile("100"))
	ratio := decimal.RequireFromString("111").Div(decimal.RequireFromString("132")) // more places than the engine takes
	in.Performance = map[market.PlatformGPU]decimal.Decimal{{PlatformID: 1, GPUModelID: 7}: ratio}
	rows := Run([]Candidate{onPlatform(1, 1, 7, "1"), onPlatform(2, 2, 7, "1"), onPlatform(3, 1, 8, "1")}, in)
	for _, r := range rows {
		if !r.Priced {
			t.Fatalf("quote %d not priced: %v", r.Quote.ID, reasons(r))
		}
	}
	got := rows[0].Result
	// effective 1.0000 per GPU-hour ÷ 0.840909 = 1.18918…
	if !got.PerReferenceGPUHour.Valid || got.PerReferenceGPUHour.Decimal.StringFixed(4) != "1.1892" {
		t.Errorf("per reference-equivalent GPU-hour %v, want 1.1892", got.PerReferenceGPUHour)
	}
	if !slices.Contains(got.Flags, catalog.FlagPerformanceBelow85Pct) {
		t.Errorf("flags %v lack performance_below_85pct", got.Flags)
	}
	for _, r := range rows[1:] {
		if r.Result.PerReferenceGPUHour.Valid || slices.Contains(r.Result.Flags, catalog.FlagPerformanceBelow85Pct) {
			t.Errorf("quote %d (another pair) got the measured ratio: %v %v", r.Quote.ID, r.Result.PerReferenceGPUHour, r.Result.Flags)
		}
	}
}

func TestRunMeasuredRatioOverridesTheProfileAndCapsAtOne(t *testing.T) {
	p := profile("100")
	p.PerformanceRatio = decimal.NewNullDecimal(decimal.RequireFromString("0.5"))
	in := input(p)
	in.Performance = map[market.PlatformGPU]decimal.Decimal{
		{PlatformID: 1, GPUModelID: 7}: decimal.RequireFromString("1.25"),        // faster than the reference: counts as 1
		{PlatformID: 2, GPUModelID: 7}: decimal.RequireFromString("0.85"),        // exactly 85 %: not below
		{PlatformID: 3, GPUModelID: 7}: decimal.RequireFromString("0.849999999"), // cut, never rounded up to 0.85
	}
	rows := Run([]Candidate{onPlatform(1, 1, 7, "1"), onPlatform(2, 2, 7, "1"), onPlatform(3, 3, 7, "1"), onPlatform(4, 4, 7, "1")}, in)
	want := []struct {
		perRef string
		below  bool
	}{{"1.0000", false}, {"1.1765", false}, {"1.1765", true}, {"2.0000", true}} // the last keeps the profile's 0.5
	for i, w := range want {
		r := rows[i].Result
		if !rows[i].Priced || r.PerReferenceGPUHour.Decimal.StringFixed(4) != w.perRef ||
			slices.Contains(r.Flags, catalog.FlagPerformanceBelow85Pct) != w.below {
			t.Errorf("quote %d: per reference %v flags %v, want %s below=%v", i+1, r.PerReferenceGPUHour, r.Flags, w.perRef, w.below)
		}
	}
	if rp := rowProfile(onPlatform(9, 3, 7, "1"), in); rp.PerformanceRatio.Decimal.String() != "0.849999" {
		t.Errorf("cut ratio %s, want 0.849999", rp.PerformanceRatio.Decimal)
	}
}
