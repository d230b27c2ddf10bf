package server_test

import (
	"context"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/facts"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/user"
)

// TestReportFreezesPlatformFacts: a report says what the compared
// platforms' facts were when it was saved, and a later record changes the
// comparison's facts but not the report's, its page read again through a
// fresh server (docs/RULES.md §18.3); reports did not keep them.
func TestReportFreezesPlatformFacts(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	q := publishQuote(app, "EUR", "0.471", "70", testfactory.AllIncluded())
	pid, _ := marketRefs(app)
	testfactory.Fact(t, app.Store, pid, facts.Preinstalled, facts.Yes)
	analyst, _ := app.AsUser(auth.RoleAnalyst)
	id := saveReport(t, analyst, reportForm("平台事实", "200", q))
	cell := `[data-testid="compare-fact-` + itoa(pid) + `-` + string(facts.Preinstalled) + `"]`
	report := `[data-testid="report-facts"] ` + cell
	if v, _ := document(t, analyst.Get("/reports/"+itoa(id)).Body).Find(report).Attr("data-value"); v != string(facts.Yes) {
		t.Fatalf("the report's facts say %q for the preinstalled environment, want yes", v)
	}
	// The platform's answer changes after the report was saved.
	if _, err := app.Store.CreatePlatformFact(context.Background(), user.SystemActor, facts.Fact{PlatformID: pid, Kind: facts.Preinstalled,
		Value: facts.No, Source: "second trial", AsOf: reportDay.AddDate(0, 0, -1)}, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	fresh := analyst.On(reportAppOn(t, app.Store, clock))
	if v, _ := document(t, fresh.Get("/reports/"+itoa(id)).Body).Find(report).Attr("data-value"); v != string(facts.Yes) {
		t.Errorf("after a later record the report says %q, want what it froze (yes)", v)
	}
	if v, _ := document(t, sectionOf(t, fresh, fresh.Get(compareURL("200", q)).Body, "facts")).Find(cell).Attr("data-value"); v != string(facts.No) {
		t.Errorf("the comparison says %q, want the later record (no)", v)
	}
}
