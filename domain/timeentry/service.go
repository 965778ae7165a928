package timeentry

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex/period"
	"tracker/store"
	"tracker/store/timeentrydb"
)

// Service runs the time entry use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// CreateInput is a new entry: its ids and its own values (Content), the
// date as the request spelled it (Date), which Content's is read from.
type CreateInput struct {
	UserID, TicketID, ProjectID uuid.UUID
	Content
	Date string
}

// Create logs time on a ticket (Member of the project's org). A Member logs
// only their own time; an Admin may log for any member of the org. New
// entries start as Draft.
func (s *Service) Create(ctx context.Context, p domain.Principal, in CreateInput) (Entry, error) {
	now := s.now()
	pt := domain.Filled(in.Content, "date", "duration_minutes", "activity_type")
	if err := checkContent(&pt, in.Date, now); err != nil {
		return Entry{}, err
	}
	var out Entry
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		a, err := domain.ProjectAccess(ctx, q, p, in.ProjectID, domain.RoleMember, "project")
		if err != nil {
			return err
		}
		t, err := timeentrydb.Ticket(ctx, q, in.TicketID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && t.OrgID != a.OrgID) {
			return domain.Invalid("ticket_id: no such ticket in the project's organization")
		}
		if err != nil {
			return err
		}
		if t.ProjectID != in.ProjectID {
			return domain.Invalid("ticket_id: the ticket does not belong to project_id")
		}
		if err := period.EnsureOpen(ctx, q, a.OrgID, "time entry", pt.Value.Date.Time()); err != nil {
			return err
		}
		if in.UserID != p.UserID {
			if !a.At(domain.RoleAdmin) {
				return domain.Forbidden("logging time for another user requires the Admin role")
			}
			role, err := store.MemberRole(ctx, q, a.OrgID, in.UserID)
			if err != nil {
				return err
			}
			if role == "" {
				return domain.Invalid("user_id: not a member of the project's organization")
			}
		}
		r := timeentrydb.Row{
			ID: domain.NewID(), OrgID: a.OrgID, UserID: in.UserID, TicketID: in.TicketID, ProjectID: in.ProjectID,
			Content: pt.Value, Status: StatusDraft, CreatedAt: now, UpdatedAt: now, RowVersion: 1,
		}
		if err := timeentrydb.Insert(ctx, q, r); err != nil {
			return err
		}
		out = toEntry(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: a.OrgID, ActorID: &p.UserID, EntityType: "time_entry",
			EntityID: r.ID, Action: "created", Data: out})
	})
	return out, err
}

// Get reads one entry (any member of its org who can reach its project).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Entry, error) {
	r, err := timeentrydb.GetWithAccess(ctx, s.DB.Q(), id, p.UserID, false)
	if err != nil {
		return Entry{}, domain.NotFoundAs(err, "time entry")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), domain.RoleViewer, "time entry"); err != nil {
		return Entry{}, err
	}
	return toEntry(r.Row), nil
}

// ListFilter narrows a list by the spec's query parameters.
type ListFilter struct {
	UserID    uuid.UUID
	ProjectID uuid.UUID
	Date      string
}

func (f ListFilter) toDB(orgID uuid.UUID) (timeentrydb.Filter, error) {
	out := timeentrydb.Filter{OrgID: orgID, UserID: f.UserID, ProjectID: f.ProjectID}
	if f.Date != "" {
		d, ok := ParseDate(f.Date)
		if !ok {
			return out, domain.Invalid("date: must be a date in the form YYYY-MM-DD")
		}
		out.Date = &d
	}
	return out, nil
}

// ListByTicket pages a ticket's entries.
func (s *Service) ListByTicket(ctx context.Context, p domain.Principal, ticketID uuid.UUID, f ListFilter, page domain.Page) (domain.Paged[Entry], error) {
	q := s.DB.Q()
	t, err := timeentrydb.Ticket(ctx, q, ticketID)
	if err != nil {
		return domain.Paged[Entry]{}, domain.NotFoundAs(err, "ticket")
	}
	if _, err := domain.ProjectAccess(ctx, q, p, t.ProjectID, domain.RoleViewer, "ticket"); err != nil {
		return domain.Paged[Entry]{}, err
	}
	dbf, err := f.toDB(t.OrgID)
	if err != nil {
		return domain.Paged[Entry]{}, err
	}
	dbf.TicketID = ticketID
	rows, err := timeentrydb.List(ctx, q, dbf, page)
	if err != nil {
		return domain.Paged[Entry]{}, err
	}
	return domain.MapPage(rows, toEntry), nil
}

// ListByUser pages a user's entries in orgID or, when orgID is nil, in every
// org the caller shares with that user (an API key: its own org), limited to
// the projects the caller can reach in each.
func (s *Service) ListByUser(ctx context.Context, p domain.Principal, userID, orgID uuid.UUID, f ListFilter, page domain.Page) (domain.Paged[Entry], error) {
	q := s.DB.Q()
	dbf, err := s.orgFilter(ctx, q, p, orgID, userID)
	if err != nil {
		return domain.Paged[Entry]{}, err
	}
	lf, err := f.toDB(uuid.Nil)
	if err != nil {
		return domain.Paged[Entry]{}, err
	}
	dbf.UserID, dbf.ProjectID, dbf.Date = userID, lf.ProjectID, lf.Date
	rows, err := timeentrydb.List(ctx, q, dbf, page)
	if err != nil {
		return domain.Paged[Entry]{}, err
	}
	return domain.MapPage(rows, toEntry), nil
}

// ListSubmitted lists every Submitted entry of orgID (when nil: of every org
// the caller belongs to; an API key: its own org) that the caller can reach:
// the approval queue.
func (s *Service) ListSubmitted(ctx context.Context, p domain.Principal, orgID uuid.UUID) ([]Entry, error) {
	q := s.DB.Q()
	dbf, err := s.orgFilter(ctx, q, p, orgID, uuid.Nil)
	if err != nil {
		return nil, err
	}
	dbf.Status = StatusSubmitted
	rows, err := timeentrydb.All(ctx, q, dbf)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(rows))
	for _, r := range rows {
		out = append(out, toEntry(r))
	}
	return out, nil
}

// orgFilter authorizes a read across orgID and restricts it to the projects
// a Reporter is assigned to and an API key is limited to. When orgID is nil
// the read spans every org the caller belongs to (and shares with
// withUser, when set); an API key or a single sign-on session never reaches
// past its org, so for them that is their own org.
func (s *Service) orgFilter(ctx context.Context, q store.Querier, p domain.Principal, orgID, withUser uuid.UUID) (timeentrydb.Filter, error) {
	if orgID == uuid.Nil && p.Bound() {
		orgID = p.OrgID
	}
	if orgID != uuid.Nil {
		role, err := store.MemberRole(ctx, q, orgID, p.UserID)
		if err != nil {
			return timeentrydb.Filter{}, err
		}
		scope, err := s.orgScope(ctx, q, p, orgID, domain.ParseRole(role))
		if err != nil {
			return timeentrydb.Filter{}, err
		}
		return timeentrydb.Filter{Orgs: []timeentrydb.OrgScope{scope}}, nil
	}
	orgs, err := timeentrydb.SharedOrgs(ctx, q, p.UserID, withUser)
	if err != nil {
		return timeentrydb.Filter{}, err
	}
	f := timeentrydb.Filter{Orgs: []timeentrydb.OrgScope{}}
	for _, o := range orgs {
		scope, err := s.orgScope(ctx, q, p, o.OrgID, domain.ParseRole(o.Role))
		if err != nil {
			var de *domain.Error
			if errors.As(err, &de) {
				continue // an org the caller may not read entries in
			}
			return f, err
		}
		f.Orgs = append(f.Orgs, scope)
	}
	return f, nil
}

// orgScope authorizes a read of one org's entries for a member of role and
// restricts it to the caller's projects there.
func (s *Service) orgScope(ctx context.Context, q store.Querier, p domain.Principal, orgID uuid.UUID, role domain.Role) (timeentrydb.OrgScope, error) {
	_, err := domain.Authorize(p, domain.Membership{OrgID: orgID, Role: role, ProjectFiltered: true}, domain.RoleViewer, "organization")
	if err != nil {
		return timeentrydb.OrgScope{}, err
	}
	scope := timeentrydb.OrgScope{OrgID: orgID}
	// The membership role, not the key-capped one: a Reporter's read key
	// must not see more than the Reporter does.
	if role == domain.RoleReporter {
		assigned, err := timeentrydb.AssignedProjects(ctx, q, orgID, p.UserID)
		if err != nil {
			return scope, err
		}
		if len(p.ProjectIDs) > 0 {
			assigned = slices.DeleteFunc(assigned, func(id uuid.UUID) bool { return !p.AllowsProject(id) })
		}
		scope.Restricted, scope.Projects = true, assigned
	} else if len(p.ProjectIDs) > 0 {
		scope.Restricted, scope.Projects = true, p.ProjectIDs
	}
	if scope.Projects == nil {
		scope.Projects = []uuid.UUID{}
	}
	return scope, nil
}
