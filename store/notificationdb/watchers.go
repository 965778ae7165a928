package notificationdb

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Watch makes users watch a ticket of project in org, keeping only those who
// can read it (member_reads); watching already is no change. The ticket may
// be inserted later in the same transaction (the FK is deferred).
func Watch(ctx context.Context, q store.Querier, orgID, projectID, ticketID uuid.UUID, users []uuid.UUID, at time.Time) error {
	if len(users) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO ticket_watchers (ticket_id, user_id, org_id, created_at)
	    SELECT $1, u, $2, $4 FROM unnest($3::uuid[]) AS u WHERE member_reads($2, $5, u)
	    ON CONFLICT DO NOTHING`, ticketID, orgID, users, at, projectID)
	return store.Translate(err)
}

// Unwatch stops user watching a ticket; not watching is no change.
func Unwatch(ctx context.Context, q store.Querier, ticketID, userID uuid.UUID) error {
	_, err := q.Exec(ctx, `DELETE FROM ticket_watchers WHERE ticket_id = $1 AND user_id = $2`, ticketID, userID)
	return store.Translate(err)
}

// WatchingColumn is the SQL column "watching": whether the user bound as
// userParam watches the ticket whose id is ticketExpr (for a ticket read
// that answers it in the same query).
func WatchingColumn(ticketExpr, userParam string) string {
	return "EXISTS (SELECT 1 FROM ticket_watchers tw WHERE tw.ticket_id = " + ticketExpr + " AND tw.user_id = " + userParam + ") AS watching"
}

// IsWatching reports whether user watches the ticket.
func IsWatching(ctx context.Context, q store.Querier, ticketID, userID uuid.UUID) (bool, error) {
	var on bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM ticket_watchers WHERE ticket_id = $1 AND user_id = $2)`,
		ticketID, userID).Scan(&on)
	return on, store.Translate(err)
}

// WatcherIDs lists a ticket's watchers (readers or not: the notification
// insert checks each recipient).
func WatcherIDs(ctx context.Context, q store.Querier, ticketID uuid.UUID) ([]uuid.UUID, error) {
	return store.Column[uuid.UUID](ctx, q, `SELECT user_id FROM ticket_watchers WHERE ticket_id = $1`, ticketID)
}

// Watcher is one watcher as the watcher list shows them.
type Watcher struct {
	UserID      uuid.UUID `db:"user_id"`
	DisplayName string    `db:"display_name"`
	Email       string    `db:"email"`
	Since       time.Time `db:"since"`
}

// Watchers pages a ticket's watchers who can still read it, by user id.
func Watchers(ctx context.Context, q store.Querier, orgID, projectID, ticketID uuid.UUID, page store.Page) (store.Paged[Watcher], error) {
	b := store.SQL.Select("w.user_id", "u.display_name", "u.email", "w.created_at AS since").
		From("ticket_watchers w").Join("users u ON u.id = w.user_id").
		Where("w.ticket_id = ? AND member_reads(?, ?, w.user_id)", ticketID, orgID, projectID)
	return store.SelectPage(ctx, q, b, "w.user_id", page, func(w Watcher) uuid.UUID { return w.UserID })
}

// Readers keeps of users those who can read a resource of project in org
// (project uuid.Nil: the org's members).
func Readers(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, users []uuid.UUID) ([]uuid.UUID, error) {
	if len(users) == 0 {
		return nil, nil
	}
	var project *uuid.UUID
	if projectID != uuid.Nil {
		project = &projectID
	}
	return store.Column[uuid.UUID](ctx, q, `SELECT DISTINCT u FROM unnest($3::uuid[]) AS u WHERE member_reads($1, $2, u)`, orgID, project, users)
}

// ReadersByEmail resolves email addresses (any case) to the users who can
// read a resource of project in org; an address of anyone else is dropped.
func ReadersByEmail(ctx context.Context, q store.Querier, orgID, projectID uuid.UUID, emails []string) ([]uuid.UUID, error) {
	if len(emails) == 0 {
		return nil, nil
	}
	lower := make([]string, len(emails))
	for i, e := range emails {
		lower[i] = strings.ToLower(e)
	}
	return store.Column[uuid.UUID](ctx, q, `SELECT u.id FROM users u WHERE lower(u.email) = ANY ($3::text[]) AND member_reads($1, $2, u.id)`,
		orgID, projectID, lower)
}
