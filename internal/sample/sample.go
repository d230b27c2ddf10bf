// Package sample is the sample market data an empty database starts with
// (gpuquote seed, make run): the platforms, GPU models and HOSTKEY quotes
// of the two buyer's guides the product is built on. Tests load it the
// same way to check what a newcomer sees.
package sample

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/user"
)

// The sample market comes from the two buyer's guides the product is built
// on (算力租用避坑与选型指南, 2026) and from vendors' published datasheets.
// Every sample names its source and the day it was recorded; none of it is
// live market data, and editors own it after the first start.

// sampleRecorded is the day the samples were recorded.
var sampleRecorded = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

const guideSource = "算力租用避坑与选型指南 (2026) — sample data, not live prices"

func d(s string) decimal.Decimal      { return decimal.RequireFromString(s) }
func nd(s string) decimal.NullDecimal { return decimal.NewNullDecimal(d(s)) }
func ip(n int) *int                   { return &n }
func bp(b bool) *bool                 { return &b }

var samplePlatforms = []market.Platform{
	{NameZH: "HOSTKEY", NameEN: "HOSTKEY", Website: "https://hostkey.com", Country: "NL", Currency: "EUR",
		Notes: "境外主机商，欧元报价：R9700 按小时档 €0.471/h；月付套餐约 €284（定制）/ €118（预配置）/ €70（GPU VPS），规格各不相同。A foreign host quoting in EUR; its monthly packages are different specs from the hourly tier. Source: " + guideSource},
	{NameZH: "AutoDL 算力云", NameEN: "AutoDL", Website: "https://www.autodl.com", Country: "CN", Currency: "CNY", OperatingSince: ip(2021),
		Notes: "成熟镜像、预装框架，GPU 型号最全（3090、4090、A100、A800），高峰期热门卡紧张。Mature images with frameworks preinstalled, the widest GPU range; popular cards are scarce at peak hours. Source: " + guideSource},
	{NameZH: "晨涧云", Country: "CN", Currency: "CNY", ThirdPartyGuarantee: bp(true), GuaranteeNote: "起家于淘宝店铺，纠纷可诉诸平台交易保障 / started as a Taobao shop: disputes can escalate to the marketplace",
		Notes: "性价比取向，长期折扣更大，可选桌面系统，A100 80G / H100 较少。Value-oriented, larger long-term discounts, a desktop OS option, few A100 80G / H100. Source: " + guideSource},
}

// sampleGPUs are datasheet figures; measured reference figures name their
// benchmark. "dense" figures are without structured sparsity.
var sampleGPUs = []market.GPUModel{
	{Vendor: "NVIDIA", Name: "H100 SXM5 80GB", VRAMGB: d("80"), MemoryBandwidthGBs: nd("3350"), Interconnect: "nvlink", InterconnectGBs: nd("900"),
		TDPW: ip(700), BoostClockMHz: ip(1980), Source: "NVIDIA H100 Tensor Core GPU datasheet", Perf: []market.GPUPerf{
			{Precision: "fp32", NominalTFLOPS: d("67"), NominalSource: "NVIDIA H100 datasheet (SXM)"},
			{Precision: "tf32", NominalTFLOPS: d("494.7"), NominalSource: "NVIDIA H100 datasheet (SXM), dense"},
			{Precision: "bf16", NominalTFLOPS: d("989.4"), NominalSource: "NVIDIA H100 datasheet (SXM), dense"},
			{Precision: "fp8", NominalTFLOPS: d("1978.9"), NominalSource: "NVIDIA H100 datasheet (SXM), dense"},
		}},
	{Vendor: "NVIDIA", Name: "H200 SXM 141GB", VRAMGB: d("141"), MemoryBandwidthGBs: nd("4800"), Interconnect: "nvlink", InterconnectGBs: nd("900"),
		TDPW: ip(700), Source: "NVIDIA H200 Tensor Core GPU datasheet", Perf: []market.GPUPerf{
			{Precision: "bf16", NominalTFLOPS: d("989"), NominalSource: "NVIDIA H200 datasheet (SXM), dense",
				MeasuredTFLOPS: nd("770"), MeasuredBenchmark: "BF16 matmul 8192×8192×8192, healthy card",
				MeasuredSource: "lower end of the 770–800 TFLOP/s a healthy H200 measures (product domain reference)"},
		}},
	{Vendor: "NVIDIA", Name: "A100 SXM4 80GB", VRAMGB: d("80"), MemoryBandwidthGBs: nd("2039"), Interconnect: "nvlink", InterconnectGBs: nd("600"),
		TDPW: ip(400), BoostClockMHz: ip(1410), Source: "NVIDIA A100 Tensor Core GPU datasheet", Perf: []market.GPUPerf{
			{Precision: "fp32", NominalTFLOPS: d("19.5"), NominalSource: "NVIDIA A100 datasheet"},
			{Precision: "tf32", NominalTFLOPS: d("156"), NominalSource: "NVIDIA A100 datasheet, dense"},
			{Precision: "bf16", NominalTFLOPS: d("312"), NominalSource: "NVIDIA A100 datasheet, dense"},
		}},
	{Vendor: "NVIDIA", Name: "L40S", VRAMGB: d("48"), MemoryBandwidthGBs: nd("864"), Interconnect: "pcie", InterconnectGBs: nd("64"),
		TDPW: ip(350), BoostClockMHz: ip(2520), Source: "NVIDIA L40S datasheet", Perf: []market.GPUPerf{
			{Precision: "fp32", NominalTFLOPS: d("91.6"), NominalSource: "NVIDIA L40S datasheet"},
			{Precision: "bf16", NominalTFLOPS: d("362.05"), NominalSource: "NVIDIA L40S datasheet, dense"},
			{Precision: "fp8", NominalTFLOPS: d("733"), NominalSource: "NVIDIA L40S datasheet, dense"},
		}},
	{Vendor: "NVIDIA", Name: "GeForce RTX 4090", Aliases: []string{"NVIDIA RTX 4090", "RTX 4090", "4090"}, VRAMGB: d("24"), MemoryBandwidthGBs: nd("1008"), Interconnect: "pcie", InterconnectGBs: nd("32"),
		TDPW: ip(450), BoostClockMHz: ip(2520), Source: "NVIDIA GeForce RTX 4090 specifications; " + guideSource, Perf: []market.GPUPerf{
			{Precision: "bf16", NominalTFLOPS: d("132"), NominalSource: "the nominal figure the guide uses for its 85 % rule (132 → suspect below 112.2)"},
		}},
	{Vendor: "NVIDIA", Name: "GeForce RTX 3090", Aliases: []string{"NVIDIA RTX 3090", "RTX 3090", "3090"}, VRAMGB: d("24"), MemoryBandwidthGBs: nd("936"), Interconnect: "nvlink", InterconnectGBs: nd("112.5"),
		TDPW: ip(350), BoostClockMHz: ip(1695), LoadPowerMinW: ip(280), LoadPowerMaxW: ip(350), LoadClockMinMHz: ip(1600), LoadClockMaxMHz: ip(1800),
		Source: "NVIDIA GeForce RTX 3090 specifications; normal load power 280–350 W and clock 1600–1800 MHz from " + guideSource, Perf: []market.GPUPerf{
			{Precision: "fp32", NominalTFLOPS: d("35.6"), NominalSource: "NVIDIA GeForce RTX 3090 specifications (shader FP32)"},
		}},
	{Vendor: "AMD", Name: "Radeon AI PRO R9700", VRAMGB: d("32"), Interconnect: "pcie",
		Source: "AMD Radeon AI PRO R9700 specifications; the HOSTKEY tier in " + guideSource},
}

// sampleQuotes are the guide's HOSTKEY figures. The monthly packages are
// different specs from the €0.471/h tier (the guide warns of it) and say so.
func sampleQuotes(platformID, gpuID int64) []quote.Quote {
	base := func(label, notes string) quote.Quote {
		return quote.Quote{PlatformID: platformID, GPUModelID: gpuID, Label: label, GPUCount: 1, VRAMGB: nd("32"),
			Sharing: "dedicated", Currency: "EUR", PricesIncludeTax: true, AsOf: sampleRecorded,
			Source: "HOSTKEY GPU server page as cited by " + guideSource, Notes: notes}
	}
	hourly := base("R9700 按小时档 / hourly tier", "€0.471/h: 200 h ≈ €94.2, 730 h ≈ €344, 50 h ≈ €23.6 (guide).")
	hourly.Hourly, hourly.BillingGranularity = nd("0.471"), "second"
	var out []quote.Quote
	out = append(out, hourly)
	for _, p := range []struct{ label, price, kind string }{
		{"GPU VPS 月付套餐（规格与小时档不同）/ monthly GPU VPS package — different spec", "70", "GPU VPS"},
		{"预配置月付套餐（规格与小时档不同）/ monthly preconfigured package — different spec", "118", "preconfigured"},
		{"定制月付套餐（规格与小时档不同）/ monthly custom package — different spec", "284", "custom"},
	} {
		q := base(p.label, "About €"+p.price+" a month ("+p.kind+"). Not the same spec as the €0.471/h tier: align specs before comparing (guide).")
		q.Monthly = nd(p.price)
		out = append(out, q)
	}
	return out
}

// LoadMarket loads the sample platforms, GPU catalog and HOSTKEY quotes
// (published) and says so on stdout.
func LoadMarket(ctx context.Context, st *store.Store, stdout io.Writer) error {
	var hostkey, r9700 int64
	for _, p := range samplePlatforms {
		got, err := st.CreatePlatform(ctx, user.SystemActor, p)
		if err != nil {
			return fmt.Errorf("sample platform %s%s: %w", p.NameEN, p.NameZH, err)
		}
		if p.NameEN == "HOSTKEY" {
			hostkey = got.ID
		}
	}
	for _, g := range sampleGPUs {
		asOf := sampleRecorded
		g.AsOf = &asOf
		got, err := st.CreateGPUModel(ctx, user.SystemActor, g)
		if err != nil {
			return fmt.Errorf("sample GPU %s: %w", g.Name, err)
		}
		if g.Name == "Radeon AI PRO R9700" {
			r9700 = got.ID
		}
	}
	qs := sampleQuotes(hostkey, r9700)
	for _, q := range qs {
		draft, err := st.CreateQuoteDraft(ctx, user.SystemActor, q)
		if err != nil {
			return fmt.Errorf("sample quote %s: %w", q.Label, err)
		}
		if _, err := st.PublishQuote(ctx, user.SystemActor, draft.ID, draft.LockVersion); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "loaded sample market data (%d platforms, %d GPU models, %d HOSTKEY quotes from the guides, recorded %s)\n",
		len(samplePlatforms), len(sampleGPUs), len(qs), sampleRecorded.Format(time.DateOnly))
	return nil
}
