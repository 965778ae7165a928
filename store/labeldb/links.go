package labeldb

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Ticket is the part of a visible ticket that label links need, with the
// caller's standing toward its project.
type Ticket struct {
	ID        uuid.UUID `db:"id"`
	ProjectID uuid.UUID `db:"project_id"`
	store.AccessRow
}

const ticketSelect = `SELECT t.id, t.project_id, ` // + access columns

// TicketWithAccess reads a live ticket of a live project with the caller's
// access. With lock the ticket's row is locked for change, so label writes on
// one ticket run one after the other.
func TicketWithAccess(ctx context.Context, q store.Querier, ticketID, userID uuid.UUID, lock bool) (Ticket, error) {
	sql := ticketSelect + store.Cols(store.AccessColumns("t.org_id", "t.project_id", "$2")) + `
	        FROM tickets t JOIN projects p ON p.id = t.project_id
	        WHERE t.id = $1 AND t.deleted_at IS NULL AND p.deleted_at IS NULL`
	if lock {
		sql += " " + string(ForChange) + " OF t"
	}
	return store.GetRaw[Ticket](ctx, q, sql, ticketID, userID)
}

// TicketsWithAccess reads the visible tickets of org among ids, locked for
// change in id order, with the caller's access to each.
func TicketsWithAccess(ctx context.Context, q store.Querier, orgID uuid.UUID, ids []uuid.UUID, userID uuid.UUID) ([]Ticket, error) {
	return store.SelectRaw[Ticket](ctx, q, ticketSelect+store.Cols(store.AccessColumns("t.org_id", "t.project_id", "$3"))+`
	        FROM tickets t JOIN projects p ON p.id = t.project_id
	        WHERE t.org_id = $1 AND t.id = ANY($2) AND t.deleted_at IS NULL AND p.deleted_at IS NULL
	        ORDER BY t.id FOR NO KEY UPDATE OF t`, orgID, ids, userID)
}

// OfTicket lists a ticket's live labels by name.
func OfTicket(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(prefixed("l")...).From("ticket_labels tl").
		Join("labels l ON l.id = tl.label_id").
		Where(sq.Eq{"tl.org_id": orgID, "tl.ticket_id": ticketID, "l.deleted_at": nil}).
		OrderBy("lower(l.name)", "l.id"))
}

// Link is one ticket-label link.
type Link struct {
	TicketID uuid.UUID `db:"ticket_id"`
	LabelID  uuid.UUID `db:"label_id"`
}

// LinksOf lists the links of the given tickets to live labels, by label id.
func LinksOf(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs []uuid.UUID) ([]Link, error) {
	return store.Select[Link](ctx, q, store.SQL.Select("tl.ticket_id", "tl.label_id").From("ticket_labels tl").
		Join("labels l ON l.id = tl.label_id").
		Where(sq.Eq{"tl.org_id": orgID, "l.deleted_at": nil}).Where("tl.ticket_id = ANY(?)", ticketIDs).
		OrderBy("tl.ticket_id", "tl.label_id"))
}

// LinkedTickets lists the visible tickets linked to a label.
func LinkedTickets(ctx context.Context, q store.Querier, orgID, labelID uuid.UUID) ([]uuid.UUID, error) {
	return selectIDs(ctx, q, `SELECT tl.ticket_id FROM ticket_labels tl
		JOIN tickets t ON t.id = tl.ticket_id JOIN projects p ON p.id = t.project_id
		WHERE tl.org_id = $1 AND tl.label_id = $2 AND t.deleted_at IS NULL AND p.deleted_at IS NULL
		ORDER BY tl.ticket_id`, orgID, labelID)
}

// LinkMany links one label to several tickets, skipping existing links, and
// returns the tickets newly linked.
func LinkMany(ctx context.Context, q store.Querier, orgID, labelID uuid.UUID, ticketIDs []uuid.UUID) ([]uuid.UUID, error) {
	return selectIDs(ctx, q, `INSERT INTO ticket_labels (org_id, ticket_id, label_id)
		SELECT $1, t, $2 FROM unnest($3::uuid[]) AS t
		ON CONFLICT (ticket_id, label_id) DO NOTHING RETURNING ticket_id`, orgID, labelID, ticketIDs)
}

// AddLabels links several labels to one ticket, skipping existing links, and
// returns how many were new.
func AddLabels(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, labelIDs []uuid.UUID) (int64, error) {
	return store.Exec(ctx, q, sq.Expr(`INSERT INTO ticket_labels (org_id, ticket_id, label_id)
		SELECT $1, $2, l FROM unnest($3::uuid[]) AS l ON CONFLICT (ticket_id, label_id) DO NOTHING`, orgID, ticketID, labelIDs))
}

// RemoveLabels unlinks the given labels from a ticket and returns how many
// links went.
func RemoveLabels(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, labelIDs []uuid.UUID) (int64, error) {
	return store.Exec(ctx, q, store.SQL.Delete("ticket_labels").
		Where(sq.Eq{"org_id": orgID, "ticket_id": ticketID}).Where("label_id = ANY(?)", labelIDs))
}

// UnlinkLabel removes every link to a label.
func UnlinkLabel(ctx context.Context, q store.Querier, orgID, labelID uuid.UUID) error {
	_, err := store.Exec(ctx, q, store.SQL.Delete("ticket_labels").Where(sq.Eq{"org_id": orgID, "label_id": labelID}))
	return err
}

// selectIDs runs a query whose rows are single ids.
func selectIDs(ctx context.Context, q store.Querier, sql string, args ...any) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, store.Translate(err)
	}
	defer rows.Close()
	ids := []uuid.UUID{}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, store.Translate(err)
		}
		ids = append(ids, id)
	}
	return ids, store.Translate(rows.Err())
}
