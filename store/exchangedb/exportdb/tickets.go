package exportdb

import (
	"context"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/commentdb"
	"tracker/store/customfielddb"
	"tracker/store/timeentrydb"
)

// TicketLabel is one live label of a ticket.
type TicketLabel struct {
	TicketID uuid.UUID `db:"ticket_id"`
	Name     string    `db:"name"`
}

// TicketLabels reads the live labels of the given tickets, by name.
func TicketLabels(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]TicketLabel, error) {
	return store.SelectRaw[TicketLabel](ctx, q, `SELECT tl.ticket_id, l.name FROM ticket_labels tl
	    JOIN labels l ON l.id = tl.label_id AND l.deleted_at IS NULL
	    WHERE tl.ticket_id = ANY($1) ORDER BY tl.ticket_id, lower(l.name)`, ticketIDs)
}

// Comments reads the comments of the given tickets in creation order.
func Comments(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]commentdb.Row, error) {
	return store.SelectRaw[commentdb.Row](ctx, q, `SELECT `+store.Cols(commentdb.Columns())+`
	    FROM comments WHERE ticket_id = ANY($1) ORDER BY ticket_id, id`, ticketIDs)
}

// TimeEntries reads the time entries of the given tickets in creation order.
func TimeEntries(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]timeentrydb.Row, error) {
	return store.SelectRaw[timeentrydb.Row](ctx, q, `SELECT `+store.Cols(timeentrydb.Columns())+`
	    FROM time_entries WHERE ticket_id = ANY($1) ORDER BY ticket_id, id`, ticketIDs)
}

// Relation is a ticket's relation to another live ticket, named by that
// ticket's project key and number: its parent (Type "") or a link stored
// from it (blocks, duplicates, relates_to).
type Relation struct {
	TicketID uuid.UUID `db:"ticket_id"`
	Type     string    `db:"type"`
	Key      string    `db:"key"`
	Number   int       `db:"ticket_number"`
}

// Parents reads the live parents of the given tickets.
func Parents(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]Relation, error) {
	return store.SelectRaw[Relation](ctx, q, `SELECT t.id AS ticket_id, '' AS type, p.key, o.ticket_number
	    FROM tickets t JOIN tickets o ON o.id = t.parent_id AND o.deleted_at IS NULL
	    JOIN projects p ON p.id = o.project_id AND p.deleted_at IS NULL
	    WHERE t.id = ANY($1)`, ticketIDs)
}

// Links reads the links stored from the given tickets (source side) whose
// other ticket is live, oldest first.
func Links(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]Relation, error) {
	return store.SelectRaw[Relation](ctx, q, `SELECT l.source_id AS ticket_id, l.type, p.key, o.ticket_number
	    FROM ticket_links l JOIN tickets o ON o.id = l.target_id AND o.deleted_at IS NULL
	    JOIN projects p ON p.id = o.project_id AND p.deleted_at IS NULL
	    WHERE l.source_id = ANY($1) ORDER BY l.source_id, l.id`, ticketIDs)
}

// CustomValues reads the custom values of the given tickets.
func CustomValues(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]customfielddb.Value, error) {
	return store.SelectRaw[customfielddb.Value](ctx, q, `SELECT ticket_id, field_id, org_id, text_value,
	    num_value::text AS num_value, date_value::text AS date_value, bool_value, user_value, option_ids
	    FROM ticket_custom_values WHERE ticket_id = ANY($1) ORDER BY ticket_id, field_id`, ticketIDs)
}
