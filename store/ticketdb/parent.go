package ticketdb

import (
	"context"

	"github.com/google/uuid"

	"tracker/store"
)

// Ancestors is the parent chain of id, id first, at most limit long.
func Ancestors(ctx context.Context, q store.Querier, id uuid.UUID, limit int) ([]uuid.UUID, error) {
	return store.Column[uuid.UUID](ctx, q, `
		WITH RECURSIVE up(id, parent_id, depth) AS (
			SELECT id, parent_id, 1 FROM tickets WHERE id = $1
			UNION ALL
			SELECT t.id, t.parent_id, up.depth + 1 FROM tickets t JOIN up ON t.id = up.parent_id WHERE up.depth < $2)
		SELECT id FROM up ORDER BY depth`, id, limit)
}

// SubtreeHeight is the number of levels of id's live descendants (0: no
// children), counted up to limit.
func SubtreeHeight(ctx context.Context, q store.Querier, id uuid.UUID, limit int) (int, error) {
	var h int
	err := q.QueryRow(ctx, `
		WITH RECURSIVE down(id, depth) AS (
			SELECT $1::uuid, 0
			UNION ALL
			SELECT t.id, down.depth + 1 FROM tickets t JOIN down ON t.parent_id = down.id
			WHERE t.deleted_at IS NULL AND down.depth < $2)
		SELECT max(depth) FROM down`, id, limit).Scan(&h)
	return h, store.Translate(err)
}

// LockOrgParents serializes parent changes of an org for the rest of the
// transaction (the cycle check reads the tree it writes).
func LockOrgParents(ctx context.Context, q store.Querier, orgID uuid.UUID) error {
	_, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('ticket_parents:' || $1::text, 0))`, orgID)
	return store.Translate(err)
}
