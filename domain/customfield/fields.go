package customfield

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/customfielddb"
)

// keyTaken turns the unique violation on a field's key into a 409.
func keyTaken(err error, key string) error {
	var ce *store.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, store.ErrConflict) && ce.Constraint == customfielddb.KeyConstraint {
		return domain.Conflict("a custom field with this key already exists in the organization", "key: "+key)
	}
	return err
}

// Create defines a field in orgID (Admin).
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, in Input) (Field, error) {
	var out Field
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		now := s.clock.Now()
		r := customfielddb.Row{ID: domain.NewID(), OrgID: orgID, Options: []customfielddb.Option{}, ProjectIDs: []uuid.UUID{},
			CreatedAt: now, UpdatedAt: now}
		var pr domain.Problems
		if err := s.apply(ctx, q, &pr, &r, in, true); err != nil {
			return err
		}
		if err := pr.Err(); err != nil {
			return err
		}
		if err := customfielddb.Insert(ctx, q, r); err != nil {
			return keyTaken(err, r.Key)
		}
		out = ToField(r)
		return domain.Record(ctx, q, domain.Change{At: now, OrgID: orgID, ActorID: &p.UserID, EntityType: "custom_field", EntityID: r.ID,
			Action: "created", Changes: []domain.FieldChange{{Field: "key", New: r.Key}, {Field: "type", New: r.Type}}})
	})
	return out, err
}

// List pages the definitions of orgID (any member). A project-restricted
// API key lists those enabled for one of its projects, each naming only
// its projects (see keyView).
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Field], error) {
	q := s.DB.Q()
	if _, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return domain.Paged[Field]{}, err
	}
	var only []uuid.UUID
	if len(p.ProjectIDs) > 0 {
		only = p.ProjectIDs
	}
	rows, err := customfielddb.Page(ctx, q, orgID, only, page)
	if err != nil {
		return domain.Paged[Field]{}, err
	}
	return domain.MapPage(rows, func(r customfielddb.Row) Field { f, _ := keyView(p, ToField(r)); return f }), nil
}

// keyView is f as p may read it: everyone but a project-restricted API key
// reads it whole; such a key reads a field enabled for one of its projects
// (ok false: for none of them), with project_ids narrowed to its own
// projects, so no definition tells it of a project it cannot see.
func keyView(p domain.Principal, f Field) (Field, bool) {
	if len(p.ProjectIDs) == 0 || len(f.ProjectIDs) == 0 {
		return f, true
	}
	mine := make([]uuid.UUID, 0, len(f.ProjectIDs))
	for _, id := range f.ProjectIDs {
		if p.AllowsProject(id) {
			mine = append(mine, id)
		}
	}
	f.ProjectIDs = mine
	return f, len(mine) > 0
}

// load reads a definition with the caller's access to its org at min (a
// field of an org the caller is not in is a 404).
func load(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, min domain.Role, lock bool) (customfielddb.Row, error) {
	get := customfielddb.Get
	if lock {
		get = customfielddb.GetForUpdate
	}
	r, err := get(ctx, q, id)
	if err != nil {
		return r, domain.NotFoundAs(err, "custom field")
	}
	_, err = domain.OrgAccess(ctx, q, p, r.OrgID, min, "custom field")
	return r, err
}

// Get reads a definition (any member of its org; a project-restricted API
// key: a field enabled for one of its projects, others are 404s).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Field, error) {
	q := s.DB.Q()
	r, err := customfielddb.Get(ctx, q, id)
	if err != nil {
		return Field{}, domain.NotFoundAs(err, "custom field")
	}
	if _, err := domain.OrgReadFiltered(ctx, q, p, r.OrgID, domain.RoleViewer, "custom field"); err != nil {
		return Field{}, err
	}
	f, ok := keyView(p, ToField(r))
	if !ok {
		return Field{}, domain.NotFound("custom field")
	}
	return f, nil
}

// Update changes a definition's name, options, projects or required flag
// (Admin); its key and type are immutable.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, in Input) (Field, error) {
	var out Field
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		r, err := load(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		var pr domain.Problems
		if err := s.apply(ctx, q, &pr, &r, in, false); err != nil {
			return err
		}
		if err := pr.Err(); err != nil {
			return err
		}
		r.UpdatedAt = s.clock.Now()
		if err := customfielddb.Update(ctx, q, r); err != nil {
			return err
		}
		out = ToField(r)
		return domain.Record(ctx, q, domain.Change{At: r.UpdatedAt, OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "custom_field",
			EntityID: r.ID, Action: "updated"})
	})
	return out, err
}

// InlineValues is the most values a DELETE of a field removes in its own
// transaction (the default of WithInlineValues); a field held by more
// tickets is marked deleted and its values are purged by the durable
// cascade job, in batches, so the request never holds a long transaction.
const InlineValues = 1000

// WithInlineValues is s with another limit of the values a DELETE removes
// inline (tests take the durable path with a few tickets).
func (s *Service) WithInlineValues(n int) *Service {
	c := *s
	c.inline = n
	return &c
}

// Delete removes a definition and its values on tickets (Admin): inline
// when at most InlineValues tickets (WithInlineValues) hold one, else by the cascade job (the
// field is gone for every read at once, its key free again).
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		r, err := load(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		inline := s.inline
		if inline <= 0 {
			inline = InlineValues
		}
		many, err := customfielddb.ValuesOver(ctx, q, r.ID, inline)
		if err != nil {
			return err
		}
		if many {
			if err := customfielddb.MarkDeleted(ctx, q, r.OrgID, r.ID, now); err != nil {
				return err
			}
			if err := domain.ScheduleCascade(ctx, q, domain.CascadeJob{OrgID: r.OrgID, EntityType: "custom_field", EntityID: r.ID}, now); err != nil {
				return err
			}
		} else if err := customfielddb.Delete(ctx, q, r.OrgID, r.ID); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: now, OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "custom_field",
			EntityID: r.ID, Action: "deleted", Changes: []domain.FieldChange{{Field: "key", Old: r.Key}}})
	})
}
