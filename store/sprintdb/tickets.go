package sprintdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/ticketdb"
)

// Ticket is a tickets row (the ticket store's own row type).
type Ticket = ticketdb.Row

// TicketColumns is the column list of Ticket.
func TicketColumns() []string { return ticketdb.Columns() }

// SprintTickets lists a sprint's live tickets by number.
func SprintTickets(ctx context.Context, q store.Querier, orgID, sprintID uuid.UUID) ([]Ticket, error) {
	return store.Select[Ticket](ctx, q, store.SQL.Select(TicketColumns()...).From("tickets").
		Where(sq.Eq{"org_id": orgID, "sprint_id": sprintID, "deleted_at": nil}).OrderBy("ticket_number", "id"))
}

// LiveTickets reads the live tickets of one project among ids, locked for
// change in id order.
func LiveTickets(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, ids []uuid.UUID) ([]Ticket, error) {
	return store.Select[Ticket](ctx, q, store.SQL.Select(TicketColumns()...).From("tickets").
		Where(sq.Eq{"org_id": orgID, "project_id": projectID, "deleted_at": nil}).Where("id = ANY(?)", ids).
		OrderBy("id").Suffix("FOR NO KEY UPDATE"))
}

// SetSprint points tickets at a sprint and returns them as updated.
func SetSprint(ctx context.Context, q store.Querier, orgID, sprintID uuid.UUID, ids []uuid.UUID, at time.Time) ([]Ticket, error) {
	return store.SelectRaw[Ticket](ctx, q, `UPDATE tickets SET sprint_id = $2, updated_at = $4
		WHERE org_id = $1 AND id = ANY($3) RETURNING `+store.Cols(TicketColumns()), orgID, sprintID, ids, at)
}

// Statuses is the JSON status list of the workflow that governs a project:
// its own, else its org's workflow named Default. No workflow is
// store.ErrNotFound.
func Statuses(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID) ([]byte, error) {
	return store.Scalar[[]byte](ctx, q, sq.Expr(`SELECT w.statuses FROM projects p
		JOIN workflows w ON w.id = COALESCE(p.workflow_id,
		    (SELECT d.id FROM workflows d WHERE d.org_id = p.org_id AND d.name = 'Default' ORDER BY d.id LIMIT 1))
		WHERE p.org_id = $1 AND p.id = $2`, orgID, projectID))
}

// StatusChange is one status change of a ticket from the audit trail.
type StatusChange struct {
	TicketID uuid.UUID `db:"ticket_id"`
	At       time.Time `db:"at"`
	Old      *string   `db:"old"`
	New      *string   `db:"new"`
}

// StatusChanges lists the audited status changes of tickets, oldest first:
// every ticket audit row whose changes hold a "status" field.
func StatusChanges(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs []uuid.UUID) ([]StatusChange, error) {
	return store.SelectRaw[StatusChange](ctx, q, `SELECT a.entity_id AS ticket_id, a.created_at AS at,
		    c->>'old' AS old, c->>'new' AS new
		FROM audit_log a CROSS JOIN LATERAL jsonb_array_elements(
		    CASE WHEN jsonb_typeof(a.changes) = 'array' THEN a.changes ELSE '[]'::jsonb END) AS c
		WHERE a.org_id = $1 AND a.entity_type = 'ticket' AND a.entity_id = ANY($2) AND c->>'field' = 'status'
		ORDER BY a.created_at, a.id`, orgID, ticketIDs)
}
