package facts_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/facts"
	"gpuquote/internal/form"
)

// latest is the latest day on Earth the tests read forms on (§7.4).
var latest = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func intp(n int) *int { return &n }

// TestKinds checks the thirteen fact kinds and their page order, which of
// them carry measured minutes and which a comparison may require
// (docs/RULES.md §18.3 "What is stored", "The two measured facts" and the
// compare page's `env` filter: the kinds where yes is what a buyer wants,
// not the measured ones, chat-only support or a release that deletes the
// disks).
func TestKinds(t *testing.T) {
	tests := []struct {
		name       string
		kind       facts.Kind
		measured   bool
		filterable bool
	}{
		{name: "frameworks and images preinstalled", kind: "preinstalled", filterable: true},
		{name: "instance state kept across restarts", kind: "state_kept", filterable: true},
		{name: "desktop access", kind: "desktop", filterable: true},
		{name: "setup time measured in a trial", kind: "setup_minutes", measured: true},
		{name: "support by ticket system", kind: "support_ticket", filterable: true},
		{name: "support by phone", kind: "support_phone", filterable: true},
		{name: "support is a chat group only", kind: "support_chat_only"},
		{name: "support response time", kind: "support_response_minutes", measured: true},
		{name: "backups offered", kind: "backups", filterable: true},
		{name: "written data-deletion confirmation", kind: "deletion_confirmation", filterable: true},
		{name: "a release deletes the data disks", kind: "release_wipes"},
		{name: "third-party payment protection", kind: "payment_protection", filterable: true},
		{name: "domestic accelerators offered", kind: "domestic_accelerators", filterable: true},
	}
	if len(facts.Kinds) != len(tests) {
		t.Fatalf("%d kinds, want the %d of §18.3: %v", len(facts.Kinds), len(tests), facts.Kinds)
	}
	var wantFilterable []facts.Kind
	for i, tt := range tests {
		if tt.filterable {
			wantFilterable = append(wantFilterable, tt.kind)
		}
		t.Run(tt.name, func(t *testing.T) {
			if facts.Kinds[i] != tt.kind {
				t.Errorf("kind %d = %q, want %q (page order of §18.3)", i, facts.Kinds[i], tt.kind)
			}
			if !tt.kind.Valid() {
				t.Errorf("%q is not valid", tt.kind)
			}
			if got := tt.kind.Measured(); got != tt.measured {
				t.Errorf("%q.Measured() = %v, want %v", tt.kind, got, tt.measured)
			}
			if got := tt.kind.Filterable(); got != tt.filterable {
				t.Errorf("%q.Filterable() = %v, want %v", tt.kind, got, tt.filterable)
			}
		})
	}
	t.Run("filterable kinds in page order", func(t *testing.T) {
		if got := facts.FilterableKinds(); !slices.Equal(got, wantFilterable) {
			t.Errorf("FilterableKinds() = %v, want %v", got, wantFilterable)
		}
	})
	for _, k := range []facts.Kind{"", "gpu", "Preinstalled", "setup"} {
		t.Run("not a kind: "+string(k), func(t *testing.T) {
			if k.Valid() || k.Filterable() || k.Measured() {
				t.Errorf("%q: valid %v, filterable %v, measured %v; want none", k, k.Valid(), k.Filterable(), k.Measured())
			}
		})
	}
}

// TestInForce checks which record is the fact in force on a day
// (docs/RULES.md §18.3 "History"): the newest record of its kind dated on
// or before that day, by day and then by entry order (the later entry wins
// on the same day); a record dated after the day does not count yet; a
// fact never recorded is unknown.
func TestInForce(t *testing.T) {
	onDay := day(2026, 11, 30)
	tests := []struct {
		name    string
		records []facts.Fact
		kind    facts.Kind
		wantID  int64 // 0: never recorded (or not yet in force)
		wantVal facts.Value
	}{
		{name: "never recorded is unknown", kind: "backups", wantID: 0, wantVal: facts.Unknown},
		{name: "one record before the day", kind: "backups",
			records: []facts.Fact{{ID: 1, Kind: "backups", Value: facts.Yes, AsOf: day(2026, 1, 1)}},
			wantID:  1, wantVal: facts.Yes},
		{name: "a record dated on the day counts", kind: "backups",
			records: []facts.Fact{{ID: 1, Kind: "backups", Value: facts.No, AsOf: onDay}},
			wantID:  1, wantVal: facts.No},
		{name: "a record dated after the day does not count yet", kind: "backups",
			records: []facts.Fact{{ID: 1, Kind: "backups", Value: facts.Yes, AsOf: day(2026, 12, 1)}},
			wantID:  0, wantVal: facts.Unknown},
		{name: "the newer day wins, whatever the entry order", kind: "desktop",
			records: []facts.Fact{
				{ID: 5, Kind: "desktop", Value: facts.No, AsOf: day(2026, 3, 1)},
				{ID: 2, Kind: "desktop", Value: facts.Yes, AsOf: day(2026, 6, 1)},
			},
			wantID: 2, wantVal: facts.Yes},
		{name: "on the same day the later entry wins", kind: "desktop",
			records: []facts.Fact{
				{ID: 9, Kind: "desktop", Value: facts.No, AsOf: day(2026, 6, 1)},
				{ID: 7, Kind: "desktop", Value: facts.Yes, AsOf: day(2026, 6, 1)},
			},
			wantID: 9, wantVal: facts.No},
		{name: "a newer correction after the day leaves the older one in force", kind: "desktop",
			records: []facts.Fact{
				{ID: 3, Kind: "desktop", Value: facts.Yes, AsOf: day(2026, 6, 1)},
				{ID: 4, Kind: "desktop", Value: facts.No, AsOf: day(2026, 12, 2)},
			},
			wantID: 3, wantVal: facts.Yes},
		{name: "a recorded unknown is in force as unknown", kind: "backups",
			records: []facts.Fact{
				{ID: 1, Kind: "backups", Value: facts.Yes, AsOf: day(2026, 1, 1)},
				{ID: 2, Kind: "backups", Value: facts.Unknown, AsOf: day(2026, 2, 1)},
			},
			wantID: 2, wantVal: facts.Unknown},
		{name: "records of another kind do not count", kind: "backups",
			records: []facts.Fact{{ID: 1, Kind: "desktop", Value: facts.Yes, AsOf: day(2026, 1, 1)}},
			wantID:  0, wantVal: facts.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := facts.InForce(tt.records, onDay)
			if len(got) != len(facts.Kinds) {
				t.Errorf("%d kinds in force, want every one of the %d", len(got), len(facts.Kinds))
			}
			f := got[tt.kind]
			if f.ID != tt.wantID || f.Value != tt.wantVal || f.Kind != tt.kind {
				t.Errorf("in force: id %d, %q, kind %q; want id %d, %q, kind %q", f.ID, f.Value, f.Kind, tt.wantID, tt.wantVal, tt.kind)
			}
		})
	}
}

// TestUnknowns checks which facts a quote's vendor is asked about
// (docs/RULES.md §18.3 "Vendor questions"): one per fact whose answer in
// force is unknown, in page order.
func TestUnknowns(t *testing.T) {
	known := func(vals map[facts.Kind]facts.Value) map[facts.Kind]facts.Fact {
		out := map[facts.Kind]facts.Fact{}
		for _, k := range facts.Kinds {
			v, ok := vals[k]
			if !ok {
				v = facts.Unknown
			}
			out[k] = facts.Fact{Kind: k, Value: v}
		}
		return out
	}
	tests := []struct {
		name    string
		inForce map[facts.Kind]facts.Fact
		want    []facts.Kind
	}{
		{name: "nothing recorded: every kind", inForce: facts.InForce(nil, latest), want: facts.Kinds},
		{name: "yes and no are answers", inForce: known(map[facts.Kind]facts.Value{
			"preinstalled": facts.Yes, "state_kept": facts.No, "desktop": facts.Yes, "setup_minutes": facts.No,
			"support_ticket": facts.Yes, "support_phone": facts.No, "support_chat_only": facts.No,
			"support_response_minutes": facts.Yes, "deletion_confirmation": facts.Yes,
			"release_wipes": facts.Yes, "payment_protection": facts.No, "domestic_accelerators": facts.No}),
			want: []facts.Kind{"backups"}},
		{name: "unknowns in page order", inForce: known(map[facts.Kind]facts.Value{"preinstalled": facts.Yes, "desktop": facts.No}),
			want: []facts.Kind{"state_kept", "setup_minutes", "support_ticket", "support_phone", "support_chat_only",
				"support_response_minutes", "backups", "deletion_confirmation", "release_wipes", "payment_protection",
				"domestic_accelerators"}},
		{name: "a kind missing from the map is unknown", inForce: map[facts.Kind]facts.Fact{},
			want: facts.Kinds},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := facts.Unknowns(tt.inForce); !slices.Equal(got, tt.want) {
				t.Errorf("Unknowns = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestRead checks the fact form (docs/RULES.md §18.3 "What is stored" and
// "The two measured facts"): kind and answer from their lists; whole
// minutes 0–43,200, required for a measured fact answered yes and refused
// on any other answer or kind; a note of at most 1,000 characters; a
// source, required, at most 500; a day from 2000 not after the latest day
// on Earth; an optional trial number; every problem at once.
func TestRead(t *testing.T) {
	valid := func() url.Values {
		return url.Values{"kind": {"backups"}, "value": {"yes"}, "note": {"daily snapshots"},
			"source": {"support ticket 123"}, "as_of": {"2026-11-30"}}
	}
	tests := []struct {
		name        string
		change      map[string]string
		want        map[string]string // field → message ID
		wantMinutes *int
		wantTrial   int64
	}{
		{name: "valid"},
		{name: "kind missing", change: map[string]string{"kind": ""}, want: map[string]string{"kind": form.MsgRequired}},
		{name: "kind unknown", change: map[string]string{"kind": "gpu"}, want: map[string]string{"kind": form.MsgChoice}},
		{name: "answer missing", change: map[string]string{"value": ""}, want: map[string]string{"value": form.MsgRequired}},
		{name: "answer not yes, no or unknown", change: map[string]string{"value": "maybe"}, want: map[string]string{"value": form.MsgChoice}},

		{name: "setup measured yes with minutes", change: map[string]string{"kind": "setup_minutes", "minutes": "45"}, wantMinutes: intp(45)},
		{name: "response measured yes with 0 minutes", change: map[string]string{"kind": "support_response_minutes", "minutes": "0"}, wantMinutes: intp(0)},
		{name: "measured yes with 43,200 minutes", change: map[string]string{"kind": "setup_minutes", "minutes": "43200"}, wantMinutes: intp(43200)},
		{name: "measured yes with 43,201 minutes", change: map[string]string{"kind": "setup_minutes", "minutes": "43201"},
			want: map[string]string{"minutes": form.MsgRange}},
		{name: "measured yes with fractional minutes", change: map[string]string{"kind": "setup_minutes", "minutes": "1.5"},
			want: map[string]string{"minutes": form.MsgInteger}},
		{name: "measured yes with negative minutes", change: map[string]string{"kind": "setup_minutes", "minutes": "-1"},
			want: map[string]string{"minutes": form.MsgRange}},
		{name: "measured yes without minutes", change: map[string]string{"kind": "setup_minutes"},
			want: map[string]string{"minutes": facts.MsgMinutesRequired}},
		{name: "measured no without minutes", change: map[string]string{"kind": "support_response_minutes", "value": "no"}},
		{name: "measured unknown without minutes", change: map[string]string{"kind": "setup_minutes", "value": "unknown"}},
		{name: "measured no with minutes", change: map[string]string{"kind": "support_response_minutes", "value": "no", "minutes": "30"},
			want: map[string]string{"minutes": facts.MsgMinutesRefused}},
		{name: "measured unknown with minutes", change: map[string]string{"kind": "setup_minutes", "value": "unknown", "minutes": "30"},
			want: map[string]string{"minutes": facts.MsgMinutesRefused}},
		{name: "minutes on another kind", change: map[string]string{"minutes": "30"},
			want: map[string]string{"minutes": facts.MsgMinutesRefused}},
		{name: "bad minutes on another kind are refused as minutes", change: map[string]string{"minutes": "abc"},
			want: map[string]string{"minutes": facts.MsgMinutesRefused}},

		{name: "note of 1,000 characters", change: map[string]string{"note": strings.Repeat("注", 1000)}},
		{name: "note of 1,001 characters", change: map[string]string{"note": strings.Repeat("注", 1001)}, want: map[string]string{"note": form.MsgTooLong}},
		{name: "source missing", change: map[string]string{"source": " "}, want: map[string]string{"source": form.MsgRequired}},
		{name: "source of 500 characters", change: map[string]string{"source": strings.Repeat("s", 500)}},
		{name: "source of 501 characters", change: map[string]string{"source": strings.Repeat("s", 501)}, want: map[string]string{"source": form.MsgTooLong}},

		{name: "day missing", change: map[string]string{"as_of": ""}, want: map[string]string{"as_of": form.MsgRequired}},
		{name: "day is the latest day on Earth", change: map[string]string{"as_of": "2026-12-02"}},
		{name: "day after the latest day on Earth", change: map[string]string{"as_of": "2026-12-03"}, want: map[string]string{"as_of": form.MsgFuture}},
		{name: "day 2000-01-01", change: map[string]string{"as_of": "2000-01-01"}},
		{name: "day before 2000", change: map[string]string{"as_of": "1999-12-31"}, want: map[string]string{"as_of": form.MsgDate}},

		{name: "trial number", change: map[string]string{"trial_id": "12"}, wantTrial: 12},
		{name: "trial number 0", change: map[string]string{"trial_id": "0"}, want: map[string]string{"trial_id": form.MsgRange}},
		{name: "trial number not a number", change: map[string]string{"trial_id": "T-12"}, want: map[string]string{"trial_id": form.MsgInteger}},

		{name: "every problem at once", change: map[string]string{"kind": "setup_minutes", "value": "yes", "source": "", "as_of": "2030-01-01"},
			want: map[string]string{"minutes": facts.MsgMinutesRequired, "source": form.MsgRequired, "as_of": form.MsgFuture}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			for k, v := range tt.change {
				in.Set(k, v)
			}
			r := form.Values(in)
			f := facts.Read(r, latest)
			got := map[string]string{}
			for field, m := range r.Errs {
				got[field] = m.ID
			}
			for field, id := range tt.want {
				if got[field] != id {
					t.Errorf("field %s: problem %q, want %q", field, got[field], id)
				}
			}
			for field, id := range got {
				if _, ok := tt.want[field]; !ok {
					t.Errorf("field %s: unexpected problem %q", field, id)
				}
			}
			if len(tt.want) > 0 {
				return
			}
			if (f.Minutes == nil) != (tt.wantMinutes == nil) || f.Minutes != nil && *f.Minutes != *tt.wantMinutes {
				t.Errorf("minutes = %v, want %v", f.Minutes, tt.wantMinutes)
			}
			if f.TrialID != tt.wantTrial {
				t.Errorf("trial = %d, want %d", f.TrialID, tt.wantTrial)
			}
			if f.Kind != facts.Kind(in.Get("kind")) || f.Value != facts.Value(in.Get("value")) || f.Source != in.Get("source") ||
				f.AsOf.Format(time.DateOnly) != in.Get("as_of") {
				t.Errorf("read %+v from %v", f, in)
			}
		})
	}
}

// TestCheck checks the same rules as TestRead for a fact built in code (the
// seed, the store; docs/RULES.md §18.3): the field of the first problem,
// or none. Only the field is compared: the rule is whether a record is
// refused and where.
func TestCheck(t *testing.T) {
	ok := facts.Fact{Kind: "backups", Value: facts.Yes, Source: "guide, 2026", AsOf: day(2026, 1, 1)}
	with := func(change func(f *facts.Fact)) facts.Fact {
		f := ok
		change(&f)
		return f
	}
	tests := []struct {
		name      string
		fact      facts.Fact
		wantField string // "" when the fact is fine
	}{
		{name: "valid", fact: ok},
		{name: "unknown kind", fact: with(func(f *facts.Fact) { f.Kind = "gpu" }), wantField: "kind"},
		{name: "unknown answer", fact: with(func(f *facts.Fact) { f.Value = "maybe" }), wantField: "value"},
		{name: "measured yes with minutes", fact: with(func(f *facts.Fact) { f.Kind, f.Minutes = "setup_minutes", intp(45) })},
		{name: "measured yes without minutes", fact: with(func(f *facts.Fact) { f.Kind = "setup_minutes" }), wantField: "minutes"},
		{name: "measured no without minutes", fact: with(func(f *facts.Fact) { f.Kind, f.Value = "support_response_minutes", facts.No })},
		{name: "measured no with minutes", fact: with(func(f *facts.Fact) {
			f.Kind, f.Value, f.Minutes = "support_response_minutes", facts.No, intp(5)
		}), wantField: "minutes"},
		{name: "minutes on another kind", fact: with(func(f *facts.Fact) { f.Minutes = intp(5) }), wantField: "minutes"},
		{name: "minutes 43,200", fact: with(func(f *facts.Fact) { f.Kind, f.Minutes = "setup_minutes", intp(43200) })},
		{name: "minutes 43,201", fact: with(func(f *facts.Fact) { f.Kind, f.Minutes = "setup_minutes", intp(43201) }), wantField: "minutes"},
		{name: "negative minutes", fact: with(func(f *facts.Fact) { f.Kind, f.Minutes = "setup_minutes", intp(-1) }), wantField: "minutes"},
		{name: "note of 1,000 characters", fact: with(func(f *facts.Fact) { f.Note = strings.Repeat("注", 1000) })},
		{name: "note of 1,001 characters", fact: with(func(f *facts.Fact) { f.Note = strings.Repeat("注", 1001) }), wantField: "note"},
		{name: "no source", fact: with(func(f *facts.Fact) { f.Source = "" }), wantField: "source"},
		{name: "source of 500 characters", fact: with(func(f *facts.Fact) { f.Source = strings.Repeat("源", 500) })},
		{name: "source of 501 characters", fact: with(func(f *facts.Fact) { f.Source = strings.Repeat("源", 501) }), wantField: "source"},
		{name: "dated 2000-01-01", fact: with(func(f *facts.Fact) { f.AsOf = day(2000, 1, 1) })},
		{name: "dated before 2000", fact: with(func(f *facts.Fact) { f.AsOf = day(1999, 12, 31) }), wantField: "as_of"},
		{name: "dated the latest day", fact: with(func(f *facts.Fact) { f.AsOf = latest })},
		{name: "dated after the latest day", fact: with(func(f *facts.Fact) { f.AsOf = latest.AddDate(0, 0, 1) }), wantField: "as_of"},
		{name: "negative trial", fact: with(func(f *facts.Fact) { f.TrialID = -1 }), wantField: "trial_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field, msg := facts.Check(tt.fact, latest)
			if field != tt.wantField {
				t.Errorf("Check = (%q, %q), want field %q", field, msg, tt.wantField)
			}
			if (field == "") != (msg == "") {
				t.Errorf("Check = (%q, %q): a problem needs both a field and a message", field, msg)
			}
		})
	}
}

// TestCheckSaysWhatReadSays: for a fact built in code, Check names the
// same problem with the same message as the form's Read does — an empty or
// blank source is required, a long one too long, a day after the latest
// one in the future, one before 2000 not a date it takes.
func TestCheckSaysWhatReadSays(t *testing.T) {
	ok := facts.Fact{Kind: "backups", Value: facts.Yes, Source: "guide, 2026", AsOf: day(2026, 1, 1)}
	tests := []struct {
		name       string
		change     func(f *facts.Fact)
		field, msg string
	}{
		{"no source", func(f *facts.Fact) { f.Source = "" }, "source", form.MsgRequired},
		{"blank source", func(f *facts.Fact) { f.Source = "   " }, "source", form.MsgRequired},
		{"source of 501 characters", func(f *facts.Fact) { f.Source = strings.Repeat("源", 501) }, "source", form.MsgTooLong},
		{"dated after the latest day", func(f *facts.Fact) { f.AsOf = latest.AddDate(0, 0, 1) }, "as_of", form.MsgFuture},
		{"dated before 2000", func(f *facts.Fact) { f.AsOf = day(1999, 12, 31) }, "as_of", form.MsgDate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := ok
			tc.change(&f)
			if field, msg := facts.Check(f, latest); field != tc.field || msg != tc.msg {
				t.Errorf("Check = (%q, %q), want (%q, %q)", field, msg, tc.field, tc.msg)
			}
		})
	}
}
