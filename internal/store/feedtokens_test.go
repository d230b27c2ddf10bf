package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/store"
	"gpuquote/internal/testfactory"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestFeedTokens: one token per user, replaced by a new one, revoked,
// each audited; a disabled user's or a password change's token is gone
// (docs/RULES.md §24.6).
func TestFeedTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	u, err := st.CreateUser(ctx, actor, user.NewAccount{Email: "feed@example.test", DisplayName: "F", Role: "analyst", PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	ana := user.Actor{UserID: u.ID, Email: u.Email}

	if _, found, err := st.FeedToken(ctx, u.ID); found || err != nil {
		t.Fatalf("a token before any: %v %v", found, err)
	}
	if err := st.RevokeFeedToken(ctx, ana); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("revoking none: %v", err)
	}
	if _, err := st.CreateFeedToken(ctx, ana, hash("feed-1"), now); err != nil {
		t.Fatal(err)
	}
	got, found, err := st.FeedTokenUser(ctx, hash("feed-1"))
	if err != nil || !found || got.UserID != u.ID || !got.CreatedAt.Equal(now) || got.LastUsedAt != nil {
		t.Fatalf("by token: %+v %v %v", got, found, err)
	}
	// Touching records the use at most once a minute.
	if err := st.TouchFeedToken(ctx, u.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := st.TouchFeedToken(ctx, u.ID, now.Add(time.Hour+30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := st.FeedToken(ctx, u.ID); got.LastUsedAt == nil || !got.LastUsedAt.Equal(now.Add(time.Hour)) {
		t.Errorf("last used: %v", got.LastUsedAt)
	}

	// A new token replaces the old one.
	if _, err := st.CreateFeedToken(ctx, ana, hash("feed-2"), now.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := st.FeedTokenUser(ctx, hash("feed-1")); found {
		t.Error("the replaced token still reads")
	}
	if _, found, _ := st.FeedTokenUser(ctx, hash("feed-2")); !found {
		t.Error("the new token does not read")
	}
	if n := count(t, st, "feed_tokens"); n != 1 {
		t.Errorf("%d feed tokens of one user", n)
	}
	if n := count(t, st, "audit_log WHERE action = 'feed_token.create' AND before IS NOT NULL"); n != 1 {
		t.Errorf("%d audited replacements", n)
	}
	if err := st.RevokeFeedToken(ctx, ana); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := st.FeedTokenUser(ctx, hash("feed-2")); found {
		t.Error("a revoked token still reads")
	}
	if n := count(t, st, "audit_log WHERE action IN ('feed_token.create', 'feed_token.revoke')"); n != 3 {
		t.Errorf("%d feed token audits, want 3", n)
	}

	// A password change and disabling end it.
	if _, err := st.CreateFeedToken(ctx, ana, hash("feed-3"), now); err != nil {
		t.Fatal(err)
	}
	if err := st.SetUserPassword(ctx, ana, u.ID, "y", nil); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := st.FeedTokenUser(ctx, hash("feed-3")); found {
		t.Error("the token outlived a password change")
	}
	if _, err := st.CreateFeedToken(ctx, ana, hash("feed-4"), now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SetUserDisabled(ctx, actor, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := st.FeedTokenUser(ctx, hash("feed-4")); found {
		t.Error("a disabled user's token reads")
	}
	if _, err := st.CreateFeedToken(ctx, ana, hash("feed-5"), now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a disabled user made a token: %v", err)
	}
	if events, err := st.WatchNotices(ctx, u.ID, 50); err != nil || len(events) != 0 {
		t.Errorf("watch notices: %v %v", events, err)
	}
}

// TestFeedQuoteVersions: the newest published versions first, each with
// the previous version's prices of the same offer; drafts are not there.
func TestFeedQuoteVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	p := testfactory.Platform(t, st, market.Platform{})
	g := testfactory.GPUModel(t, st, market.GPUModel{})
	v1 := testfactory.Published(t, st, quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, Currency: "CNY", Hourly: testfactory.ND("1.98"), Label: "tier"})
	v2 := testfactory.NextVersion(t, st, v1.ID, func(q *quote.Quote) { q.Hourly = testfactory.ND("1.78") })
	testfactory.Draft(t, st, quote.Quote{PlatformID: p.ID, GPUModelID: g.ID, Hourly: testfactory.ND("9")})
	got, err := st.FeedQuoteVersions(ctx, 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != v2.ID || got[1].ID != v1.ID {
		t.Fatalf("versions: %+v", got)
	}
	if got[0].PrevID != v1.ID || got[0].PrevHourly.Decimal.String() != "1.98" || got[0].Hourly.Decimal.String() != "1.78" ||
		got[0].Version != 2 || got[0].Label != "tier" || got[0].PublishedAt.IsZero() {
		t.Errorf("newest: %+v", got[0])
	}
	if got[1].PrevID != 0 || got[1].PrevHourly.Valid {
		t.Errorf("first version has a previous one: %+v", got[1])
	}
}
