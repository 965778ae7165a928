// Package deliverydb holds the SQL of delivering personal notifications by
// email and chat: what a digest may still send, what it sent, a person's
// email turned off by the service, the chat target of a notification, and
// the due-soon sweep's notices.
package deliverydb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Item is a notification as an email or a chat message shows it, read at
// send time: the ticket's key and title and the actor's name are current.
type Item struct {
	ID          uuid.UUID  `db:"id"`
	OrgID       uuid.UUID  `db:"org_id"`
	OrgName     string     `db:"org_name"`
	UserID      uuid.UUID  `db:"user_id"`
	Type        string     `db:"type"`
	TicketID    *uuid.UUID `db:"ticket_id"`
	TicketKey   *string    `db:"ticket_key"`
	TicketTitle *string    `db:"ticket_title"`
	ActorName   *string    `db:"actor_name"`
	Excerpt     string     `db:"excerpt"`
	CreatedAt   time.Time  `db:"created_at"`
}

// deliverable is the WHERE of a notification n (joined with its ticket t
// and project p) that may still reach its recipient: a live ticket (or
// none), a recipient who can still read the project, a type still on.
const deliverable = `(n.ticket_id IS NULL OR (t.deleted_at IS NULL AND p.deleted_at IS NULL))
	AND member_reads(n.org_id, n.project_id, n.user_id)
	AND NOT EXISTS (SELECT 1 FROM notification_settings s WHERE s.user_id = n.user_id AND n.type = ANY (s.types_off))`

const itemSQL = `SELECT n.id, n.org_id, o.name AS org_name, n.user_id, n.type, n.ticket_id,
	    p.key || '-' || t.ticket_number AS ticket_key, t.title AS ticket_title, u.display_name AS actor_name,
	    n.excerpt, n.created_at
	FROM notifications n
	JOIN organizations o ON o.id = n.org_id
	LEFT JOIN tickets t ON t.id = n.ticket_id
	LEFT JOIN projects p ON p.id = t.project_id
	LEFT JOIN users u ON u.id = n.actor_id`

// ForEmail reads the notifications among ids of userID that an email may
// still carry: not yet emailed, and deliverable now. Oldest first.
func ForEmail(ctx context.Context, q store.Querier, userID uuid.UUID, ids []uuid.UUID) ([]Item, error) {
	return store.SelectRaw[Item](ctx, q, itemSQL+` WHERE n.user_id = $1 AND n.id = ANY ($2::uuid[])
	    AND NOT EXISTS (SELECT 1 FROM notification_emails e WHERE e.notification_id = n.id)
	    AND `+deliverable+` ORDER BY n.id`, userID, ids)
}

// MarkEmailed records ids of userID as handled by a digest with status
// (sent, skipped); ids already recorded keep their record.
func MarkEmailed(ctx context.Context, q store.Querier, userID uuid.UUID, ids []uuid.UUID, status string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO notification_emails (notification_id, user_id, status, at)
	    SELECT x.id, $2, $3, $4 FROM unnest($1::uuid[]) AS x(id)
	    WHERE EXISTS (SELECT 1 FROM notifications n WHERE n.id = x.id AND n.user_id = $2)
	    ON CONFLICT (notification_id) DO NOTHING`, ids, userID, status, at)
	return store.Translate(err)
}

// Recipient is who a digest is for, with their email settings now.
type Recipient struct {
	Email         string `db:"email"`
	DisplayName   string `db:"display_name"`
	Active        bool   `db:"active"`
	EmailEnabled  bool   `db:"email_enabled"`
	DigestMinutes int    `db:"digest_minutes"`
}

// GetRecipient reads a person's address and email settings (the defaults
// without a settings row).
func GetRecipient(ctx context.Context, q store.Querier, userID uuid.UUID) (Recipient, error) {
	return store.GetRaw[Recipient](ctx, q, `SELECT u.email, u.display_name, u.active,
	        COALESCE(s.email_enabled, true) AS email_enabled, COALESCE(s.digest_minutes, 10) AS digest_minutes
	    FROM users u LEFT JOIN notification_settings s ON s.user_id = u.id WHERE u.id = $1`, userID)
}

// DisableEmail turns a person's email off and says why.
func DisableEmail(ctx context.Context, q store.Querier, userID uuid.UUID, reason string, at time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO notification_settings (user_id, email_enabled, email_disabled_reason, updated_at)
	    VALUES ($1, false, $2, $3)
	    ON CONFLICT (user_id) DO UPDATE SET email_enabled = false, email_disabled_reason = $2, updated_at = $3`, userID, reason, at)
	return store.Translate(err)
}

// ChatTarget is a notification to send as a direct message: its item and
// the recipient's chat user in the notification's org.
type ChatTarget struct {
	Item
	SlackUserID string `db:"slack_user_id"`
}

// GetChatTarget reads the notification id as a direct message when it
// should be one: the recipient linked a chat identity in its org, has chat
// on (unset: on, since they linked one) and may still be told. Else
// store.ErrNotFound.
func GetChatTarget(ctx context.Context, q store.Querier, id uuid.UUID) (ChatTarget, error) {
	return store.GetRaw[ChatTarget](ctx, q, `SELECT x.*, i.slack_user_id FROM (`+itemSQL+` WHERE n.id = $1 AND `+deliverable+`) x
	    JOIN chat_identities i ON i.org_id = x.org_id AND i.user_id = x.user_id
	    WHERE COALESCE((SELECT s.chat_enabled FROM notification_settings s WHERE s.user_id = x.user_id), true)`, id)
}
