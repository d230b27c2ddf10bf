package server_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"gpuquote/internal/auth"
	"gpuquote/internal/report"
	"gpuquote/internal/user"
)

// TestReportSavedUnderOlderRulesKeepsItsFigures stores a report exactly as
// rules 2026.1 saved it (its snapshot, CSV and workbook were captured from
// that release) and reads it back today: the page shows the old figures and
// names the rules that made them, and both exports are the same bytes as
// then (docs/RULES.md §11.1).
func TestReportSavedUnderOlderRulesKeepsItsFigures(t *testing.T) {
	t.Parallel()
	app, _ := reportApp(t)
	ctx := context.Background()
	analyst, id := app.AsUser(auth.RoleAnalyst) // "Test analyst1", as when it was saved
	snapshot := readGolden(t, "snapshot.json")
	created := time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)
	rep, err := app.Store.CreateReport(ctx, user.Actor{UserID: id, Email: "analyst1@example.test"}, created, report.NewReport{
		Title: "GPU 租用 12 月", Purpose: "LoRA 微调，一个月", Snapshot: snapshot, SnapshotVersion: 1, RulesVersion: "2026.1",
		FiguresDate: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), ReportCurrency: "EUR", QuoteCount: 2, PlatformIDs: []int64{1},
		RecommendedTCO:            decimal.NewNullDecimal(decimal.RequireFromString("72.00")),
		RecommendedTCOPessimistic: decimal.NewNullDecimal(decimal.RequireFromString("72.00"))})
	if err != nil {
		t.Fatal(err)
	}
	path := "/reports/" + itoa(rep.ID)

	page := analyst.Get(path)
	if page.StatusCode != http.StatusOK {
		t.Fatalf("report page: %d", page.StatusCode)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page.Body))
	if err != nil {
		t.Fatal(err)
	}
	for sel, want := range map[string]string{
		`[data-testid="report-rules"]`:                          "2026.1",
		`[data-testid="row-2"] [data-testid="tco"]`:             "€72.00",
		`[data-testid="row-1"] [data-testid="tco"]`:             "€75.00",
		`[data-testid="row-1"] [data-testid="tco-pessimistic"]`: "€80.00",
		`[data-testid="report-summary-tco"]`:                    "€72.00",
	} {
		if got := strings.TrimSpace(doc.Find(sel).First().Text()); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	// Rules 2026.1 knew no unpriced items: the page invents none.
	if n := doc.Find(`[data-testid="pessimistic-unpriced"]`).Length(); n != 0 {
		t.Errorf("a 2026.1 report shows %d pessimistic-unpriced notes", n)
	}

	for _, f := range []struct{ path, golden string }{{path + "/export.csv", "report.csv"}, {path + "/export.xlsx", "report.xlsx"}} {
		r := analyst.Get(f.path)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", f.path, r.StatusCode)
		}
		if want := readGolden(t, f.golden); !bytes.Equal([]byte(r.Body), want) {
			t.Errorf("%s is not the bytes rules 2026.1 wrote (%d bytes, want %d); first difference: %s",
				f.path, len(r.Body), len(want), firstDiff(r.Body, string(want)))
		}
	}
}

func readGolden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/report-2026.1/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
