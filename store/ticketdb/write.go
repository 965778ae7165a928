package ticketdb

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// InsertNext numbers and inserts a ticket together with its audit row and
// outbox events in ONE statement, run outside an explicit transaction: the
// project's ticket_counter row lock (which makes numbers unique and gap-free)
// is then held only while the server runs the statement and commits, never
// across a network round trip, so concurrent creates in one project queue
// for the shortest possible time. The number is patched into each event's
// data.ticket_number. r.TicketNumber and r.OrgID are taken from the project;
// a project that is gone is store.ErrNotFound.
func InsertNext(ctx context.Context, q store.Querier, r Row, audit store.AuditRow, events []store.OutboxRow) (Row, error) {
	ids := make([]uuid.UUID, len(events))
	topics := make([]string, len(events))
	payloads := make([]string, len(events))
	for i, e := range events {
		ids[i], topics[i], payloads[i] = e.ID, e.Topic, string(e.Payload)
	}
	row, err := getRow(ctx, q, insertNextSQL, bin(r.ProjectID), bin(r.ID), r.Title, r.Description, r.Status, r.Priority,
		r.AssigneeID, bin(r.ReporterID), r.SprintID, r.CreatedAt,
		bin(audit.ID), audit.ActorID, audit.EntityType, audit.Action, string(audit.Changes), ids, topics, payloads, via(audit.Via), r.ParentID)
	if err != nil {
		return Row{}, err
	}
	if len(events) > 0 {
		err = store.MarkOutbox(ctx, q)
	}
	return row, err
}

// via is an audit row's Via as a query argument (NULL for people).
func via(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}

var insertNextSQL = `WITH c AS (
	            UPDATE projects SET ticket_counter = ticket_counter + 1
	            WHERE id = $1 AND deleted_at IS NULL
	            RETURNING org_id, ticket_counter),
	        t AS (
	            INSERT INTO tickets (` + store.Cols(Columns()) + `)
	            SELECT $2, c.org_id, $1, c.ticket_counter, $3, $4, $5, $6, $7, $8, $9, $10, $10, $20, 1 FROM c
	            RETURNING ` + store.Cols(Columns()) + `),
	        a AS (
	            INSERT INTO audit_log (id, org_id, actor_id, entity_type, entity_id, action, changes, created_at, via)
	            SELECT $11, t.org_id, $12, $13, t.id, $14, $15::jsonb, $10, $19::jsonb FROM t),
	        o AS (
	            INSERT INTO outbox (id, org_id, topic, payload, created_at)
	            SELECT e.id, t.org_id, e.topic, jsonb_set(e.payload, '{data,ticket_number}', to_jsonb(t.ticket_number)), $10
	            FROM t, unnest($16::uuid[], $17::text[], $18::jsonb[]) AS e(id, topic, payload))
	        SELECT ` + store.Cols(Columns()) + ` FROM t`

// Update sets cols on the given tickets of the given orgs (the caller has
// authorized each) and returns the rows after the change, in id order.
// updated_at is set to at.
func Update(ctx context.Context, q store.Querier, orgIDs, ids []uuid.UUID, set map[string]any, at time.Time) ([]Row, error) {
	b := store.SQL.Update("tickets").SetMap(set).Set("updated_at", at).
		Where("org_id = ANY(?) AND id = ANY(?) AND deleted_at IS NULL", orgIDs, ids).
		Suffix("RETURNING " + store.Cols(Columns()))
	rows, err := store.Select[Row](ctx, q, b)
	if err != nil {
		return nil, err
	}
	sortByID(rows)
	return rows, nil
}

// UpdateAtVersion is Update of one ticket that writes it only while it is at
// one of versions (If-Match): no row back means it is at another.
func UpdateAtVersion(ctx context.Context, q store.Querier, orgID, id uuid.UUID, versions []int64, set map[string]any, at time.Time) ([]Row, error) {
	b := store.SQL.Update("tickets").SetMap(set).Set("updated_at", at).
		Where("org_id = ? AND id = ? AND deleted_at IS NULL AND row_version = ANY(?)", orgID, id, versions).
		Suffix("RETURNING " + store.Cols(Columns()))
	return store.Select[Row](ctx, q, b)
}

// CommentCounts counts the comments of each ticket (comments are the
// dependents of a ticket); tickets without comments are absent.
func CommentCounts(ctx context.Context, q store.Querier, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
	type count struct {
		TicketID uuid.UUID `db:"ticket_id"`
		N        int64     `db:"n"`
	}
	rows, err := store.Select[count](ctx, q, store.SQL.Select("ticket_id", "count(*) AS n").From("comments").
		Where("ticket_id = ANY(?)", ids).GroupBy("ticket_id"))
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int64, len(rows))
	for _, r := range rows {
		out[r.TicketID] = r.N
	}
	return out, nil
}

// SoftDelete hides a ticket at once; its dependents are purged later.
func SoftDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, at time.Time) error {
	n, err := store.Exec(ctx, q, store.SQL.Update("tickets").Set("deleted_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id, "deleted_at": nil}))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// HardDelete removes a ticket without dependents, and its label links and
// tags (links, not dependents: they mean nothing without the ticket). When
// other records still point at it (time entries, attachments: kept as
// records), the delete falls back to a soft delete, inside a savepoint so the
// transaction goes on; softened reports that.
func HardDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, at time.Time) (softened bool, err error) {
	if _, err := store.Exec(ctx, q, store.SQL.Delete("ticket_labels").Where(sq.Eq{"org_id": orgID, "ticket_id": id})); err != nil {
		return false, err
	}
	if _, err := store.Exec(ctx, q, store.SQL.Delete("entity_tags").
		Where(sq.Eq{"org_id": orgID, "entity_type": "ticket", "entity_id": id})); err != nil {
		return false, err
	}
	if _, err := q.Exec(ctx, "SAVEPOINT ticket_delete"); err != nil {
		return false, store.Translate(err)
	}
	_, err = store.Exec(ctx, q, store.SQL.Delete("tickets").Where(sq.Eq{"org_id": orgID, "id": id}))
	if errors.Is(err, store.ErrInvalidRef) {
		if _, err := q.Exec(ctx, "ROLLBACK TO SAVEPOINT ticket_delete"); err != nil {
			return false, store.Translate(err)
		}
		return true, SoftDelete(ctx, q, orgID, id, at)
	}
	if err != nil {
		return false, err
	}
	_, err = q.Exec(ctx, "RELEASE SAVEPOINT ticket_delete")
	return false, store.Translate(err)
}

func sortByID(rows []Row) {
	slices.SortFunc(rows, func(a, b Row) int { return bytes.Compare(a.ID[:], b.ID[:]) })
}
