package webhook

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/store/webhookdb"
)

// Delivery is one recorded HTTP attempt. Succeeded is a 2xx answer; an
// attempt still in flight has no FinishedAt.
type Delivery struct {
	ID              uuid.UUID  `json:"id"`
	WebhookID       uuid.UUID  `json:"webhook_id"`
	EventID         uuid.UUID  `json:"event_id"`
	EventType       string     `json:"event_type"`
	DeliveryID      uuid.UUID  `json:"delivery_id"`
	Redelivery      int        `json:"redelivery"`
	Attempt         int        `json:"attempt"`
	StatusCode      *int       `json:"status_code"`
	Succeeded       bool       `json:"succeeded"`
	DurationMS      *int       `json:"duration_ms"`
	Error           *string    `json:"error"`
	ResponseExcerpt *string    `json:"response_excerpt"`
	CreatedAt       time.Time  `json:"created_at"`
	FinishedAt      *time.Time `json:"finished_at"`
}

func toDelivery(d webhookdb.Delivery) Delivery {
	out := Delivery{ID: d.ID, WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType,
		DeliveryID: d.DeliveryKey, Redelivery: d.Redelivery, Attempt: d.Attempt, StatusCode: d.StatusCode,
		DurationMS: d.DurationMS, Error: d.Error, ResponseExcerpt: d.ResponseExcerpt, CreatedAt: d.CreatedAt.UTC()}
	out.Succeeded = d.StatusCode != nil && *d.StatusCode >= 200 && *d.StatusCode < 300
	if d.FinishedAt != nil {
		t := d.FinishedAt.UTC()
		out.FinishedAt = &t
	}
	return out
}

// ListDeliveries pages a webhook's delivery attempts, oldest first.
func (s *Service) ListDeliveries(ctx context.Context, p domain.Principal, webhookID uuid.UUID, page domain.Page) (domain.Paged[Delivery], error) {
	w, err := s.load(ctx, s.DB.Q(), p, webhookID)
	if err != nil {
		return domain.Paged[Delivery]{}, err
	}
	rows, err := webhookdb.ListDeliveries(ctx, s.DB.Q(), w.OrgID, w.ID, page)
	if err != nil {
		return domain.Paged[Delivery]{}, err
	}
	return domain.MapPage(rows, toDelivery), nil
}

// Redelivery is the answer to a redelivery request: it is queued (202) and
// runs as its own workflow with one attempt.
type Redelivery struct {
	Status     string    `json:"status"` // always "queued"
	WebhookID  uuid.UUID `json:"webhook_id"`
	EventID    uuid.UUID `json:"event_id"`
	DeliveryID uuid.UUID `json:"delivery_id"`
	Redelivery int       `json:"redelivery"`
	WorkflowID string    `json:"workflow_id"`
}

// Redeliver queues one more attempt of the event behind a recorded delivery.
// It goes through the outbox like every durable job, so it is accepted even
// while Temporal is unreachable. An inactive webhook is a 409.
func (s *Service) Redeliver(ctx context.Context, p domain.Principal, webhookID, deliveryID uuid.UUID) (Redelivery, error) {
	var out Redelivery
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		w, err := s.load(ctx, q, p, webhookID)
		if err != nil {
			return err
		}
		d, err := webhookdb.GetDelivery(ctx, q, w.OrgID, w.ID, deliveryID)
		if err != nil {
			return domain.NotFoundAs(err, "delivery")
		}
		if !w.Active {
			return domain.Conflict("webhook is not active; create a new one to receive deliveries again")
		}
		// The body is the event as written; events are kept for the outbox
		// retention only.
		if _, err := outboxdb.Get(ctx, q, w.OrgID, d.EventID); err != nil {
			return domain.NotFoundAs(err, "event (events are kept for 30 days)")
		}
		n, err := webhookdb.NextRedelivery(ctx, q, w.OrgID, w.ID)
		if err != nil {
			return err
		}
		job := RedeliverJob{OrgID: w.OrgID, WebhookID: w.ID, EventID: d.EventID, EventType: d.EventType, Redelivery: n}
		if err := domain.Enqueue(ctx, q, w.OrgID, domain.NewID(), TopicRedeliver, job, s.now()); err != nil {
			return err
		}
		actor := p.UserID
		if err := domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: w.OrgID, ActorID: &actor, EntityType: "webhook",
			EntityID: w.ID, Action: "redelivery_requested",
			Changes: []domain.FieldChange{{Field: "event_id", New: d.EventID}}}); err != nil {
			return err
		}
		out = Redelivery{Status: "queued", WebhookID: w.ID, EventID: d.EventID, DeliveryID: d.DeliveryKey,
			Redelivery: n, WorkflowID: RedeliveryWorkflowID(d.EventID, w.ID, n)}
		return nil
	})
	return out, err
}
