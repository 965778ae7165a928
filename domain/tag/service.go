package tag

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/tagdb"
)

// access finds the entity in its org and authorizes min. A non-member and a
// missing entity get the same 404, so existence is not revealed.
func access(ctx context.Context, q store.Querier, p domain.Principal, e tagdb.Entity, min domain.Role) error {
	if err := CheckEntityType(e.Type); err != nil {
		return err
	}
	row, err := tagdb.EntityAccess(ctx, q, e, p.UserID)
	if err != nil {
		return domain.NotFoundAs(err, what(e.Type))
	}
	_, err = domain.Authorize(p, domain.MembershipFrom(row), min, what(e.Type))
	return err
}

// Put upserts tags on an entity (Member): a new key is added, an existing
// key gets the new value, other keys stay. It returns all of the entity's
// tags, by key.
func (s *Service) Put(ctx context.Context, p domain.Principal, e tagdb.Entity, pairs []Pair) ([]Tag, error) {
	if err := CheckEntityType(e.Type); err != nil {
		return nil, err
	}
	if err := checkPairs(pairs); err != nil {
		return nil, err
	}
	var out []Tag
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if err := access(ctx, q, p, e, domain.RoleMember); err != nil {
			return err
		}
		current, err := tagdb.ForEntity(ctx, q, e)
		if err != nil {
			return err
		}
		old := map[string]tagdb.Row{}
		for _, r := range current {
			old[r.Key] = r
		}
		now := s.now()
		for _, t := range pairs {
			prev, existed := old[t.Key]
			if existed && prev.Value == *t.Value {
				continue
			}
			r, err := tagdb.Upsert(ctx, q, tagdb.Row{ID: domain.NewID(), OrgID: e.OrgID, EntityType: e.Type,
				EntityID: e.ID, Key: t.Key, Value: *t.Value, CreatedAt: now, UpdatedAt: now})
			if err != nil {
				return err
			}
			if err := s.record(ctx, q, p, r, prev, existed); err != nil {
				return err
			}
		}
		rows, err := tagdb.ForEntity(ctx, q, e)
		out = fromRows(rows)
		return err
	})
	return out, err
}

func (s *Service) record(ctx context.Context, q store.Querier, p domain.Principal, r, prev tagdb.Row, existed bool) error {
	c := domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "tag", EntityID: r.ID}
	if existed {
		c.Action = "updated"
		c.Changes = []domain.FieldChange{{Field: "value", Old: prev.Value, New: r.Value}}
	} else {
		c.Action = "created"
		c.Changes = []domain.FieldChange{
			{Field: "entity_type", New: r.EntityType}, {Field: "entity_id", New: r.EntityID},
			{Field: "key", New: r.Key}, {Field: "value", New: r.Value},
		}
	}
	return domain.Record(ctx, q, c)
}

// List returns an entity's tags by key (any member who may see the entity).
func (s *Service) List(ctx context.Context, p domain.Principal, e tagdb.Entity) ([]Tag, error) {
	q := s.DB.Q()
	if err := access(ctx, q, p, e, domain.RoleViewer); err != nil {
		return nil, err
	}
	rows, err := tagdb.ForEntity(ctx, q, e)
	if err != nil {
		return nil, err
	}
	return fromRows(rows), nil
}

// Delete removes an entity's tag by key (Member); no such tag is a 404.
func (s *Service) Delete(ctx context.Context, p domain.Principal, e tagdb.Entity, key string) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if err := access(ctx, q, p, e, domain.RoleMember); err != nil {
			return err
		}
		r, err := tagdb.Delete(ctx, q, e, key)
		if err != nil {
			return domain.NotFoundAs(err, "tag")
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "tag",
			EntityID: r.ID, Action: "deleted", Changes: []domain.FieldChange{
				{Field: "entity_type", Old: r.EntityType}, {Field: "entity_id", Old: r.EntityID},
				{Field: "key", Old: r.Key}, {Field: "value", Old: r.Value},
			}})
	})
}

// Search pages an org's tags with key and value (any member). Tags on
// project-scoped entities follow the project's visibility: a Reporter sees
// those of assigned projects, a project-restricted API key those of its
// projects; tags of deleted entities are left out.
func (s *Service) Search(ctx context.Context, p domain.Principal, orgID uuid.UUID, key, value string, page domain.Page) (domain.Paged[Tag], error) {
	var pr domain.Problems
	checkKey(&pr, "key", key)
	if err := pr.Err(); err != nil {
		return domain.Paged[Tag]{}, err
	}
	q := s.DB.Q()
	a, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization") // filtered below
	if err != nil {
		return domain.Paged[Tag]{}, err
	}
	f := tagdb.Search{OrgID: orgID, Key: key, Value: value}
	f.AssignedTo, f.OnlyProjects = p.Visible(a.Member)
	rows, err := tagdb.SearchPage(ctx, q, f, page)
	if err != nil {
		return domain.Paged[Tag]{}, err
	}
	return domain.MapPage(rows, fromRow), nil
}
