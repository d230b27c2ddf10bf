package store_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"gpuquote/internal/avail"
	"gpuquote/internal/market"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/trial"
)

// availDay is the comparison's day of these tests: its 30 days are
// 2026-03-02 … 2026-03-31 and its 90 days 2026-01-01 … 2026-03-31 (UTC).
var availDay = time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// availPair adds a platform and a GPU model for one pair's records.
func availPair(t *testing.T, st *store.Store, name string) market.PlatformGPU {
	t.Helper()
	var p market.PlatformGPU
	ctx := context.Background()
	if err := st.Pool().QueryRow(ctx, `INSERT INTO platforms (name_zh, name_en, currency) VALUES ($1, $1, 'CNY') RETURNING id`, name).Scan(&p.PlatformID); err != nil {
		t.Fatal(err)
	}
	if err := st.Pool().QueryRow(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', $1, 24) RETURNING id`, name).Scan(&p.GPUModelID); err != nil {
		t.Fatal(err)
	}
	return p
}

func record(t *testing.T, st *store.Store, p market.PlatformGPU, when string, obtained bool, wait int) avail.Record {
	t.Helper()
	r, err := st.CreateAvailabilityRecord(context.Background(), actor, avail.Input{PlatformID: p.PlatformID, GPUModelID: p.GPUModelID,
		AttemptedAt: at(when), GPUCount: 1, Obtained: obtained, WaitMinutes: wait})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func statText(s avail.Stat) string {
	rate, median := "-", "-"
	if r := s.RatePct(); r.Valid {
		rate = r.Decimal.StringFixed(1)
	}
	if s.MedianWait.Valid {
		median = s.MedianWait.Decimal.String()
	}
	return strconv.Itoa(s.Days) + "d " + strconv.Itoa(s.Obtained) + "/" + strconv.Itoa(s.Attempts) + " " + rate + "% median " + median
}

// TestAvailabilityStatsByHand: the statistics of several pairs at once,
// against values worked out by hand (docs/RULES.md §18.2): records on both
// edges of each window, the day after the comparison's day left out,
// failures counted but not in the median, odd and even medians, a pair of
// failures only and a pair without records.
func TestAvailabilityStatsByHand(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	a, b, c := availPair(t, st, "A"), availPair(t, st, "B"), availPair(t, st, "C")
	record(t, st, a, "2026-03-31T23:59:59Z", true, 10)  // 30, 90
	record(t, st, a, "2026-04-01T00:00:00Z", true, 1)   // after the day: none
	record(t, st, a, "2026-03-02T00:00:00Z", false, 60) // 30, 90 (first instant of the 30 days)
	record(t, st, a, "2026-03-01T23:59:59Z", true, 30)  // 90 only
	record(t, st, a, "2026-03-15T12:00:00+08:00", true, 5)
	record(t, st, a, "2026-01-01T00:00:00Z", true, 7)    // 90 (first instant)
	record(t, st, a, "2025-12-31T23:59:59Z", true, 1000) // before: none
	record(t, st, a, "2026-02-10T08:00:00Z", false, 120) // 90 only
	record(t, st, a, "2026-01-20T08:00:00Z", true, 3)    // 90 only
	record(t, st, b, "2026-03-20T09:30:00Z", false, 45)  // failures only
	record(t, st, c, "2026-04-02T09:30:00Z", true, 45)   // only after the day

	got, err := st.AvailabilityStats(ctx, []market.PlatformGPU{a, b, c, a}, availDay)
	if err != nil {
		t.Fatal(err)
	}
	want := map[market.PlatformGPU][]string{
		// 30 days: 10, 60 failed, 5 → 2 of 3 = 66.666… → 66.7 %, median of 5, 10 = 7.5.
		// 90 days: + 30, 7, 120 failed, 3 → 5 of 7 = 71.428… → 71.4 %, median of 3 5 7 10 30 = 7.
		a: {"30d 2/3 66.7% median 7.5", "90d 5/7 71.4% median 7"},
		b: {"30d 0/1 0.0% median -", "90d 0/1 0.0% median -"},
		c: {"30d 0/0 -% median -", "90d 0/0 -% median -"},
	}
	if len(got) != 3 {
		t.Fatalf("pairs: %v", got)
	}
	for p, w := range want {
		stats := got[p]
		if len(stats) != 2 {
			t.Fatalf("%v: %v", p, stats)
		}
		for i := range w {
			if s := statText(stats[i]); s != w[i] {
				t.Errorf("%v window %d: %s, want %s", p, i, s, w[i])
			}
		}
	}
	if !got[c][1].None() || got[a][1].None() {
		t.Errorf("none: %v %v", got[c][1], got[a][1])
	}
	// The day after, the 30 days start on 2026-03-03: the failure of
	// 2026-03-02 leaves them and the attempt at 2026-04-01T00:00Z joins.
	next, err := st.AvailabilityStats(ctx, []market.PlatformGPU{a}, availDay.AddDate(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	if s := statText(next[a][0]); s != "30d 3/3 100.0% median 5" {
		t.Errorf("next day: %s", s)
	}
}

// TestAvailabilityFilterNarrowsQuotes: the candidate filter keeps quotes
// whose pair obtained GPUs in at least the asked share of its 90 days'
// attempts, compared exactly (4 of 5 is 80 %), and leaves out pairs
// without records there (docs/RULES.md §18.2).
func TestAvailabilityFilterNarrowsQuotes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	a, b, c, d := availPair(t, st, "A"), availPair(t, st, "B"), availPair(t, st, "C"), availPair(t, st, "D")
	for i, ok := range []bool{true, true, true, true, false} { // d: 4 of 5
		record(t, st, d, "2026-03-0"+strconv.Itoa(i+1)+"T10:00:00Z", ok, 10)
	}
	record(t, st, a, "2026-03-10T10:00:00Z", true, 1) // a: 1 of 1
	record(t, st, b, "2026-03-10T10:00:00Z", false, 1)
	record(t, st, b, "2026-03-11T10:00:00Z", true, 1) // b: 1 of 2
	record(t, st, c, "2025-12-31T10:00:00Z", true, 1) // c: none in the 90 days
	record(t, st, c, "2026-04-01T00:00:00Z", true, 1) // … nor after them
	quotes := map[int64]string{}
	for name, p := range map[string]market.PlatformGPU{"a": a, "b": b, "c": c, "d": d} {
		q, err := st.CreateQuoteDraft(ctx, actor, sampleQuote(p.PlatformID, p.GPUModelID))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.PublishQuote(ctx, actor, q.ID, q.LockVersion); err != nil {
			t.Fatal(err)
		}
		quotes[q.ID] = name
	}
	for _, tc := range []struct {
		pct  int
		want string
	}{{0, "abcd"}, {50, "abd"}, {80, "ad"}, {100, "a"}} {
		f := store.QuoteFilter{Limit: 50}
		if tc.pct > 0 {
			f.Availability = &store.AvailabilityFilter{MinPct: tc.pct, Day: availDay, Days: avail.FilterWindow}
		}
		rows, _, err := st.Quotes(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, q := range rows {
			got[quotes[q.ID]] = true
		}
		var s string
		for _, n := range "abcd" {
			if got[string(n)] {
				s += string(n)
			}
		}
		if s != tc.want {
			t.Errorf("at least %d %%: %q, want %q", tc.pct, s, tc.want)
		}
	}
}

// TestAvailabilityRecordsAppendOnly: a record takes its pair from its
// trial or quote, refuses drafts, unknown and mismatched references without
// writing anything, is audited with its write, and is never changed or
// removed, not even by the table's owner (docs/RULES.md §18.2).
func TestAvailabilityRecordsAppendOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, app := testutil.DB(t)
	st, ow := testutil.Open(t, app), testutil.Open(t, owner)
	p := availPair(t, st, "A")
	other := availPair(t, st, "B")
	draft, err := st.CreateQuoteDraft(ctx, actor, sampleQuote(p.PlatformID, p.GPUModelID))
	if err != nil {
		t.Fatal(err)
	}
	base := avail.Input{AttemptedAt: at("2026-03-10T10:00:00Z"), GPUCount: 8, WaitMinutes: 30, Note: "高峰期排队"}
	refuse := func(in avail.Input, field, msg string) {
		t.Helper()
		before := [2]int{count(t, st, "availability_records"), count(t, st, "audit_log")}
		_, err := st.CreateAvailabilityRecord(ctx, actor, in)
		var re *avail.RefError
		if !errors.As(err, &re) || re.Field != field || re.MessageID != msg {
			t.Fatalf("%+v: %v, want %s %s", in, err, field, msg)
		}
		if after := [2]int{count(t, st, "availability_records"), count(t, st, "audit_log")}; after != before {
			t.Fatalf("a refused record wrote %v → %v", before, after)
		}
	}
	in := base
	in.QuoteID = draft.ID
	refuse(in, "quote_id", avail.MsgDraftQuote)
	pub, err := st.PublishQuote(ctx, actor, draft.ID, draft.LockVersion)
	if err != nil {
		t.Fatal(err)
	}
	in.QuoteID = pub.ID
	in.PlatformID = other.PlatformID
	refuse(in, "platform", avail.MsgPairMismatch)
	in = base
	in.TrialID = 99999999
	refuse(in, "trial_id", avail.MsgUnknownRef)
	in = base
	in.PlatformID, in.GPUModelID = p.PlatformID, 99999999
	refuse(in, "gpu_model", avail.MsgUnknownRef)

	tr, err := st.CreateTrial(ctx, actor, trial.Start{QuoteID: pub.ID, StartedOn: availDay})
	if err != nil {
		t.Fatal(err)
	}
	in = base
	in.TrialID = tr.ID
	audits := count(t, st, "audit_log")
	r, err := st.CreateAvailabilityRecord(ctx, actor, in)
	if err != nil {
		t.Fatal(err)
	}
	if r.PlatformID != p.PlatformID || r.GPUModelID != p.GPUModelID || r.QuoteID != pub.ID || r.TrialID != tr.ID ||
		r.GPUCount != 8 || r.Obtained || r.WaitMinutes != 30 || r.Note != "高峰期排队" || !r.AttemptedAt.Equal(base.AttemptedAt) {
		t.Fatalf("record %+v", r)
	}
	if n := count(t, st, "audit_log"); n != audits+1 {
		t.Fatalf("audit entries %d → %d", audits, n)
	}
	list, total, err := st.AvailabilityRecords(ctx, p, 0, 10)
	if err != nil || total != 1 || len(list) != 1 || list[0].ID != r.ID || list[0].GPUName != "A" {
		t.Fatalf("list %+v %d %v", list, total, err)
	}
	for _, s := range []*store.Store{st, ow} {
		for _, sql := range []string{`UPDATE availability_records SET obtained = true`, `DELETE FROM availability_records`,
			`TRUNCATE availability_records CASCADE`} {
			if _, err := s.Pool().Exec(ctx, sql); err == nil {
				t.Errorf("%s succeeded", sql)
			}
		}
	}
	if n := count(t, ow, "availability_records"); n != 1 {
		t.Fatalf("records %d", n)
	}
}
