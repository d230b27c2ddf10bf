package store_test

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"testing"
	"time"

	"gpuquote/internal/notify"
	"gpuquote/internal/proposal"
	"gpuquote/internal/store"
	"gpuquote/internal/testutil"
)

// recipients lists who holds a notice of kind about report id.
func recipients(t *testing.T, st *store.Store, kind notify.Kind, id int64) []int64 {
	t.Helper()
	rows, err := st.Pool().Query(context.Background(), `SELECT user_id FROM notifications WHERE kind = $1 AND entity_id = $2 ORDER BY user_id`,
		string(kind), id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func sameIDs(a, b []int64) bool {
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	sort.Slice(b, func(i, j int) bool { return b[i] < b[j] })
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReportStepsNotify: submitting tells every enabled finance user but
// the author, a decision tells the author with its comment, and the one
// who acts is never told (docs/RULES.md §18.4).
func TestReportStepsNotify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	fin1 := reportUser(t, st, "finance")
	fin2 := reportUser(t, st, "finance")
	gone := reportUser(t, st, "finance")
	reportUser(t, st, "editor")
	reportUser(t, st, "admin")
	if _, err := st.SetUserDisabled(ctx, actor, gone.UserID, true); err != nil {
		t.Fatal(err)
	}

	r, err := st.CreateReport(ctx, author, storeDay, newReport("通知"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SubmitReport(ctx, author, storeDay, r.ID); err != nil {
		t.Fatal(err)
	}
	if got := recipients(t, st, notify.ReportSubmitted, r.ID); !sameIDs(got, []int64{fin1.UserID, fin2.UserID}) {
		t.Errorf("submitted told %v, want the two enabled finance users %d, %d", got, fin1.UserID, fin2.UserID)
	}
	if err := st.ReturnReport(ctx, fin1, storeDay.Add(time.Hour), r.ID, "用 12 个月"); err != nil {
		t.Fatal(err)
	}
	if got := recipients(t, st, notify.ReportReturned, r.ID); !sameIDs(got, []int64{author.UserID}) {
		t.Errorf("returned told %v, want the author %d", got, author.UserID)
	}
	items, total, unread, err := st.Notifications(ctx, author.UserID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if total != 1 || unread != 1 || items[0].Comment != "用 12 个月" || items[0].ActorID != fin1.UserID ||
		items[0].About.ReportNumber != r.Number || items[0].About.ReportTitle != "通知" {
		t.Errorf("author's notices %d (%d unread): %+v", total, unread, items)
	}

	// A finance user's own report: the other finance user is told, the
	// author (finance too) is not, and approving tells the author.
	r2, err := st.CreateReport(ctx, fin2, storeDay, newReport("自己的"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SubmitReport(ctx, fin2, storeDay, r2.ID); err != nil {
		t.Fatal(err)
	}
	if got := recipients(t, st, notify.ReportSubmitted, r2.ID); !sameIDs(got, []int64{fin1.UserID}) {
		t.Errorf("a finance user's submission told %v, want only %d", got, fin1.UserID)
	}
	if err := st.ApproveReport(ctx, fin1, storeDay, r2.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got := recipients(t, st, notify.ReportApproved, r2.ID); !sameIDs(got, []int64{fin2.UserID}) {
		t.Errorf("approval told %v, want the author %d", got, fin2.UserID)
	}

	// A refused step adds nothing.
	var before, after int
	_ = st.Pool().QueryRow(ctx, `SELECT count(*) FROM notifications`).Scan(&before)
	if err := st.ApproveReport(ctx, fin1, storeDay, r.ID, ""); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("approve a returned report: %v", err)
	}
	_ = st.Pool().QueryRow(ctx, `SELECT count(*) FROM notifications`).Scan(&after)
	if after != before {
		t.Errorf("a refused step added %d notices", after-before)
	}
}

// TestNotificationsReadOnlyOwn: a user opens and marks only their own
// notices; another's id is ErrNotFound and stays unread.
func TestNotificationsReadOnlyOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	fin1 := reportUser(t, st, "finance")
	fin2 := reportUser(t, st, "finance")
	for _, title := range []string{"一", "二"} {
		r, err := st.CreateReport(ctx, author, storeDay, newReport(title))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SubmitReport(ctx, author, storeDay, r.ID); err != nil {
			t.Fatal(err)
		}
	}
	items, total, unread, err := st.Notifications(ctx, fin1.UserID, 0, 1)
	if err != nil || total != 2 || unread != 2 || len(items) != 1 {
		t.Fatalf("fin1's first page: %d items, %d total, %d unread, %v", len(items), total, unread, err)
	}
	mine := items[0]
	if _, err := st.OpenNotification(ctx, fin2.UserID, mine.ID, storeDay); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("fin2 opens fin1's notice: %v, want ErrNotFound", err)
	}
	if n, _ := st.UnreadNotifications(ctx, fin1.UserID); n != 2 {
		t.Errorf("after another's try fin1 has %d unread, want 2", n)
	}
	it, err := st.OpenNotification(ctx, fin1.UserID, mine.ID, storeDay.Add(time.Minute))
	if err != nil || it.ReadAt == nil || it.Path() != "/reports/"+strconv.FormatInt(mine.EntityID, 10) {
		t.Fatalf("open own: %+v, %v", it, err)
	}
	if n, _ := st.UnreadNotifications(ctx, fin1.UserID); n != 1 {
		t.Errorf("after opening one fin1 has %d unread, want 1", n)
	}
	if n, err := st.ReadAllNotifications(ctx, fin1.UserID, storeDay.Add(time.Hour)); err != nil || n != 1 {
		t.Errorf("read all: %d, %v; want 1", n, err)
	}
	if n, _ := st.UnreadNotifications(ctx, fin2.UserID); n != 2 {
		t.Errorf("fin1's read-all changed fin2's: %d unread, want 2", n)
	}
}

// TestNotificationMailQueue: with mail off nothing is queued; with mail
// on each notice queues one mail in its transaction, to the recipient's
// address, rendered there.
func TestNotificationMailQueue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	fin := reportUser(t, st, "finance")
	queued := func() int {
		var n int
		if err := st.Pool().QueryRow(ctx, `SELECT count(*) FROM mail_queue`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	r, err := st.CreateReport(ctx, author, storeDay, newReport("无邮件"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SubmitReport(ctx, author, storeDay, r.ID); err != nil {
		t.Fatal(err)
	}
	if n := queued(); n != 0 {
		t.Errorf("mail off queued %d mails", n)
	}

	st.SetMail(&store.Mail{Render: func(it notify.Item, name string) (string, string) {
		return "subject " + it.About.ReportTitle, "body for " + name + " " + it.Path()
	}})
	if err := st.ApproveReport(ctx, fin, storeDay, r.ID, "ok"); err != nil {
		t.Fatal(err)
	}
	var to, subject, body string
	var due time.Time
	if err := st.Pool().QueryRow(ctx, `SELECT recipient, subject, body, next_attempt_at FROM mail_queue`).Scan(&to, &subject, &body, &due); err != nil {
		t.Fatal(err)
	}
	if to != author.Email || subject != "subject 无邮件" || body != "body for 用户 analyst /reports/"+strconv.FormatInt(r.ID, 10) || !due.Equal(storeDay) {
		t.Errorf("queued mail to %q, %q, %q, due %v", to, subject, body, due)
	}
}

// unreadAbout counts userID's unread notices about entity id.
func unreadAbout(t *testing.T, st *store.Store, userID int64, entity string, id int64) int {
	t.Helper()
	var n int
	if err := st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM notifications
		WHERE user_id = $1 AND entity = $2 AND entity_id = $3 AND read_at IS NULL`, userID, entity, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestActingOnWhatANoticeIsAboutReadsIt: the finance user who decides a
// submitted report, the editor who publishes or sends back a proposal, and
// the author who opens the decided report no longer count the notice about
// it as unread; a finance user who did not act still does (docs/RULES.md
// §18.4).
func TestActingOnWhatANoticeIsAboutReadsIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testutil.Store(t)
	author := reportUser(t, st, "analyst")
	fin1 := reportUser(t, st, "finance")
	fin2 := reportUser(t, st, "finance")
	editor := reportUser(t, st, "editor")

	r, err := st.CreateReport(ctx, author, storeDay, newReport("通知已读"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SubmitReport(ctx, author, storeDay, r.ID); err != nil {
		t.Fatal(err)
	}
	if err := st.ReturnReport(ctx, fin1, storeDay.Add(time.Hour), r.ID, "改为 12 个月"); err != nil {
		t.Fatal(err)
	}
	if n := unreadAbout(t, st, fin1.UserID, "report", r.ID); n != 0 {
		t.Errorf("the finance user who returned the report still has %d unread notices about it", n)
	}
	if n := unreadAbout(t, st, fin2.UserID, "report", r.ID); n != 1 {
		t.Errorf("the finance user who did not act has %d unread notices about it, want 1", n)
	}
	if n := unreadAbout(t, st, author.UserID, "report", r.ID); n != 1 {
		t.Fatalf("the author has %d unread notices of the return, want 1", n)
	}
	if err := st.SeeReportNotice(ctx, r.ID, author.UserID, storeDay.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := unreadAbout(t, st, author.UserID, "report", r.ID); n != 0 {
		t.Errorf("the author opened the returned report and still has %d unread notices about it", n)
	}

	pid, gid := marketFixture(t, st)
	p, err := st.CreateProposal(ctx, author, sampleQuote(pid, gid), "供应商报价", nil, proposal.Quota{}, storeDay)
	if err != nil {
		t.Fatal(err)
	}
	if n := unreadAbout(t, st, editor.UserID, "quote", p.ID); n != 1 {
		t.Fatalf("the editor has %d unread notices of the proposal, want 1", n)
	}
	if _, err := st.PublishProposal(ctx, editor, p.ID, p.LockVersion, sampleQuote(pid, gid), storeDay); err != nil {
		t.Fatal(err)
	}
	if n := unreadAbout(t, st, editor.UserID, "quote", p.ID); n != 0 {
		t.Errorf("the editor published the proposal and still has %d unread notices about it", n)
	}
}
