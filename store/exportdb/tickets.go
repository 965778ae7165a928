package exportdb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
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

// Comment is a comments row.
type Comment struct {
	ID        uuid.UUID  `db:"id"`
	TicketID  uuid.UUID  `db:"ticket_id"`
	AuthorID  uuid.UUID  `db:"author_id"`
	Body      string     `db:"body"`
	ParentID  *uuid.UUID `db:"parent_comment_id"`
	CreatedAt time.Time  `db:"created_at"`
	UpdatedAt time.Time  `db:"updated_at"`
}

// Comments reads the comments of the given tickets in creation order.
func Comments(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]Comment, error) {
	return store.SelectRaw[Comment](ctx, q, `SELECT id, ticket_id, author_id, body, parent_comment_id, created_at, updated_at
	    FROM comments WHERE ticket_id = ANY($1) ORDER BY ticket_id, id`, ticketIDs)
}

// TimeEntry is a time_entries row.
type TimeEntry struct {
	ID              uuid.UUID  `db:"id"`
	TicketID        uuid.UUID  `db:"ticket_id"`
	UserID          uuid.UUID  `db:"user_id"`
	Date            time.Time  `db:"date"`
	DurationMinutes int        `db:"duration_minutes"`
	Description     *string    `db:"description"`
	ActivityType    string     `db:"activity_type"`
	Status          string     `db:"status"`
	ApprovedBy      *uuid.UUID `db:"approved_by"`
	ApprovedAt      *time.Time `db:"approved_at"`
	CreatedAt       time.Time  `db:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at"`
}

// TimeEntries reads the time entries of the given tickets in creation order.
func TimeEntries(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]TimeEntry, error) {
	return store.SelectRaw[TimeEntry](ctx, q, `SELECT id, ticket_id, user_id, date, duration_minutes, description,
	        activity_type, status, approved_by, approved_at, created_at, updated_at
	    FROM time_entries WHERE ticket_id = ANY($1) ORDER BY ticket_id, id`, ticketIDs)
}
