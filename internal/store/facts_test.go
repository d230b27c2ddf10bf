package store_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"gpuquote/internal/facts"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// factPlatform adds a platform for one test.
func factPlatform(t *testing.T, st *store.Store, name string) int64 {
	t.Helper()
	var id int64
	if err := st.Pool().QueryRow(context.Background(),
		`INSERT INTO platforms (name_zh, name_en, currency) VALUES ($1, $1, 'CNY') RETURNING id`, name).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

var (
	factDay1   = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	factDay2   = time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	factLatest = time.Date(2026, 12, 31, 0, 0, 0, 0, time.UTC)
)

// TestPlatformFactsInForceAndHistory: the fact in force on a day is the
// newest by (as_of, id) dated on or before it, a fact never recorded is
// unknown, every record stays in the history, and the table refuses to
// change a record (docs/RULES.md §18.3).
func TestPlatformFactsInForceAndHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	editor := reportUser(t, st, "editor")
	pid := factPlatform(t, st, "facts-a")
	add := func(k facts.Kind, v facts.Value, day time.Time, note string) facts.Fact {
		t.Helper()
		f, err := st.CreatePlatformFact(ctx, editor, facts.Fact{PlatformID: pid, Kind: k, Value: v, Source: "trial", AsOf: day, Note: note}, factLatest)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	add(facts.StateKept, facts.No, factDay1, "first")
	add(facts.StateKept, facts.Yes, factDay2, "corrected")
	sameDay := add(facts.Backups, facts.No, factDay1, "a")
	later := add(facts.Backups, facts.Yes, factDay1, "b") // same day: the later entry wins
	all, err := st.PlatformFacts(ctx, pid)
	if err != nil || len(all) != 4 || all[0].Note != "corrected" {
		t.Fatalf("history: %+v %v", all, err)
	}
	if all[0].CreatedBy != editor.UserID || all[0].Source != "trial" {
		t.Fatalf("who and source: %+v", all[0])
	}
	before := facts.InForce(all, factDay1.AddDate(0, 1, 0))
	after := facts.InForce(all, factDay2)
	if before[facts.StateKept].Value != facts.No || after[facts.StateKept].Value != facts.Yes {
		t.Fatalf("state kept by day: %v then %v", before[facts.StateKept].Value, after[facts.StateKept].Value)
	}
	if after[facts.Backups].ID != later.ID || later.ID <= sameDay.ID {
		t.Fatalf("same day: in force %d, want %d", after[facts.Backups].ID, later.ID)
	}
	if after[facts.Desktop].Value != facts.Unknown || after[facts.Desktop].ID != 0 {
		t.Fatalf("never recorded: %+v", after[facts.Desktop])
	}
	if got := facts.InForce(all, factDay1.AddDate(0, 0, -1)); got[facts.StateKept].Value != facts.Unknown {
		t.Fatalf("before any record: %v", got[facts.StateKept].Value)
	}
	// The same rule in SQL, as the comparison reads it.
	var qid int64
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'facts GPU', 24) RETURNING id`).Scan(&qid); err != nil {
		t.Fatal(err)
	}
	q := sampleQuote(pid, qid)
	d, err := st.CreateQuoteDraft(ctx, actor, q)
	if err != nil {
		t.Fatal(err)
	}
	byPlatform, err := st.FactsInForceForQuotes(ctx, []int64{d.ID}, factDay1.AddDate(0, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	inForce := facts.InForce(byPlatform[pid], factDay1.AddDate(0, 1, 0))
	if len(byPlatform[pid]) != 2 || inForce[facts.StateKept].Note != "first" || inForce[facts.Backups].ID != later.ID {
		t.Fatalf("in force in SQL: %+v", byPlatform[pid])
	}
	// Append-only on every path.
	if _, err := st.Pool().Exec(ctx, `UPDATE platform_facts SET value = 'no' WHERE id = $1`, later.ID); err == nil {
		t.Fatal("a fact was changed")
	}
	if _, err := st.Pool().Exec(ctx, `DELETE FROM platform_facts WHERE id = $1`, later.ID); err == nil {
		t.Fatal("a fact was deleted")
	}
}

// TestPlatformFactValidationAndWriters: a measured fact carries minutes
// exactly when yes; a source is required; only editors and admins write,
// each write audited; a refused write leaves nothing behind.
func TestPlatformFactValidationAndWriters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid := factPlatform(t, st, "facts-b")
	other := factPlatform(t, st, "facts-c")
	editor := reportUser(t, st, "editor")
	analyst := reportUser(t, st, "analyst")
	n := func(i int) *int { return &i }
	ok := facts.Fact{PlatformID: pid, Kind: facts.SupportResponseMinutes, Value: facts.Yes, Minutes: n(45), Source: "trial check 29", AsOf: factDay1}
	base := [2]int{count(t, st, "platform_facts"), count(t, st, "audit_log")}
	for name, f := range map[string]facts.Fact{
		"yes without minutes": {PlatformID: pid, Kind: facts.SetupMinutes, Value: facts.Yes, Source: "s", AsOf: factDay1},
		"minutes on no":       {PlatformID: pid, Kind: facts.SetupMinutes, Value: facts.No, Minutes: n(3), Source: "s", AsOf: factDay1},
		"minutes on a plain":  {PlatformID: pid, Kind: facts.Backups, Value: facts.Yes, Minutes: n(3), Source: "s", AsOf: factDay1},
		"no source":           {PlatformID: pid, Kind: facts.Backups, Value: facts.Yes, AsOf: factDay1},
		"after latest":        {PlatformID: pid, Kind: facts.Backups, Value: facts.Yes, Source: "s", AsOf: factLatest.AddDate(0, 0, 1)},
		"unknown kind":        {PlatformID: pid, Kind: "colour", Value: facts.Yes, Source: "s", AsOf: factDay1},
	} {
		if _, err := st.CreatePlatformFact(ctx, editor, f, factLatest); err == nil {
			t.Errorf("%s: stored", name)
		}
	}
	if _, err := st.CreatePlatformFact(ctx, analyst, ok, factLatest); !errors.Is(err, store.ErrNotAllowed) {
		t.Fatalf("analyst: %v", err)
	}
	var gpu, trial int64
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'facts GPU b', 24) RETURNING id`).Scan(&gpu); err != nil {
		t.Fatal(err)
	}
	d, err := st.CreateQuoteDraft(ctx, actor, sampleQuote(other, gpu))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO trials (quote_id, platform_id, gpu_model_id, started_on)
		VALUES ($1, $2, $3, '2026-01-01') RETURNING id`, d.ID, other, gpu).Scan(&trial); err != nil {
		t.Fatal(err)
	}
	base = [2]int{count(t, st, "platform_facts"), count(t, st, "audit_log")}
	bad := ok
	bad.TrialID = trial
	if _, err := st.CreatePlatformFact(ctx, editor, bad, factLatest); !errors.Is(err, store.ErrTrialPlatform) {
		t.Fatalf("another platform's trial: %v", err)
	}
	if got := [2]int{count(t, st, "platform_facts"), count(t, st, "audit_log")}; got != base {
		t.Fatalf("refused writes left rows: %v → %v", base, got)
	}
	f, err := st.CreatePlatformFact(ctx, editor, ok, factLatest)
	if err != nil || f.Minutes == nil || *f.Minutes != 45 {
		t.Fatalf("editor: %+v %v", f, err)
	}
	var action, entityID string
	if err := st.Pool().QueryRow(ctx, `SELECT action, entity_id FROM audit_log ORDER BY id DESC LIMIT 1`).Scan(&action, &entityID); err != nil ||
		action != store.ActionPlatformFactCreate || entityID != strconv.FormatInt(pid, 10) {
		t.Fatalf("audit: %q %q %v", action, entityID, err)
	}
}
