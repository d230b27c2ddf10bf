package report_test

import (
	"testing"

	"github.com/shopspring/decimal"

	"gpuquote/internal/report"
)

// ownRow is a priced own-hardware option row of a snapshot.
func ownRow(versionID, optionID int64, version int, tco string, e report.OwnElectricity) report.OwnRow {
	return report.OwnRow{Option: report.OwnOption{ID: versionID, OptionID: optionID, Version: version, Name: "Rack"},
		Electricity: e, Priced: true, Result: &report.OwnResult{TCO: decimal.RequireFromString(tco)}}
}

// TestCompareOwnOptions: recomputing lists the own-hardware options by
// option id in the new report's order, then those only the old report
// had, with the version, the electricity and the TCO change
// (docs/RULES.md §11.7).
func TestCompareOwnOptions(t *testing.T) {
	e1 := report.OwnElectricity{KWhPrice: decimal.RequireFromString("0.30"), SampleID: 4, Region: "DE", AsOf: "2026-11-01", Source: "BNetzA"}
	e2 := report.OwnElectricity{KWhPrice: decimal.RequireFromString("0.50"), SampleID: 9, Region: "DE", AsOf: "2026-12-01", Source: "Tarif"}
	own := report.OwnElectricity{KWhPrice: decimal.RequireFromString("0.25")}
	old := report.Snapshot{Own: []report.OwnRow{ownRow(10, 1, 1, "133.33", e1), ownRow(20, 2, 3, "90", own), ownRow(30, 3, 1, "50", own)}}
	// Option 1 gets version 2 and a new sample, option 2 is as it was,
	// option 3 is gone and option 4 is new; the new report lists 2, 1, 4.
	now := report.Snapshot{Own: []report.OwnRow{ownRow(20, 2, 3, "90", own), ownRow(11, 1, 2, "125.56", e2), ownRow(40, 4, 1, "70", own)}}
	d := report.Compare(old, now)
	if len(d.OwnChanges) != 4 {
		t.Fatalf("own changes %+v", d.OwnChanges)
	}
	same, moved, added, gone := d.OwnChanges[0], d.OwnChanges[1], d.OwnChanges[2], d.OwnChanges[3]
	if same.Old == nil || same.New.Option.OptionID != 2 || same.Changed() || same.VersionChanged || same.ElectricityChanged ||
		!same.TCODelta.Valid || !same.TCODelta.Decimal.IsZero() {
		t.Errorf("unchanged option: %+v", same)
	}
	if moved.Old == nil || moved.Old.Option.Version != 1 || moved.New.Option.Version != 2 || !moved.VersionChanged ||
		!moved.ElectricityChanged || !moved.Changed() || moved.TCODelta.Decimal.String() != "-7.77" {
		t.Errorf("option with a new version and sample: %+v", moved)
	}
	if added.Old != nil || added.New.Option.OptionID != 4 || !added.Changed() || added.TCODelta.Valid {
		t.Errorf("new option: %+v", added)
	}
	if gone.New != nil || gone.Old.Option.OptionID != 3 || !gone.Changed() {
		t.Errorf("option only in the old report: %+v", gone)
	}
	// Only the kWh price's day moving is an electricity change too.
	later := e1
	later.AsOf = "2026-11-15"
	c := report.Compare(report.Snapshot{Own: []report.OwnRow{ownRow(10, 1, 1, "133.33", e1)}},
		report.Snapshot{Own: []report.OwnRow{ownRow(10, 1, 1, "133.33", later)}}).OwnChanges
	if len(c) != 1 || !c[0].ElectricityChanged || c[0].VersionChanged || !c[0].Changed() {
		t.Errorf("a sample of another day: %+v", c)
	}
	if c := report.Compare(old, old).OwnChanges; len(c) != 3 || c[0].Changed() || c[1].Changed() || c[2].Changed() {
		t.Errorf("a report compared with itself changed: %+v", c)
	}
}
