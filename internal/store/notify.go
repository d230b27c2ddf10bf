package store

import (
	"context"
	"fmt"

	"gpuquote/internal/notify"
)

// notifyUsers adds notice n for each of userIDs but its actor (nobody is
// told of what they did themselves), in the caller's transaction, so the
// notice commits with the write that causes it (docs/RULES.md §18.4).
func notifyUsers(ctx context.Context, q Querier, n notify.Notice, userIDs ...int64) error {
	if len(userIDs) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO notifications (user_id, kind, entity, entity_id, actor_id, comment, created_at)
		SELECT u.id, $2, $3, $4, $5, $6, $7 FROM users u
		WHERE u.id = ANY($1) AND NOT u.disabled AND u.id IS DISTINCT FROM $5
		ORDER BY u.id`,
		userIDs, string(n.Kind), n.Kind.Entity(), n.EntityID, nullID(n.ActorID), n.Comment, n.At)
	if err != nil {
		return fmt.Errorf("notify %s: %w", n.Kind, err)
	}
	return nil
}

// notifyRoles adds notice n for every enabled user whose role is one of
// roles, but its actor, in the caller's transaction.
func notifyRoles(ctx context.Context, q Querier, n notify.Notice, roles ...string) error {
	_, err := q.Exec(ctx, `INSERT INTO notifications (user_id, kind, entity, entity_id, actor_id, comment, created_at)
		SELECT u.id, $2, $3, $4, $5, $6, $7 FROM users u
		WHERE u.role = ANY($1) AND NOT u.disabled AND u.id IS DISTINCT FROM $5
		ORDER BY u.id`,
		roles, string(n.Kind), n.Kind.Entity(), n.EntityID, nullID(n.ActorID), n.Comment, n.At)
	if err != nil {
		return fmt.Errorf("notify %s: %w", n.Kind, err)
	}
	return nil
}
