package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"gpuquote/internal/market"
	"gpuquote/internal/report"
	"gpuquote/internal/user"
)

// Audit actions of saved reports.
const (
	ActionReportCreate  = "report.create"
	ActionReportSubmit  = "report.submit"
	ActionReportApprove = "report.approve"
	ActionReportReturn  = "report.return"
	ActionReportRetitle = "report.retitle"
	ActionReportDelete  = "report.delete"
)

// ErrNotAllowed means this user may not do this to this report: it is not
// their own (submit, retitle, delete, revise), or it is their own (approve,
// return), or they are not finance.
var ErrNotAllowed = errors.New("store: not allowed for this user")

const reportColumns = `r.id, r.number, r.revision, coalesce(r.previous_revision_id, 0),
	coalesce((SELECT n.id FROM reports n WHERE n.previous_revision_id = r.id), 0), coalesce(r.recomputed_from_id, 0),
	r.author_id, a.display_name, a.email, r.title, r.purpose, r.status, r.snapshot_version, r.rules_version,
	r.figures_date, r.report_currency, r.quote_count, r.platform_ids, r.recommended_tco, r.recommended_tco_pessimistic,
	r.created_at, r.updated_at, r.submitted_at, r.decided_at, coalesce(r.decided_by, 0), coalesce(d.display_name, ''),
	r.decision_comment`

const reportFrom = ` FROM reports r JOIN users a ON a.id = r.author_id LEFT JOIN users d ON d.id = r.decided_by`

func scanReport(row pgx.Row, extra ...any) (report.Report, error) {
	var r report.Report
	dest := append([]any{&r.ID, &r.Number, &r.Revision, &r.PreviousRevisionID, &r.NextRevisionID, &r.RecomputedFromID,
		&r.AuthorID, &r.AuthorName, &r.AuthorEmail, &r.Title, &r.Purpose, &r.Status, &r.SnapshotVersion, &r.RulesVersion,
		&r.FiguresDate, &r.ReportCurrency, &r.QuoteCount, &r.PlatformIDs, &r.RecommendedTCO, &r.RecommendedTCOPessimistic,
		&r.CreatedAt, &r.UpdatedAt, &r.SubmittedAt, &r.DecidedAt, &r.DecidedBy, &r.DecidedByName,
		&r.DecisionComment}, extra...)
	err := row.Scan(dest...)
	return r, err
}

func reportByID(ctx context.Context, q Querier, id int64) (report.Report, error) {
	r, err := scanReport(q.QueryRow(ctx, `SELECT `+reportColumns+reportFrom+` WHERE r.id = $1`, id))
	if err != nil {
		return report.Report{}, notFound(err)
	}
	return r, nil
}

// ReportHead returns a report without its snapshot (deleted drafts
// included: the caller decides what a reader sees): what the workflow and
// the reader's rights need, without reading the frozen figures.
func (s *Store) ReportHead(ctx context.Context, id int64) (report.Report, error) {
	return reportByID(ctx, s.pool, id)
}

// ReportSnapshot returns a report's frozen snapshot (JSON). It never
// changes once saved, so a caller may keep it.
func (s *Store) ReportSnapshot(ctx context.Context, id int64) ([]byte, error) {
	var snap []byte
	if err := s.pool.QueryRow(ctx, `SELECT snapshot FROM reports WHERE id = $1`, id).Scan(&snap); err != nil {
		return nil, notFound(err)
	}
	return snap, nil
}

// reportAudit is what the audit log records of a report: its identity and
// the figures it recommends (the snapshot itself never changes and stays
// in the report).
func reportAudit(r report.Report) map[string]any {
	return map[string]any{"id": r.ID, "number": r.Number, "revision": r.Revision, "title": r.Title,
		"purpose": r.Purpose, "status": r.Status, "report_currency": r.ReportCurrency,
		"recommended_tco": r.RecommendedTCO, "recommended_tco_pessimistic": r.RecommendedTCOPessimistic,
		"rules_version": r.RulesVersion, "figures_date": r.FiguresDate.Format(time.DateOnly),
		"previous_revision_id": r.PreviousRevisionID, "recomputed_from_id": r.RecomputedFromID}
}

// addReportEvent appends an entry to a report's timeline in the caller's
// transaction; the actor's name is recorded as it is now.
func addReportEvent(ctx context.Context, q Querier, a user.Actor, at time.Time, reportID int64, action, from, to, comment string, related int64) error {
	var fromStatus *string
	if from != "" {
		fromStatus = &from
	}
	var rel *int64
	if related != 0 {
		rel = &related
	}
	_, err := q.Exec(ctx, `
		INSERT INTO report_events (report_id, at, actor_id, actor_name, action, from_status, to_status, comment, related_report_id)
		VALUES ($1, $2, $3, coalesce((SELECT display_name FROM users WHERE id = $3), $4), $5, $6, $7, $8, $9)`,
		reportID, at, nullID(a.UserID), a.Email, action, fromStatus, to, comment, rel)
	if err != nil {
		return fmt.Errorf("report event: %w", err)
	}
	return nil
}

// CreateReport saves a report as a draft of the actor, numbered in the
// creating transaction: a new report takes the next number of the year
// (R-YYYY-NNNN, from report_counters, so a failed save gives it back); a
// revision of a returned report keeps its number with the next revision.
// The timeline and the audit log record it, and so does the report it
// revises or recomputes; a recomputation the actor already has as a draft
// with the same snapshot is returned instead (RecomputeReport).
func (s *Store) CreateReport(ctx context.Context, a user.Actor, now time.Time, in report.NewReport) (report.Report, error) {
	out, _, err := s.createReport(ctx, a, now, in)
	return out, err
}

// RecomputeReport saves in, a recomputation of in.RecomputedFromID, like
// CreateReport, unless the actor already has a draft recomputed from the
// same report with the same snapshot: then nothing is written and that
// draft is returned (reused), so pressing recompute again adds nothing to
// either timeline (docs/RULES.md §11.5).
func (s *Store) RecomputeReport(ctx context.Context, a user.Actor, now time.Time, in report.NewReport) (r report.Report, reused bool, err error) {
	if in.RecomputedFromID == 0 || in.PreviousRevisionID != 0 {
		return report.Report{}, false, errors.New("store: not a recomputation")
	}
	return s.createReport(ctx, a, now, in)
}

func (s *Store) createReport(ctx context.Context, a user.Actor, now time.Time, in report.NewReport) (report.Report, bool, error) {
	var (
		out    report.Report
		reused bool
	)
	err := s.InTx(ctx, func(tx pgx.Tx) error {
		var (
			number   string
			revision = 1
			prevStat string
			srcStat  string
		)
		if in.RecomputedFromID != 0 {
			// The source's row lock serialises recomputations of one
			// report, so two presses at once make one draft.
			if err := tx.QueryRow(ctx, `SELECT status FROM reports WHERE id = $1 FOR NO KEY UPDATE`, in.RecomputedFromID).Scan(&srcStat); err != nil {
				return notFound(err)
			}
			if srcStat == report.Deleted {
				return ErrNotFound
			}
			var same int64
			err := tx.QueryRow(ctx, `SELECT id FROM reports WHERE recomputed_from_id = $1 AND author_id = $2
				AND status = 'draft' AND snapshot = $3::jsonb ORDER BY id DESC LIMIT 1`,
				in.RecomputedFromID, a.UserID, in.Snapshot).Scan(&same)
			switch {
			case err == nil:
				reused = true
				out, err = reportByID(ctx, tx, same)
				return err
			case !errors.Is(err, pgx.ErrNoRows):
				return fmt.Errorf("recomputed report: %w", err)
			}
		}
		if in.PreviousRevisionID != 0 {
			var author int64
			err := tx.QueryRow(ctx, `SELECT number, revision, author_id, status FROM reports WHERE id = $1 FOR UPDATE`,
				in.PreviousRevisionID).Scan(&number, &revision, &author, &prevStat)
			if err != nil {
				return notFound(err)
			}
			if author != a.UserID {
				return ErrNotAllowed
			}
			if prevStat != report.Returned {
				return ErrConflict
			}
			// The row lock above serialises revisions of one report.
			var revised bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM reports WHERE previous_revision_id = $1)`,
				in.PreviousRevisionID).Scan(&revised); err != nil {
				return fmt.Errorf("report revision: %w", err)
			}
			if revised {
				return ErrConflict
			}
			revision++
		} else {
			var seq int
			year := now.UTC().Year()
			// One row per year; the row lock serialises concurrent saves.
			if err := tx.QueryRow(ctx, `
				INSERT INTO report_counters (year, last) VALUES ($1, 1)
				ON CONFLICT (year) DO UPDATE SET last = report_counters.last + 1
				RETURNING last`, year).Scan(&seq); err != nil {
				return fmt.Errorf("report number: %w", err)
			}
			number = fmt.Sprintf("R-%04d-%04d", year, seq)
		}
		if in.PlatformIDs == nil {
			in.PlatformIDs = []int64{}
		}
		var id int64
		err := tx.QueryRow(ctx, `
			INSERT INTO reports (number, revision, previous_revision_id, recomputed_from_id, author_id, title, purpose,
			                     snapshot, snapshot_version, rules_version, figures_date, report_currency, quote_count,
			                     platform_ids, recommended_tco, recommended_tco_pessimistic, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
			RETURNING id`,
			number, revision, nullID(in.PreviousRevisionID), nullID(in.RecomputedFromID), a.UserID, strings.TrimSpace(in.Title),
			in.Purpose, in.Snapshot, in.SnapshotVersion, in.RulesVersion, in.FiguresDate, in.ReportCurrency, in.QuoteCount,
			in.PlatformIDs, in.RecommendedTCO, in.RecommendedTCOPessimistic, now).Scan(&id)
		if isUniqueViolation(err, "") {
			return ErrConflict // a revision (or number) taken concurrently
		}
		if err != nil {
			return fmt.Errorf("create report: %w", err)
		}
		if err := addReportEvent(ctx, tx, a, now, id, report.EventCreated, "", report.Draft, "", 0); err != nil {
			return err
		}
		if in.PreviousRevisionID != 0 {
			if err := addReportEvent(ctx, tx, a, now, in.PreviousRevisionID, report.EventRevised, prevStat, prevStat, "", id); err != nil {
				return err
			}
		}
		if in.RecomputedFromID != 0 {
			if err := addReportEvent(ctx, tx, a, now, in.RecomputedFromID, report.EventRecomputed, srcStat, srcStat, "", id); err != nil {
				return err
			}
		}
		if out, err = reportByID(ctx, tx, id); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionReportCreate, Entity: "report", EntityID: strconv.FormatInt(id, 10),
			After: reportAudit(out)})
	})
	return out, reused, err
}

// reportAction is the audit action of each workflow step.
var reportAction = map[string]string{report.Submitted: ActionReportSubmit, report.Approved: ActionReportApprove,
	report.Returned: ActionReportReturn, report.Deleted: ActionReportDelete}

// ErrCommentRequired means a report is returned without saying why.
var ErrCommentRequired = errors.New("store: a comment is required")

// SubmitReport sends the author's draft to finance.
func (s *Store) SubmitReport(ctx context.Context, a user.Actor, now time.Time, id int64) error {
	return s.moveReport(ctx, a, now, id, report.StepSubmit, "")
}

// ApproveReport approves a submitted report: finance or admin only, never
// the author; the comment is optional.
func (s *Store) ApproveReport(ctx context.Context, a user.Actor, now time.Time, id int64, comment string) error {
	return s.moveReport(ctx, a, now, id, report.StepApprove, comment)
}

// ReturnReport sends a submitted report back to its author with a
// comment: finance or admin only, never the author.
func (s *Store) ReturnReport(ctx context.Context, a user.Actor, now time.Time, id int64, comment string) error {
	return s.moveReport(ctx, a, now, id, report.StepReturn, comment)
}

// DeleteReport deletes the author's draft (it stays as a row marked
// deleted, so its number is never reused and its timeline is kept).
func (s *Store) DeleteReport(ctx context.Context, a user.Actor, now time.Time, id int64) error {
	return s.moveReport(ctx, a, now, id, report.StepDelete, "")
}

// moveReport takes one workflow step with a conditional update: the row
// changes only if it is still in the step's starting status and the actor
// may take the step, so of two concurrent decisions exactly one wins and
// the other gets ErrConflict. When nothing changed, the row is read again
// to say why (ErrNotFound, ErrNotAllowed or ErrConflict).
func (s *Store) moveReport(ctx context.Context, a user.Actor, now time.Time, id int64, st report.Step, comment string) error {
	comment = strings.TrimSpace(comment)
	if st.NeedComment && comment == "" {
		return ErrCommentRequired
	}
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var (
			sql  string
			args = []any{id, a.UserID, st.From, st.To, now}
		)
		switch {
		case st.Decision:
			// A reviewer (report.ReviewerRoles), never the author.
			args = append(args, comment, report.ReviewerRoles)
			sql = `UPDATE reports SET status = $4, decided_at = $5, decided_by = $2, decision_comment = $6, updated_at = $5
				WHERE id = $1 AND status = $3 AND author_id <> $2
				  AND EXISTS (SELECT 1 FROM users u WHERE u.id = $2 AND u.role = ANY($7) AND NOT u.disabled)`
		case st.To == report.Submitted:
			sql = `UPDATE reports SET status = $4, submitted_at = $5, updated_at = $5
				WHERE id = $1 AND status = $3 AND author_id = $2`
		default:
			sql = `UPDATE reports SET status = $4, updated_at = $5 WHERE id = $1 AND status = $3 AND author_id = $2`
		}
		tag, err := tx.Exec(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("report %s: %w", st.Event, err)
		}
		if tag.RowsAffected() == 0 {
			return s.whyNot(ctx, tx, a, id, st)
		}
		if err := addReportEvent(ctx, tx, a, now, id, st.Event, st.From, st.To, comment, 0); err != nil {
			return err
		}
		if st.Decision {
			// The author is told on every page until they open the
			// report (docs/RULES.md §11.3).
			if _, err := tx.Exec(ctx, `INSERT INTO report_notices (report_id, user_id, decided_at)
				SELECT id, author_id, $2 FROM reports WHERE id = $1`, id, now); err != nil {
				return fmt.Errorf("report notice: %w", err)
			}
		}
		if err := notifyReportStep(ctx, tx, a, now, id, st, comment); err != nil {
			return err
		}
		if st.To == report.Approved {
			if err := enqueueReportApproved(ctx, tx, a, now, id, comment); err != nil {
				return err
			}
		}
		if err := readNoticesAboutReport(ctx, tx, a.UserID, id, now); err != nil {
			return err
		}
		after := map[string]any{"status": st.To}
		if comment != "" {
			after["comment"] = comment
		}
		return audit(ctx, tx, a, AuditEntry{Action: reportAction[st.To], Entity: "report", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"status": st.From}, After: after})
	})
}

// whyNot explains a workflow step that changed nothing.
func (s *Store) whyNot(ctx context.Context, q Querier, a user.Actor, id int64, st report.Step) error {
	var (
		author int64
		status string
		role   string
	)
	err := q.QueryRow(ctx, `SELECT r.author_id, r.status, coalesce((SELECT u.role FROM users u WHERE u.id = $2 AND NOT u.disabled), '')
		FROM reports r WHERE r.id = $1`, id, a.UserID).Scan(&author, &status, &role)
	if err != nil {
		return notFound(err)
	}
	switch st.WhyNot(author, status, a.UserID, role) {
	case report.Gone:
		return ErrNotFound
	case report.NotAllowed:
		return ErrNotAllowed
	default:
		return ErrConflict // the status moved on meanwhile
	}
}

// RetitleReport changes the title and purpose of the author's draft.
func (s *Store) RetitleReport(ctx context.Context, a user.Actor, now time.Time, id int64, title, purpose string) error {
	title = strings.TrimSpace(title)
	return s.InTx(ctx, func(tx pgx.Tx) error {
		var oldTitle, oldPurpose string
		if err := tx.QueryRow(ctx, `SELECT title, purpose FROM reports WHERE id = $1 FOR UPDATE`, id).Scan(&oldTitle, &oldPurpose); err != nil {
			return notFound(err)
		}
		tag, err := tx.Exec(ctx, `UPDATE reports SET title = $3, purpose = $4, updated_at = $5
			WHERE id = $1 AND status = 'draft' AND author_id = $2`, id, a.UserID, title, purpose, now)
		if err != nil {
			return fmt.Errorf("retitle report: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return s.whyNot(ctx, tx, a, id, report.StepRetitle)
		}
		if err := addReportEvent(ctx, tx, a, now, id, report.EventRetitled, report.Draft, report.Draft, title, 0); err != nil {
			return err
		}
		return audit(ctx, tx, a, AuditEntry{Action: ActionReportRetitle, Entity: "report", EntityID: strconv.FormatInt(id, 10),
			Before: map[string]any{"title": oldTitle, "purpose": oldPurpose}, After: map[string]any{"title": title, "purpose": purpose}})
	})
}

const eventColumns = `e.id, e.report_id, r.revision, e.at, coalesce(e.actor_id, 0), e.actor_name, e.action,
	coalesce(e.from_status, ''), e.to_status, e.comment, coalesce(e.related_report_id, 0), coalesce(x.number, ''),
	coalesce(x.revision, 0)`

func collectEvents(rows pgx.Rows) ([]report.Event, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (report.Event, error) {
		var e report.Event
		err := row.Scan(&e.ID, &e.ReportID, &e.Revision, &e.At, &e.ActorID, &e.ActorName, &e.Action, &e.FromStatus,
			&e.ToStatus, &e.Comment, &e.RelatedReportID, &e.RelatedNumber, &e.RelatedRevision)
		return e, err
	})
}

// ReportEvents returns a report's timeline, oldest first.
func (s *Store) ReportEvents(ctx context.Context, id int64) ([]report.Event, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+eventColumns+`
		FROM report_events e JOIN reports r ON r.id = e.report_id LEFT JOIN reports x ON x.id = e.related_report_id
		WHERE e.report_id = $1 ORDER BY e.id`, id)
	if err != nil {
		return nil, fmt.Errorf("report events: %w", err)
	}
	return collectEvents(rows)
}

// ReportHistory returns the timelines of every revision of report number
// that the viewer may see (report.Visible: no deleted drafts, others'
// drafts only for an admin), merged oldest first, each event naming its
// revision (docs/RULES.md §11.3).
func (s *Store) ReportHistory(ctx context.Context, number string, viewerID int64, viewerAdmin bool) ([]report.Event, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT `+eventColumns+`
		FROM report_events e JOIN reports r ON r.id = e.report_id LEFT JOIN reports x ON x.id = e.related_report_id
		WHERE r.number = $1 AND r.status <> 'deleted' AND (r.status <> 'draft' OR r.author_id = $2 OR $3)
		ORDER BY e.id`, number, viewerID, viewerAdmin)
	if err != nil {
		return nil, fmt.Errorf("report history: %w", err)
	}
	return collectEvents(rows)
}

// ReportNotices returns at most limit of the decisions on userID's
// reports they have not seen yet (approved or returned, with the
// decider's name and comment), newest decision first.
func (s *Store) ReportNotices(ctx context.Context, userID int64, limit int) ([]report.Report, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+reportColumns+reportFrom+` JOIN report_notices n ON n.report_id = r.id
		WHERE n.user_id = $1 ORDER BY n.decided_at DESC, n.report_id DESC LIMIT $2`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("report notices: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (report.Report, error) { return scanReport(row) })
}

// SeeReportNotice records that userID opened report id at now: the
// decision on it is no longer news to them, nor are their notices about
// it or its other revisions (docs/RULES.md §18.4).
func (s *Store) SeeReportNotice(ctx context.Context, id, userID int64, now time.Time) error {
	return s.InTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM report_notices WHERE report_id = $1 AND user_id = $2`, id, userID); err != nil {
			return fmt.Errorf("report notice: %w", err)
		}
		return readNoticesAboutReport(ctx, tx, userID, id, now)
	})
}

// ReportFilter narrows the report list; zero fields do not filter.
type ReportFilter struct {
	// ViewerID sees their own drafts; other drafts only when ViewerAdmin.
	ViewerID    int64
	ViewerAdmin bool
	Statuses    []string
	AuthorID    int64
	// From and To bound the day the report was saved (To inclusive).
	From, To   time.Time
	PlatformID int64
	// MinTCO and MaxTCO bound the recommended confirmed TCO, in each
	// report's own currency (Currency narrows to one).
	MinTCO, MaxTCO decimal.NullDecimal
	Currency       string
	// OldestFirst orders a work queue (the finance inbox).
	OldestFirst bool
	// Before, when set, lists only reports after this position in the
	// newest-first order (the API's keyset pages, docs/RULES.md §19.1);
	// NoCount skips counting every match (the total is then the rows
	// returned).
	Before  *ReportKey
	NoCount bool
	Offset  int
	Limit   int
}

// ReportKey is a report's position in the newest-first order.
type ReportKey struct {
	CreatedAt time.Time
	ID        int64
}

// Reports lists reports (without snapshots), newest first, with the number
// matching the filter. Deleted drafts are never listed.
func (s *Store) Reports(ctx context.Context, f ReportFilter) ([]report.Report, int, error) {
	if f.Limit <= 0 || f.Limit > 200 {
		f.Limit = 25
	}
	var (
		where = []string{"r.status <> 'deleted'"}
		args  []any
	)
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if !f.ViewerAdmin {
		add("(r.status <> 'draft' OR r.author_id = ?)", f.ViewerID)
	}
	if len(f.Statuses) > 0 {
		add("r.status = ANY(?)", f.Statuses)
	}
	if f.AuthorID != 0 {
		add("r.author_id = ?", f.AuthorID)
	}
	if !f.From.IsZero() {
		add("r.created_at >= ?", f.From)
	}
	if !f.To.IsZero() {
		add("r.created_at < ?", f.To.AddDate(0, 0, 1))
	}
	if f.PlatformID != 0 {
		add("r.platform_ids @> ARRAY[?::bigint]", f.PlatformID)
	}
	if f.MinTCO.Valid {
		add("r.recommended_tco >= ?", f.MinTCO.Decimal)
	}
	if f.MaxTCO.Valid {
		add("r.recommended_tco <= ?", f.MaxTCO.Decimal)
	}
	if f.Currency != "" {
		add("r.report_currency = ?", f.Currency)
	}
	if f.Before != nil {
		args = append(args, f.Before.CreatedAt, f.Before.ID)
		where = append(where, "(r.created_at, r.id) < ($"+strconv.Itoa(len(args)-1)+", $"+strconv.Itoa(len(args))+")")
	}
	cond := strings.Join(where, " AND ")
	var total int
	if !f.NoCount {
		if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM reports r WHERE `+cond, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("count reports: %w", err)
		}
	}
	order := "r.created_at DESC, r.id DESC"
	if f.OldestFirst {
		order = "r.submitted_at, r.id"
	}
	args = append(args, f.Offset, f.Limit)
	rows, err := s.pool.Query(ctx, `SELECT `+reportColumns+reportFrom+` WHERE `+cond+` ORDER BY `+order+
		` OFFSET $`+strconv.Itoa(len(args)-1)+` LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("reports: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (report.Report, error) { return scanReport(row) })
	if err != nil {
		return nil, 0, err
	}
	if f.NoCount {
		total = len(out)
	}
	return out, total, nil
}

// ReportAuthors lists the people whose reports the viewer can see (for the
// list's author filter), by name: drafts count for their author only.
func (s *Store) ReportAuthors(ctx context.Context, viewerID int64) ([]market.RefName, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT u.id, u.display_name FROM users u
		WHERE EXISTS (SELECT 1 FROM reports r WHERE r.author_id = u.id
		              AND (r.status NOT IN ('deleted', 'draft') OR (r.status = 'draft' AND r.author_id = $1)))
		ORDER BY u.display_name, u.id`, viewerID)
	if err != nil {
		return nil, fmt.Errorf("report authors: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (market.RefName, error) {
		var (
			id   int64
			name string
		)
		err := row.Scan(&id, &name)
		return market.RefName{ID: id, Names: []string{name}}, err
	})
}

// ReportsRecomputedFrom lists the reports recomputed from report id
// (number and revision only, for links), oldest first.
func (s *Store) ReportsRecomputedFrom(ctx context.Context, id int64) ([]report.Report, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, number, revision, status FROM reports
		WHERE recomputed_from_id = $1 AND status <> 'deleted' ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("recomputed reports: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (report.Report, error) {
		var r report.Report
		err := row.Scan(&r.ID, &r.Number, &r.Revision, &r.Status)
		return r, err
	})
}

// CurrentQuoteVersions maps each quote series to its published version
// today, for recomputing a report with today's data; a series with no
// published version (withdrawn) is left out.
func (s *Store) CurrentQuoteVersions(ctx context.Context, seriesIDs []int64) (map[int64]int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT series_id, id FROM quotes WHERE series_id = ANY($1) AND state = 'published'`, seriesIDs)
	if err != nil {
		return nil, fmt.Errorf("current quote versions: %w", err)
	}
	defer rows.Close()
	out := make(map[int64]int64, len(seriesIDs))
	for rows.Next() {
		var series, id int64
		if err := rows.Scan(&series, &id); err != nil {
			return nil, err
		}
		out[series] = id
	}
	return out, rows.Err()
}
