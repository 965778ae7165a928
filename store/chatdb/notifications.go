// Package chatdb holds the SQL of the chat integration: notifications and
// their delivery record, thread mappings, connected workspaces, linked
// identities, channel subscriptions and processed event ids.
package chatdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Notification is a chat_notifications row.
type Notification struct {
	ID               uuid.UUID  `db:"id"`
	OrgID            uuid.UUID  `db:"org_id"`
	TicketID         *uuid.UUID `db:"ticket_id"`
	NotificationType string     `db:"notification_type"`
	ChannelID        string     `db:"channel_id"`
	ThreadTS         *string    `db:"thread_ts"`
	Text             string     `db:"text"`
	Status           string     `db:"status"`
	Attempts         int32      `db:"attempts"`
	LastError        *string    `db:"last_error"`
	MessageTS        *string    `db:"message_ts"`
	CreatedAt        time.Time  `db:"created_at"`
	UpdatedAt        time.Time  `db:"updated_at"`
}

func notificationColumns() []string {
	return []string{"id", "org_id", "ticket_id", "notification_type", "channel_id", "thread_ts", "text", "status",
		"attempts", "last_error", "message_ts", "created_at", "updated_at"}
}

// InsertNotification adds a queued notification; an existing id (the relay
// offering an event twice) is left as it is.
func InsertNotification(ctx context.Context, q store.Querier, n Notification) (bool, error) {
	c, err := store.Exec(ctx, q, store.SQL.Insert("chat_notifications").Columns(notificationColumns()...).
		Values(n.ID, n.OrgID, n.TicketID, n.NotificationType, n.ChannelID, n.ThreadTS, n.Text, n.Status,
			n.Attempts, n.LastError, n.MessageTS, n.CreatedAt, n.UpdatedAt).Suffix("ON CONFLICT (id) DO NOTHING"))
	return c == 1, err
}

// GetNotification reads a notification by id (the worker).
func GetNotification(ctx context.Context, q store.Querier, id uuid.UUID) (Notification, error) {
	return store.Get[Notification](ctx, q, store.SQL.Select(notificationColumns()...).From("chat_notifications").Where(sq.Eq{"id": id}))
}

// RecordAttempt counts an attempt and stores its outcome: status sent with
// the message ts, failed with the error, or still queued (a retry follows)
// with the error.
func RecordAttempt(ctx context.Context, q store.Querier, id uuid.UUID, status string, errText, messageTS *string, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("chat_notifications").
		Set("attempts", sq.Expr("attempts + 1")).Set("status", status).Set("last_error", errText).
		Set("message_ts", sq.Expr("coalesce(?, message_ts)", messageTS)).Set("updated_at", at).
		Where(sq.Eq{"id": id}))
	return err
}

// MarkFailed sets a notification failed without counting an attempt (its
// retries ran out).
func MarkFailed(ctx context.Context, q store.Querier, id uuid.UUID, errText string, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("chat_notifications").Set("status", "failed").
		Set("last_error", errText).Set("updated_at", at).Where(sq.Eq{"id": id, "status": "queued"}))
	return err
}

// SetQueuedText sets the text of a notification still queued (a follow-up
// whose words depend on what came before it).
func SetQueuedText(ctx context.Context, q store.Querier, id uuid.UUID, text string, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("chat_notifications").Set("text", text).Set("updated_at", at).
		Where(sq.Eq{"id": id, "status": "queued"}))
	return err
}
