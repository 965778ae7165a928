package statusflow

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/statusflowdb"
)

// CreateInput is a new workflow; an empty Enforcement is none.
type CreateInput struct {
	Name        string
	Statuses    []Status
	Transitions []Transition
	Enforcement string
}

func (in *CreateInput) validate() error {
	var p domain.Problems
	if in.Enforcement == "" {
		in.Enforcement = EnforceNone
	}
	checkName(&p, in.Name)
	checkStatuses(&p, in.Statuses)
	checkTransitions(&p, in.Statuses, in.Transitions)
	checkEnforcement(&p, in.Enforcement)
	return p.Err()
}

// Create adds a workflow to an org (Admin); a name taken in any case is a 409.
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, in CreateInput) (Workflow, error) {
	if in.Transitions == nil {
		in.Transitions = []Transition{}
	}
	if err := in.validate(); err != nil {
		return Workflow{}, err
	}
	var out Workflow
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		if err := nameFree(ctx, q, orgID, in.Name, uuid.Nil); err != nil {
			return err
		}
		now := s.now()
		r := statusflowdb.Row{ID: domain.NewID(), OrgID: orgID, Name: in.Name,
			Statuses: []byte(mustJSON(in.Statuses)), Transitions: []byte(mustJSON(in.Transitions)),
			Enforcement: in.Enforcement, CreatedAt: now, UpdatedAt: now}
		if err := statusflowdb.Insert(ctx, q, r); err != nil {
			return nameConflict(err, in.Name)
		}
		out = Workflow{ID: r.ID, OrgID: orgID, Name: in.Name, Statuses: in.Statuses, Transitions: in.Transitions,
			Enforcement: in.Enforcement, CreatedAt: now, UpdatedAt: now, Version: 1}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "workflow",
			EntityID: r.ID, Action: "created", Changes: []domain.FieldChange{
				{Field: "name", New: out.Name}, {Field: "statuses", New: out.Statuses},
				{Field: "transitions", New: out.Transitions}, {Field: "enforcement", New: out.Enforcement},
			}})
	})
	return out, err
}

func nameFree(ctx context.Context, q store.Querier, orgID uuid.UUID, name string, except uuid.UUID) error {
	taken, err := statusflowdb.NameTaken(ctx, q, orgID, name, except)
	if err != nil {
		return err
	}
	if taken {
		return domain.Conflict("a workflow with this name already exists in the organization", "name: "+name)
	}
	return nil
}

// nameConflict maps the unique constraint (a concurrent create) to the 409.
func nameConflict(err error, name string) error {
	if errors.Is(err, store.ErrConflict) {
		return domain.Conflict("a workflow with this name already exists in the organization", "name: "+name)
	}
	return err
}

// Get reads a workflow (any member of its org).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Workflow, error) {
	row, err := s.load(ctx, s.DB.Q(), p, id, domain.RoleViewer, false)
	if err != nil {
		return Workflow{}, err
	}
	return FromRow(row.Row)
}

// List pages an org's workflows (any member).
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Workflow], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return domain.Paged[Workflow]{}, err
	}
	rows, err := statusflowdb.List(ctx, q, orgID, page)
	if err != nil {
		return domain.Paged[Workflow]{}, err
	}
	out := domain.Paged[Workflow]{Items: make([]Workflow, 0, len(rows.Items)), Next: rows.Next}
	for _, r := range rows.Items {
		w, err := FromRow(r)
		if err != nil {
			return domain.Paged[Workflow]{}, err
		}
		out.Items = append(out.Items, w)
	}
	return out, nil
}

// load reads a workflow with the caller's membership in its org and
// authorizes min.
func (s *Service) load(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, min domain.Role, lock bool) (statusflowdb.WithAccess, error) {
	row, err := statusflowdb.GetWithAccess(ctx, q, id, p.UserID, lock)
	if err != nil {
		return row, domain.NotFoundAs(err, "workflow")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), min, "workflow"); err != nil {
		return row, err
	}
	return row, nil
}
