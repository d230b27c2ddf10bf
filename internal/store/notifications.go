package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/notify"
	"gpuquote/internal/report"
	"gpuquote/internal/user"
)

// notificationColumns are a notice with who acted and what it is about:
// the report's number and title, or the quote's platform and GPU model,
// or the bill's report, month and overcharge, or a watch's event with its
// watch (and a TCO watch's profile) and quote.
const notificationColumns = `n.id, n.user_id, n.kind, n.entity, n.entity_id, coalesce(n.actor_id, 0), coalesce(a.display_name, ''),
	n.comment, n.created_at, n.read_at, coalesce(r.number, ''), coalesce(r.title, ''), coalesce(p.name_zh, ''), coalesce(p.name_en, ''),
	coalesce(g.vendor || ' ' || g.name, ''), coalesce(q.gpu_count, 0), coalesce(b.report_id, 0), coalesce(b.month, '0001-01-01'::date),
	coalesce(b.overcharge_total, 0), coalesce(b.currency, ''), coalesce(e.watch_id, 0), coalesce(e.cause, ''), e.value,
	coalesce(e.quote_id, 0), coalesce(wt.kind, ''), coalesce(wt.basis, ''), coalesce(wt.currency, ''), coalesce(wt.target, 0),
	coalesce(wt.percent, 0), coalesce(wp.name, '')`

const notificationFrom = ` FROM notifications n
	LEFT JOIN users a ON a.id = n.actor_id
	LEFT JOIN bills b ON n.entity = 'bill' AND b.id = n.entity_id
	LEFT JOIN reports r ON r.id = CASE n.entity WHEN 'report' THEN n.entity_id WHEN 'bill' THEN b.report_id END
	LEFT JOIN watch_events e ON n.entity = 'watch_event' AND e.id = n.entity_id
	LEFT JOIN watches wt ON wt.id = e.watch_id
	LEFT JOIN usage_profiles wp ON wp.id = wt.profile_id
	LEFT JOIN quotes q ON q.id = CASE n.entity WHEN 'quote' THEN n.entity_id WHEN 'watch_event' THEN e.quote_id END
	LEFT JOIN platforms p ON p.id = coalesce(q.platform_id, wt.platform_id)
	LEFT JOIN gpu_models g ON g.id = coalesce(q.gpu_model_id, wt.gpu_model_id)`

func scanNotification(row pgx.Row, extra ...any) (notify.Item, error) {
	var it notify.Item
	var kind string
	dest := append([]any{&it.ID, &it.UserID, &kind, &it.Entity, &it.EntityID, &it.ActorID, &it.ActorName,
		&it.Comment, &it.CreatedAt, &it.ReadAt, &it.About.ReportNumber, &it.About.ReportTitle, &it.About.PlatformZH,
		&it.About.PlatformEN, &it.About.GPU, &it.About.GPUCount, &it.About.ReportID, &it.About.BillMonth,
		&it.About.BillOvercharge, &it.About.BillCurrency, &it.About.WatchID, &it.About.WatchCause, &it.About.WatchValue,
		&it.About.WatchQuoteID, &it.About.WatchKind, &it.About.WatchBasis, &it.About.WatchCurrency, &it.About.WatchTarget,
		&it.About.WatchPercent, &it.About.WatchProfile}, extra...)
	if err := row.Scan(dest...); err != nil {
		return notify.Item{}, err
	}
	it.Kind = notify.Kind(kind)
	return it, nil
}

// Notifications returns one page of userID's notices, newest first, and
// how many they have in all and unread (docs/RULES.md §18.4). A user only
// ever reads their own.
func (s *Store) Notifications(ctx context.Context, userID int64, offset, limit int) (items []notify.Item, total, unread int, err error) {
	if err := s.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE read_at IS NULL) FROM notifications WHERE user_id = $1`,
		userID).Scan(&total, &unread); err != nil {
		return nil, 0, 0, fmt.Errorf("count notifications: %w", err)
	}
	offset, limit = pageWindow(offset, limit)
	rows, err := s.pool.Query(ctx, `SELECT `+notificationColumns+notificationFrom+`
		WHERE n.user_id = $1 ORDER BY n.created_at DESC, n.id DESC OFFSET $2 LIMIT $3`, userID, offset, limit)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("notifications: %w", err)
	}
	items, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (notify.Item, error) { return scanNotification(r) })
	if err != nil {
		return nil, 0, 0, fmt.Errorf("notifications: %w", err)
	}
	return items, total, unread, nil
}

// OpenNotification marks userID's notice id read (once: a second opening
// keeps the first time) and returns it. Another user's id is ErrNotFound,
// exactly like an id that does not exist.
func (s *Store) OpenNotification(ctx context.Context, userID, id int64, now time.Time) (notify.Item, error) {
	var it notify.Item
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE notifications SET read_at = $3 WHERE id = $1 AND user_id = $2 AND read_at IS NULL`,
			id, userID, now); err != nil {
			return fmt.Errorf("open notification: %w", err)
		}
		var err error
		it, err = scanNotification(tx.QueryRow(ctx, `SELECT `+notificationColumns+notificationFrom+`
			WHERE n.id = $1 AND n.user_id = $2`, id, userID))
		return notFound(err)
	})
	return it, err
}

// ReadAllNotifications marks every unread notice of userID read and says
// how many there were.
func (s *Store) ReadAllNotifications(ctx context.Context, userID int64, now time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE notifications SET read_at = $2 WHERE user_id = $1 AND read_at IS NULL`, userID, now)
	if err != nil {
		return 0, fmt.Errorf("read all notifications: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// UnreadNotifications counts userID's unread notices on the partial index
// notifications_unread_idx.
func (s *Store) UnreadNotifications(ctx context.Context, userID int64) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE user_id = $1 AND read_at IS NULL`, userID).Scan(&n); err != nil {
		return 0, fmt.Errorf("unread notifications: %w", err)
	}
	return n, nil
}

// notifyReportStep tells of a workflow step in its transaction
// (docs/RULES.md §18.4): a submitted report goes to every enabled finance
// user, a decision (approved, returned, with its comment) to the report's
// author. The actor is never told of their own step.
func notifyReportStep(ctx context.Context, q Querier, a user.Actor, now time.Time, id int64, st report.Step, comment string) error {
	n := notify.Notice{EntityID: id, ActorID: a.UserID, Comment: comment, At: now}
	switch {
	case st.To == report.Submitted:
		n.Kind = notify.ReportSubmitted
		return notifyRoles(ctx, q, n, "finance")
	case st.Decision:
		n.Kind = notify.ReportApproved
		if st.To == report.Returned {
			n.Kind = notify.ReportReturned
		}
		var author int64
		if err := q.QueryRow(ctx, `SELECT author_id FROM reports WHERE id = $1`, id).Scan(&author); err != nil {
			return fmt.Errorf("report author: %w", err)
		}
		return notifyUsers(ctx, q, n, author)
	}
	return nil
}

// readNoticesAboutReport marks read, in a write's transaction, userID's
// notices about report id and every other revision of it: they acted on
// the report (decided it, submitted it, opened it), so they are no longer
// news to them (docs/RULES.md §18.4).
func readNoticesAboutReport(ctx context.Context, q Querier, userID, id int64, now time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE notifications SET read_at = $3
		WHERE user_id = $1 AND entity = 'report' AND read_at IS NULL
		  AND entity_id IN (SELECT r.id FROM reports r WHERE r.number = (SELECT number FROM reports WHERE id = $2))`,
		userID, id, now); err != nil {
		return fmt.Errorf("read notices about report: %w", err)
	}
	return nil
}

// readNoticesAboutQuote marks read userID's notices about quote id (a
// proposal they published or sent back), as readNoticesAboutReport does.
func readNoticesAboutQuote(ctx context.Context, q Querier, userID, id int64, now time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE notifications SET read_at = $3
		WHERE user_id = $1 AND entity = 'quote' AND entity_id = $2 AND read_at IS NULL`, userID, id, now); err != nil {
		return fmt.Errorf("read notices about quote: %w", err)
	}
	return nil
}
