package server_test

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"gpuquote/internal/auth"
	"gpuquote/internal/quote"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// listRows returns the ids of the quote list's rows, in order.
func listRows(body string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<tr data-testid="quote-(\d+)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestQuoteListKeptPartsFollowChanges: the quote list keeps its pages and
// filter names per server process (docs/RULES.md §20.6), yet every change
// to what they show — a quote published, a new version, an archived one, a
// platform or GPU model renamed, a new day — shows on the next request of
// the same server, and its pages are byte for byte those of a server that
// kept nothing.
func TestQuoteListKeptPartsFollowChanges(t *testing.T) {
	t.Parallel()
	clock := testutil.NewClock(testfactory.Day.Add(10*24*time.Hour + 9*time.Hour))
	app := testutil.NewApp(t, withClock(clock))
	ctx := context.Background()
	pid, gid := marketRefs(app)
	c, _ := app.AsUser(auth.RoleEditor)
	same := func(path string) string {
		t.Helper()
		body := c.Get(path).Body
		fresh := testutil.NewAppOn(t, app.Store, withClock(clock))
		if other := c.On(fresh).Get(path).Body; other != body {
			t.Errorf("%s differs from a fresh server's page", path)
		}
		return body
	}
	rows := func(path string, want ...int64) string {
		t.Helper()
		body := same(path)
		var ids []string
		for _, id := range want {
			ids = append(ids, itoa(id))
		}
		if got := listRows(body); strings.Join(got, ",") != strings.Join(ids, ",") {
			t.Errorf("%s lists %v, want %v", path, got, ids)
		}
		return body
	}
	mk := func(label string, asOf time.Time) quote.Quote {
		return testfactory.Published(t, app.Store, quote.Quote{PlatformID: pid, GPUModelID: gid, Label: label, AsOf: asOf,
			Hourly: testfactory.ND("1.5")})
	}
	a := mk("kept alpha", testfactory.Day)
	rows("/quotes", a.ID)
	rows("/quotes?q=alpha", a.ID)
	rows("/quotes?q=HOSTKEY&currency=EUR", a.ID)

	// Published: on the list and in a search at once.
	b := mk("kept alpha beta", testfactory.Day.AddDate(0, 0, 1))
	rows("/quotes", b.ID, a.ID)
	rows("/quotes?q=alpha", b.ID, a.ID)
	rows("/quotes?q=HOSTKEY&currency=EUR", b.ID, a.ID)

	// A new version replaces its predecessor.
	b2 := testfactory.NextVersion(t, app.Store, b.ID, func(q *quote.Quote) { q.Label = "kept gamma" })
	rows("/quotes", b2.ID, a.ID)
	rows("/quotes?q=alpha", a.ID)
	rows("/quotes?q=gamma", b2.ID)

	// Archived: gone from the published list, shown to editors asking.
	if err := app.Store.ArchiveQuote(ctx, user.SystemActor, a.ID); err != nil {
		t.Fatal(err)
	}
	rows("/quotes", b2.ID)
	rows("/quotes?q=alpha")
	rows("/quotes?state=archived", b.ID, a.ID)

	// A draft is listed for editors asking for drafts as soon as it is saved.
	d := testfactory.Draft(t, app.Store, quote.Quote{PlatformID: pid, GPUModelID: gid, Label: "kept draft", Hourly: testfactory.ND("2")})
	rows("/quotes?state=draft", d.ID)

	// A platform renamed in place: the row and the filter's names show
	// the new name, and a search finds it by it.
	if _, err := app.Store.Pool().Exec(ctx, `UPDATE platforms SET name_zh = 'Kept Renamed Cloud', name_en = 'Kept Renamed Cloud' WHERE id = $1`, pid); err != nil {
		t.Fatal(err)
	}
	body := rows("/quotes", b2.ID)
	if !strings.Contains(body, `>Kept Renamed Cloud</a>`) || !strings.Contains(body, `>Kept Renamed Cloud</option>`) || strings.Contains(body, "HOSTKEY") {
		t.Error("the list still shows the platform's old name")
	}
	rows("/quotes?q=renamed+cloud", b2.ID)
	rows("/quotes?q=HOSTKEY&currency=EUR")

	// A GPU model renamed, and a new one.
	if _, err := app.Store.Pool().Exec(ctx, `UPDATE gpu_models SET name = 'Kept Accelerator' WHERE id = $1`, gid); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Store.Pool().Exec(ctx, `INSERT INTO gpu_models (vendor, name, vram_gb) VALUES ('NVIDIA', 'Kept Newcomer', 80)`); err != nil {
		t.Fatal(err)
	}
	body = rows("/quotes?q=kept+accelerator", b2.ID)
	if !strings.Contains(body, "AMD Kept Accelerator") || !strings.Contains(body, ">NVIDIA Kept Newcomer</option>") {
		t.Error("the list does not show the GPU models as they are now")
	}

	// The other language draws its own rows.
	zh := rows("/quotes", b2.ID)
	c.PostForm("/lang", url.Values{"lang": {"en"}, "next": {"/quotes"}})
	if en := rows("/quotes", b2.ID); !strings.Contains(en, `<html lang="en">`) || en == zh {
		t.Error("the list is not drawn in English after the switch")
	}

	// A new day: the sample older than 90 days is marked stale, and the
	// stale filter lists it.
	if strings.Contains(same("/quotes"), `data-testid="stale"`) {
		t.Fatal("a fresh sample is marked stale")
	}
	clock.Advance(90 * 24 * time.Hour)
	c, _ = app.AsUser(auth.RoleEditor)
	if !strings.Contains(rows("/quotes", b2.ID), `data-testid="stale"`) {
		t.Error("a sample gone stale is not marked")
	}
	rows("/quotes?stale=1", b2.ID)
}
