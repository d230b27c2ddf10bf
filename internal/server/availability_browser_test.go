package server_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"gpuquote/internal/auth"
	"gpuquote/internal/avail"
	"gpuquote/internal/sample"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestBrowserAvailability opens the compare page's availability section
// with the availability of each row (AutoDL's RTX 4090 with records, another platform without), a
// quote page's availability box and the records page at a phone's and a
// desktop's width in both languages: nothing scrolls sideways
// (docs/RULES.md §18.2). GPUQUOTE_SCREENSHOT_DIR keeps the images.
func TestBrowserAvailability(t *testing.T) {
	t.Parallel()
	app := testutil.NewApp(t)
	ctx := context.Background()
	if err := sample.LoadMarket(ctx, app.Store, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := sample.LoadAvailability(ctx, app.Store, io.Discard, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	ids, pids, gpu := publishSample4090s(t, app, "AutoDL 算力云", "晨涧云")
	first, autodl := ids[0], pids[0]
	q := "profile.hours_per_month=200&profile.months=1&profile.instances=1&report_currency=EUR&q=" + itoa(ids[0]) + "&q=" + itoa(ids[1])
	// Attempts of the last days, whatever day the test runs on.
	for i, ok := range []bool{true, false, true} {
		if _, err := app.Store.CreateAvailabilityRecord(ctx, user.SystemActor, avail.Input{PlatformID: autodl, GPUModelID: gpu,
			AttemptedAt: time.Now().UTC().AddDate(0, 0, -1-i), GPUCount: 1, Obtained: ok, WaitMinutes: 5 * (i + 1),
			Note: "晚高峰 evening peak"}); err != nil {
			t.Fatal(err)
		}
	}
	email, password, _ := app.CreateUser(auth.RoleAnalyst)
	b := testutil.Browser(t)
	if err := chromedp.Do(b, signIn(app, email, password)); err != nil {
		t.Fatal(err)
	}
	pagesFit(t, b, app, "availability", []fitPage{
		// The compare page's availability section on its own page
		// (docs/RULES.md §20.4; TestBrowserCompareSectionsOnDemand opens it
		// in place).
		{"compare", "/compare/availability?" + q, `[data-testid="compare-availability"]`, true},
		{"quote", "/quotes/" + itoa(first), `[data-testid="availability-panel"]`, false},
		{"records", "/availability?platform=" + itoa(autodl) + "&gpu=" + itoa(gpu), `[data-testid="availability-table"]`, false},
	})
}
