package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"gpuquote/internal/report"
)

// exportOf writes a snapshot's CSV and workbook with message ids for text.
func exportOf(t *testing.T, s report.Snapshot) (csv string, xlsx []byte) {
	t.Helper()
	doc := report.BuildDocument(s, [][2]string{{"Number", "R-2026-0001"}}, func(id string, _ map[string]any) string { return id },
		func(r report.Row) string { return r.Quote.Label })
	var c, x bytes.Buffer
	if err := report.WriteCSV(&c, doc); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteXLSX(&x, doc); err != nil {
		t.Fatal(err)
	}
	return c.String(), x.Bytes()
}

// sheets names a workbook's sheets, one a line.
func sheets(t *testing.T, xlsx []byte) string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(xlsx))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return strings.Join(f.GetSheetList(), "\n")
}

// TestSnapshotWithoutAvailabilityKeepsItsBytes: a snapshot frozen without
// availability statistics (every report saved before they existed) has no
// "availability" member, reads back and writes the same bytes, and its
// exports hold no availability table or sheet; one with them has both
// (docs/RULES.md §18.2).
func TestSnapshotWithoutAvailabilityKeepsItsBytes(t *testing.T) {
	s := freeze(t, "0.9", aQuote(10, 10, 1, "EUR", "0.471"), aQuote(11, 11, 1, "USD", "0.40"))
	if s.Availability != nil {
		t.Fatalf("a comparison that read no availability froze %v", s.Availability)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(`"availability"`)) {
		t.Errorf("a snapshot without availability writes the member: %s", raw)
	}
	var back report.Snapshot
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); !bytes.Equal(raw, again) {
		t.Error("a snapshot without availability read back writes differently")
	}
	csv, xlsx := exportOf(t, back)
	if strings.Contains(csv, "availability.csv") || strings.Contains(sheets(t, xlsx), "availability.csv.table") {
		t.Error("the exports of a snapshot without availability hold its table")
	}

	back.Availability = []report.AvailabilityStat{{PlatformID: 3, GPUModelID: 1, PlatformNameZH: "示例云", PlatformNameEN: "Example",
		GPUVendor: "NVIDIA", GPUName: "RTX 4090", Day: "2026-12-01", Windows: []report.AvailabilityWindow{
			{Days: 30, Attempts: 3, Obtained: 2, RatePct: nd("66.7"), MedianWaitMinutes: nd("12.5")},
			{Days: 90, Attempts: 0}}}}
	raw, _ = json.Marshal(back)
	if !bytes.Contains(raw, []byte(`"availability":[{"platform_id":3,"gpu_model_id":1,`)) ||
		!bytes.Contains(raw, []byte(`"rate_pct":"66.7","median_wait_minutes":"12.5"`)) ||
		!bytes.Contains(raw, []byte(`"rate_pct":null,"median_wait_minutes":null`)) {
		t.Errorf("availability is not frozen with decimals as strings: %s", raw)
	}
	csv, xlsx = exportOf(t, back)
	if !strings.Contains(csv, "availability.csv.platform,") || !strings.Contains(csv, "RTX 4090,2026-12-01,30,3,2,66.7,12.5") ||
		!strings.Contains(csv, "RTX 4090,2026-12-01,90,0,0,,") {
		t.Errorf("the CSV lacks the availability table:\n%s", csv)
	}
	if !strings.Contains(sheets(t, xlsx), "availability.csv.table") {
		t.Error("the workbook lacks the availability sheet")
	}
}
