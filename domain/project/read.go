package project

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/projectdb"
)

// Get reads a project (any member; a Reporter only when assigned to it).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Project, error) {
	row, err := projectdb.GetWithAccess(ctx, s.DB.Q(), id, p.UserID, false)
	if err != nil {
		return Project{}, domain.NotFoundAs(err, "project")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleViewer, "project"); err != nil {
		return Project{}, err
	}
	return FromRow(row.Row), nil
}

// ByKey reads the project of org with key (any case); uuid.Nil org means the
// caller's session org.
func (s *Service) ByKey(ctx context.Context, p domain.Principal, orgID uuid.UUID, key string) (Project, error) {
	if orgID == uuid.Nil {
		orgID = p.OrgID
	}
	row, err := projectdb.ByKeyWithAccess(ctx, s.DB.Q(), orgID, key, p.UserID)
	if err != nil {
		return Project{}, domain.NotFoundAs(err, "project")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleViewer, "project"); err != nil {
		return Project{}, err
	}
	return FromRow(row.Row), nil
}

// List pages an org's projects: a Reporter sees only the projects assigned
// to them, an API key restricted to projects only those.
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Project], error) {
	q := s.DB.Q()
	a, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization") // filtered below
	if err != nil {
		return domain.Paged[Project]{}, err
	}
	f := projectdb.Filter{OrgID: orgID}
	f.AssignedTo, f.OnlyIDs = p.Visible(a.Member)
	rows, err := projectdb.List(ctx, q, f, page)
	if err != nil {
		return domain.Paged[Project]{}, err
	}
	return domain.MapPage(rows, FromRow), nil
}
