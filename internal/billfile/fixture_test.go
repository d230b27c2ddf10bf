package billfile_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gpuquote/internal/money"
)

// update rewrites the FOCUS fixtures from their generators:
//
//	go test ./internal/billfile -run TestWriteFixture -update
var update = flag.Bool("update", false, "rewrite testdata/focus_*.csv from the generators in fixture_test.go")

// TestWriteFixture keeps the FOCUS fixtures what their generators write:
// the files are committed, and this test (with -update) makes them again.
func TestWriteFixture(t *testing.T) {
	for _, f := range []struct {
		name string
		make func() []byte
	}{{"focus_1_2_month.csv", monthFixture}, {"focus_outside_month.csv", outsideFixture}} {
		path := filepath.Join("testdata", f.name)
		want := f.make()
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what its generator writes; run go test ./internal/billfile -run TestWriteFixture -update", path)
		}
	}
}

// focusFixtureColumns are the month fixture's columns: FOCUS 1.2's that a
// GPU platform fills in (alphabetically, as FOCUS allows), some the reader
// ignores (InvoiceId, RegionId, ResourceId, SkuPriceId, …), then
// gpuquote's custom column.
var focusFixtureColumns = []string{"BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
	"BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription", "ChargeFrequency",
	"ChargePeriodEnd", "ChargePeriodStart", "ConsumedQuantity", "ConsumedUnit", "ContractedCost", "ContractedUnitPrice",
	"EffectiveCost", "InvoiceId", "InvoiceIssuerName", "ListCost", "ListUnitPrice", "PricingCategory", "PricingQuantity",
	"PricingUnit", "ProviderName", "PublisherName", "RegionId", "ResourceId", "ServiceCategory", "ServiceName", "SkuId",
	"SkuPriceId", "x_GpuquoteItem"}

// charge is one row of a fixture.
type charge struct {
	day, days                 int // the charge period: from day, days long (November 2026)
	sku, desc, category, freq string
	consumed, consumedUnit    string // "" = null
	qty, unit                 string // pricing quantity and unit ("" = null)
	price, list               string // contracted and list unit price ("" = null)
	cost                      string // the cost when not price × qty
	resource, service, svcCat string
	item                      string // x_GpuquoteItem
}

func (c charge) record() []string {
	from := fmt.Sprintf("2026-11-%02dT00:00:00Z", c.day)
	to := fmt.Sprintf("2026-11-%02dT00:00:00Z", c.day+c.days)
	if c.day+c.days == 31 {
		to = "2026-12-01T00:00:00Z"
	}
	mul := func(a, b string) string {
		if a == "" || b == "" {
			return ""
		}
		return money.String(money.Product(money.MustParse(a), money.MustParse(b)))
	}
	cost := c.cost
	if cost == "" {
		cost = mul(c.price, c.qty)
	}
	listCost := mul(c.list, c.qty)
	if listCost == "" {
		listCost = cost
	}
	pricing := "Standard"
	if c.category != "Usage" && c.category != "Purchase" {
		pricing = ""
	}
	return []string{cost, "acct-7731", "Research lab", "USD", "2026-12-01T00:00:00Z", "2026-11-01T00:00:00Z",
		c.category, "", c.desc, c.freq, to, from, c.consumed, c.consumedUnit, cost, c.price,
		cost, "INV-2026-11-0042", "Example GPU Cloud", listCost, c.list, pricing, c.qty,
		c.unit, "Example GPU Cloud", "Example GPU Cloud", "eu-central-1", c.resource, c.svcCat, c.service, c.sku,
		c.sku, c.item}
}

func writeFixture(header []string, rows [][]string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(header)
	_ = w.WriteAll(rows)
	return buf.Bytes()
}

// monthFixture is a month of a GPU platform's FOCUS 1.2 export, November
// 2026, 202 rows: two on-demand H100 instances by the day, spot hours
// named by x_GpuquoteItem, egress (its first five days named by
// x_GpuquoteItem too, days 15 and 16 with a ContractedCost that is not
// price × quantity), public IPs, a data disk and snapshots by the day,
// three SKUs the tests' mapping does not know (a support plan, object
// storage requests, a driver licence), a promotional credit without a SKU
// and a burst fee known by nothing.
func monthFixture() []byte {
	var rows [][]string
	add := func(c charge) { rows = append(rows, c.record()) }
	for day := 1; day <= 30; day++ {
		for _, inst := range []struct {
			id    string
			hours int
		}{{"i-0a1", 24}, {"i-0b2", 8 + day%5*2}} {
			h := fmt.Sprint(inst.hours)
			add(charge{day: day, days: 1, sku: "gpu.h100.1x.ondemand", desc: "NVIDIA H100 80GB x1, on demand, per hour",
				category: "Usage", freq: "Usage-Based", consumed: h, consumedUnit: "Hours", qty: h, unit: "Hours",
				price: "2.49", list: "2.99", resource: inst.id, service: "GPU Instances", svcCat: "Compute"})
		}
	}
	for day := 1; day <= 10; day++ {
		add(charge{day: day, days: 1, sku: "gpu.h100.1x.spot", desc: "NVIDIA H100 80GB x1, spot, per hour",
			category: "Usage", freq: "Usage-Based", consumed: "6", consumedUnit: "Hours", qty: "6", unit: "Hours",
			price: "1.2", list: "2.99", resource: "i-0c3", service: "GPU Instances", svcCat: "Compute", item: "compute_spot"})
	}
	for day := 1; day <= 30; day++ {
		gb := money.String(money.Add(money.MustParse("3"), money.Product(money.MustParse("1.5"), money.MustParse(fmt.Sprint(day%7)))))
		c := charge{day: day, days: 1, sku: "net.egress.internet", desc: "Internet egress, per GB", category: "Usage",
			freq: "Usage-Based", consumed: gb, consumedUnit: "GB", qty: gb, unit: "GB", price: "0.01", list: "0.012",
			resource: "i-0a1", service: "Networking", svcCat: "Networking"}
		if day <= 5 {
			c.item = "egress"
		}
		if day == 15 || day == 16 {
			c.cost = money.String(money.Add(money.Product(money.MustParse("0.01"), money.MustParse(gb)), money.MustParse("0.01")))
		}
		add(c)
	}
	for day := 1; day <= 30; day++ {
		add(charge{day: day, days: 1, sku: "net.ipv4.public", desc: "Public IPv4 address, per hour", category: "Usage",
			freq: "Usage-Based", consumed: "48", consumedUnit: "Hours", qty: "48", unit: "Hours", price: "0.005",
			list: "0.005", resource: "ip-pool-1", service: "Networking", svcCat: "Networking"})
	}
	for day := 1; day <= 30; day++ {
		add(charge{day: day, days: 1, sku: "storage.ssd.gb-hour", desc: "SSD data disk, per GB-hour", category: "Usage",
			freq: "Usage-Based", consumed: "12000", consumedUnit: "GB-Hours", qty: "12000", unit: "GB-Hours",
			price: "0.0001", list: "0.00012", resource: "vol-9f1", service: "Block Storage", svcCat: "Storage"})
	}
	for day := 11; day <= 30; day++ {
		add(charge{day: day, days: 1, sku: "storage.snapshot.gb-hour", desc: "Snapshot storage, per GB-hour",
			category: "Usage", freq: "Usage-Based", consumed: "4800", consumedUnit: "GB-Hours", qty: "4800",
			unit: "GB-Hours", price: "0.00005", list: "0.00005", resource: "snap-31", service: "Block Storage",
			svcCat: "Storage"})
	}
	add(charge{day: 1, days: 30, sku: "support.business.monthly", desc: "Business support plan, November",
		category: "Purchase", freq: "Recurring", qty: "1", unit: "Months", price: "49", list: "49",
		service: "Support", svcCat: "Other"})
	for day := 1; day <= 15; day++ {
		add(charge{day: day, days: 1, sku: "storage.object.requests", desc: "Object storage requests, per 10,000",
			category: "Usage", freq: "Usage-Based", consumed: "30000", consumedUnit: "Requests", qty: "3",
			unit: "10000 Requests", price: "0.004", list: "0.004", resource: "bucket-ml", service: "Object Storage",
			svcCat: "Storage"})
	}
	for day := 27; day <= 30; day++ {
		add(charge{day: day, days: 1, sku: "gpu.driver.license", desc: "GPU driver licence, per day", category: "Usage",
			freq: "Usage-Based", consumed: "1", consumedUnit: "Days", qty: "1", unit: "Days", price: "0.5", list: "0.5",
			resource: "i-0a1", service: "Licences", svcCat: "Other"})
	}
	add(charge{day: 1, days: 30, desc: "Promotional credit", category: "Credit", freq: "One-Time", cost: "-25",
		service: "GPU Instances", svcCat: "Compute"})
	add(charge{day: 20, days: 1, desc: "Bandwidth burst fee", category: "Adjustment", freq: "One-Time", cost: "1.5",
		service: "Networking", svcCat: "Networking"})
	return writeFixture(focusFixtureColumns, rows)
}

// outsideFixture is a short FOCUS file whose columns come in another order
// (and another case), with a row in December on line 5; the row on line 4
// ends on the first instant of December, which is still November's.
func outsideFixture() []byte {
	header := []string{"x_GpuquoteItem", "chargeperiodstart", "ChargePeriodEnd", "SkuId", "ChargeDescription",
		"BillingCurrency", "BilledCost", "PricingQuantity", "RegionId"}
	rows := [][]string{
		{"compute_hourly", "2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", "gpu.h100.1x.ondemand", "H100 hours", "EUR", "11.304", "24", "eu"},
		{"", "2026-11-02T00:00:00Z", "2026-11-03T00:00:00Z", "net.egress.internet", "Egress", "EUR", "0.12", "12", "eu"},
		{"public_ip", "2026-11-30T00:00:00Z", "2026-12-01T00:00:00Z", "", "Public IP", "EUR", "0.1", "24", "eu"},
		{"compute_hourly", "2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z", "gpu.h100.1x.ondemand", "H100 hours", "EUR", "11.304", "24", "eu"},
		{"data_disk", "2026-11-03T00:00:00Z", "2026-11-04T00:00:00Z", "", "Data disk", "EUR", "0.04", "100", "eu"},
	}
	return writeFixture(header, rows)
}
