package tco

import (
	"fmt"
	"testing"
	"time"

	"gpuquote/internal/catalog"
)

// benchQuote is a realistic quote with all twelve lines charged.
func benchQuote() Quote {
	f := false
	return Quote{
		Currency: "CNY", GPUModel: "RTX 4090", GPUCount: 8, VRAMGB: nd("24"),
		Sharing: catalog.SharingDedicated, Hourly: nd("2.18"), Monthly: nd("1280"),
		Yearly: nd("13500"), SpotHourly: nd("0.95"), BillingGranularity: catalog.GranularityMinute,
		IncludedMbps: d("10"), IncludedSystemDiskGB: d("50"), IncludedDataDiskGB: d("100"),
		CommitmentMonths: 3, EarlyTerminationPct: nd("20"), Deposit: nd("2000"),
		DepositRefundable: &f, PricesIncludeTax: false, TaxRate: nd("0.06"),
		AsOf: time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC),
		Lines: []Line{
			charged(catalog.ItemBandwidth, catalog.UnitPerDay, "0.8"),
			{Item: catalog.ItemEgress, Status: catalog.StatusCharged, Unit: catalog.UnitPerGB, UnitPrice: nd("0.5"), FreeAllowance: d("100")},
			charged(catalog.ItemDataMigration, catalog.UnitPerGB, "0.2"),
			charged(catalog.ItemPublicIP, catalog.UnitPerHour, "0.02"),
			charged(catalog.ItemSystemDisk, catalog.UnitPerMonth, "0.3"),
			charged(catalog.ItemDataDisk, catalog.UnitPerDay, "0.01"),
			charged(catalog.ItemObjectStorage, catalog.UnitPerMonth, "0.12"),
			charged(catalog.ItemBundledAddon, catalog.UnitFlatMonth, "50"),
			charged(catalog.ItemSnapshot, catalog.UnitPerMonth, "0.15"),
			charged(catalog.ItemImage, catalog.UnitPerMonth, "0.15"),
			charged(catalog.ItemStoppedRetention, catalog.UnitPerHour, "0.3"),
			charged(catalog.ItemStartStopSchedule, catalog.UnitPerEvent, "0.5"),
		},
	}
}

func benchProfile() Profile {
	return Profile{
		HoursPerMonth: d("312.5"), Months: 6, Instances: 2, StartsPerMonth: 22,
		BetweenRuns: catalog.BetweenRunsKeepStopped, Resumable: true,
		Mbps: d("50"), SystemDiskGB: d("100"), DataDiskGB: d("2000"), ObjectStorageGB: d("500"),
		SnapshotGB: d("200"), ImageGB: d("60"), EgressGBPerMonth: d("800"), MigrationGB: d("1500"),
		PublicIPs: 1, TokensPerSecondPerGPU: nd("2400"), PerformanceRatio: nd("0.92"),
		Task: catalog.TaskLoRA, ParamsBillions: nd("13"),
	}
}

func benchOptions() Options {
	return Options{
		ReportCurrency: "EUR", FXRate: nd("0.1281"), FXDate: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Today: time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC),
	}
}

func BenchmarkEvaluate(b *testing.B) {
	q, p, o := benchQuote(), benchProfile(), benchOptions()
	if _, err := Evaluate(q, p, o); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Evaluate(q, p, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompare1000(b *testing.B) {
	quotes := make([]Quote, 1000)
	for i := range quotes {
		q := benchQuote()
		// Vary prices so ranking has work to do.
		q.Hourly = nd(fmt.Sprintf("%d.%02d", 1+i%5, i%100))
		q.Monthly = nd(fmt.Sprintf("%d", 900+i))
		if i%3 == 0 {
			q.Currency = "EUR"
		}
		quotes[i] = q
	}
	p, o := benchProfile(), benchOptions()
	o.Rates = map[string]FX{"CNY": {Rate: d("0.1281"), Date: o.FXDate}}
	for _, c := range Compare(quotes, p, o) {
		if c.Err != nil {
			b.Fatal(c.Err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		Compare(quotes, p, o)
	}
}
