package project

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/projectdb"
)

// Member is a user's assignment to a project.
type Member struct {
	ProjectID uuid.UUID `json:"project_id"`
	UserID    uuid.UUID `json:"user_id"`
	CreatedAt time.Time `json:"created_at"`
}

func toMember(m projectdb.Member) Member {
	return Member{ProjectID: m.ProjectID, UserID: m.UserID, CreatedAt: m.CreatedAt.UTC()}
}

// AddMember assigns a member of the project's org to the project (Member).
// A user outside the org is a 422 (a bad reference in the body); an existing
// assignment a 409.
func (s *Service) AddMember(ctx context.Context, p domain.Principal, projectID, userID uuid.UUID) (Member, error) {
	var out Member
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		row, err := projectdb.GetWithAccess(ctx, q, projectID, p.UserID, false)
		if err != nil {
			return domain.NotFoundAs(err, "project")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleMember, "project"); err != nil {
			return err
		}
		orgID := row.Row.OrgID
		role, err := store.MemberRole(ctx, q, orgID, userID)
		if err != nil {
			return err
		}
		if role == "" {
			return domain.Invalid("user_id: must be a member of the project's organization")
		}
		m := projectdb.Member{OrgID: orgID, ProjectID: projectID, UserID: userID, CreatedAt: s.now()}
		if err := projectdb.InsertMember(ctx, q, m); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return domain.Conflict("the user is already a member of this project", "user_id: "+userID.String())
			}
			return err
		}
		out = toMember(m)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "project",
			EntityID: projectID, Action: "member_added", Changes: []domain.FieldChange{{Field: "member", New: userID}}})
	})
	return out, err
}

// ListMembers lists a project's members (any member who may read the project).
func (s *Service) ListMembers(ctx context.Context, p domain.Principal, projectID uuid.UUID) ([]Member, error) {
	q := s.DB.Q()
	row, err := projectdb.GetWithAccess(ctx, q, projectID, p.UserID, false)
	if err != nil {
		return nil, domain.NotFoundAs(err, "project")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleViewer, "project"); err != nil {
		return nil, err
	}
	rows, err := projectdb.ListMembers(ctx, q, row.Row.OrgID, projectID)
	if err != nil {
		return nil, err
	}
	out := make([]Member, 0, len(rows))
	for _, r := range rows {
		out = append(out, toMember(r))
	}
	return out, nil
}

// RemoveMember ends an assignment (Member); none is a 404.
func (s *Service) RemoveMember(ctx context.Context, p domain.Principal, projectID, userID uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		row, err := projectdb.GetWithAccess(ctx, q, projectID, p.UserID, false)
		if err != nil {
			return domain.NotFoundAs(err, "project")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleMember, "project"); err != nil {
			return err
		}
		orgID := row.Row.OrgID
		if err := projectdb.DeleteMember(ctx, q, orgID, projectID, userID); err != nil {
			return domain.NotFoundAs(err, "project member")
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "project",
			EntityID: projectID, Action: "member_removed", Changes: []domain.FieldChange{{Field: "member", Old: userID}}})
	})
}
