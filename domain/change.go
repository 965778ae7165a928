package domain

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Subscribable event types (the spec's exact values).
const (
	EventTicketCreated       = "ticket.created"
	EventTicketUpdated       = "ticket.updated"
	EventTicketStatusChanged = "ticket.status_changed"
	EventCommentCreated      = "comment.created"
	EventSprintStarted       = "sprint.started"
	EventSprintCompleted     = "sprint.completed"
)

// EventTypes lists every subscribable event type.
var EventTypes = []string{
	EventTicketCreated, EventTicketUpdated, EventTicketStatusChanged,
	EventCommentCreated, EventSprintStarted, EventSprintCompleted,
}

// TopicCascadeDelete is the outbox topic of a durable cascade purge.
const TopicCascadeDelete = "job.cascade_delete"

// FieldChange is one changed field in an audit row and an update event.
type FieldChange struct {
	Field string `json:"field"`
	Old   any    `json:"old"`
	New   any    `json:"new"`
}

// Change describes one state change of a tenant's data: it becomes an audit
// row, and, when Events names any, outbox rows for webhook delivery.
type Change struct {
	OrgID      uuid.UUID
	ActorID    *uuid.UUID
	EntityType string // ticket, comment, sprint, project, ...
	EntityID   uuid.UUID
	Action     string // created, updated, status_changed, deleted, ...
	Changes    []FieldChange
	Events     []string  // event types to emit, may be empty
	Data       any       // the resource after the change (event payload "data")
	At         time.Time // when it happened: the service's clock (required)
	Via        any       // what an integration acted through (audit only), nil for people
}

// Event is the payload of an outbox event row, delivered to webhooks as is.
type Event struct {
	ID        uuid.UUID     `json:"id"`
	Type      string        `json:"type"`
	CreatedAt time.Time     `json:"created_at"`
	OrgID     uuid.UUID     `json:"org_id"`
	Data      any           `json:"data"`
	Changes   []FieldChange `json:"changes,omitempty"`
}

// Record writes the change's audit row and outbox events with q, which must
// be the transaction of the change itself.
func Record(ctx context.Context, q store.Querier, c Change) error {
	audit, outbox, err := PrepareChange(c)
	if err != nil {
		return err
	}
	return store.InsertChange(ctx, q, &audit, outbox)
}

// PrepareChange builds the audit row and outbox rows of a change without
// writing them, for a store statement that writes them together with the
// change itself.
func PrepareChange(c Change) (store.AuditRow, []store.OutboxRow, error) {
	if c.At.IsZero() {
		return store.AuditRow{}, nil, fmt.Errorf("change %s %s: Change.At is unset (take it from the service's domain.Clock)", c.EntityType, c.Action)
	}
	now := c.At.UTC()
	changes := c.Changes
	if changes == nil {
		changes = []FieldChange{}
	}
	cj, err := json.Marshal(changes)
	if err != nil {
		return store.AuditRow{}, nil, fmt.Errorf("marshal changes: %w", err)
	}
	audit := store.AuditRow{ID: NewID(), OrgID: c.OrgID, ActorID: c.ActorID, EntityType: c.EntityType,
		EntityID: c.EntityID, Action: c.Action, Changes: cj, CreatedAt: now}
	if c.Via != nil {
		if audit.Via, err = json.Marshal(c.Via); err != nil {
			return store.AuditRow{}, nil, fmt.Errorf("marshal via: %w", err)
		}
	}
	var outbox []store.OutboxRow
	for _, typ := range c.Events {
		ev := Event{ID: NewID(), Type: typ, CreatedAt: now, OrgID: c.OrgID, Data: c.Data}
		if typ == EventTicketUpdated || typ == EventTicketStatusChanged {
			ev.Changes = changes
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return store.AuditRow{}, nil, fmt.Errorf("marshal event: %w", err)
		}
		outbox = append(outbox, store.OutboxRow{ID: ev.ID, OrgID: c.OrgID, Topic: typ, Payload: b, CreatedAt: now})
	}
	return audit, outbox, nil
}

// Enqueue appends an outbox row with an arbitrary JSON payload: events, or
// durable jobs such as TopicCascadeDelete; at is the service clock's now.
func Enqueue(ctx context.Context, q store.Querier, orgID, id uuid.UUID, topic string, payload any, at time.Time) error {
	b, err := json.Marshal(payload)
	if err != nil {
		return fmt.Errorf("marshal outbox payload: %w", err)
	}
	return store.InsertOutbox(ctx, q, store.OutboxRow{ID: id, OrgID: orgID, Topic: topic, Payload: b, CreatedAt: at.UTC()})
}

// CascadeJob is the payload of a TopicCascadeDelete outbox row.
type CascadeJob struct {
	OrgID      uuid.UUID `json:"org_id"`
	EntityType string    `json:"entity_type"` // project, sprint, ticket, label, custom_field
	EntityID   uuid.UUID `json:"entity_id"`
}

// ScheduleCascade marks nothing itself: the caller has set deleted_at on the
// root in q; this enqueues the durable purge of its dependents at time at.
func ScheduleCascade(ctx context.Context, q store.Querier, job CascadeJob, at time.Time) error {
	return Enqueue(ctx, q, job.OrgID, NewID(), TopicCascadeDelete, job, at)
}
