package sample

import (
	"context"
	"fmt"
	"io"
	"time"

	"gpuquote/internal/own"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
)

// The sample own-hardware options (docs/RULES.md §17.4): one per currency
// the sample market quotes in, each stated as an example with its source
// and date, and the electricity prices of the regions they name. Like the
// rest of the sample data they are shared, owned by nobody, and meant to be
// replaced by the team's own figures.

const sampleElectricitySource = "示例数据 sample data — illustrative tariff, replace with your own dated price"

// sampleElectricity are the electricity prices of the sample options'
// regions.
var sampleElectricity = []own.ElectricityPrice{
	{Region: "CN-Beijing", Currency: "CNY", KWhPrice: d("0.8"), AsOf: sampleRecorded, Source: sampleElectricitySource},
	{Region: "NL", Currency: "EUR", KWhPrice: d("0.25"), AsOf: sampleRecorded, Source: sampleElectricitySource},
}

// sampleOwn are the sample options, by GPU model name.
var sampleOwn = []struct {
	gpu string
	v   own.Version
}{
	// The guides put an RTX 4090 workstation at "两三万" (CNY 20,000–30,000):
	// the middle of that range.
	{"GeForce RTX 4090", own.Version{Name: "示例：RTX 4090 工作站 / example: RTX 4090 workstation", GPUCount: 1, Currency: "CNY",
		PurchasePrice: d("25000"), PurchaseAsOf: sampleRecorded,
		PurchaseSource: "guide, 2026: " + guideSource + " — an RTX 4090 workstation costs 两三万 (CNY 20,000–30,000); 25,000 is the middle",
		LifeMonths:     36, PowerLoadW: d("600"), PowerIdleW: d("80"), PUE: d("1"), ElectricityRegion: "CN-Beijing",
		PricesIncludeTax: true, ResidualPct: d("0"), CapitalRatePerYear: d("0"),
		Notes: "示例数据：购置价取指南区间的中值，功耗为整机估计。Sample data: the guide's range, mid-point; power is an estimate for the whole machine."}},
	// No guide prices a server in euros: this one is an illustration only.
	{"Radeon AI PRO R9700", own.Version{Name: "Example: Radeon AI PRO R9700 workstation (EUR)", GPUCount: 1, Currency: "EUR",
		PurchasePrice: d("3500"), PurchaseAsOf: sampleRecorded,
		PurchaseSource: "示例数据 sample data — illustrative figure, not a market price; replace with a vendor's offer",
		LifeMonths:     36, PowerLoadW: d("450"), PowerIdleW: d("60"), PUE: d("1"), ElectricityRegion: "NL",
		PricesIncludeTax: true, ResidualPct: d("0"), CapitalRatePerYear: d("0"),
		Notes: "Illustration beside the HOSTKEY R9700 hourly tier; every figure is an example."}},
}

// LoadOwn loads the sample electricity prices and own-hardware options
// (after LoadMarket, whose GPU models they name) and says so on stdout.
func LoadOwn(ctx context.Context, st *store.Store, stdout io.Writer) error {
	for _, p := range sampleElectricity {
		if _, err := st.CreateElectricityPrice(ctx, user.SystemActor, p); err != nil {
			return fmt.Errorf("sample electricity price %s: %w", p.Region, err)
		}
	}
	_, gpus, err := st.QuoteRefNames(ctx)
	if err != nil {
		return err
	}
	ids := map[string]int64{}
	for _, g := range gpus {
		ids[g.Names[1]] = g.ID
	}
	for _, o := range sampleOwn {
		id, ok := ids[o.gpu]
		if !ok {
			return fmt.Errorf("sample own-hardware option %s: no GPU model %q", o.v.Name, o.gpu)
		}
		o.v.GPUModelID = id
		if _, err := st.CreateOwnOption(ctx, user.SystemActor, o.v, true); err != nil {
			return fmt.Errorf("sample own-hardware option %s: %w", o.v.Name, err)
		}
	}
	fmt.Fprintf(stdout, "loaded %d sample own-hardware options and %d electricity prices (examples dated %s: replace them with your own)\n",
		len(sampleOwn), len(sampleElectricity), sampleRecorded.Format(time.DateOnly))
	return nil
}
