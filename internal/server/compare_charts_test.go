package server_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/server"
	"gpuquote/internal/testutil"
)

// chartsDrawn is how many times the app's compare page drew its charts.
func chartsDrawn(t *testing.T, app *testutil.App) int {
	t.Helper()
	w := httptest.NewRecorder()
	app.Server.MetricsHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	sc := bufio.NewScanner(w.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "gpuquote_compare_charts_drawn_total "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return int(n)
		}
	}
	t.Fatal("no gpuquote_compare_charts_drawn_total on /metrics")
	return 0
}

// TestCompareChartsDrawnOncePerInput: a kept comparison's charts are drawn
// once per language; the same page again draws nothing, another language
// or a changed input draws anew, and so does a platform renamed (the
// pricing is the same, the names shown are not). A server keeping nothing
// draws on every request; both pages are the same byte for byte
// (docs/RULES.md §20.4). Sections draw no chart.
func TestCompareChartsDrawnOncePerInput(t *testing.T) {
	t.Parallel()
	app, clock := reportApp(t)
	off := testutil.NewAppOn(t, app.Store, withClock(clock), func(d *server.Deps) {
		d.Config.CompareCache = 0
		d.Config.SessionIdle, d.Config.SessionMax = 1000*time.Hour, 1000*time.Hour
	})
	a, b := reportMarket(t, app)
	c, _ := app.AsUser(auth.RoleAnalyst)
	state := url.Values{"profile.hours_per_month": {"200"}, "profile.months": {"1"}, "profile.instances": {"1"},
		"report_currency": {"EUR"}, "q": {itoa(a), itoa(b)}}
	// get asks for the state on both servers: the pages must be the same,
	// the keeping server must draw draws times, the other once.
	get := func(step string, draws int) string {
		t.Helper()
		before, beforeOff := chartsDrawn(t, app), chartsDrawn(t, off)
		kept, fresh := c.Get("/compare?"+state.Encode()), c.On(off).Get("/compare?"+state.Encode())
		if kept.StatusCode != http.StatusOK || !strings.Contains(kept.Body, `data-testid="chart-curves"`) {
			t.Fatalf("%s: status %d or no chart", step, kept.StatusCode)
		}
		if kept.Body != fresh.Body {
			t.Fatalf("%s: the page with kept charts differs from the page without:\n%s", step, firstDifference(kept.Body, fresh.Body))
		}
		if got := chartsDrawn(t, app) - before; got != draws {
			t.Errorf("%s: drawn %d times, want %d", step, got, draws)
		}
		if got := chartsDrawn(t, off) - beforeOff; got != 1 {
			t.Errorf("%s: the server keeping nothing drew %d times", step, got)
		}
		return kept.Body
	}
	zh := get("first", 1)
	if again := get("again", 0); again != zh {
		t.Fatal("the same page again differs")
	}
	for _, s := range compareSections {
		c.Get(sectionPath(t, zh, s.key))
	}
	get("after its sections", 0)
	c.Header.Set("Accept-Language", "en")
	get("in English", 1)
	get("in English again", 0)
	c.Header.Del("Accept-Language")
	get("in Chinese again", 0)

	// Renamed in place: the figures are kept, the names in the charts are
	// read for the request.
	pid, _ := marketRefs(app)
	if _, err := app.Store.Pool().Exec(t.Context(), `UPDATE platforms SET name_zh = '改名平台' WHERE id = $1`, pid); err != nil {
		t.Fatal(err)
	}
	_, hits, _ := compareCacheUse(t, app)
	renamed := get("a platform renamed", 1)
	if _, hits2, _ := compareCacheUse(t, app); hits2 != hits+1 {
		t.Errorf("the rename was priced anew: hits %d → %d", hits, hits2)
	}
	charts := document(t, renamed).Find(`[data-testid="compare-charts"]`).Text()
	if !strings.Contains(charts, "改名平台") {
		t.Error("the charts do not show the new name")
	}
	get("renamed, again", 0)

	state.Set("profile.hours_per_month", "300")
	get("another profile", 1)
	get("another profile, again", 0)
}
