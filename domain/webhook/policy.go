package webhook

import (
	"fmt"
	"time"

	"github.com/google/uuid"
)

// RetrySchedule holds the offsets, from the first attempt, at which a
// delivery is attempted: ten attempts over 24 hours.
var RetrySchedule = []time.Duration{
	0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour,
}

// ScaledSchedule is RetrySchedule multiplied by factor (tests shrink it).
func ScaledSchedule(factor float64) []time.Duration {
	out := make([]time.Duration, len(RetrySchedule))
	for i, d := range RetrySchedule {
		out[i] = time.Duration(float64(d) * factor)
	}
	return out
}

const (
	// AttemptTimeout bounds one HTTP attempt, connection to last byte.
	AttemptTimeout = 10 * time.Second
	// AutoDisableAfter is how many deliveries in a row may exhaust every
	// attempt (each one failing for 24 hours) before the webhook is switched
	// off; any 2xx resets the count.
	AutoDisableAfter = 5
	// ExcerptLimit caps the response body kept with a delivery record.
	ExcerptLimit = 1024
)

// TopicRedeliver is the outbox topic of a manual redelivery.
const TopicRedeliver = "job.webhook_redeliver"

// RedeliverJob is the payload of a TopicRedeliver outbox row.
type RedeliverJob struct {
	OrgID      uuid.UUID `json:"org_id"`
	WebhookID  uuid.UUID `json:"webhook_id"`
	EventID    uuid.UUID `json:"event_id"`
	EventType  string    `json:"event_type"`
	Redelivery int       `json:"redelivery"`
}

// WorkflowID is the id of the WebhookDelivery workflow of one event to one
// webhook: starting it twice is a no-op.
func WorkflowID(eventID, webhookID uuid.UUID) string {
	return fmt.Sprintf("webhook:%s:%s", eventID, webhookID)
}

// RedeliveryWorkflowID is the id of the n-th manual redelivery.
func RedeliveryWorkflowID(eventID, webhookID uuid.UUID, n int) string {
	return fmt.Sprintf("%s:redeliver:%d", WorkflowID(eventID, webhookID), n)
}
