// Package feeddb reads an org's events from the outbox in feed order: by
// (writing transaction, id), only rows whose transaction is older than the
// oldest still running, so a reader that passed a position never misses a
// row committed after it read (see schema/migrations/057_outbox_feed.sql).
package feeddb

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Position is a place in an org's feed: the transaction that wrote an event
// and the event's id. The zero Position is before every event.
type Position struct {
	Txid uint64
	ID   uuid.UUID
}

// Row is one event of the feed: its outbox row.
type Row struct {
	ID        uuid.UUID `db:"id"`
	Topic     string    `db:"topic"`
	Payload   []byte    `db:"payload"`
	CreatedAt time.Time `db:"created_at"`
	Txid      string    `db:"txid_text"` // xid8 as text: pgx has no xid8 codec
}

// Position is where the feed stands after r.
func (r Row) Position() (Position, error) {
	n, err := strconv.ParseUint(r.Txid, 10, 64)
	return Position{Txid: n, ID: r.ID}, err
}

// eventTopics is the predicate of outbox_feed_idx, repeated verbatim so the
// planner may use the partial index.
const eventTopics = `topic IN ('ticket.created', 'ticket.updated', 'ticket.status_changed',
                    'comment.created', 'sprint.started', 'sprint.completed')`

// projectOf is an event's project: the resource's own project_id (tickets,
// sprints), else its ticket's (comments carry ticket_id only).
const projectOf = `COALESCE((payload->'data'->>'project_id')::uuid,
	(SELECT t.project_id FROM tickets t WHERE t.org_id = outbox.org_id AND t.id = (payload->'data'->>'ticket_id')::uuid))`

// Query selects a page of an org's feed.
type Query struct {
	OrgID uuid.UUID
	After Position
	// Types narrows to these event types (nil: every event type).
	Types []string
	// Projects narrows to events of these projects (nil: all): an API key
	// restricted to projects.
	Projects []uuid.UUID
	Limit    int
}

// Page reads up to q.Limit events after q.After, oldest first. Rows whose
// transaction may still be followed by an earlier-ordered commit are left
// for a later read: only transactions below the snapshot's xmin (every
// transaction that has not ended is at or above it) are read.
func Page(ctx context.Context, db store.Querier, q Query) ([]Row, error) {
	return store.SelectRaw[Row](ctx, db, pageSQL, q.args()...)
}

const pageSQL = `
		SELECT id, topic, payload, created_at, txid::text AS txid_text FROM outbox
		WHERE org_id = $1 AND ` + eventTopics + `
		  AND (txid, id) > ($2::text::xid8, $3::uuid)
		  AND txid < pg_snapshot_xmin(pg_current_snapshot())
		  AND ($4::text[] IS NULL OR topic = ANY($4))
		  AND ($5::uuid[] IS NULL OR ` + projectOf + ` = ANY($5))
		ORDER BY txid, id LIMIT $6`

func (q Query) args() []any {
	return []any{q.OrgID, strconv.FormatUint(q.After.Txid, 10), q.After.ID, nilIfEmpty(q.Types), nilIfEmptyIDs(q.Projects), q.Limit}
}

// Statement is Page's SQL and arguments for q (tests EXPLAIN it).
func Statement(q Query) (string, []any) { return pageSQL, q.args() }

// At is the position of one event of the org, visible to Projects as Page
// filters them. store.ErrNotFound: no such event (never written, another
// org's, outside the projects, or pruned after its retention).
func At(ctx context.Context, db store.Querier, orgID, id uuid.UUID, projects []uuid.UUID) (Position, error) {
	txids, err := store.Column[string](ctx, db, `
		SELECT txid::text FROM outbox
		WHERE org_id = $1 AND id = $2 AND `+eventTopics+`
		  AND ($3::uuid[] IS NULL OR `+projectOf+` = ANY($3))`, orgID, id, nilIfEmptyIDs(projects))
	if err != nil {
		return Position{}, err
	}
	if len(txids) == 0 {
		return Position{}, store.ErrNotFound
	}
	n, err := strconv.ParseUint(txids[0], 10, 64)
	return Position{Txid: n, ID: id}, err
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func nilIfEmptyIDs(s []uuid.UUID) []uuid.UUID {
	if len(s) == 0 {
		return nil
	}
	return s
}
