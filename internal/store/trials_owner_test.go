package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/trial"
)

// trialCounts is what a write to trial id adds: recordings, pastes,
// measurements and audit rows.
func trialCounts(t *testing.T, st *store.Store, id int64) [4]int {
	t.Helper()
	var n [4]int
	if err := st.Pool().QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM trial_check_results WHERE trial_id = $1), (SELECT count(*) FROM trial_pastes WHERE trial_id = $1),
		(SELECT count(*) FROM trial_perf WHERE trial_id = $1), (SELECT count(*) FROM audit_log)`, id).Scan(&n[0], &n[1], &n[2], &n[3]); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTrialWritesCheckTheWriterInTheStore: the store refuses a write to a
// trial by anyone but its author, an editor or an admin, with the role as
// it is when the write happens (docs/RULES.md §16.3), and stores nothing.
func TestTrialWritesCheckTheWriterInTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	q := trialMarket(t, st, "AutoDL", "GeForce RTX 4090")
	author := reportUser(t, st, "analyst")
	tr, err := st.CreateTrial(ctx, author, trial.Start{QuoteID: q.ID, StartedOn: q.AsOf})
	if err != nil || tr.CreatedBy != author.UserID {
		t.Fatalf("open: %+v %v", tr, err)
	}
	perf := trial.Perf{TrialID: tr.ID, Precision: "bf16", MeasuredTFLOPS: mkDec("130"), Benchmark: "matmul", NominalTFLOPS: mkDec("132"),
		Basis: "nominal", BasisTFLOPS: mkDec("132"), Ratio: mkDec("0.984848"), RatioToNominal: mkDec("0.984848"), ThresholdTFLOPS: mkDec("112.2"),
		Message: trial.Reason{MessageID: "verify.perf.ok_nominal"}}
	paste := &trial.Paste{Output: "0, NVIDIA GeForce RTX 4090", Format: "csv", Samples: 1}
	for _, role := range []string{"finance", "analyst"} {
		other := reportUser(t, st, role)
		before := trialCounts(t, st, tr.ID)
		if _, err := st.RecordTrialResults(ctx, other, tr.ID, nil, []trial.Record{{Check: 1, State: trial.Pass}}); !errors.Is(err, store.ErrNotAllowed) {
			t.Errorf("%s records a check: %v", role, err)
		}
		if _, err := st.RecordTrialResults(ctx, other, tr.ID, paste, nil); !errors.Is(err, store.ErrNotAllowed) {
			t.Errorf("%s pastes: %v", role, err)
		}
		if _, err := st.RecordTrialPerf(ctx, other, perf); !errors.Is(err, store.ErrNotAllowed) {
			t.Errorf("%s records performance: %v", role, err)
		}
		if after := trialCounts(t, st, tr.ID); after != before {
			t.Errorf("%s's refused writes stored something: %v → %v", role, before, after)
		}
	}
	for name, a := range map[string]func() int64{
		"author": func() int64 { return author.UserID },
		"editor": func() int64 { return reportUser(t, st, "editor").UserID },
		"admin":  func() int64 { return reportUser(t, st, "admin").UserID },
		"system": func() int64 { return 0 },
	} {
		w := actor
		w.UserID = a()
		if _, err := st.RecordTrialResults(ctx, w, tr.ID, paste, []trial.Record{{Check: 1, State: trial.Pass}}); err != nil {
			t.Errorf("%s records: %v", name, err)
		}
		if _, err := st.RecordTrialPerf(ctx, w, perf); err != nil {
			t.Errorf("%s records performance: %v", name, err)
		}
	}
	// An editor whose role is taken away writes no more.
	ed := reportUser(t, st, "editor")
	if _, err := st.Pool().Exec(ctx, `UPDATE users SET role = 'analyst' WHERE id = $1`, ed.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RecordTrialPerf(ctx, ed, perf); !errors.Is(err, store.ErrNotAllowed) {
		t.Errorf("a former editor records performance: %v", err)
	}
}

// TestTrialPasteBudgetInTheStore: the 21st paste of a trial is refused
// with the use so far, and nothing of it — paste, results, audit — is
// stored (docs/RULES.md §16.3).
func TestTrialPasteBudgetInTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	q := trialMarket(t, st, "AutoDL", "GeForce RTX 4090")
	tr, err := st.CreateTrial(ctx, actor, trial.Start{QuoteID: q.ID, StartedOn: q.AsOf})
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Repeat("x", 1000)
	for range trial.MaxPastes {
		if _, err := st.RecordTrialResults(ctx, actor, tr.ID, &trial.Paste{Output: out, Format: "csv"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if use, err := st.TrialEvidenceUse(ctx, tr.ID); err != nil || use != (trial.Use{Pastes: 20, Bytes: 20000}) {
		t.Fatalf("use: %+v %v", use, err)
	}
	before := trialCounts(t, st, tr.ID)
	_, err = st.RecordTrialResults(ctx, actor, tr.ID, &trial.Paste{Output: "y", Format: "csv"}, []trial.Record{{Check: 1, State: trial.Pass}})
	var be *trial.BudgetError
	if !errors.As(err, &be) || be.Used != (trial.Use{Pastes: 20, Bytes: 20000}) || be.Adding != 1 {
		t.Fatalf("the 21st paste: %v", err)
	}
	if after := trialCounts(t, st, tr.ID); after != before {
		t.Errorf("the refused paste stored something: %v → %v", before, after)
	}
	// A check without a paste is no paste: it is recorded.
	if _, err := st.RecordTrialResults(ctx, actor, tr.ID, nil, []trial.Record{{Check: 1, State: trial.Pass}}); err != nil {
		t.Errorf("a check on a full trial: %v", err)
	}
}

// TestPerformanceRatiosTrustOwnersEditorsAndAdmins: comparisons read the
// newest measurement recorded by the trial's author, an editor, an admin
// or the system; a newer one by anyone else (stored as before trials had
// owners) is passed over (docs/RULES.md §16.3).
func TestPerformanceRatiosTrustOwnersEditorsAndAdmins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	q := trialMarket(t, st, "AutoDL", "GeForce RTX 4090")
	author := reportUser(t, st, "analyst")
	stranger := reportUser(t, st, "finance")
	editor := reportUser(t, st, "editor")
	tr, err := st.CreateTrial(ctx, author, trial.Start{QuoteID: q.ID, StartedOn: q.AsOf})
	if err != nil {
		t.Fatal(err)
	}
	key := market.PlatformGPU{PlatformID: q.PlatformID, GPUModelID: q.GPUModelID}
	insert := func(by int64, ratio string) int64 {
		t.Helper()
		var id int64
		var recordedBy any
		if by != 0 {
			recordedBy = by
		}
		if err := st.Pool().QueryRow(ctx, `
			INSERT INTO trial_perf (trial_id, platform_id, gpu_model_id, precision, measured_tflops, benchmark, nominal_tflops, basis,
				basis_tflops, ratio, ratio_to_nominal, threshold_tflops, below, recorded_by)
			VALUES ($1, $2, $3, 'bf16', 100, 'matmul', 132, 'nominal', 132, $4, $4, 112.2, $4::numeric < 0.85, $5) RETURNING id`,
			tr.ID, q.PlatformID, q.GPUModelID, ratio, recordedBy).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	ratio := func() string {
		t.Helper()
		r, err := st.PerformanceRatios(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := r[key]; ok {
			return d.String()
		}
		return "none"
	}
	insert(stranger.UserID, "0.5")
	if got := ratio(); got != "none" {
		t.Fatalf("only a stranger's measurement: %s, want none", got)
	}
	insert(author.UserID, "0.95")
	insert(stranger.UserID, "0.4")
	if got := ratio(); got != "0.95" {
		t.Fatalf("the author's, then a stranger's: %s, want the author's 0.95", got)
	}
	insert(editor.UserID, "0.8")
	if got := ratio(); got != "0.8" {
		t.Fatalf("an editor's, newest: %s, want 0.8", got)
	}
	insert(0, "0.9")
	if got := ratio(); got != "0.9" {
		t.Fatalf("the system's, newest: %s, want 0.9", got)
	}
	perfs, err := st.TrialPerfs(ctx, tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range perfs {
		if want := p.RecordedBy != stranger.UserID; p.Trusted != want {
			t.Errorf("measurement %d by %d: trusted %v, want %v", p.ID, p.RecordedBy, p.Trusted, want)
		}
	}
}

// TestTrialListPerfCountsOnlyTrusted: the trial list's newest-performance
// verdict is that of the newest measurement that counts (docs/RULES.md
// §9.6, §16.3): one a stranger recorded neither sets it nor hides the
// author's before it.
func TestTrialListPerfCountsOnlyTrusted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	q := trialMarket(t, st, "AutoDL", "GeForce RTX 4090")
	author := reportUser(t, st, "analyst")
	stranger := reportUser(t, st, "finance")
	tr, err := st.CreateTrial(ctx, author, trial.Start{QuoteID: q.ID, StartedOn: q.AsOf})
	if err != nil {
		t.Fatal(err)
	}
	insert := func(by int64, ratio string) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, `
			INSERT INTO trial_perf (trial_id, platform_id, gpu_model_id, precision, measured_tflops, benchmark, nominal_tflops, basis,
				basis_tflops, ratio, ratio_to_nominal, threshold_tflops, below, recorded_by)
			VALUES ($1, $2, $3, 'bf16', 100, 'matmul', 132, 'nominal', 132, $4, $4, 112.2, $4::numeric < 0.85, $5)`,
			tr.ID, q.PlatformID, q.GPUModelID, ratio, by); err != nil {
			t.Fatal(err)
		}
	}
	badge := func() string {
		t.Helper()
		rows, _, err := st.Trials(ctx, store.TrialFilter{})
		if err != nil || len(rows) != 1 {
			t.Fatalf("trials: %d %v", len(rows), err)
		}
		switch b := rows[0].PerfBelow; {
		case b == nil:
			return "none"
		case *b:
			return "below"
		}
		return "ok"
	}
	insert(stranger.UserID, "0.5")
	if got := badge(); got != "none" {
		t.Errorf("only a stranger's measurement (below): %s, want none", got)
	}
	insert(author.UserID, "0.95")
	insert(stranger.UserID, "0.4")
	if got := badge(); got != "ok" {
		t.Errorf("the author's (ok), then a stranger's (below): %s, want ok", got)
	}
}
