package store_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"gpuquote/internal/report"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
	"gpuquote/internal/user"
)

// reportUser makes a user with role and returns its actor.
func reportUser(t *testing.T, st *store.Store, role string) user.Actor {
	t.Helper()
	email := fmt.Sprintf("%s-%d@example.test", role, time.Now().UnixNano())
	u, err := st.CreateUser(context.Background(), actor, user.NewAccount{Email: email, DisplayName: "用户 " + role,
		Role: role, PasswordHash: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return user.Actor{UserID: u.ID, Email: email}
}

var storeDay = time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)

// newReport is a report with a small snapshot (the store keeps it as it is).
func newReport(title string) report.NewReport {
	return report.NewReport{Title: title, Snapshot: []byte(`{"version": 1, "rows": [{"tco": "72.00"}]}`), SnapshotVersion: 1,
		RulesVersion: "2026.1", FiguresDate: storeDay, ReportCurrency: "EUR", QuoteCount: 1, PlatformIDs: []int64{7},
		RecommendedTCO: nd("72.00"), RecommendedTCOPessimistic: nd("80.00")}
}

// TestReportNumbersPerYear: numbers run per year without gaps, also when
// saves race and when one fails.
func TestReportNumbersPerYear(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		numbers []string
	)
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := st.CreateReport(ctx, author, storeDay, newReport(fmt.Sprintf("并发 %d", i)))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			numbers = append(numbers, r.Number)
			mu.Unlock()
		}()
	}
	wg.Wait()
	// A failed save (a title the database refuses) gives its number back.
	bad := newReport("x")
	bad.Title = strings.Repeat("长", 201)
	if _, err := st.CreateReport(ctx, author, storeDay, bad); err == nil {
		t.Fatal("a 201-character title is refused")
	}
	last, err := st.CreateReport(ctx, author, storeDay, newReport("last"))
	if err != nil {
		t.Fatal(err)
	}
	numbers = append(numbers, last.Number)
	sort.Strings(numbers)
	for i, n := range numbers {
		if want := fmt.Sprintf("R-2026-%04d", i+1); n != want {
			t.Fatalf("numbers %v: want %s at %d", numbers, want, i)
		}
	}
	next, err := st.CreateReport(ctx, author, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), newReport("new year"))
	if err != nil || next.Number != "R-2027-0001" {
		t.Fatalf("a new year starts at 0001: %q (%v)", next.Number, err)
	}
}

// TestReportSnapshotIsImmutable: no statement changes a saved snapshot or
// skips a step of the workflow, and the timeline only grows — whatever the
// code path, the database refuses.
func TestReportSnapshotIsImmutable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	fin := reportUser(t, st, "finance")
	r, err := st.CreateReport(ctx, author, storeDay, newReport("冻结"))
	if err != nil {
		t.Fatal(err)
	}
	refused := func(sql string, args ...any) {
		t.Helper()
		if _, err := st.Pool().Exec(ctx, sql, args...); err == nil {
			t.Errorf("the database accepted: %s", sql)
		}
	}
	refused(`UPDATE reports SET snapshot = '{"version": 1, "rows": [{"tco": "1.00"}]}' WHERE id = $1`, r.ID)
	refused(`UPDATE reports SET recommended_tco = 1 WHERE id = $1`, r.ID)
	refused(`UPDATE reports SET number = 'R-2026-9999' WHERE id = $1`, r.ID)
	refused(`UPDATE reports SET author_id = $2 WHERE id = $1`, r.ID, fin.UserID)
	refused(`UPDATE reports SET status = 'approved', decided_at = now(), decided_by = $2, submitted_at = now() WHERE id = $1`, r.ID, fin.UserID)
	refused(`DELETE FROM reports WHERE id = $1`, r.ID)
	refused(`UPDATE report_events SET comment = 'x' WHERE report_id = $1`, r.ID)
	refused(`DELETE FROM report_events WHERE report_id = $1`, r.ID)
	// A draft's title may change; once submitted, not even that.
	if _, err := st.Pool().Exec(ctx, `UPDATE reports SET title = '新标题' WHERE id = $1`, r.ID); err != nil {
		t.Errorf("a draft's title: %v", err)
	}
	if err := st.SubmitReport(ctx, author, storeDay, r.ID); err != nil {
		t.Fatal(err)
	}
	refused(`UPDATE reports SET title = '提交后改标题' WHERE id = $1`, r.ID)
	refused(`UPDATE reports SET status = 'draft' WHERE id = $1`, r.ID)
	// Nobody decides on their own report, even bypassing the code.
	refused(`UPDATE reports SET status = 'approved', decided_at = now(), decided_by = author_id WHERE id = $1`, r.ID)
	// A return needs its reason in the database too.
	refused(`UPDATE reports SET status = 'returned', decided_at = now(), decided_by = $2, decision_comment = ' ' WHERE id = $1`, r.ID, fin.UserID)
	if err := st.ApproveReport(ctx, fin, storeDay, r.ID, ""); err != nil {
		t.Fatal(err)
	}
	refused(`UPDATE reports SET status = 'returned', decision_comment = 'late' WHERE id = $1`, r.ID)
	got, err := st.ReportHead(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := st.ReportSnapshot(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if string(snap) != `{"rows": [{"tco": "72.00"}], "version": 1}` || got.Status != report.Approved || got.Title != "新标题" {
		t.Errorf("report now %q %s %q", snap, got.Status, got.Title)
	}
}

// TestReportTransitionsInTheStore: who may take each step, and that a
// refused step changes nothing (no event, no audit row).
func TestReportTransitionsInTheStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	other := reportUser(t, st, "analyst")
	editor := reportUser(t, st, "editor")
	fin := reportUser(t, st, "finance")
	admin := reportUser(t, st, "admin")
	r, err := st.CreateReport(ctx, author, storeDay, newReport("流程"))
	if err != nil {
		t.Fatal(err)
	}
	counts := func() (events, audits int) {
		t.Helper()
		if err := st.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM report_events), (SELECT count(*) FROM audit_log)`).Scan(&events, &audits); err != nil {
			t.Fatal(err)
		}
		return events, audits
	}
	expect := func(err, want error, what string) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", what, err, want)
		}
	}
	e0, a0 := counts()
	expect(st.SubmitReport(ctx, other, storeDay, r.ID), store.ErrNotAllowed, "submit someone else's")
	expect(st.RetitleReport(ctx, admin, storeDay, r.ID, "x", ""), store.ErrNotAllowed, "admin retitles someone else's")
	expect(st.DeleteReport(ctx, other, storeDay, r.ID), store.ErrNotAllowed, "delete someone else's")
	expect(st.ApproveReport(ctx, fin, storeDay, r.ID, ""), store.ErrConflict, "approve a draft")
	expect(st.SubmitReport(ctx, author, storeDay, 999999), store.ErrNotFound, "submit a missing report")
	if e, a := counts(); e != e0 || a != a0 {
		t.Errorf("refused steps wrote %d events and %d audit rows", e-e0, a-a0)
	}
	if err := st.SubmitReport(ctx, author, storeDay, r.ID); err != nil {
		t.Fatal(err)
	}
	expect(st.ApproveReport(ctx, author, storeDay, r.ID, ""), store.ErrNotAllowed, "the author approves")
	expect(st.ApproveReport(ctx, editor, storeDay, r.ID, ""), store.ErrNotAllowed, "an editor approves")
	expect(st.ReturnReport(ctx, other, storeDay, r.ID, "no"), store.ErrNotAllowed, "an analyst returns")
	expect(st.ReturnReport(ctx, fin, storeDay, r.ID, "  "), store.ErrCommentRequired, "return without a reason")
	if err := st.ReturnReport(ctx, admin, storeDay, r.ID, "请补充用途"); err != nil {
		t.Fatalf("admin returns: %v", err)
	}
	expect(st.ApproveReport(ctx, fin, storeDay, r.ID, ""), store.ErrConflict, "approve a returned report")
	// Revision: its author only, once, same number.
	rev := newReport("流程（修订）")
	rev.PreviousRevisionID = r.ID
	if _, err := st.CreateReport(ctx, other, storeDay, rev); !errors.Is(err, store.ErrNotAllowed) {
		t.Errorf("someone else revises: %v", err)
	}
	got, err := st.CreateReport(ctx, author, storeDay, rev)
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != r.Number || got.Revision != 2 || got.PreviousRevisionID != r.ID {
		t.Errorf("revision %+v", got)
	}
	if _, err := st.CreateReport(ctx, author, storeDay, rev); !errors.Is(err, store.ErrConflict) {
		t.Errorf("second revision: %v", err)
	}
	// A revision of a report that was not returned.
	rev.PreviousRevisionID = got.ID
	if _, err := st.CreateReport(ctx, author, storeDay, rev); !errors.Is(err, store.ErrConflict) {
		t.Errorf("revising a draft: %v", err)
	}
	events, err := st.ReportEvents(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	var trail []string
	for _, e := range events {
		trail = append(trail, e.Action+"/"+e.ActorName)
	}
	if strings.Join(trail, " ") != "created/用户 analyst submitted/用户 analyst returned/用户 admin revised/用户 analyst" {
		t.Errorf("timeline %v", trail)
	}
}

// TestReportConcurrentDecisions: an approval and a return of the same
// report, both waiting on its row until both are in flight, then let go:
// exactly one wins, the other gets ErrConflict.
func TestReportConcurrentDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	f1, f2 := reportUser(t, st, "finance"), reportUser(t, st, "admin")
	for round := range 5 {
		r, err := st.CreateReport(ctx, author, storeDay, newReport(fmt.Sprintf("并发 %d", round)))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SubmitReport(ctx, author, storeDay, r.ID); err != nil {
			t.Fatal(err)
		}
		lock, err := st.Pool().Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lock.Exec(ctx, `SELECT 1 FROM reports WHERE id = $1 FOR UPDATE`, r.ID); err != nil {
			t.Fatal(err)
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); errs[0] = st.ApproveReport(ctx, f1, storeDay, r.ID, "同意") }()
		go func() { defer wg.Done(); errs[1] = st.ReturnReport(ctx, f2, storeDay, r.ID, "退回") }()
		deadline := time.Now().Add(20 * time.Second)
		for {
			var waiting int
			if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
				t.Fatal(err)
			}
			if waiting >= 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the two decisions never waited together")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := lock.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		won, lost := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case errors.Is(err, store.ErrConflict):
				lost++
			default:
				t.Errorf("round %d: %v", round, err)
			}
		}
		got, err := st.ReportHead(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := report.Approved
		if errs[1] == nil {
			want = report.Returned
		}
		if won != 1 || lost != 1 || got.Status != want {
			t.Errorf("round %d: errors %v, status %s", round, errs, got.Status)
		}
	}
}

// TestReportListFilter: filters, counts and the rule that drafts are
// their author's.
func TestReportListFilter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	a := reportUser(t, st, "analyst")
	b := reportUser(t, st, "analyst")
	fin := reportUser(t, st, "finance")
	r1, _ := st.CreateReport(ctx, a, storeDay, newReport("一"))
	n2 := newReport("二")
	n2.PlatformIDs, n2.RecommendedTCO, n2.ReportCurrency = []int64{9, 11}, nd("1500.50"), "CNY"
	r2, _ := st.CreateReport(ctx, b, storeDay.AddDate(0, 0, 3), n2)
	if err := st.SubmitReport(ctx, b, storeDay.AddDate(0, 0, 3), r2.ID); err != nil {
		t.Fatal(err)
	}
	ids := func(f store.ReportFilter) string {
		t.Helper()
		rs, total, err := st.Reports(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.Title)
		}
		return fmt.Sprintf("%d:%s", total, strings.Join(out, ","))
	}
	for _, c := range []struct {
		f    store.ReportFilter
		want string
	}{
		{store.ReportFilter{ViewerID: a.UserID}, "2:二,一"},
		{store.ReportFilter{ViewerID: fin.UserID}, "1:二"},
		{store.ReportFilter{ViewerAdmin: true}, "2:二,一"},
		{store.ReportFilter{ViewerID: a.UserID, PlatformID: 11}, "1:二"},
		{store.ReportFilter{ViewerID: a.UserID, MinTCO: nd("100")}, "1:二"},
		{store.ReportFilter{ViewerID: a.UserID, MaxTCO: nd("72")}, "1:一"},
		{store.ReportFilter{ViewerID: a.UserID, From: storeDay.AddDate(0, 0, 1)}, "1:二"},
		{store.ReportFilter{ViewerID: a.UserID, To: storeDay}, "1:一"},
		{store.ReportFilter{ViewerID: a.UserID, AuthorID: b.UserID}, "1:二"},
		{store.ReportFilter{ViewerID: a.UserID, Statuses: []string{report.Submitted}}, "1:二"},
		{store.ReportFilter{ViewerID: a.UserID, Currency: "CNY"}, "1:二"},
	} {
		if got := ids(c.f); got != c.want {
			t.Errorf("%+v: %s, want %s", c.f, got, c.want)
		}
	}
	if err := st.DeleteReport(ctx, a, storeDay, r1.ID); err != nil {
		t.Fatal(err)
	}
	if got := ids(store.ReportFilter{ViewerAdmin: true}); got != "1:二" {
		t.Errorf("deleted drafts are never listed: %s", got)
	}
}
