package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"gpuquote/internal/notify"
)

// notifyUsers adds notice n for each of userIDs but its actor (nobody is
// told of what they did themselves), in the caller's transaction, so the
// notice commits with the write that causes it (docs/RULES.md §18.4). When
// the store has mail on, each notice's mail is queued in that transaction
// too.
func notifyUsers(ctx context.Context, q Querier, n notify.Notice, userIDs ...int64) error {
	if len(userIDs) == 0 {
		return nil
	}
	return addNotices(ctx, q, n, `INSERT INTO notifications (user_id, kind, entity, entity_id, actor_id, comment, created_at)
		SELECT u.id, $2, $3, $4, $5, $6, $7 FROM users u
		WHERE u.id = ANY($1) AND NOT u.disabled AND u.id IS DISTINCT FROM $5
		ORDER BY u.id RETURNING id`, userIDs)
}

// notifyRoles adds notice n for every enabled user whose role is one of
// roles, but its actor, in the caller's transaction (and their mail, as
// notifyUsers does).
func notifyRoles(ctx context.Context, q Querier, n notify.Notice, roles ...string) error {
	return addNotices(ctx, q, n, `INSERT INTO notifications (user_id, kind, entity, entity_id, actor_id, comment, created_at)
		SELECT u.id, $2, $3, $4, $5, $6, $7 FROM users u
		WHERE u.role = ANY($1) AND NOT u.disabled AND u.id IS DISTINCT FROM $5
		ORDER BY u.id RETURNING id`, roles)
}

// addNotices runs one of the two inserts above and queues the new notices'
// mail when mail is on.
func addNotices(ctx context.Context, q Querier, n notify.Notice, sql string, who any) error {
	rows, err := q.Query(ctx, sql, who, string(n.Kind), n.Kind.Entity(), n.EntityID, nullID(n.ActorID), n.Comment, n.At)
	if err != nil {
		return fmt.Errorf("notify %s: %w", n.Kind, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("notify %s: %w", n.Kind, err)
	}
	return queueMail(ctx, q, mailOf(q), n.At, ids)
}
