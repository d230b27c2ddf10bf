package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/market"
	"gpuquote/internal/report"
)

// HomeAsk names the reader and the counts they may see (the server asks
// for those whose pages the reader may open); the store counts only those,
// and an empty ask runs no query at all.
type HomeAsk struct {
	// UserID, when set, counts that user's drafts, their returned
	// reports not yet revised and the decisions on their reports they
	// have not seen (report_notices).
	UserID int64
	// Reader, when set, counts that user's unread notifications
	// (docs/RULES.md §18.4), on the partial index of unread ones.
	Reader int64
	// Inbox counts the reports waiting for finance (submitted), as the
	// inbox lists them.
	Inbox bool
	// Market counts what the editors' dashboard lists: current published
	// quotes dated before StaleBefore, and current published quotes dated
	// on or after JumpsSince whose price moved more than market.JumpPercent
	// from the previous sample of the same offer (PriceJumps).
	Market      bool
	StaleBefore time.Time
	JumpsSince  time.Time
}

// HomeCounts are what waits for a reader; a count not asked for is 0.
type HomeCounts struct {
	// Drafts and Returned are the reader's own: drafts, and returned
	// reports they have not revised yet (once revised, the new revision
	// is a draft or on its way).
	Drafts   int
	Returned int
	// Notices are the decisions (approved, returned) on the reader's
	// reports they have not opened since (docs/RULES.md §11.3).
	Notices int
	// Waiting is the number of reports in finance's inbox.
	Waiting int
	// Unread is the reader's unread notifications.
	Unread int
	// Stale and Jumps are the dashboard's two counts.
	Stale int
	Jumps int
}

// returnedOpen is true of a returned report with no revision yet: what its
// author still has to act on (report.RightsOf's Revise).
const returnedOpen = `r.status = 'returned' AND NOT EXISTS (SELECT 1 FROM reports n WHERE n.previous_revision_id = r.id)`

// HomeCounts counts, in one query, what waits for the reader: one scalar
// subquery per count asked for, each on an index (reports by author or by
// status, quotes by state and date, a jump's previous sample by series).
func (s *Store) HomeCounts(ctx context.Context, a HomeAsk) (HomeCounts, error) {
	var (
		c    HomeCounts
		cols []string
		dest []any
		args []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if a.UserID != 0 {
		u := arg(a.UserID)
		cols = append(cols,
			`(SELECT count(*) FROM reports r WHERE r.author_id = `+u+` AND r.status = 'draft')`,
			`(SELECT count(*) FROM reports r WHERE r.author_id = `+u+` AND `+returnedOpen+`)`,
			`(SELECT count(*) FROM report_notices n WHERE n.user_id = `+u+`)`)
		dest = append(dest, &c.Drafts, &c.Returned, &c.Notices)
	}
	if a.Reader != 0 {
		cols = append(cols, `(SELECT count(*) FROM notifications n WHERE n.user_id = `+arg(a.Reader)+` AND n.read_at IS NULL)`)
		dest = append(dest, &c.Unread)
	}
	if a.Inbox {
		cols = append(cols, `(SELECT count(*) FROM reports r WHERE r.status = 'submitted')`)
		dest = append(dest, &c.Waiting)
	}
	if a.Market {
		// Derived from the published market alone: kept until it changes.
		n, err := readMarket(ctx, s, s.marketCounts, [2]time.Time{a.StaleBefore, a.JumpsSince}, func(tx pgx.Tx) ([2]int, error) {
			return marketCounts(ctx, tx, a.StaleBefore, a.JumpsSince)
		})
		if err != nil {
			return HomeCounts{}, err
		}
		c.Stale, c.Jumps = n[0], n[1]
	}
	if len(cols) == 0 {
		return c, nil
	}
	if err := s.pool.QueryRow(ctx, `SELECT `+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
		return HomeCounts{}, fmt.Errorf("home counts: %w", err)
	}
	return c, nil
}

// HomeLists are the reports the home page names.
type HomeLists struct {
	// Drafts are the reader's newest drafts, newest saved first.
	Drafts []report.Report
	// Returned are the reader's returned reports not yet revised, newest
	// return first, with finance's comment (DecisionComment).
	Returned []report.Report
	// OldestWaiting is the report that has waited longest in finance's
	// inbox, nil when none waits or it was not asked for.
	OldestWaiting *report.Report
}

// HomeReports reads, in one query, at most limit of userID's drafts and of
// their returned reports not yet revised (none when userID is 0), and with
// inbox the report waiting longest for finance (the inbox's first).
func (s *Store) HomeReports(ctx context.Context, userID int64, inbox bool, limit int) (HomeLists, error) {
	var out HomeLists
	if userID == 0 && !inbox {
		return out, nil
	}
	if limit <= 0 || limit > 50 {
		limit = 5
	}
	rows, err := s.pool.Query(ctx, `
		WITH picked AS (
			(SELECT 1 AS part, r.id FROM reports r WHERE r.author_id = $1 AND r.status = 'draft'
			 ORDER BY r.created_at DESC, r.id DESC LIMIT $2)
			UNION ALL
			(SELECT 2, r.id FROM reports r WHERE r.author_id = $1 AND `+returnedOpen+`
			 ORDER BY r.decided_at DESC, r.id DESC LIMIT $2)
			UNION ALL
			(SELECT 3, r.id FROM reports r WHERE $3::boolean AND r.status = 'submitted'
			 ORDER BY r.submitted_at, r.id LIMIT 1)
		)
		SELECT `+reportColumns+`, p.part
		FROM picked p JOIN reports r ON r.id = p.id JOIN users a ON a.id = r.author_id LEFT JOIN users d ON d.id = r.decided_by
		ORDER BY p.part, CASE WHEN p.part = 2 THEN r.decided_at ELSE r.created_at END DESC, r.id DESC`,
		userID, limit, inbox)
	if err != nil {
		return HomeLists{}, fmt.Errorf("home reports: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var part int
		r, err := scanReport(rows, &part)
		if err != nil {
			return HomeLists{}, fmt.Errorf("home reports: %w", err)
		}
		switch part {
		case 1:
			out.Drafts = append(out.Drafts, r)
		case 2:
			out.Returned = append(out.Returned, r)
		default:
			out.OldestWaiting = &r
		}
	}
	if err := rows.Err(); err != nil {
		return HomeLists{}, fmt.Errorf("home reports: %w", err)
	}
	return out, nil
}

// marketCounts counts the current published quotes dated before
// staleBefore, and those dated on or after jumpsSince whose price moved
// more than market.JumpPercent from the previous sample of the same offer
// (PriceJumps).
func marketCounts(ctx context.Context, q Querier, staleBefore, jumpsSince time.Time) ([2]int, error) {
	var (
		n    [2]int
		args []any
	)
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	before, since, pct := arg(staleBefore), arg(jumpsSince), arg(market.JumpPercent)
	// The jumps as PriceJumps counts them, read from the other end: each
	// current quote in the window looks up its previous sample — the
	// same offer's (series, currency, GPU count) latest non-draft
	// sample before it by (as_of, id), which is what samplesCTE's LAG
	// yields — on the series' index. Only a quote above version 1 can
	// have one: a new version is drafted from the published one and
	// archives it when published, so a published version 1 is its
	// series' only sample.
	jumps := `(SELECT count(*) FROM quotes j CROSS JOIN LATERAL (
			SELECT p.hourly AS prev_hourly, p.monthly AS prev_monthly FROM quotes p
			WHERE p.series_id = j.series_id AND p.currency = j.currency AND p.gpu_count = j.gpu_count
			  AND p.state IN ('published', 'archived') AND (p.as_of, p.id) < (j.as_of, j.id)
			ORDER BY p.as_of DESC, p.id DESC LIMIT 1) prev
		WHERE j.state = 'published' AND j.version > 1 AND j.as_of >= ` + since + ` AND (` +
		jumpExpr("j.hourly", "prev.prev_hourly", pct) + ` OR ` + jumpExpr("j.monthly", "prev.prev_monthly", pct) + `))`
	err := q.QueryRow(ctx, `SELECT (SELECT count(*) FROM quotes q WHERE q.state = 'published' AND q.as_of < `+before+`), `+jumps,
		args...).Scan(&n[0], &n[1])
	if err != nil {
		return n, fmt.Errorf("market counts: %w", err)
	}
	return n, nil
}
