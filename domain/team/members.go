package team

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/teamdb"
)

// Member is a team member listing item.
type Member struct {
	UserID      uuid.UUID `json:"user_id"`
	DisplayName string    `json:"display_name"`
	Email       string    `json:"email"`
	AddedAt     time.Time `json:"added_at"`
}

func toMember(m teamdb.Member) Member {
	return Member{UserID: m.UserID, DisplayName: m.DisplayName, Email: m.Email, AddedAt: m.AddedAt.UTC()}
}

// Members pages a team's members (any member of its org).
func (s *Service) Members(ctx context.Context, p domain.Principal, id uuid.UUID, page domain.Page) (domain.Paged[Member], error) {
	q := s.db.Q()
	t, err := access(ctx, q, p, id, domain.RoleViewer, false)
	if err != nil {
		return domain.Paged[Member]{}, err
	}
	rows, err := teamdb.ListMembers(ctx, q, t.OrgID, id, page)
	if err != nil {
		return domain.Paged[Member]{}, err
	}
	return domain.MapPage(rows, toMember), nil
}

// AddMember puts an org member in a team (Admin); adding a member already
// there changes nothing. created reports whether the user was new to it.
func (s *Service) AddMember(ctx context.Context, p domain.Principal, id, userID uuid.UUID) (created bool, err error) {
	err = s.db.InTx(ctx, func(q store.Querier) error {
		t, err := access(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		added, err := ChangeMembers(ctx, q, t, []uuid.UUID{userID}, nil, &p.UserID, s.clock.Now())
		created = len(added) == 1
		return err
	})
	return created, err
}

// RemoveMember takes a user out of a team (Admin); 404 if not in it.
func (s *Service) RemoveMember(ctx context.Context, p domain.Principal, id, userID uuid.UUID) error {
	return s.db.InTx(ctx, func(q store.Querier) error {
		t, err := access(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		_, err = ChangeMembers(ctx, q, t, nil, []uuid.UUID{userID}, &p.UserID, s.clock.Now())
		return err
	})
}

// ChangeMembers adds and removes team members in one step with one audit
// row (field "members", the user ids added and removed). Every user added
// must be an active member of the team's org (422 otherwise); removing a
// user not in the team is a 404 when it is the only change asked. It
// returns the users newly added.
func ChangeMembers(ctx context.Context, q store.Querier, t teamdb.Row, add, remove []uuid.UUID, actor *uuid.UUID, at time.Time) ([]uuid.UUID, error) {
	add, remove = domain.Dedupe(add), domain.Dedupe(remove)
	if len(add) > 0 {
		ok, err := teamdb.ActiveMembers(ctx, q, t.OrgID, add)
		if err != nil {
			return nil, err
		}
		if len(ok) != len(add) {
			var probs domain.Problems
			for _, u := range add {
				if !containsID(ok, u) {
					probs.Add("user_id", fmt.Sprintf("%s is not a member of the organization", u))
				}
			}
			return nil, probs.Err()
		}
	}
	added, err := teamdb.AddMembers(ctx, q, t.OrgID, t.ID, add, at)
	if err != nil {
		return nil, err
	}
	removed, err := teamdb.RemoveMembers(ctx, q, t.OrgID, t.ID, remove)
	if err != nil {
		return nil, err
	}
	if len(add) == 0 && len(remove) == 1 && len(removed) == 0 {
		return nil, domain.NotFound("team member")
	}
	if len(added) == 0 && len(removed) == 0 {
		return added, nil
	}
	return added, domain.Record(ctx, q, domain.Change{At: at, OrgID: t.OrgID, ActorID: actor, EntityType: "team", EntityID: t.ID,
		Action: "members_changed", Changes: []domain.FieldChange{{Field: "members", Old: removed, New: added}}})
}

func containsID(ids []uuid.UUID, id uuid.UUID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
