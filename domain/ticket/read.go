package ticket

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Get reads a visible ticket (any role; a Reporter only in an assigned
// project) with one query for the row and the caller's access.
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Ticket, error) {
	t, err := ticketdb.GetWithAccess(ctx, s.DB.Q(), id, p.UserID)
	if err != nil {
		return Ticket{}, domain.NotFoundAs(err, "ticket")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleViewer, "ticket"); err != nil {
		return Ticket{}, err
	}
	out := toTicket(t.Row)
	out.Watching = &t.Watching
	return out, nil
}

// Render is rows (tickets of orgID) as the API answers them, custom values
// included (each row carries their rendered copy): for the features that
// read ticket rows themselves (sprint boards, and the ticket.updated
// payloads of attachments and sprints).
func Render(_ context.Context, _ store.Querier, _ uuid.UUID, rows ...ticketdb.Row) ([]Ticket, error) {
	out := make([]Ticket, len(rows))
	for i, r := range rows {
		out[i] = toTicket(r)
	}
	return out, nil
}

// RenderOne is Render of one row.
func RenderOne(ctx context.Context, q store.Querier, r ticketdb.Row) (Ticket, error) {
	out, err := Render(ctx, q, r.OrgID, r)
	if err != nil {
		return Ticket{}, err
	}
	return out[0], nil
}

// withKnownCustomFields sets the custom_fields of ts to known when it is
// set (the values a write has just laid down, which the row read before
// the write does not carry yet).
func withKnownCustomFields(ts []Ticket, known customfield.Object) {
	if known == nil {
		return
	}
	for i := range ts {
		ts[i].CustomFields = known.AppendJSON(nil)
	}
}

// Filter narrows a project's ticket list; empty fields do not filter.
type Filter struct {
	Status     string
	Priority   string
	AssigneeID uuid.UUID
}

// List pages a project's visible tickets in creation order. Access and page
// come from one query.
func (s *Service) List(ctx context.Context, p domain.Principal, projectID uuid.UUID, f Filter, page domain.Page) (domain.Paged[Ticket], error) {
	tf := ticketdb.Filter{Status: f.Status, AssigneeID: f.AssigneeID}
	if f.Priority != "" {
		pr, ok := ParsePriority(f.Priority)
		if !ok {
			return domain.Paged[Ticket]{}, domain.Invalid("priority: must be one of " + prioritiesList)
		}
		tf.Priority = pr
	}
	access, rows, err := ticketdb.ListPage(ctx, s.DB.Q(), projectID, p.UserID, tf, page)
	if err != nil {
		return domain.Paged[Ticket]{}, domain.NotFoundAs(err, "project")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(access), domain.RoleViewer, "project"); err != nil {
		return domain.Paged[Ticket]{}, err
	}
	return domain.MapPage(rows, toTicket), nil
}

// Activity is one entry of a ticket's activity feed: an audit row.
type Activity struct {
	Type      string          `json:"type"`
	Actor     *uuid.UUID      `json:"actor"`
	Timestamp time.Time       `json:"timestamp"`
	Payload   ActivityPayload `json:"payload"`
}

// ActivityPayload is the audit row behind an activity entry.
type ActivityPayload struct {
	AuditLogID uuid.UUID       `json:"audit_log_id"`
	Action     string          `json:"action"`
	EntityType string          `json:"entity_type"`
	Changes    json.RawMessage `json:"changes"`
	// Via is set when an integration acted (code host: pull request URL and
	// sender; chat: the chat user).
	Via json.RawMessage `json:"via,omitempty"`
}

func toActivity(r ticketdb.AuditRow) Activity {
	changes := json.RawMessage(r.Changes)
	if len(changes) == 0 {
		changes = json.RawMessage("[]")
	}
	return Activity{Type: r.Action, Actor: r.ActorID, Timestamp: r.CreatedAt.UTC(),
		Payload: ActivityPayload{AuditLogID: r.ID, Action: r.Action, EntityType: r.EntityType, Changes: changes, Via: r.Via}}
}

// Activity pages the audit trail of a visible ticket, oldest first.
func (s *Service) Activity(ctx context.Context, p domain.Principal, id uuid.UUID, page domain.Page) (domain.Paged[Activity], error) {
	q := s.DB.Q()
	t, err := ticketdb.GetWithAccess(ctx, q, id, p.UserID)
	if err != nil {
		return domain.Paged[Activity]{}, domain.NotFoundAs(err, "ticket")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleViewer, "ticket"); err != nil {
		return domain.Paged[Activity]{}, err
	}
	rows, err := ticketdb.ActivityPage(ctx, q, t.Row.OrgID, id, page)
	if err != nil {
		return domain.Paged[Activity]{}, err
	}
	return domain.MapPage(rows, toActivity), nil
}
