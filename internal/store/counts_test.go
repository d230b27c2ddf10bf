package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/quote"
	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// TestHomeCountsAndLists: what waits for a reader is counted as the pages
// behind the counts list it — the reader's drafts and returned reports not
// yet revised, the inbox's submitted reports, the dashboard's stale quotes
// and price jumps — and only what is asked for.
func TestHomeCountsAndLists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	other := reportUser(t, st, "analyst")
	fin := reportUser(t, st, "finance")
	at := func(h int) time.Time { return storeDay.Add(time.Duration(h) * time.Hour) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	save := func(a user.Actor, h int, title string, previous int64) report.Report {
		t.Helper()
		nr := newReport(title)
		nr.PreviousRevisionID = previous
		r, err := st.CreateReport(ctx, a, at(h), nr)
		must(err)
		return r
	}
	returned := func(h int, title, comment string) report.Report {
		t.Helper()
		r := save(author, h, title, 0)
		must(st.SubmitReport(ctx, author, at(h+1), r.ID))
		must(st.ReturnReport(ctx, fin, at(h+2), r.ID, comment))
		return r
	}

	none, err := st.HomeCounts(ctx, store.HomeAsk{})
	if err != nil || none != (store.HomeCounts{}) {
		t.Fatalf("nothing asked: %+v %v", none, err)
	}
	d1 := save(author, 0, "草稿一", 0)
	d2 := save(author, 1, "草稿二", 0)
	must(st.DeleteReport(ctx, author, at(2), save(author, 2, "删掉的草稿", 0).ID))
	oldest := save(other, 3, "别人的待审", 0)
	must(st.SubmitReport(ctx, other, at(4), oldest.ID))
	mine := save(author, 5, "我的待审", 0)
	must(st.SubmitReport(ctx, author, at(6), mine.ID))
	r1 := returned(7, "退回一", "请补充出口流量的书面报价")
	r2 := returned(10, "退回二", "汇率日期不对")
	revised := returned(13, "已修订", "再算一次")
	rev := save(author, 16, "已修订（修订）", revised.ID) // a draft now; the returned one is dealt with
	approved := save(author, 17, "已批准", 0)
	must(st.SubmitReport(ctx, author, at(18), approved.ID))
	must(st.ApproveReport(ctx, fin, at(19), approved.ID, ""))
	save(other, 20, "别人的草稿", 0)

	got, err := st.HomeCounts(ctx, store.HomeAsk{UserID: author.UserID, Inbox: true})
	if err != nil {
		t.Fatal(err)
	}
	// Notices: three returns and an approval, none opened yet.
	if want := (store.HomeCounts{Drafts: 3, Returned: 2, Notices: 4, Waiting: 2}); got != want {
		t.Errorf("author and inbox: %+v, want %+v", got, want)
	}
	// Opening a report clears its notice, and only the author's opening.
	must(st.SeeReportNotice(ctx, r1.ID, fin.UserID, storeDay))
	must(st.SeeReportNotice(ctx, r1.ID, author.UserID, storeDay))
	if ns, err := st.ReportNotices(ctx, author.UserID, 2); err != nil || len(ns) != 2 || ns[0].ID != approved.ID ||
		ns[1].ID != revised.ID {
		t.Errorf("notices, newest decision first, at most 2: %+v %v", ns, err)
	}
	if n, err := st.HomeCounts(ctx, store.HomeAsk{UserID: author.UserID}); err != nil || n.Notices != 3 {
		t.Errorf("notices after opening one: %+v %v", n, err)
	}
	// The inbox count is the inbox's total.
	_, inbox, err := st.Reports(ctx, store.ReportFilter{ViewerID: fin.UserID, Statuses: []string{report.Submitted}, OldestFirst: true})
	if err != nil || inbox != got.Waiting {
		t.Errorf("inbox lists %d (%v), counted %d", inbox, err, got.Waiting)
	}
	if got, err := st.HomeCounts(ctx, store.HomeAsk{UserID: other.UserID}); err != nil || got != (store.HomeCounts{Drafts: 1}) {
		t.Errorf("another author, no inbox: %+v %v", got, err)
	}

	lists, err := st.HomeReports(ctx, author.UserID, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(rs []report.Report) []int64 {
		var out []int64
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	if g := ids(lists.Drafts); len(g) != 2 || g[0] != rev.ID || g[1] != d2.ID {
		t.Errorf("drafts, newest first, at most 2: %v (want %d, %d; %d is older)", g, rev.ID, d2.ID, d1.ID)
	}
	if g := ids(lists.Returned); len(g) != 2 || g[0] != r2.ID || g[1] != r1.ID {
		t.Errorf("returned, newest return first: %v, want %d, %d", g, r2.ID, r1.ID)
	}
	if r := lists.Returned[0]; r.DecisionComment != "汇率日期不对" || r.DecidedByName != "用户 finance" || r.DecidedAt == nil ||
		!r.DecidedAt.Equal(at(12)) || r.Title != "退回二" || r.Number == "" {
		t.Errorf("a returned report carries finance's comment: %+v", r)
	}
	if lists.OldestWaiting == nil || lists.OldestWaiting.ID != oldest.ID || lists.OldestWaiting.AuthorName != "用户 analyst" {
		t.Errorf("oldest waiting: %+v, want %d", lists.OldestWaiting, oldest.ID)
	}
	// Finance alone: the oldest waiting report and nothing of their own.
	lists, err = st.HomeReports(ctx, 0, true, 5)
	if err != nil || len(lists.Drafts)+len(lists.Returned) != 0 || lists.OldestWaiting == nil || lists.OldestWaiting.ID != oldest.ID {
		t.Errorf("inbox only: %+v %v", lists, err)
	}
	// An author without the inbox: no waiting report named.
	lists, err = st.HomeReports(ctx, author.UserID, false, 5)
	if err != nil || len(lists.Drafts) != 3 || lists.OldestWaiting != nil {
		t.Errorf("author only: %d drafts, oldest %+v, %v", len(lists.Drafts), lists.OldestWaiting, err)
	}
}

// TestHomeCountsMatchTheDashboard: the market counts are the totals the
// editors' dashboard lists (StaleQuotes, PriceJumps) over the same window.
func TestHomeCountsMatchTheDashboard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	pid, gid, other := historyFixture(t, st)
	staleBefore := histDay("2026-09-03") // today 2026-12-02 − 90 days

	histPublish(t, st, histQuote(pid, gid, "2026-01-15", "2", ""))   // stale
	histPublish(t, st, histQuote(pid, gid, "2026-09-03", "2", ""))   // exactly 90 days: not stale
	histPublish(t, st, histQuote(pid, other, "2025-12-01", "2", "")) // stale
	// −40 % inside the window: a jump (its previous version is archived).
	histNewVersion(t, st, histPublish(t, st, histQuote(pid, gid, "2026-10-01", "", "1000")), "2026-11-01", "1", "600")
	// +100 % before the window: stale, not a recent jump.
	histNewVersion(t, st, histPublish(t, st, histQuote(pid, gid, "2026-01-01", "1", "")), "2026-06-01", "2", "1")
	// +10 % inside the window, from a sample before it: no jump.
	histNewVersion(t, st, histPublish(t, st, histQuote(pid, other, "2026-05-01", "10", "")), "2026-10-15", "11", "1")
	// The same offer in another currency: its own samples, no jump.
	usd := histQuote(pid, other, "2026-10-20", "1", "")
	usd.Currency = "USD"
	histPublish(t, st, usd)
	// An offer that changes currency and back: each sample is compared with
	// the previous one in the same currency and GPU count, so CNY 10 →
	// USD 1 is no jump, and USD 1 → CNY 20 is CNY 10 → 20, a jump.
	version := func(prev quote.Quote, asOf, hourly, currency string, gpus int) quote.Quote {
		t.Helper()
		d, err := st.NewQuoteVersion(ctx, actor, prev.ID)
		if err != nil {
			t.Fatal(err)
		}
		d.AsOf, d.Hourly, d.Monthly, d.Currency, d.GPUCount = histDay(asOf), nd(hourly), decimal.NullDecimal{}, currency, gpus
		if d, err = st.UpdateQuoteDraft(ctx, actor, d); err != nil {
			t.Fatal(err)
		}
		p, err := st.PublishQuote(ctx, actor, d.ID, d.LockVersion)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	version(version(histPublish(t, st, histQuote(pid, other, "2026-10-02", "10", "")), "2026-10-05", "1", "USD", 1), "2026-11-05", "20", "CNY", 1)
	// Another instance size of an offer is its own product: 1 → 4 GPUs at
	// four times the price is no jump.
	version(histPublish(t, st, histQuote(pid, gid, "2026-10-02", "10", "")), "2026-10-20", "40", "CNY", 4)
	// A drafted price move counts for nothing.
	if _, err := st.CreateQuoteDraft(ctx, actor, histQuote(pid, gid, "2026-11-20", "100", "")); err != nil {
		t.Fatal(err)
	}

	got, err := st.HomeCounts(ctx, store.HomeAsk{Market: true, StaleBefore: staleBefore, JumpsSince: staleBefore})
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.HomeCounts{Stale: 3, Jumps: 2}); got != want {
		t.Errorf("market: %+v, want %+v", got, want)
	}
	_, stale, err := st.StaleQuotes(ctx, staleBefore, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	_, jumps, err := st.PriceJumps(ctx, staleBefore, market.JumpPercent, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got.Stale != stale || got.Jumps != jumps {
		t.Errorf("home counts %+v, dashboard %d stale and %d jumps", got, stale, jumps)
	}
	// A wider window takes in the older jump too, as the dashboard would.
	since := histDay("2026-05-01")
	got, err = st.HomeCounts(ctx, store.HomeAsk{Market: true, StaleBefore: since, JumpsSince: since})
	_, jumps, err2 := st.PriceJumps(ctx, since, market.JumpPercent, 10)
	if err != nil || err2 != nil || got.Jumps != 3 || jumps != 3 {
		t.Errorf("wider window: %+v (%v), dashboard %d (%v)", got, err, jumps, err2)
	}
}

// TestEditorCountsFollowEveryPublication: the stale count a store keeps is
// read again once another server process publishes a quote.
func TestEditorCountsFollowEveryPublication(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	other := store.New(st.Pool()) // a second server process
	pid, gid := marketFixture(t, st)
	ask := store.HomeAsk{Market: true, StaleBefore: rpDay(t, "2026-09-01"), JumpsSince: rpDay(t, "2026-11-01")}
	count := func() int {
		t.Helper()
		c, err := st.HomeCounts(ctx, ask)
		if err != nil {
			t.Fatal(err)
		}
		return c.Stale
	}
	if n := count(); n != 0 {
		t.Fatalf("empty market: %d stale", n)
	}
	publishWithLines(t, other, pid, gid, "EUR", "2026-08-01", [3]string{"egress", "per_gb", "0.05"})
	if n := count(); n != 1 {
		t.Fatalf("after another process published a stale quote: %d stale, want 1", n)
	}
}
