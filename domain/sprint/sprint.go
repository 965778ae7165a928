// Package sprint holds the use cases of sprints: their lifecycle (Planned →
// Active → Completed), ticket assignment, deletion, the board and the
// burndown.
package sprint

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/sprintdb"
)

// Sprint statuses.
const (
	StatusPlanned   = "Planned"
	StatusActive    = "Active"
	StatusCompleted = "Completed"
)

// DateLayout is the wire form of dates.
const DateLayout = "2006-01-02"

// MaxDays bounds a sprint's length, which also bounds the burndown's size.
const MaxDays = 366

// Service runs the sprint use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// NewService builds the service on db, telling the time by clock (New is
// the input of Create).
func NewService(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

// Sprint is the API's Sprint resource.
type Sprint struct {
	ID        uuid.UUID `json:"id"`
	ProjectID uuid.UUID `json:"project_id"`
	Name      string    `json:"name"`
	Goal      *string   `json:"goal"`
	StartDate string    `json:"start_date"`
	EndDate   string    `json:"end_date"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the sprint's ETag version (domain.Versioned).
func (s Sprint) RowVersion() int64 { return s.Version }

func toSprint(r sprintdb.Row) Sprint {
	return Sprint{ID: r.ID, ProjectID: r.ProjectID, Name: r.Name, Goal: r.Goal,
		StartDate: r.StartDate.Format(DateLayout), EndDate: r.EndDate.Format(DateLayout), Status: r.Status,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Version: r.RowVersion}
}

func (s *Service) now() time.Time { return s.clock.Now() }

func parseDate(p *domain.Problems, field, s string) time.Time {
	d, err := time.Parse(DateLayout, s)
	if err != nil {
		p.Add(field, "must be a date in the form YYYY-MM-DD")
	}
	return d
}

// checkFields validates a sprint's name and dates as they will be stored.
func checkFields(p *domain.Problems, r sprintdb.Row) {
	if strings.TrimSpace(r.Name) == "" {
		p.Add("name", "must be at least 1 non-blank character")
	}
	if r.StartDate.IsZero() || r.EndDate.IsZero() {
		return
	}
	if r.EndDate.Before(r.StartDate) {
		p.Add("end_date", "must not be before start_date")
	} else if r.EndDate.Sub(r.StartDate) > (MaxDays-1)*24*time.Hour {
		p.Add("end_date", "a sprint lasts at most 366 days")
	}
}

// New is a sprint to create.
type New struct {
	Name      string
	Goal      *string
	StartDate string
	EndDate   string
}

// Create plans a sprint in a project (Member).
func (s *Service) Create(ctx context.Context, p domain.Principal, projectID uuid.UUID, in New) (Sprint, error) {
	var probs domain.Problems
	at := s.now()
	r := sprintdb.Row{ID: domain.NewID(), ProjectID: projectID, Name: in.Name, Goal: in.Goal, Status: StatusPlanned,
		StartDate: parseDate(&probs, "start_date", in.StartDate), EndDate: parseDate(&probs, "end_date", in.EndDate),
		CreatedAt: at, UpdatedAt: at, RowVersion: 1}
	checkFields(&probs, r)
	if err := probs.Err(); err != nil {
		return Sprint{}, err
	}
	var out Sprint
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		a, err := domain.ProjectAccess(ctx, q, p, projectID, domain.RoleMember, "project")
		if err != nil {
			return err
		}
		r.OrgID = a.OrgID
		if err := sprintdb.Insert(ctx, q, r); err != nil {
			return err
		}
		out = toSprint(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "sprint", EntityID: r.ID,
			Action: "created", Changes: []domain.FieldChange{{Field: "status", New: StatusPlanned}}})
	})
	return out, err
}

// List pages a project's sprints (any member who sees the project).
func (s *Service) List(ctx context.Context, p domain.Principal, projectID uuid.UUID, page domain.Page) (domain.Paged[Sprint], error) {
	q := s.DB.Q()
	a, err := domain.ProjectAccess(ctx, q, p, projectID, domain.RoleViewer, "project")
	if err != nil {
		return domain.Paged[Sprint]{}, err
	}
	rows, err := sprintdb.ListByProject(ctx, q, a.OrgID, projectID, page)
	if err != nil {
		return domain.Paged[Sprint]{}, err
	}
	return domain.MapPage(rows, toSprint), nil
}

// load reads a visible sprint and authorizes the caller on its project.
func load(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, min domain.Role, lock sprintdb.Lock) (sprintdb.Row, error) {
	r, err := sprintdb.GetWithAccess(ctx, q, id, p.UserID, lock)
	if err != nil {
		return sprintdb.Row{}, domain.NotFoundAs(err, "sprint")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), min, "sprint"); err != nil {
		return sprintdb.Row{}, err
	}
	return r.Row, nil
}

// Get reads one sprint.
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Sprint, error) {
	r, err := load(ctx, s.DB.Q(), p, id, domain.RoleViewer, sprintdb.NoLock)
	if err != nil {
		return Sprint{}, err
	}
	return toSprint(r), nil
}
