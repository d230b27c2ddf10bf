package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"gpuquote/internal/auth"
	"gpuquote/internal/testutil"
)

// TestComparePageReadsNoFactsOrAvailability: the compare page and its
// lines section price from what pricing reads; the platforms' facts and
// the availability records are read only by the sections that show them
// (docs/RULES.md §20.4). With those two tables renamed away, the page and the lines still answer with their figures, while
// the facts and availability sections fail — so the tables are really gone.
func TestComparePageReadsNoFactsOrAvailability(t *testing.T) {
	t.Parallel()
	ownerURL, appURL := testutil.DB(t)
	app := reportAppOn(t, testutil.Open(t, appURL), testutil.NewClock(reportDay))
	a, b := reportMarket(t, app)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	page := compareURL("200", a, b) + "&profile.egress_gb_per_month=100&profile.snapshot_gb=50"
	before := analyst.Get(page)
	if before.StatusCode != http.StatusOK || figure(t, before.Body, b, "tco") != "€72.00" {
		t.Fatalf("compare page: %d, B's TCO %q", before.StatusCode, figure(t, before.Body, b, "tco"))
	}

	ctx := context.Background()
	if _, err := testutil.Open(t, ownerURL).Pool().Exec(ctx, `ALTER TABLE platform_facts RENAME TO platform_facts_away;
		ALTER TABLE availability_records RENAME TO availability_records_away`); err != nil {
		t.Fatal(err)
	}

	after := analyst.Get(page)
	if after.StatusCode != http.StatusOK || figure(t, after.Body, b, "tco") != "€72.00" || figure(t, after.Body, a, "tco") != "€75.00" {
		t.Errorf("compare page without facts and availability: %d, TCO A %q B %q", after.StatusCode,
			figure(t, after.Body, a, "tco"), figure(t, after.Body, b, "tco"))
	}
	query := page[strings.Index(page, "?"):]
	if r := analyst.Get("/compare/lines" + query); r.StatusCode != http.StatusOK || !strings.Contains(r.Body, `data-testid="lines-`+itoa(b)+`"`) {
		t.Errorf("lines section: %d", r.StatusCode)
	}
	for _, section := range []string{"/compare/facts", "/compare/availability"} {
		if r := analyst.Get(section + query); r.StatusCode != http.StatusInternalServerError {
			t.Errorf("%s with its table gone: %d, want 500 (it reads the table)", section, r.StatusCode)
		}
	}
}
