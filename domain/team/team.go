// Package team holds the use cases of teams: named groups of an org's
// members that projects are assigned to (capitalization reports group and
// filter by them). Names are unique per org ignoring case. SCIM Groups are
// the same teams (domain/scim).
package team

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/teamdb"
)

// Service runs the team use cases.
type Service struct {
	db    *store.DB
	clock domain.Clock
}

// New builds the service.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{db: db, clock: clock} }

// Team is the API's Team resource.
type Team struct {
	ID        uuid.UUID `json:"id"`
	OrgID     uuid.UUID `json:"org_id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// FromRow converts a teams row.
func FromRow(r teamdb.Row) Team {
	return Team{ID: r.ID, OrgID: r.OrgID, Name: r.Name, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// CheckName validates a team name: 1-255 characters, not blank.
func CheckName(p *domain.Problems, field, name string) {
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > 255 {
		p.Add(field, "must be 1-255 characters, not blank")
	}
}

// NameTaken turns the unique violation on a team's name into a 409.
func NameTaken(err error, name string) error {
	var ce *store.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, store.ErrConflict) && ce.Constraint == teamdb.NameConstraint {
		return domain.Conflict("a team with this name already exists in the organization", "name: "+name)
	}
	return err
}

// Create makes a team in an org (Admin).
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, name string) (Team, error) {
	var probs domain.Problems
	CheckName(&probs, "name", name)
	if err := probs.Err(); err != nil {
		return Team{}, err
	}
	var out Team
	err := s.db.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		at := s.clock.Now()
		r := teamdb.Row{ID: domain.NewID(), OrgID: orgID, Name: name, CreatedAt: at, UpdatedAt: at}
		if err := teamdb.Insert(ctx, q, r); err != nil {
			return NameTaken(err, name)
		}
		out = FromRow(r)
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "team", EntityID: r.ID,
			Action: "created", Changes: []domain.FieldChange{{Field: "name", New: name}}})
	})
	return out, err
}

// List pages an org's teams (any member).
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Team], error) {
	q := s.db.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return domain.Paged[Team]{}, err
	}
	rows, err := teamdb.List(ctx, q, orgID, page)
	if err != nil {
		return domain.Paged[Team]{}, err
	}
	return domain.MapPage(rows, FromRow), nil
}

// access reads a team and authorizes the caller at min.
func access(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, min domain.Role, lock bool) (teamdb.Row, error) {
	r, err := teamdb.GetWithAccess(ctx, q, id, p.UserID, lock)
	if err != nil {
		return teamdb.Row{}, domain.NotFoundAs(err, "team")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), min, "team"); err != nil {
		return teamdb.Row{}, err
	}
	return r.Row, nil
}

// Get reads one team (any member of its org).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Team, error) {
	r, err := access(ctx, s.db.Q(), p, id, domain.RoleViewer, false)
	return FromRow(r), err
}

// Rename changes a team's name (Admin).
func (s *Service) Rename(ctx context.Context, p domain.Principal, id uuid.UUID, name domain.Opt[string]) (Team, error) {
	var probs domain.Problems
	if name.Set {
		CheckName(&probs, "name", name.Value)
	}
	if err := probs.Err(); err != nil {
		return Team{}, err
	}
	var out Team
	err := s.db.InTx(ctx, func(q store.Querier) error {
		cur, err := access(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		if !name.Set || name.Value == cur.Name {
			out = FromRow(cur)
			return nil
		}
		next := cur
		next.Name, next.UpdatedAt = name.Value, s.clock.Now()
		r, err := teamdb.Update(ctx, q, next)
		if err != nil {
			return NameTaken(err, name.Value)
		}
		out = FromRow(r)
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "team", EntityID: id,
			Action: "updated", Changes: []domain.FieldChange{{Field: "name", Old: cur.Name, New: r.Name}}})
	})
	return out, err
}

// DeletePreview is the dry-run answer of a team delete: the projects that
// would lose their team.
type DeletePreview struct {
	TeamID     uuid.UUID `json:"team_id"`
	Dependents struct {
		Projects int `json:"projects"`
	} `json:"dependents"`
	Projects []teamdb.ProjectRef `json:"projects"`
}

// Delete removes a team (Admin). Its projects keep working with team_id
// null; a dry run lists them and changes nothing. cascade is accepted and
// has no effect: a team's projects never block its delete.
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID, _, dryRun bool) (*DeletePreview, error) {
	var preview *DeletePreview
	err := s.db.InTx(ctx, func(q store.Querier) error {
		t, err := access(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		if dryRun {
			projects, err := teamdb.Projects(ctx, q, t.OrgID, id)
			if err != nil {
				return err
			}
			preview = &DeletePreview{TeamID: id, Projects: projects}
			preview.Dependents.Projects = len(projects)
			return nil
		}
		return DeleteRow(ctx, q, t, &p.UserID, s.clock.Now())
	})
	return preview, err
}

// DeleteRow removes a team with its audit row (actor may be a SCIM token id).
func DeleteRow(ctx context.Context, q store.Querier, t teamdb.Row, actor *uuid.UUID, at time.Time) error {
	if err := teamdb.Delete(ctx, q, t.OrgID, t.ID, at); err != nil {
		return err
	}
	return domain.Record(ctx, q, domain.Change{At: at, OrgID: t.OrgID, ActorID: actor, EntityType: "team", EntityID: t.ID,
		Action: "deleted", Changes: []domain.FieldChange{{Field: "name", Old: t.Name, New: nil}}})
}
