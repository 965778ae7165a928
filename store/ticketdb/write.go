package ticketdb

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/internal/traceparent"
	"tracker/store"
	"tracker/store/notificationdb"
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
	return InsertNextWith(ctx, q, r, audit, events, nil, notificationdb.OnCreate{})
}

// InsertNextWith is InsertNext that also writes the new ticket's custom
// values, given as a JSON array of ticket_custom_values rows without
// ticket and org ({field_id, text_value, num_value, date_value, bool_value,
// user_value, option_ids}; numbers and dates as text), in the same
// statement: one round trip and no transaction around the create. notes
// are the watches and notifications of the create
// (notificationdb.CreatedCTEs), written by the same statement.
func InsertNextWith(ctx context.Context, q store.Querier, r Row, audit store.AuditRow, events []store.OutboxRow, values []byte, notes notificationdb.OnCreate) (Row, error) {
	if len(values) == 0 {
		values = []byte("[]")
	}
	ids := make([]uuid.UUID, len(events))
	topics := make([]string, len(events))
	payloads := make([]string, len(events))
	for i, e := range events {
		ids[i], topics[i], payloads[i] = e.ID, e.Topic, string(e.Payload)
	}
	args := fields.Named(&r, pgx.NamedArgs{
		"audit_id": audit.ID, "audit_actor": audit.ActorID, "audit_entity": audit.EntityType,
		"audit_action": audit.Action, "audit_changes": string(audit.Changes), "audit_via": via(audit.Via),
		"event_ids": ids, "event_topics": topics, "event_payloads": payloads,
		"traceparent": traceparent.Arg(ctx), "custom_values": string(values),
	})
	notes.Args(args, traceparent.Arg(ctx))
	row, err := getRow(ctx, q, insertNextSQL, args)
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

// insertNextSQL takes every Row column as @column, but for the ones the
// statement fills itself (insertFilled).
var insertNextSQL = `WITH c AS (
	            UPDATE projects SET ticket_counter = ticket_counter + 1
	            WHERE id = @project_id AND deleted_at IS NULL
	            RETURNING org_id, ticket_counter),
	        t AS (
	            INSERT INTO tickets (` + store.Cols(Columns()) + `)
	            SELECT ` + insertValues(insertFilled) + ` FROM c
	            RETURNING ` + store.Cols(Columns()) + `),
	        a AS (
	            INSERT INTO audit_log (id, org_id, actor_id, entity_type, entity_id, action, changes, created_at, via)
	            SELECT @audit_id, t.org_id, @audit_actor, @audit_entity, t.id, @audit_action, @audit_changes::jsonb,
	                @created_at, @audit_via::jsonb FROM t),
	        o AS (
	            INSERT INTO outbox (id, org_id, topic, payload, created_at, traceparent)
	            SELECT e.id, t.org_id, e.topic, jsonb_set(e.payload, '{data,ticket_number}', to_jsonb(t.ticket_number)), @created_at, @traceparent::text
	            FROM t, unnest(@event_ids::uuid[], @event_topics::text[], @event_payloads::jsonb[]) AS e(id, topic, payload)),
	        v AS (
	            INSERT INTO ticket_custom_values (ticket_id, field_id, org_id, text_value, num_value, date_value, bool_value, user_value, option_ids)
	            SELECT t.id, x.field_id, t.org_id, x.text_value, x.num_value::numeric, x.date_value::date, x.bool_value, x.user_value, x.option_ids
	            FROM t, jsonb_to_recordset(@custom_values::jsonb) AS x(field_id uuid, text_value text, num_value text, date_value text,
	                bool_value boolean, user_value uuid, option_ids uuid[]))` + notificationdb.CreatedCTEs + `
	        SELECT ` + store.Cols(Columns()) + ` FROM t`

// insertFilled are the columns a create takes from its project (org, next
// number) or sets itself, whatever the Row says.
var insertFilled = map[string]string{
	"org_id": "c.org_id", "ticket_number": "c.ticket_counter", "updated_at": "@created_at", "row_version": "1",
	"custom_fields": "@custom_fields::json",
}

// insertValues is the select list of an insert: each column's expression in
// filled, else its named parameter @column.
func insertValues(filled map[string]string) string {
	cols := Columns()
	out := make([]string, len(cols))
	for i, c := range cols {
		if e, ok := filled[c]; ok {
			out[i] = e
		} else {
			out[i] = "@" + c
		}
	}
	return strings.Join(out, ", ")
}

// Update sets cols on the given tickets of the given orgs (the caller has
// authorized each) and returns the rows after the change, in id order.
// updated_at is set to at.
// with are data-modifying CTEs the statement runs too (With).
func Update(ctx context.Context, q store.Querier, orgIDs, ids []uuid.UUID, set map[string]any, at time.Time, with ...With) ([]Row, error) {
	b := store.SQL.Update("tickets").SetMap(set).Set("updated_at", at).
		Where("org_id = ANY(?) AND id = ANY(?) AND deleted_at IS NULL", orgIDs, ids).
		Suffix("RETURNING " + store.Cols(Columns()))
	for _, w := range with {
		b = b.Prefix(w.SQL, w.Args...)
	}
	rows, err := store.Select[Row](ctx, q, b)
	if err != nil {
		return nil, err
	}
	sortByID(rows)
	return rows, nil
}

// UpdateAtVersion is Update of one ticket that writes it only while it is at
// one of the versions v names (If-Match): no row back means it is at another.
// The CTEs of with run whether or not the row is written: the caller rolls
// back when it is not.
func UpdateAtVersion(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions, set map[string]any, at time.Time, with ...With) ([]Row, error) {
	b := store.SQL.Update("tickets").SetMap(set).Set("updated_at", at).
		Where("org_id = ? AND id = ? AND deleted_at IS NULL", orgID, id).Where(v.Where("row_version")).
		Suffix("RETURNING " + store.Cols(Columns()))
	for _, w := range with {
		b = b.Prefix(w.SQL, w.Args...)
	}
	return store.Select[Row](ctx, q, b)
}

// With is a WITH clause of data-modifying CTEs (? placeholders and their
// arguments) that an Update runs in its own statement; at most one.
type With struct {
	SQL  string
	Args []any
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
