package ticket

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/customfielddb"
	"tracker/store/notificationdb"
	"tracker/store/ticketdb"
)

// NewTicket is the input of Create; the reporter is always the caller. Of
// its own values, Status "" is Backlog and Priority "" is None.
type NewTicket struct {
	Content
	AssigneeID *uuid.UUID
	ParentID   *uuid.UUID // a ticket of the same org the caller can read
	// ParentRef names the parent by reference instead (KEY-NUMBER, or a
	// bare number in the project); it wins over ParentID.
	ParentRef string
	// CustomFields are custom values by field key; a required field enabled
	// for the project must be among them.
	CustomFields customfield.Values
	custom       customValues
}

// customValues are a create's checked custom values with the definitions
// they were checked against.
type customValues struct {
	defs  customfield.Defs
	write customfield.Write
}

// Create adds a ticket to a project (Reporter assigned to the project, or
// above). The number comes from the project's counter in the same
// transaction; ticket.created and the audit row commit with it.
func (s *Service) Create(ctx context.Context, p domain.Principal, projectID uuid.UUID, in NewTicket) (Ticket, error) {
	pt := domain.Filled(in.Content, "title")
	if err := checkContent(&pt); err != nil {
		return Ticket{}, err
	}
	in.Content = pt.Value
	// Checks read outside the write: the write is one statement (see
	// ticketdb.InsertNext) that re-checks the project is live.
	q := s.DB.Q()
	pc, err := ticketdb.GetProjectForCreate(ctx, q, projectID, p.UserID, in.AssigneeID)
	if err != nil {
		return Ticket{}, domain.NotFoundAs(err, "project")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(pc.AccessRow), domain.RoleReporter, "project"); err != nil {
		return Ticket{}, err
	}
	if in.ParentID != nil || in.ParentRef != "" {
		// Checked outside the insert statement: a parent deleted meanwhile is
		// detached by the purge (ON DELETE SET NULL).
		if err := s.DB.InTx(ctx, func(tq store.Querier) error {
			tg := Target{Ref: in.ParentRef}
			if in.ParentRef == "" {
				tg.ID = *in.ParentID
			}
			id, err := tg.resolve(ctx, tq, "parent_id", pc.AccessRow.OrgID, projectID)
			if err != nil {
				return err
			}
			in.ParentID = &id
			return checkParent(ctx, tq, p, pc.AccessRow.OrgID, uuid.Nil, id, tg.String())
		}); err != nil {
			return Ticket{}, err
		}
	}
	defs, err := customfield.Load(ctx, q, pc.AccessRow.OrgID)
	if err != nil {
		return Ticket{}, err
	}
	w, err := customfield.Check(ctx, q, defs, pc.AccessRow.OrgID, projectID, uuid.Nil, in.CustomFields, true)
	if err != nil {
		return Ticket{}, err
	}
	// The values go in the ticket's insert statement: no transaction.
	in.custom = customValues{defs: defs, write: w}
	return s.create(ctx, q, pc, Actor{ID: p.UserID}, projectID, in)
}

// CreateAs is Create for an integration acting on its own authority (a
// verified signature, the org chosen by the caller): no membership check;
// the reporter is by.ID and the audit row carries by.Via. The project must
// be in orgID.
func (s *Service) CreateAs(ctx context.Context, by Actor, orgID, projectID uuid.UUID, in NewTicket) (Ticket, error) {
	var probs domain.Problems
	CheckTitle(&probs, in.Title)
	if err := probs.Err(); err != nil {
		return Ticket{}, err
	}
	q := s.DB.Q()
	pc, err := ticketdb.GetProjectForCreate(ctx, q, projectID, by.ID, nil)
	if err != nil || pc.AccessRow.OrgID != orgID {
		return Ticket{}, domain.NotFoundAs(store.ErrNotFound, "project")
	}
	return s.create(ctx, q, pc, by, projectID, NewTicket{Content: Content{Title: in.Title, Description: in.Description}})
}

func (s *Service) create(ctx context.Context, q store.Querier, pc ticketdb.ProjectForCreate, by Actor, projectID uuid.UUID, in NewTicket) (Ticket, error) {
	rules, err := s.rulesOf(pc.WorkflowRow)
	if err != nil {
		return Ticket{}, err
	}
	status, err := initialStatus(rules, in.Status)
	if err != nil {
		return Ticket{}, err
	}
	if !pc.AssigneeOK {
		return Ticket{}, domain.Invalid("assignee_id: must be a member of the project's organization")
	}
	in.Status = status
	if in.Priority == "" {
		in.Priority = "None"
	}
	row := ticketdb.Row{
		ID: domain.NewID(), OrgID: pc.AccessRow.OrgID, ProjectID: projectID, Content: in.Content, AssigneeID: in.AssigneeID, ReporterID: by.ID, CreatedAt: s.now(), ParentID: in.ParentID,
	}
	row.UpdatedAt = row.CreatedAt
	for i := range in.custom.write.Put {
		in.custom.write.Put[i].TicketID = row.ID
	}
	// The ticket row keeps its values' rendered copy, written by the same
	// statement (the values' trigger finds it right and leaves it).
	custom := in.custom.defs.Render(in.custom.write)
	row.CustomFields = custom.AppendJSON(nil)
	data := toTicket(row)
	// The event carries the ticket as rendered; its number is filled in by
	// the statement that takes it from the counter.
	audit, events, err := domain.PrepareChange(domain.Change{At: s.now(), OrgID: row.OrgID, ActorID: &by.ID, EntityType: "ticket", Via: by.Via,
		EntityID: row.ID, Action: ActionCreated, Changes: custom.Created(), Events: []string{domain.EventTicketCreated}, Data: data})
	if err != nil {
		return Ticket{}, err
	}
	notes, err := s.createdNotes(ctx, q, by, row)
	if err != nil {
		return Ticket{}, err
	}
	created, err := ticketdb.InsertNextWith(ctx, q, row, audit, events, customfielddb.NewValuesJSON(in.custom.write.Put), notes)
	if err != nil {
		return Ticket{}, domain.NotFoundAs(err, "project")
	}
	return toTicket(created), nil
}

// createdNotes are a new ticket's watches and notifications, which its
// insert statement writes: the reporter and the assignee watch it, the
// assignee and the people its description mentions are told.
func (s *Service) createdNotes(ctx context.Context, q store.Querier, by Actor, row ticketdb.Row) (notificationdb.OnCreate, error) {
	ev := notification.Event{OrgID: row.OrgID, ProjectID: row.ProjectID, TicketID: &row.ID, ActorID: &by.ID,
		Watch: []uuid.UUID{row.ReporterID}, Excerpt: row.Title, At: row.CreatedAt}
	if row.AssigneeID != nil {
		ev.Watch = append(ev.Watch, *row.AssigneeID)
		ev.Tell(*row.AssigneeID, notification.TypeAssigned)
	}
	if row.Description != nil {
		mentioned, err := notification.Mentioned(ctx, q, row.OrgID, row.ProjectID, *row.Description)
		if err != nil {
			return notificationdb.OnCreate{}, err
		}
		ev.Mention(mentioned)
	}
	return ev.OnCreate(), nil
}
