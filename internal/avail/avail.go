// Package avail is gpuquote's record of real attempts to get GPU instances
// on a platform (docs/RULES.md §18.2): whether the GPUs were obtained and
// how long it took, and the statistics a comparison shows beside a price
// (how many attempts in the last 30 and 90 days obtained GPUs, the success
// rate, the median wait). It does no IO: the store keeps the records, the
// server decodes requests.
package avail

import (
	"slices"
	"time"

	"github.com/shopspring/decimal"
)

// Bounds of a record (docs/RULES.md §18.2), the columns' checks in
// migrations/00019_availability.sql.
const (
	MaxGPUs        = 1024
	MaxWaitMinutes = 100000
	NoteMax        = 2000
)

// Windows are the statistics' windows in days, shortest first: the
// compare page and reports show both.
var Windows = []int{30, 90}

// FilterWindow is the window the compare page's candidate filter reads
// its minimum success rate in.
const FilterWindow = 90

// FilterRates are the minimum success rates (percent) the compare page's
// candidate filter offers.
var FilterRates = []int{50, 80, 100}

// Earliest is the earliest attempt a record may name.
var Earliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Record is one attempt to get GPUs of a model on a platform. It never
// changes once stored; a mistaken record is answered by a new one.
type Record struct {
	ID         int64 `json:"id"`
	PlatformID int64 `json:"platform_id"`
	GPUModelID int64 `json:"gpu_model_id"`
	// AttemptedAt is when the attempt began (UTC).
	AttemptedAt time.Time `json:"attempted_at"`
	GPUCount    int       `json:"gpu_count"`
	Obtained    bool      `json:"obtained"`
	// WaitMinutes is how long it took to get the GPUs, or, for a failed
	// attempt, how long someone tried before giving up.
	WaitMinutes int    `json:"wait_minutes"`
	Note        string `json:"note"`
	// QuoteID and TrialID name the quote version or trial the attempt came
	// from (0: none).
	QuoteID int64 `json:"quote_id,omitempty"`
	TrialID int64 `json:"trial_id,omitempty"`
	// CreatedBy is who recorded it (0: the system, e.g. sample data).
	CreatedBy     int64     `json:"created_by,omitempty"`
	CreatedByName string    `json:"created_by_name,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	// Names for showing the record.
	PlatformNameZH string `json:"platform_name_zh"`
	PlatformNameEN string `json:"platform_name_en"`
	GPUVendor      string `json:"gpu_vendor"`
	GPUName        string `json:"gpu_name"`
}

// Attempt is what the statistics read of a record.
type Attempt struct {
	At       time.Time
	Obtained bool
	Wait     int
}

// Window is the instants of the n days ending on day (a UTC calendar
// day), both included: from 00:00 UTC of day − (n − 1) up to, not
// including, 00:00 UTC of the day after day (docs/RULES.md §18.2).
func Window(day time.Time, n int) (from, until time.Time) {
	y, m, d := day.UTC().Date()
	start := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return start.AddDate(0, 0, -(n - 1)), start.AddDate(0, 0, 1)
}

// In reports whether t falls in the n days ending on day.
func In(t time.Time, day time.Time, n int) bool {
	from, until := Window(day, n)
	return !t.Before(from) && t.Before(until)
}

// Stat is the statistics of one platform × GPU model over one window.
type Stat struct {
	// Days is the window's length; Day its last day.
	Days int
	Day  time.Time
	// Attempts are the records in the window; Obtained those that got the
	// GPUs.
	Attempts int
	Obtained int
	// MedianWait is the median wait in minutes of the attempts that
	// obtained GPUs (absent when none did).
	MedianWait decimal.NullDecimal
}

// Compute is the statistics of the attempts that fall in the n days
// ending on day (docs/RULES.md §18.2): their number, how many obtained the
// GPUs and the median wait of those that did.
func Compute(attempts []Attempt, day time.Time, n int) Stat {
	from, _ := Window(day, n)
	s := Stat{Days: n, Day: from.AddDate(0, 0, n-1)}
	var waits []int
	for _, a := range attempts {
		if !In(a.At, day, n) {
			continue
		}
		s.Attempts++
		if a.Obtained {
			s.Obtained++
			waits = append(waits, a.Wait)
		}
	}
	s.MedianWait = Median(waits)
	return s
}

// Median is the median of whole minutes, exactly: the middle value of an
// odd count, the mean of the two middle values of an even count (which
// may end in .5); absent for none.
func Median(waits []int) decimal.NullDecimal {
	if len(waits) == 0 {
		return decimal.NullDecimal{}
	}
	w := slices.Clone(waits)
	slices.Sort(w)
	n := len(w)
	if n%2 == 1 {
		return decimal.NewNullDecimal(decimal.NewFromInt(int64(w[n/2])))
	}
	sum := decimal.NewFromInt(int64(w[n/2-1])).Add(decimal.NewFromInt(int64(w[n/2])))
	return decimal.NewNullDecimal(sum.Div(decimal.NewFromInt(2)))
}

// None reports whether the window holds no record.
func (s Stat) None() bool { return s.Attempts == 0 }

// RatePct is the success rate in percent, obtained ÷ attempts × 100
// divided exactly and rounded half up to one decimal place (absent without
// records). It is for showing; filters compare the exact fraction
// (AtLeast).
func (s Stat) RatePct() decimal.NullDecimal {
	if s.Attempts == 0 {
		return decimal.NullDecimal{}
	}
	// Both are positive, so DivRound's half away from zero is half up.
	return decimal.NewNullDecimal(decimal.NewFromInt(int64(s.Obtained)*100).DivRound(decimal.NewFromInt(int64(s.Attempts)), 1))
}

// AtLeast reports whether the exact success rate is at least pct percent:
// obtained × 100 ≥ pct × attempts, never rounded; false without records.
func (s Stat) AtLeast(pct int) bool {
	return s.Attempts > 0 && int64(s.Obtained)*100 >= int64(pct)*int64(s.Attempts)
}

// PairStats are one platform × GPU model's statistics, one per window in
// Windows' order.
type PairStats struct {
	PlatformID int64
	GPUModelID int64
	Windows    []Stat
}

// ComputeAll is Compute for every window of Windows, in its order.
func ComputeAll(attempts []Attempt, day time.Time) []Stat {
	out := make([]Stat, 0, len(Windows))
	for _, n := range Windows {
		out = append(out, Compute(attempts, day, n))
	}
	return out
}
