package avail_test

import (
	"strings"
	"testing"
	"time"

	"gpuquote/internal/avail"
)

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestWindowDays: the n days ending on D are D − (n − 1) … D in UTC,
// both whole days (docs/RULES.md §18.2).
func TestWindowDays(t *testing.T) {
	from, until := avail.Window(day("2026-03-31"), 30)
	if from != time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC) || until != time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC) {
		t.Errorf("30 days ending 2026-03-31: %v … %v", from, until)
	}
	from, _ = avail.Window(day("2026-03-31"), 90)
	if from != time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) {
		t.Errorf("90 days ending 2026-03-31 start %v", from)
	}
	// 2026-03-02 07:59 in UTC+8 is 2026-03-01 23:59 UTC: outside.
	if avail.In(time.Date(2026, 3, 2, 7, 59, 0, 0, time.FixedZone("CST", 8*3600)), day("2026-03-31"), 30) {
		t.Error("a time is read in UTC")
	}
}

// TestRateAndMedian: the rate is exact, rounded half up to one place
// only for showing; the filter compares the exact fraction; the median of
// an even count is the mean of its middle values (docs/RULES.md §18.2).
func TestRateAndMedian(t *testing.T) {
	for _, tc := range []struct {
		obtained, attempts int
		rate               string
		at67, at66         bool
	}{
		{2, 3, "66.7", false, true},  // 66.666…
		{1, 16, "6.3", false, false}, // 6.25 → half up
		{1, 8, "12.5", false, false},
		{1, 3, "33.3", false, false},
		{0, 2, "0.0", false, false},
		{4, 4, "100.0", true, true},
	} {
		s := avail.Stat{Attempts: tc.attempts, Obtained: tc.obtained}
		if r := s.RatePct(); !r.Valid || r.Decimal.StringFixed(1) != tc.rate {
			t.Errorf("%d of %d: %v, want %s", tc.obtained, tc.attempts, r, tc.rate)
		}
		if s.AtLeast(67) != tc.at67 || s.AtLeast(66) != tc.at66 {
			t.Errorf("%d of %d: at least 67 %v, 66 %v", tc.obtained, tc.attempts, s.AtLeast(67), s.AtLeast(66))
		}
	}
	if s := (avail.Stat{}); s.RatePct().Valid || s.AtLeast(0) || !s.None() {
		t.Error("no records: no rate, never at least anything")
	}
	for _, tc := range []struct {
		waits []int
		want  string
	}{{[]int{30, 10, 20}, "20"}, {[]int{15, 10}, "12.5"}, {[]int{7, 1, 100000, 3}, "5"}, {[]int{0}, "0"}} {
		if m := avail.Median(tc.waits); !m.Valid || m.Decimal.String() != tc.want {
			t.Errorf("median %v: %v, want %s", tc.waits, m, tc.want)
		}
	}
	if avail.Median(nil).Valid {
		t.Error("no obtained attempt: no median")
	}
	got := avail.Compute([]avail.Attempt{
		{At: time.Date(2026, 3, 31, 23, 59, 59, 0, time.UTC), Obtained: true, Wait: 9},
		{At: time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC), Obtained: false, Wait: 500},
		{At: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC), Obtained: true, Wait: 1},
	}, day("2026-03-31"), 30)
	if got.Attempts != 2 || got.Obtained != 1 || got.MedianWait.Decimal.String() != "9" || got.Days != 30 || got.Day != day("2026-03-31") {
		t.Errorf("compute %+v", got)
	}
}

// TestReadRecord: every problem of a record at once, in its field
// (docs/RULES.md §18.2).
func TestReadRecord(t *testing.T) {
	latest := day("2026-12-02") // the latest day on Earth while UTC is 2026-12-01 10:00 or later
	read := func(v map[string]string) (avail.Input, map[string]string) {
		in, errs := avail.Read(func(k string) string { return v[k] }, latest)
		avail.Require(in, errs)
		out := map[string]string{}
		for k, m := range errs {
			out[k] = m.ID
		}
		return in, out
	}
	in, errs := read(map[string]string{"attempted_at": "2026-12-02T23:59", "gpu_count": "1024", "obtained": "false",
		"wait_minutes": "100000", "note": strings.Repeat("注", 2000), "platform": "3", "gpu_model": "4"})
	if len(errs) != 0 || in.AttemptedAt != time.Date(2026, 12, 2, 23, 59, 0, 0, time.UTC) || in.GPUCount != 1024 || in.Obtained ||
		in.WaitMinutes != 100000 || in.PlatformID != 3 || in.GPUModelID != 4 {
		t.Fatalf("the edges are allowed: %+v %v", in, errs)
	}
	_, errs = read(map[string]string{"attempted_at": "2026-12-03T00:00", "gpu_count": "0", "obtained": "yes", "wait_minutes": "1.5",
		"note": strings.Repeat("注", 2001), "quote_id": "-1"})
	want := map[string]string{"attempted_at": avail.MsgFuture, "gpu_count": "form.error.range", "obtained": "form.error.choice",
		"wait_minutes": "form.error.integer", "note": "form.error.too_long", "quote_id": avail.MsgUnknownRef}
	for k, id := range want {
		if errs[k] != id {
			t.Errorf("%s: %q, want %q (all: %v)", k, errs[k], id, errs)
		}
	}
	_, errs = read(map[string]string{"attempted_at": "1999-12-31T23:59:59", "gpu_count": "1", "obtained": "true", "wait_minutes": "0"})
	if errs["attempted_at"] != avail.MsgBeforeMin || errs["platform"] != avail.MsgNoPair || errs["gpu_model"] != avail.MsgNoPair {
		t.Errorf("before 2000 and no pair: %v", errs)
	}
	in, errs = read(map[string]string{"attempted_at": "2026-03-01T22:30:00+08:00", "gpu_count": "1", "obtained": "true",
		"wait_minutes": "0", "trial_id": "9"})
	if len(errs) != 0 || in.AttemptedAt != time.Date(2026, 3, 1, 14, 30, 0, 0, time.UTC) || in.TrialID != 9 {
		t.Errorf("an offset is read into UTC; a trial names the pair: %+v %v", in, errs)
	}
}
