package report

import (
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"
)

// AvailabilityStat is one compared platform × GPU model's availability as
// the comparison showed it (docs/RULES.md §18.2): the attempts recorded in
// each window of days ending on Day, frozen with the report so it says the
// same thing after more attempts are recorded.
type AvailabilityStat struct {
	PlatformID     int64  `json:"platform_id"`
	GPUModelID     int64  `json:"gpu_model_id"`
	PlatformNameZH string `json:"platform_name_zh"`
	PlatformNameEN string `json:"platform_name_en"`
	GPUVendor      string `json:"gpu_vendor"`
	GPUName        string `json:"gpu_name"`
	// Day is the windows' last day, YYYY-MM-DD (UTC).
	Day     string               `json:"day"`
	Windows []AvailabilityWindow `json:"windows"`
}

// AvailabilityWindow is one window's statistics. RatePct is the success
// rate rounded half up to one place, MedianWaitMinutes the exact median
// wait of the attempts that obtained GPUs; both absent when undefined.
type AvailabilityWindow struct {
	Days              int                 `json:"days"`
	Attempts          int                 `json:"attempts"`
	Obtained          int                 `json:"obtained"`
	RatePct           decimal.NullDecimal `json:"rate_pct"`
	MedianWaitMinutes decimal.NullDecimal `json:"median_wait_minutes"`
}

// AvailabilityOf returns the frozen availability of a platform × GPU
// model, if the snapshot has it.
func (s Snapshot) AvailabilityOf(platformID, gpuModelID int64) (AvailabilityStat, bool) {
	for _, a := range s.Availability {
		if a.PlatformID == platformID && a.GPUModelID == gpuModelID {
			return a, true
		}
	}
	return AvailabilityStat{}, false
}

// availabilityTable lays out a snapshot's availability for export
// (docs/RULES.md §18.2): one row per platform × GPU model and window. It
// is empty for a snapshot without availability, and the exports then hold
// no such table.
func availabilityTable(s Snapshot, tr Translate) Table {
	if len(s.Availability) == 0 {
		return Table{}
	}
	t := func(id string) string { return tr(id, nil) }
	out := Table{Header: []string{t("availability.csv.platform"), t("availability.csv.gpu"), t("availability.csv.day"),
		t("availability.csv.days"), t("availability.csv.attempts"), t("availability.csv.obtained"), t("availability.csv.rate"),
		t("availability.csv.median")}}
	opt := func(d decimal.NullDecimal) Cell {
		if !d.Valid {
			return text("")
		}
		return num(Number, d.Decimal)
	}
	for _, a := range s.Availability {
		zh, en := a.PlatformNameZH, a.PlatformNameEN
		if zh == "" {
			zh = en
		} else if en == "" {
			en = zh
		}
		// The catalog picks the name of the reader's language.
		platform := tr("availability.platform_name", map[string]any{"ZH": zh, "EN": en})
		for _, w := range a.Windows {
			out.Rows = append(out.Rows, []Cell{text(platform), text(a.GPUVendor + " " + a.GPUName), text(a.Day),
				num(Number, decimal.NewFromInt(int64(w.Days))), num(Number, decimal.NewFromInt(int64(w.Attempts))),
				num(Number, decimal.NewFromInt(int64(w.Obtained))), opt(w.RatePct), opt(w.MedianWaitMinutes)})
		}
	}
	return out
}

// writeAvailabilitySheet adds the availability sheet, only when the
// document has the table.
func writeAvailabilitySheet(f *excelize.File, d Document, styles map[Kind]int, bold int) error {
	if len(d.Availability.Header) == 0 {
		return nil
	}
	sheet := sheetName(d.AvailabilityName, "Availability")
	if _, err := f.NewSheet(sheet); err != nil {
		return err
	}
	if err := writeTable(f, sheet, 1, d.Availability, styles, bold); err != nil {
		return err
	}
	last, _ := excelize.ColumnNumberToName(len(d.Availability.Header))
	if err := f.SetColWidth(sheet, "A", last, 14); err != nil {
		return err
	}
	return f.SetColWidth(sheet, "A", "B", 24)
}
