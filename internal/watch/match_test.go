package watch

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func nd(s string) decimal.NullDecimal {
	if s == "" {
		return decimal.NullDecimal{}
	}
	return decimal.NewNullDecimal(d(s))
}

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

// TestDecideRearm follows a price hovering around its target: it
// notifies once, stays quiet while the price stays near the target, and
// re-arms only past target × 1.02 or after the cooldown.
func TestDecideRearm(t *testing.T) {
	w := Watch{Kind: PriceBelow, Basis: Hourly, Target: d("10"), Currency: "CNY", CooldownHours: 24, State: State{Armed: true}}
	steps := []struct {
		name  string
		price string
		after time.Duration
		want  bool
	}{
		{"above the target: nothing", "10.50", 0, false},
		{"at the target: match", "10", time.Hour, true},
		{"below again: quiet", "9.80", 2 * time.Hour, false},
		{"back up, under the margin: quiet", "10.19", 3 * time.Hour, false},
		{"below again: still quiet", "9.90", 4 * time.Hour, false},
		{"2 % above: re-armed, no match", "10.20", 5 * time.Hour, false},
		{"below: match again", "9.99", 6 * time.Hour, true},
		{"below, before the cooldown: quiet", "9.50", 29 * time.Hour, false},
		{"below, cooldown passed: match", "9.50", 30 * time.Hour, true},
	}
	for _, s := range steps {
		match, next := Decide(w, PriceReading(w, d(s.price)), t0.Add(s.after))
		if match != s.want {
			t.Fatalf("%s: match %v, want %v", s.name, match, s.want)
		}
		w.State = next
	}
}

func TestReadings(t *testing.T) {
	jump := Watch{Kind: PriceJump, Percent: d("10")}
	avail := Watch{Kind: AvailabilityBelow, Percent: d("50")}
	price := Watch{Kind: PriceBelow, Target: d("8")}
	cases := []struct {
		name       string
		r          Reading
		hit, clear bool
		value      string
	}{
		{"jump up 10 %", JumpReading(jump, nd("11"), nd("10")), true, false, "10"},
		{"jump down 12.5 %", JumpReading(jump, nd("7"), nd("8")), true, false, "-12.5"},
		{"move of 9.99 %", JumpReading(jump, nd("10.999"), nd("10")), false, false, "9.99"},
		{"no previous price", JumpReading(jump, nd("10"), nd("")), false, false, ""},
		{"from 0", JumpReading(jump, nd("1"), nd("0")), true, false, ""},
		{"0 to 0", JumpReading(jump, nd("0"), nd("0")), false, false, ""},
		{"rate 4 of 10", AvailabilityReading(avail, 4, 10), true, false, "40"},
		{"rate 5 of 10", AvailabilityReading(avail, 5, 10), false, false, "50"},
		{"rate 51 of 100", AvailabilityReading(avail, 51, 100), false, true, "51"},
		{"no attempts", AvailabilityReading(avail, 0, 0), false, false, ""},
		{"price 8", PriceReading(price, d("8")), true, false, "8"},
		{"price 8.16", PriceReading(price, d("8.16")), false, true, "8.16"},
	}
	for _, c := range cases {
		if c.r.Hit != c.hit || c.r.Clear != c.clear {
			t.Errorf("%s: hit %v clear %v, want %v %v", c.name, c.r.Hit, c.r.Clear, c.hit, c.clear)
		}
		got := ""
		if c.r.Value.Valid {
			got = c.r.Value.Decimal.String()
		}
		if got != c.value {
			t.Errorf("%s: value %q, want %q", c.name, got, c.value)
		}
	}
}

func TestDiscreteKindsWaitForTheCooldown(t *testing.T) {
	w := Watch{Kind: NewLow, CooldownHours: 2, State: State{Armed: true}}
	hit := Reading{Hit: true}
	for i, c := range []struct {
		after time.Duration
		want  bool
	}{{0, true}, {time.Hour, false}, {2 * time.Hour, true}} {
		match, next := Decide(w, hit, t0.Add(c.after))
		if match != c.want {
			t.Fatalf("step %d: match %v, want %v", i, match, c.want)
		}
		w.State = next
	}
}

func TestPerGPU(t *testing.T) {
	cases := []struct {
		price     string
		count     int
		incl      bool
		tax, rate string
		want      string
	}{
		{"80", 8, true, "0", "1", "10"},
		{"80", 8, false, "0.06", "1", "10.6"},
		{"10", 1, true, "0", "7.2", "72"},
		{"1", 3, true, "0", "1", "0.333333"},
	}
	for _, c := range cases {
		got := PerGPU(d(c.price), c.count, c.incl, d(c.tax), d(c.rate))
		if !got.Equal(d(c.want)) {
			t.Errorf("PerGPU(%s/%d) = %s, want %s", c.price, c.count, got, c.want)
		}
	}
}

func TestCoversAndIndex(t *testing.T) {
	ws := []Watch{
		{ID: 1, PlatformID: 1, GPUModelID: 2, Kind: NewLow},
		{ID: 2, PlatformID: 1, Kind: NewLow},
		{ID: 3, GPUModelID: 2, Kind: NewLow, GPUCount: 8},
		{ID: 4, GPUModelID: 2, Kind: PriceJump, Currency: "USD"},
		{ID: 5, GPUModelID: 2, Kind: PriceBelow, Currency: "USD"},
		{ID: 6, PlatformID: 1, GPUModelID: 2, Kind: NewLow, Paused: true},
		{ID: 7, PlatformID: 9, GPUModelID: 2, Kind: NewLow},
		{ID: 8, GPUModelID: 2, Kind: NewLow, Sharing: "shared"},
	}
	o := Offer{PlatformID: 1, GPUModelID: 2, GPUCount: 1, Currency: "CNY", Sharing: "dedicated"}
	var got []int64
	for _, w := range NewIndex(ws).Candidates(o) {
		got = append(got, w.ID)
	}
	want := []int64{1, 2, 5}
	if len(got) != len(want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("candidates %v, want %v", got, want)
		}
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name  string
		w     Watch
		field string
	}{
		{"nothing watched", Watch{Kind: NewLow, CooldownHours: 24}, "platform"},
		{"price without target", Watch{GPUModelID: 1, Kind: PriceBelow, Basis: Hourly, Currency: "CNY", CooldownHours: 24}, "target"},
		{"price without currency", Watch{GPUModelID: 1, Kind: PriceBelow, Basis: Hourly, Target: d("1"), CooldownHours: 24}, "currency"},
		{"jump over 100", Watch{GPUModelID: 1, Kind: PriceJump, Percent: d("101"), CooldownHours: 24}, "percent"},
		{"unknown kind", Watch{GPUModelID: 1, Kind: "x", CooldownHours: 24}, "kind"},
		{"no cooldown", Watch{GPUModelID: 1, Kind: NewLow}, "cooldown_hours"},
		{"bad sharing", Watch{GPUModelID: 1, Kind: NewLow, Sharing: "x", CooldownHours: 24}, "sharing"},
		{"fine", Watch{PlatformID: 1, Kind: PriceBelow, Basis: Monthly, Target: d("100"), Currency: "CNY", CooldownHours: 24}, ""},
		{"unknown basis", Watch{PlatformID: 1, Kind: PriceBelow, Basis: "yearly", Target: d("100"), Currency: "CNY", CooldownHours: 24}, "basis"},
		{"tco without profile", Watch{PlatformID: 1, Kind: PriceBelow, Basis: TCO, Target: d("5000"), Currency: "CNY", CooldownHours: 24}, "profile"},
		{"tco fine", Watch{PlatformID: 1, Kind: PriceBelow, Basis: TCO, ProfileID: 3, Target: d("5000"), Currency: "CNY", CooldownHours: 24}, ""},
	}
	for _, c := range cases {
		errs := c.w.Validate()
		if c.field == "" && len(errs) > 0 || c.field != "" && errs[c.field] == "" {
			t.Errorf("%s: errors %v, want one on %q", c.name, errs, c.field)
		}
	}
}
