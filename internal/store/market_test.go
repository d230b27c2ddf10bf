package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

func mkPtr[T any](v T) *T { return &v }

func mkDec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func mkNullDec(s string) decimal.NullDecimal {
	return decimal.NullDecimal{Decimal: mkDec(s), Valid: true}
}

func TestPlatformCreateUpdateAudit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	p, err := st.CreatePlatform(ctx, actor, market.Platform{
		NameZH: " 晨涧云 ", NameEN: "Chenjian Cloud", Website: "https://example.test", Country: "CN", Currency: "CNY",
		OperatingSince: mkPtr(2021), IDCLicence: mkPtr(true), ISO27001: mkPtr(false),
		ThirdPartyGuarantee: mkPtr(true), GuaranteeNote: "Taobao shop", SupportChannel: "chat_group",
		BillingGranularities: []string{"second", "hour"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p.ID == 0 || p.LockVersion != 1 || p.NameZH != "晨涧云" || *p.OperatingSince != 2021 {
		t.Fatalf("created: %+v", p)
	}
	if p.ISPLicence != nil || p.MLPS3 != nil || !*p.IDCLicence || *p.ISO27001 {
		t.Fatalf("qualifications must keep unknown/yes/no apart: %+v", p)
	}
	got, err := st.PlatformByID(ctx, p.ID)
	if err != nil || !slices.Equal(got.BillingGranularities, []string{"second", "hour"}) || got.SupportChannel != "chat_group" {
		t.Fatalf("by id: %+v %v", got, err)
	}

	p.NameEN = "Chenjian"
	p.MLPS3 = mkPtr(true)
	p.IDCLicence = nil
	upd, err := st.UpdatePlatform(ctx, actor, p)
	if err != nil {
		t.Fatal(err)
	}
	if upd.LockVersion != 2 || upd.NameEN != "Chenjian" || upd.IDCLicence != nil || !*upd.MLPS3 {
		t.Fatalf("updated: %+v", upd)
	}

	recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "platform"})
	if err != nil || len(recs) != 2 {
		t.Fatalf("audit: %d records, %v", len(recs), err)
	}
	if recs[0].Action != store.ActionPlatformUpdate || recs[1].Action != store.ActionPlatformCreate ||
		recs[0].EntityID != mkID(p.ID) || recs[0].ActorEmail != actor.Email {
		t.Fatalf("audit records: %+v", recs)
	}
	var before, after market.Platform
	if err := json.Unmarshal(recs[0].Before, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(recs[0].After, &after); err != nil {
		t.Fatal(err)
	}
	if before.NameEN != "Chenjian Cloud" || before.LockVersion != 1 || after.NameEN != "Chenjian" || after.LockVersion != 2 {
		t.Fatalf("audit before/after: %+v / %+v", before, after)
	}
	if string(recs[1].Before) != "null" {
		t.Fatalf("create has no before: %s", recs[1].Before)
	}
}

func mkID(id int64) string { return strconv.FormatInt(id, 10) }

func TestPlatformOptimisticLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	p, err := st.CreatePlatform(ctx, actor, market.Platform{NameEN: "AutoDL", Currency: "CNY"})
	if err != nil {
		t.Fatal(err)
	}
	first, second := p, p
	first.Notes = "first"
	if _, err := st.UpdatePlatform(ctx, actor, first); err != nil {
		t.Fatal(err)
	}
	auditRows := count(t, st, "audit_log")
	second.Notes = "second"
	if _, err := st.UpdatePlatform(ctx, actor, second); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale lock_version: %v, want ErrConflict", err)
	}
	if got, _ := st.PlatformByID(ctx, p.ID); got.Notes != "first" || got.LockVersion != 2 {
		t.Fatalf("after the lost update: %+v", got)
	}
	if n := count(t, st, "audit_log"); n != auditRows {
		t.Fatalf("a refused update wrote %d audit rows", n-auditRows)
	}
	missing := p
	missing.ID = p.ID + 1000
	if _, err := st.UpdatePlatform(ctx, actor, missing); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing id: %v, want ErrNotFound", err)
	}
	if _, err := st.PlatformByID(ctx, missing.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("by missing id: %v", err)
	}
}

func TestPlatformUniqueNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	a, err := st.CreatePlatform(ctx, actor, market.Platform{NameZH: "算力云", NameEN: "HOSTKEY", Currency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	var taken *store.NameTakenError
	_, err = st.CreatePlatform(ctx, actor, market.Platform{NameEN: "hostkey", Currency: "EUR"})
	if !errors.Is(err, store.ErrNameTaken) || !errors.As(err, &taken) || taken.Field != "name_en" {
		t.Fatalf("English name, other case: %v", err)
	}
	_, err = st.CreatePlatform(ctx, actor, market.Platform{NameZH: "算力云", Currency: "CNY"})
	if !errors.As(err, &taken) || taken.Field != "name_zh" {
		t.Fatalf("same Chinese name: %v", err)
	}
	// Empty names never clash with each other.
	b, err := st.CreatePlatform(ctx, actor, market.Platform{NameZH: "另一家", Currency: "CNY"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreatePlatform(ctx, actor, market.Platform{NameZH: "第三家", Currency: "CNY"}); err != nil {
		t.Fatalf("two platforms without an English name: %v", err)
	}
	b.NameEN = "HostKey"
	if _, err := st.UpdatePlatform(ctx, actor, b); !errors.As(err, &taken) || taken.Field != "name_en" {
		t.Fatalf("rename onto a taken name: %v", err)
	}
	if got, _ := st.PlatformByID(ctx, b.ID); got.NameEN != "" || got.LockVersion != 1 {
		t.Fatalf("refused rename changed the row: %+v", got)
	}
	_ = a
}

func TestPlatformsFilterAndPaging(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	for _, p := range []market.Platform{
		{NameEN: "Beta", Currency: "CNY", ISO27001: mkPtr(true)},
		{NameEN: "alpha", Currency: "CNY", ISO27001: mkPtr(false)},
		{NameZH: "晨涧云", Currency: "CNY"},
		{NameEN: "100%_GPU", Currency: "USD", ISO27001: mkPtr(true), MLPS3: mkPtr(true)},
	} {
		if _, err := st.CreatePlatform(ctx, actor, p); err != nil {
			t.Fatal(err)
		}
	}
	names := func(ps []market.Platform) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.NameEN+p.NameZH)
		}
		return out
	}
	ps, total, err := st.Platforms(ctx, store.PlatformFilter{Limit: 2})
	if err != nil || total != 4 || !slices.Equal(names(ps), []string{"100%_GPU", "alpha"}) {
		t.Fatalf("page 1: %v total %d %v", names(ps), total, err)
	}
	ps, total, _ = st.Platforms(ctx, store.PlatformFilter{Offset: 2, Limit: 2})
	if total != 4 || !slices.Equal(names(ps), []string{"Beta", "晨涧云"}) {
		t.Fatalf("page 2: %v total %d", names(ps), total)
	}
	ps, total, _ = st.Platforms(ctx, store.PlatformFilter{Offset: 10, Limit: 2})
	if total != 4 || len(ps) != 0 {
		t.Fatalf("past the end: %v total %d", names(ps), total)
	}
	ps, _, _ = st.Platforms(ctx, store.PlatformFilter{Query: "%_"})
	if !slices.Equal(names(ps), []string{"100%_GPU"}) {
		t.Fatalf("wildcards match literally: %v", names(ps))
	}
	ps, _, _ = st.Platforms(ctx, store.PlatformFilter{Query: "晨涧"})
	if !slices.Equal(names(ps), []string{"晨涧云"}) {
		t.Fatalf("Chinese name search: %v", names(ps))
	}
	for _, c := range []struct {
		qual, has string
		want      []string
	}{
		{"iso27001", "", []string{"100%_GPU", "Beta"}},
		{"iso27001", "yes", []string{"100%_GPU", "Beta"}},
		{"iso27001", "no", []string{"alpha"}},
		{"iso27001", "unknown", []string{"晨涧云"}},
		{"mlps3", "unknown", []string{"alpha", "Beta", "晨涧云"}},
		{"not a column", "yes", []string{"100%_GPU", "alpha", "Beta", "晨涧云"}},
	} {
		ps, total, err := st.Platforms(ctx, store.PlatformFilter{Qualification: c.qual, Has: c.has})
		if err != nil || total != len(c.want) || !slices.Equal(names(ps), c.want) {
			t.Errorf("%s=%s: %v (total %d, %v), want %v", c.qual, c.has, names(ps), total, err, c.want)
		}
	}
	all, err := st.AllPlatforms(ctx)
	if err != nil || !slices.Equal(names(all), []string{"100%_GPU", "alpha", "Beta", "晨涧云"}) {
		t.Fatalf("all: %v %v", names(all), err)
	}
}

func mkH200() market.GPUModel {
	asOf := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	return market.GPUModel{
		Vendor: "NVIDIA", Name: "H200 SXM", VRAMGB: mkDec("141"), MemoryBandwidthGBs: mkNullDec("4800"),
		Interconnect: "nvlink", InterconnectGBs: mkNullDec("900"), TDPW: mkPtr(700), BoostClockMHz: mkPtr(1980),
		LoadPowerMinW: mkPtr(550), LoadPowerMaxW: mkPtr(700), LoadClockMinMHz: mkPtr(1600), LoadClockMaxMHz: mkPtr(1980),
		Source: "vendor datasheet", AsOf: &asOf,
		Perf: []market.GPUPerf{
			// Given out of order: stored and returned in PerfPrecisions order.
			{Precision: "bf16", NominalTFLOPS: mkDec("989.5"), NominalSource: "datasheet",
				MeasuredTFLOPS: mkNullDec("785.123"), MeasuredBenchmark: "8192³ matmul", MeasuredSource: "own trial"},
			{Precision: "fp32", NominalTFLOPS: mkDec("67"), NominalSource: "datasheet"},
		},
	}
}

func TestGPUModelCreateUpdateAudit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	g, err := st.CreateGPUModel(ctx, actor, mkH200())
	if err != nil {
		t.Fatal(err)
	}
	if g.ID == 0 || g.LockVersion != 1 || len(g.Perf) != 2 || g.Perf[0].Precision != "fp32" || g.Perf[1].Precision != "bf16" {
		t.Fatalf("created: %+v", g)
	}
	got, err := st.GPUModelByID(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Numerics come back exactly, never through float64.
	bf16, ok := got.PerfFor("bf16")
	if !ok || !bf16.NominalTFLOPS.Equal(mkDec("989.5")) || bf16.MeasuredTFLOPS.Decimal.String() != "785.123" ||
		bf16.MeasuredBenchmark != "8192³ matmul" || bf16.Sparse {
		t.Fatalf("bf16 figure: %+v", bf16)
	}
	if fp32, _ := got.PerfFor("fp32"); fp32.MeasuredTFLOPS.Valid {
		t.Fatalf("fp32 has no measured figure: %+v", fp32)
	}
	if !got.VRAMGB.Equal(mkDec("141")) || !got.MemoryBandwidthGBs.Valid || !got.MemoryBandwidthGBs.Decimal.Equal(mkDec("4800")) ||
		*got.LoadPowerMinW != 550 || got.AsOf.Format(time.DateOnly) != "2026-03-01" || got.Interconnect != "nvlink" {
		t.Fatalf("by id: %+v", got)
	}

	// An update replaces the perf rows: bf16 goes, fp8 (sparse) comes.
	upd := got
	upd.MemoryBandwidthGBs = decimal.NullDecimal{}
	upd.TDPW = nil
	upd.Perf = []market.GPUPerf{
		{Precision: "fp32", NominalTFLOPS: mkDec("67"), NominalSource: "datasheet"},
		{Precision: "fp8", NominalTFLOPS: mkDec("3958"), Sparse: true, NominalSource: "datasheet"},
	}
	after, err := st.UpdateGPUModel(ctx, actor, upd)
	if err != nil {
		t.Fatal(err)
	}
	if after.LockVersion != 2 || after.MemoryBandwidthGBs.Valid || after.TDPW != nil || len(after.Perf) != 2 {
		t.Fatalf("updated: %+v", after)
	}
	if _, ok := after.PerfFor("bf16"); ok {
		t.Fatal("bf16 row survived the replacement")
	}
	if fp8, ok := after.PerfFor("fp8"); !ok || !fp8.Sparse || fp8.NominalTFLOPS.String() != "3958" {
		t.Fatalf("fp8 row: %+v", fp8)
	}
	if n := count(t, st, "gpu_model_perf"); n != 2 {
		t.Fatalf("perf rows in the table: %d, want 2", n)
	}

	recs, err := st.AuditLog(ctx, store.AuditFilter{Entity: "gpu_model"})
	if err != nil || len(recs) != 2 || recs[0].Action != store.ActionGPUModelUpdate || recs[1].Action != store.ActionGPUModelCreate {
		t.Fatalf("audit: %+v %v", recs, err)
	}
	var before, afterRec market.GPUModel
	if err := json.Unmarshal(recs[0].Before, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(recs[0].After, &afterRec); err != nil {
		t.Fatal(err)
	}
	if _, ok := before.PerfFor("bf16"); !ok || len(afterRec.Perf) != 2 || afterRec.LockVersion != 2 {
		t.Fatalf("audit before/after perf: %+v / %+v", before.Perf, afterRec.Perf)
	}
	if b, _ := before.PerfFor("bf16"); b.MeasuredTFLOPS.Decimal.String() != "785.123" {
		t.Fatalf("audited decimal: %s", b.MeasuredTFLOPS.Decimal)
	}
}

func TestGPUModelLockNameAndFailedPerf(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	g, err := st.CreateGPUModel(ctx, actor, mkH200())
	if err != nil {
		t.Fatal(err)
	}
	stale := g
	g.Notes = "first"
	if _, err := st.UpdateGPUModel(ctx, actor, g); err != nil {
		t.Fatal(err)
	}
	stale.Notes = "second"
	stale.Perf = nil
	if _, err := st.UpdateGPUModel(ctx, actor, stale); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale lock_version: %v", err)
	}
	if got, _ := st.GPUModelByID(ctx, g.ID); got.Notes != "first" || len(got.Perf) != 2 {
		t.Fatalf("after the lost update: %+v", got)
	}
	missing := g
	missing.ID += 1000
	if _, err := st.UpdateGPUModel(ctx, actor, missing); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing id: %v", err)
	}
	if _, err := st.GPUModelByID(ctx, missing.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("by missing id: %v", err)
	}

	// Vendor and name are unique case-insensitively.
	dup := mkH200()
	dup.Vendor, dup.Name = "nvidia", "h200 sxm"
	var taken *store.NameTakenError
	if _, err := st.CreateGPUModel(ctx, actor, dup); !errors.As(err, &taken) || taken.Field != "name" {
		t.Fatalf("duplicate model: %v", err)
	}

	// A perf row the database refuses (measured without a benchmark) rolls
	// back the whole update: model, rows and audit.
	cur, _ := st.GPUModelByID(ctx, g.ID)
	audits := count(t, st, "audit_log")
	bad := cur
	bad.Notes = "bad"
	bad.Perf = []market.GPUPerf{{Precision: "bf16", NominalTFLOPS: mkDec("989"), MeasuredTFLOPS: mkNullDec("700")}}
	if _, err := st.UpdateGPUModel(ctx, actor, bad); err == nil {
		t.Fatal("measured figure without a benchmark was stored")
	}
	if got, _ := st.GPUModelByID(ctx, g.ID); got.Notes != "first" || got.LockVersion != cur.LockVersion || len(got.Perf) != 2 {
		t.Fatalf("failed update left changes: %+v", got)
	}
	if n := count(t, st, "audit_log"); n != audits {
		t.Fatalf("failed update wrote %d audit rows", n-audits)
	}
}

func TestGPUModelsFilterAndPaging(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	for _, m := range []struct{ vendor, name, ic string }{
		{"NVIDIA", "RTX 4090", "pcie"}, {"AMD", "Radeon AI PRO R9700", "pcie"}, {"NVIDIA", "A100 80G", "nvlink"},
	} {
		g := market.GPUModel{Vendor: m.vendor, Name: m.name, VRAMGB: mkDec("24"), Interconnect: m.ic,
			Perf: []market.GPUPerf{{Precision: "fp32", NominalTFLOPS: mkDec("82.6"), NominalSource: "spec"}}}
		if _, err := st.CreateGPUModel(ctx, actor, g); err != nil {
			t.Fatal(err)
		}
	}
	names := func(gs []market.GPUModel) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.Vendor+" "+g.Name)
		}
		return out
	}
	gs, total, err := st.GPUModels(ctx, store.GPUModelFilter{Limit: 2})
	if err != nil || total != 3 || !slices.Equal(names(gs), []string{"AMD Radeon AI PRO R9700", "NVIDIA A100 80G"}) {
		t.Fatalf("page 1: %v %d %v", names(gs), total, err)
	}
	if len(gs[0].Perf) != 1 || !gs[0].Perf[0].NominalTFLOPS.Equal(mkDec("82.6")) {
		t.Fatalf("list rows carry their perf: %+v", gs[0].Perf)
	}
	gs, total, _ = st.GPUModels(ctx, store.GPUModelFilter{Offset: 5, Limit: 2})
	if total != 3 || len(gs) != 0 {
		t.Fatalf("past the end: %d rows, total %d", len(gs), total)
	}
	gs, _, _ = st.GPUModels(ctx, store.GPUModelFilter{Query: "nvidia rtx"})
	if !slices.Equal(names(gs), []string{"NVIDIA RTX 4090"}) {
		t.Fatalf("vendor and name together: %v", names(gs))
	}
	gs, _, _ = st.GPUModels(ctx, store.GPUModelFilter{Interconnect: "nvlink"})
	if !slices.Equal(names(gs), []string{"NVIDIA A100 80G"}) {
		t.Fatalf("interconnect filter: %v", names(gs))
	}
	all, err := st.AllGPUModels(ctx)
	if err != nil || len(all) != 3 || len(all[2].Perf) != 1 {
		t.Fatalf("all: %v %v", names(all), err)
	}
}
