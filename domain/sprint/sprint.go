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
	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/sprintdb"
)

// Sprint statuses.
const (
	StatusPlanned   = "Planned"
	StatusActive    = "Active"
	StatusCompleted = "Completed"
)

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

// Content are a sprint's own values (sprintdb.Content): what a create sets
// and a PATCH changes, field by field (domain.Patch).
type Content = sprintdb.Content

// Sprint is the API's Sprint resource.
type Sprint struct {
	ID        uuid.UUID `json:"id"`
	ProjectID uuid.UUID `json:"project_id"`
	Content
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the sprint's ETag version (domain.Versioned).
func (s Sprint) RowVersion() int64 { return s.Version }

func toSprint(r sprintdb.Row) Sprint {
	return Sprint{ID: r.ID, ProjectID: r.ProjectID, Content: r.Content, Status: r.Status,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Version: r.RowVersion}
}

func (s *Service) now() time.Time { return s.clock.Now() }

// CheckContent holds a sprint's own values to their rules: a name, and an
// end no earlier than the start (unless a date is missing). The one check
// of a create, a PATCH (on the merged values) and an imported sprint.
func CheckContent(p *domain.Problems, c Content) {
	if strings.TrimSpace(c.Name) == "" {
		p.Add("name", "must be at least 1 non-blank character")
	}
	if !c.StartDate.IsZero() && !c.EndDate.IsZero() && c.EndDate.Before(c.StartDate) {
		p.Add("end_date", "must not be before start_date")
	}
}

// Dates are a sprint's dates as the request spelled them, which Content's
// are read from: a malformed date is the check's problem, not the decoder's.
type Dates struct{ Start, End string }

// checkContent reads the dates the patch sets from d, refuses a null name
// or date, and checks what the sprint's values become from cur (a create's
// from none): the patch then holds the values to write.
func checkContent(pt *domain.Patch[Content], d Dates, cur Content) error {
	var probs domain.Problems
	if pt.Null("name") {
		probs.Add("name", "cannot be null")
		pt.Value.Name = cur.Name
	}
	pt.Value.StartDate = patchDate(&probs, pt, "start_date", d.Start, cur.StartDate)
	pt.Value.EndDate = patchDate(&probs, pt, "end_date", d.End, cur.EndDate)
	v := pt.Apply(cur)
	CheckContent(&probs, v)
	// The API alone bounds a sprint's length: an import keeps the sprints
	// of older data whatever their length.
	if !v.StartDate.IsZero() && !v.EndDate.Before(v.StartDate) && v.EndDate.Time().Sub(v.StartDate.Time()) > (MaxDays-1)*24*time.Hour {
		probs.Add("end_date", "a sprint lasts at most 366 days")
	}
	return probs.Err()
}

// patchDate is the date key of the patch as text reads: cur when the patch
// leaves it, or it is null or malformed (a problem).
func patchDate(probs *domain.Problems, pt *domain.Patch[Content], key, text string, cur civil.Date) civil.Date {
	if !pt.Has(key) {
		return cur
	}
	if pt.Null(key) {
		probs.Add(key, "cannot be null")
		return cur
	}
	d, err := civil.ParseDate(text)
	if err != nil {
		probs.Add(key, "must be a date in the form YYYY-MM-DD")
		return cur
	}
	return d
}

// Create plans a sprint in a project (Member).
func (s *Service) Create(ctx context.Context, p domain.Principal, projectID uuid.UUID, c Content, d Dates) (Sprint, error) {
	pt := domain.Filled(c, "name", "start_date", "end_date")
	if err := checkContent(&pt, d, Content{}); err != nil {
		return Sprint{}, err
	}
	at := s.now()
	r := sprintdb.Row{ID: domain.NewID(), ProjectID: projectID, Content: pt.Value, Status: StatusPlanned,
		CreatedAt: at, UpdatedAt: at, RowVersion: 1}
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
