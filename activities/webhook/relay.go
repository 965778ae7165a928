package webhookact

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store/webhookdb"
)

// Relay is the I/O the outbox relay does itself for a delivery's first
// attempt, outside any workflow: who is subscribed to an event, and
// switching off a webhook that answered 410 Gone. Its methods are not
// activities (it is never registered); the attempt itself is
// Activities.Attempt.
type Relay struct{ Activities *Activities }

// Subscribed lists the active webhooks of the org subscribed to eventType.
func (r Relay) Subscribed(ctx context.Context, orgID uuid.UUID, eventType string) ([]webhookdb.Row, error) {
	return webhookdb.Subscribed(ctx, r.Activities.DB.Q(), orgID, eventType)
}

// Disable switches a webhook off, now.
func (r Relay) Disable(ctx context.Context, orgID, webhookID uuid.UUID, reason string) error {
	return webhookdb.Disable(ctx, r.Activities.DB.Q(), orgID, webhookID, reason, time.Now().UTC())
}
