package notificationdb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Settings are a person's stored delivery settings.
type Settings struct {
	EmailEnabled  bool     `db:"email_enabled"`
	DigestMinutes int      `db:"digest_minutes"`
	ChatEnabled   *bool    `db:"chat_enabled"` // nil: on exactly when a chat identity is linked
	TypesOff      []string `db:"types_off"`
	// ChatLinked reports whether the user has linked a chat identity in
	// any org (read, not stored).
	ChatLinked bool `db:"chat_linked"`
	// EmailDisabledReason is why the service turned email off (a refused
	// address, the unsubscribe link), while it is off (read, not stored
	// by PutSettings).
	EmailDisabledReason *string `db:"email_disabled_reason"`
}

// GetSettings reads a person's settings, the defaults when they have none.
func GetSettings(ctx context.Context, q store.Querier, userID uuid.UUID) (Settings, error) {
	return store.GetRaw[Settings](ctx, q, `SELECT COALESCE(s.email_enabled, true) AS email_enabled,
	        COALESCE(s.digest_minutes, 10) AS digest_minutes, s.chat_enabled, COALESCE(s.types_off, '{}') AS types_off,
	        CASE WHEN NOT s.email_enabled THEN s.email_disabled_reason END AS email_disabled_reason,
	        EXISTS (SELECT 1 FROM chat_identities c WHERE c.user_id = $1) AS chat_linked
	    FROM (SELECT $1::uuid AS user_id) me LEFT JOIN notification_settings s ON s.user_id = me.user_id`, userID)
}

// PutSettings stores a person's settings; the person's own choice clears
// the reason the service had turned email off.
func PutSettings(ctx context.Context, q store.Querier, userID uuid.UUID, s Settings, at time.Time) error {
	off := s.TypesOff
	if off == nil {
		off = []string{}
	}
	_, err := q.Exec(ctx, `INSERT INTO notification_settings (user_id, email_enabled, digest_minutes, chat_enabled, types_off, updated_at)
	    VALUES ($1, $2, $3, $4, $5, $6)
	    ON CONFLICT (user_id) DO UPDATE SET email_enabled = $2, digest_minutes = $3, chat_enabled = $4, types_off = $5, updated_at = $6,
	        email_disabled_reason = NULL`,
		userID, s.EmailEnabled, s.DigestMinutes, s.ChatEnabled, off, at)
	return store.Translate(err)
}
