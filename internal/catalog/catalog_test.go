package catalog

import (
	"reflect"
	"testing"
)

// TestItemsMatchTable pins the twelve items, their order, families, default
// units and allowed units to the hidden-cost table (docs/RULES.md §3).
func TestItemsMatchTable(t *testing.T) {
	want := []struct {
		key    ItemKey
		family Family
		def    Unit
		units  []Unit
		oneOff bool
	}{
		{"bandwidth", "bandwidth", "per_month", []Unit{"per_month", "per_day", "per_hour", "flat_month"}, false},
		{"egress", "bandwidth", "per_gb", []Unit{"per_gb", "flat_month"}, false},
		{"data_migration", "bandwidth", "per_gb", []Unit{"per_gb", "one_off"}, true},
		{"public_ip", "public_ip", "per_month", []Unit{"per_month", "per_day", "per_hour", "flat_month"}, false},
		{"system_disk", "storage", "per_month", []Unit{"per_month", "per_day", "per_hour", "flat_month"}, false},
		{"data_disk", "storage", "per_month", []Unit{"per_month", "per_day", "per_hour", "flat_month"}, false},
		{"object_storage", "storage", "per_month", []Unit{"per_month", "per_day", "per_hour", "flat_month"}, false},
		{"bundled_addon", "storage", "flat_month", []Unit{"flat_month", "per_month"}, false},
		{"snapshot", "snapshots", "per_month", []Unit{"per_month", "per_day", "per_hour", "flat_month"}, false},
		{"image", "snapshots", "per_month", []Unit{"per_month", "per_day", "per_hour", "flat_month"}, false},
		{"stopped_retention", "stopped", "per_hour", []Unit{"per_hour", "flat_month"}, false},
		{"start_stop_schedule", "stopped", "per_event", []Unit{"per_event", "flat_month"}, false},
	}
	if len(Items) != ItemCount || len(want) != ItemCount {
		t.Fatalf("%d items", len(Items))
	}
	for i, w := range want {
		it := Items[i]
		if it.Number != i+1 || it.Key != w.key || it.Family != w.family || it.DefaultUnit != w.def ||
			!reflect.DeepEqual(it.Units, w.units) || it.OneOff != w.oneOff {
			t.Errorf("item %d = %+v, want %+v", i+1, it, w)
		}
		if !it.Allows(it.DefaultUnit) {
			t.Errorf("%s does not allow its default unit", it.Key)
		}
		if ItemIndex(it.Key) != i {
			t.Errorf("ItemIndex(%s) = %d", it.Key, ItemIndex(it.Key))
		}
		if got, ok := LookupItem(it.Key); !ok || got.Key != it.Key {
			t.Errorf("LookupItem(%s)", it.Key)
		}
		if it.LabelID != "item."+string(it.Key) {
			t.Errorf("label ID %s", it.LabelID)
		}
	}
	if ItemIndex("gpu") != -1 {
		t.Error("unknown item has an index")
	}
}

func TestEnums(t *testing.T) {
	for _, u := range Units {
		if !u.Valid() {
			t.Errorf("%s invalid", u)
		}
	}
	if Unit("per_year").Valid() || Status("free").Valid() || Sharing("").Valid() ||
		Granularity("day").Valid() || BetweenRuns("").Valid() || Task("").Valid() || Precision("fp4").Valid() {
		t.Error("invalid value accepted")
	}
	if len(Flags) != 10 {
		t.Errorf("%d flags, docs/RULES.md §6.3 has 10", len(Flags))
	}
	if StatusUnconfirmed.Confirmed() || !StatusIncluded.Confirmed() {
		t.Error("Confirmed")
	}
}

func TestChecklists(t *testing.T) {
	if len(TrialChecks) != 30 {
		t.Fatalf("%d trial checks", len(TrialChecks))
	}
	perPhase := map[TrialPhase]int{}
	seen := map[string]bool{}
	for i, c := range TrialChecks {
		if c.Number != i+1 {
			t.Errorf("check %d numbered %d", i+1, c.Number)
		}
		if seen[c.Key] {
			t.Errorf("duplicate key %s", c.Key)
		}
		seen[c.Key] = true
		perPhase[c.Phase]++
		if c.LeaveOnFailure != (c.Phase == PhaseDay1) {
			t.Errorf("check %d LeaveOnFailure", c.Number)
		}
	}
	// docs/RULES.md §9.1: day 1 has 1–8, days 2–6 have 9–16, billing 17–22, day 7 23–30.
	if perPhase[PhaseDay1] != 8 || perPhase[PhaseDays2To6] != 8 || perPhase[PhaseDays1To7] != 6 || perPhase[PhaseDay7] != 8 {
		t.Errorf("phases %v", perPhase)
	}
	if len(SLAClauses) != 6 || len(WrittenConfirmations) != 5 {
		t.Errorf("%d SLA clauses, %d confirmations", len(SLAClauses), len(WrittenConfirmations))
	}
	for _, list := range [][]Clause{SLAClauses, WrittenConfirmations} {
		for i, c := range list {
			if c.Number != i+1 || c.Key == "" || c.LabelID == "" {
				t.Errorf("clause %+v", c)
			}
		}
	}
}

func TestMessageIDsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, id := range MessageIDs() {
		if seen[id] {
			t.Errorf("duplicate message ID %s", id)
		}
		seen[id] = true
	}
}
