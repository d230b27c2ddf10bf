package store_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/trial"
)

// trialMarket stores a platform, a GPU model with a bf16 figure and a
// published quote of it, and returns the quote.
func trialMarket(t *testing.T, st *store.Store, platform, gpu string) quote.Quote {
	t.Helper()
	ctx := context.Background()
	p, err := st.CreatePlatform(ctx, actor, market.Platform{NameZH: platform, NameEN: platform, Currency: "CNY"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateGPUModel(ctx, actor, market.GPUModel{Vendor: "NVIDIA", Name: gpu, VRAMGB: mkDec("24"), Interconnect: "pcie",
		Perf: []market.GPUPerf{{Precision: "bf16", NominalTFLOPS: mkDec("132"), NominalSource: "guide"}}})
	if err != nil {
		t.Fatal(err)
	}
	return trialQuote(t, st, p.ID, g.ID)
}

// trialQuote publishes a quote of a platform and GPU model.
func trialQuote(t *testing.T, st *store.Store, platformID, gpuID int64) quote.Quote {
	t.Helper()
	ctx := context.Background()
	d, err := st.CreateQuoteDraft(ctx, actor, quote.Quote{PlatformID: platformID, GPUModelID: gpuID, GPUCount: 1, Sharing: "dedicated",
		Currency: "CNY", Hourly: mkNullDec("1.98"), BillingGranularity: "second", PricesIncludeTax: true,
		AsOf: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := st.PublishQuote(ctx, actor, d.ID, d.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestTrialOpensOnlyForPublishedQuotes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	q := trialMarket(t, st, "AutoDL", "GeForce RTX 4090")
	tr, err := st.CreateTrial(ctx, actor, trial.Start{QuoteID: q.ID, StartedOn: time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC), Note: " 先试一周 "})
	if err != nil {
		t.Fatal(err)
	}
	if tr.PlatformID != q.PlatformID || tr.GPUModelID != q.GPUModelID || tr.Verdict != trial.InProgress ||
		tr.StartedOn.Format(time.DateOnly) != "2026-03-02" || tr.Note != "先试一周" || tr.PlatformNameEN != "AutoDL" {
		t.Fatalf("trial: %+v", tr)
	}
	draft, err := st.CreateQuoteDraft(ctx, actor, quote.Quote{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID, GPUCount: 1,
		Sharing: "dedicated", Currency: "CNY", Monthly: mkNullDec("999"), PricesIncludeTax: true, AsOf: q.AsOf, Source: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateTrial(ctx, actor, trial.Start{QuoteID: draft.ID, StartedOn: q.AsOf}); !errors.Is(err, store.ErrTrialQuote) {
		t.Fatalf("trial of a draft: %v", err)
	}
	if _, err := st.CreateTrial(ctx, actor, trial.Start{QuoteID: 999999, StartedOn: q.AsOf}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("trial of no quote: %v", err)
	}
	recs, err := st.AuditLog(ctx, store.AuditFilter{Action: store.ActionTrialCreate})
	if err != nil || len(recs) != 1 || recs[0].EntityID != strconv.FormatInt(tr.ID, 10) {
		t.Fatalf("audit: %+v %v", recs, err)
	}
}

func TestTrialResultsAreHistoryAndTheLatestDecides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	q := trialMarket(t, st, "AutoDL", "GeForce RTX 3090")
	tr, err := st.CreateTrial(ctx, actor, trial.Start{QuoteID: q.ID, StartedOn: q.AsOf})
	if err != nil {
		t.Fatal(err)
	}
	// A later-day failure: concerns.
	got, err := st.RecordTrialResults(ctx, actor, tr.ID, nil, []trial.Record{
		{Check: 11, State: trial.Fail, Measured: "420 MHz", Note: "SM clock locked under load"},
		{Check: 1, State: trial.Pass},
	})
	if err != nil || got.Verdict != trial.Concerns {
		t.Fatalf("after a check-11 failure: %v %v", got.Verdict, err)
	}
	// A day-1 failure: exit, whatever else.
	got, err = st.RecordTrialResults(ctx, actor, tr.ID, nil, []trial.Record{{Check: 2, State: trial.Fail, Measured: "12288 MiB"}})
	if err != nil || got.Verdict != trial.Exit {
		t.Fatalf("after a day-1 failure: %v %v", got.Verdict, err)
	}
	// Corrections are new rows; the latest of each check wins.
	got, err = st.RecordTrialResults(ctx, actor, tr.ID, nil, []trial.Record{{Check: 2, State: trial.Pass, Note: "re-measured"}})
	if err != nil || got.Verdict != trial.Concerns {
		t.Fatalf("after correcting check 2: %v %v", got.Verdict, err)
	}
	results, err := st.TrialResults(ctx, tr.ID)
	if err != nil || len(results) != 4 || results[2].State != trial.Fail || results[3].State != trial.Pass || results[0].Measured != "420 MHz" {
		t.Fatalf("history: %+v %v", results, err)
	}
	// The evidence is append-only.
	for _, sql := range []string{
		`UPDATE trial_check_results SET state = 'pass' WHERE trial_id = $1`,
		`DELETE FROM trial_check_results WHERE trial_id = $1`,
	} {
		if _, err := st.Pool().Exec(ctx, sql, tr.ID); err == nil {
			t.Errorf("%s: allowed", sql)
		}
	}
	// A paste is stored with its checks, and results point at it.
	paste := &trial.Paste{Output: "index, name\n0, NVIDIA GeForce RTX 3090", Format: "csv", Samples: 1,
		Checks: []trial.PasteCheck{{Key: "model_matches", TrialCheck: 1, Outcome: "pass", MessageID: "verify.model.pass",
			Args: map[string]any{"Reported": "NVIDIA GeForce RTX 3090", "Ordered": "NVIDIA GeForce RTX 3090"}}}}
	if _, err := st.RecordTrialResults(ctx, actor, tr.ID, paste, []trial.Record{{Check: 1, State: trial.Pass,
		Reasons: []trial.Reason{{MessageID: "verify.model.pass", Args: map[string]any{"Ordered": "NVIDIA GeForce RTX 3090"}}}}}); err != nil {
		t.Fatal(err)
	}
	pastes, err := st.TrialPastes(ctx, tr.ID)
	if err != nil || len(pastes) != 1 || pastes[0].Checks[0].Args["Reported"] != "NVIDIA GeForce RTX 3090" || pastes[0].Format != "csv" {
		t.Fatalf("pastes: %+v %v", pastes, err)
	}
	results, _ = st.TrialResults(ctx, tr.ID)
	if last := results[len(results)-1]; last.PasteID != pastes[0].ID || len(last.Reasons) != 1 || last.Reasons[0].MessageID != "verify.model.pass" {
		t.Fatalf("result from the paste: %+v", last)
	}
	if _, err := st.RecordTrialResults(ctx, actor, 999999, nil, []trial.Record{{Check: 1, State: trial.Pass}}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing trial: %v", err)
	}
	recs, _ := st.AuditLog(ctx, store.AuditFilter{Entity: "trial"})
	if len(recs) != 1+3+1 {
		t.Fatalf("%d audit rows, want 5", len(recs))
	}
	// Lists filter on the stored verdict and count decided checks.
	list, total, err := st.Trials(ctx, store.TrialFilter{Verdict: trial.Concerns})
	if err != nil || total != 1 || list[0].ID != tr.ID || list[0].Done != 3 || list[0].PerfBelow != nil {
		t.Fatalf("list: %+v %d %v", list, total, err)
	}
	if _, total, _ := st.Trials(ctx, store.TrialFilter{Verdict: trial.Exit}); total != 0 {
		t.Fatalf("exit list has %d", total)
	}
}

func TestPerformanceRatiosAreTheNewestPerPlatformAndModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	a := trialMarket(t, st, "AutoDL", "GeForce RTX 4090")
	b := trialQuote(t, st, trialPlatform(t, st, "晨涧云"), a.GPUModelID)
	ta, _ := st.CreateTrial(ctx, actor, trial.Start{QuoteID: a.ID, StartedOn: a.AsOf})
	ta2, _ := st.CreateTrial(ctx, actor, trial.Start{QuoteID: a.ID, StartedOn: a.AsOf})
	tb, _ := st.CreateTrial(ctx, actor, trial.Start{QuoteID: b.ID, StartedOn: b.AsOf})
	perf := func(trialID int64, measured string) trial.Perf {
		m := mkDec(measured)
		p, err := st.RecordTrialPerf(ctx, actor, trial.Perf{TrialID: trialID, Precision: "bf16", MeasuredTFLOPS: m,
			Benchmark: "matmul", NominalTFLOPS: mkDec("132"), Basis: "nominal", BasisTFLOPS: mkDec("132"),
			Ratio: m.DivRound(mkDec("132"), 20), RatioToNominal: m.DivRound(mkDec("132"), 20),
			ThresholdTFLOPS: mkDec("112.2"), Below: m.LessThan(mkDec("112.2")),
			Message: trial.Reason{MessageID: "verify.perf.ok_nominal", Args: map[string]any{"Measured": measured}}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	perf(ta.ID, "130")
	got := perf(ta2.ID, "111") // newer, another trial of the same pair
	perf(tb.ID, "125")
	// 111 ÷ 132 = 0.8409090…: cut, not rounded.
	if got.Ratio.String() != "0.840909" || got.PlatformID != a.PlatformID || got.Message.Args["Measured"] != "111" {
		t.Fatalf("stored: %+v", got)
	}
	ratios, err := st.PerformanceRatios(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ratios) != 2 || ratios[market.PlatformGPU{PlatformID: a.PlatformID, GPUModelID: a.GPUModelID}].String() != "0.840909" ||
		ratios[market.PlatformGPU{PlatformID: b.PlatformID, GPUModelID: b.GPUModelID}].String() != "0.946969" {
		t.Fatalf("ratios: %v", ratios)
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM trial_perf`); err == nil {
		t.Fatal("performance measurements deleted")
	}
	list, _, _ := st.Trials(ctx, store.TrialFilter{PlatformID: a.PlatformID})
	if len(list) != 2 || list[0].PerfBelow == nil || !*list[0].PerfBelow {
		t.Fatalf("list of platform a: %+v", list)
	}
}

func trialPlatform(t *testing.T, st *store.Store, name string) int64 {
	t.Helper()
	p, err := st.CreatePlatform(context.Background(), actor, market.Platform{NameZH: name, Currency: "CNY"})
	if err != nil {
		t.Fatal(err)
	}
	return p.ID
}

func TestPlatformTermsSaveUnderOptimisticLocking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid := trialPlatform(t, st, "AutoDL")
	if terms, err := st.PlatformTerms(ctx, pid); err != nil || len(terms) != 0 {
		t.Fatalf("fresh platform: %+v %v", terms, err)
	}
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	save := []market.PlatformTerm{
		{Kind: market.TermKindSLA, Key: "data_loss", Answer: " 平台不承担 ", AnsweredOn: &day},
		{Kind: market.TermKindSLA, Key: "maintenance_notice"}, // still unanswered: nothing stored
		{Kind: market.TermKindConfirmation, Key: "egress", Answer: "0.8 元/GB", InWriting: true},
	}
	if err := st.SavePlatformTerms(ctx, actor, pid, save); err != nil {
		t.Fatal(err)
	}
	terms, err := st.PlatformTerms(ctx, pid)
	if err != nil || len(terms) != 2 || terms[0].Kind != market.TermKindSLA || terms[0].Answer != "平台不承担" ||
		terms[0].AnsweredOn.Format(time.DateOnly) != "2026-03-01" || terms[0].LockVersion != 1 || terms[0].Answered() || !terms[1].Answered() {
		t.Fatalf("saved: %+v %v", terms, err)
	}
	// A save from a form loaded before: conflict, nothing written.
	stale := []market.PlatformTerm{{Kind: market.TermKindSLA, Key: "data_loss", Answer: "其他", LockVersion: 0}}
	if err := st.SavePlatformTerms(ctx, actor, pid, stale); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("stale save: %v", err)
	}
	fresh := []market.PlatformTerm{{Kind: market.TermKindSLA, Key: "data_loss", Answer: "平台按月费赔偿", InWriting: true, LockVersion: 1},
		{Kind: market.TermKindConfirmation, Key: "egress", Answer: "0.8 元/GB", InWriting: true, LockVersion: 1}} // unchanged
	if err := st.SavePlatformTerms(ctx, actor, pid, fresh); err != nil {
		t.Fatal(err)
	}
	terms, _ = st.PlatformTerms(ctx, pid)
	if terms[0].LockVersion != 2 || !terms[0].InWriting || terms[0].AnsweredOn != nil || terms[1].LockVersion != 1 {
		t.Fatalf("after the second save: %+v", terms)
	}
	recs, _ := st.AuditLog(ctx, store.AuditFilter{Action: store.ActionPlatformTermsUpdate})
	if len(recs) != 2 {
		t.Fatalf("%d audit rows, want 2 (the conflict wrote nothing)", len(recs))
	}
	// "In writing" needs an answer.
	bad := []market.PlatformTerm{{Kind: market.TermKindSLA, Key: "compensation", InWriting: true}}
	if err := st.SavePlatformTerms(ctx, actor, pid, bad); err == nil {
		t.Fatal("in writing without an answer was stored")
	}
	if _, err := st.PlatformTerms(ctx, 999999); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("missing platform: %v", err)
	}
	if err := st.SavePlatformTerms(ctx, actor, 999999, fresh); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("save for a missing platform: %v", err)
	}
}

// TestTrialFiltersTakeEveryID: an id past 32 bits is a valid filter that
// matches nothing, not a database error.
func TestTrialFiltersTakeEveryID(t *testing.T) {
	t.Parallel()
	st := testutil.Store(t)
	for _, f := range []store.TrialFilter{{PlatformID: 1 << 31}, {GPUModelID: 1<<63 - 1}, {QuoteID: 1 << 40}} {
		list, total, err := st.Trials(context.Background(), f)
		if err != nil || total != 0 || len(list) != 0 {
			t.Errorf("%+v: %d trials, %v", f, total, err)
		}
	}
}
