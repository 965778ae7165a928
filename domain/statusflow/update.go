package statusflow

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/statusflowdb"
)

// PatchInput is a partial update; statuses and transitions, when given,
// replace the whole list. None of the fields may be null.
type PatchInput struct {
	Name        domain.Opt[string]
	Statuses    domain.Opt[[]Status]
	Transitions domain.Opt[[]Transition]
	Enforcement domain.Opt[string]
}

func (in PatchInput) nulls() error {
	var p domain.Problems
	for _, f := range []struct {
		name string
		null bool
	}{{"name", in.Name.Null}, {"statuses", in.Statuses.Null}, {"transitions", in.Transitions.Null}, {"enforcement", in.Enforcement.Null}} {
		if f.null {
			p.Add(f.name, "cannot be null")
		}
	}
	return p.Err()
}

// Update changes a workflow (Admin). The result is validated as a whole: new
// statuses must still cover the transitions kept from before. The Default
// workflow keeps its name, since projects without a workflow follow it by
// that name. Tickets keep their status when it leaves the workflow.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, in PatchInput) (Workflow, error) {
	if err := in.nulls(); err != nil {
		return Workflow{}, err
	}
	var out Workflow
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		row, err := s.load(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		old, err := FromRow(row.Row)
		if err != nil {
			return err
		}
		next := old
		if in.Name.Set {
			next.Name = in.Name.Value
		}
		if in.Statuses.Set {
			next.Statuses = nonNil(in.Statuses.Value)
		}
		if in.Transitions.Set {
			next.Transitions = nonNil(in.Transitions.Value)
		}
		if in.Enforcement.Set {
			next.Enforcement = in.Enforcement.Value
		}
		if err := validateWhole(old, next); err != nil {
			return err
		}
		if next.Name != old.Name {
			if err := nameFree(ctx, q, old.OrgID, next.Name, id); err != nil {
				return err
			}
		}
		set, changes := diff(old, next)
		if len(changes) == 0 {
			// Nothing to write: the version read under the row lock decides.
			out = old
			return domain.CheckIfMatch(ctx, "workflow", old.Version)
		}
		// If-Match is checked in the UPDATE's WHERE.
		updated, err := statusflowdb.Update(ctx, q, old.OrgID, id, domain.Versions(ctx), set, s.now())
		if err != nil {
			return domain.StaleAs(ctx, nameConflict(err, next.Name), "workflow")
		}
		if out, err = FromRow(updated); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: old.OrgID, ActorID: &p.UserID, EntityType: "workflow",
			EntityID: id, Action: "updated", Changes: changes})
	})
	return out, err
}

func validateWhole(old, next Workflow) error {
	var p domain.Problems
	checkName(&p, next.Name)
	if old.IsDefault() && next.Name != old.Name {
		p.Add("name", fmt.Sprintf("the %s workflow cannot be renamed", DefaultName))
	}
	checkStatuses(&p, next.Statuses)
	checkTransitions(&p, next.Statuses, next.Transitions)
	checkEnforcement(&p, next.Enforcement)
	return p.Err()
}

// diff lists the columns to write and the audited changes between two
// versions of a workflow.
func diff(old, next Workflow) (map[string]any, []domain.FieldChange) {
	set := map[string]any{}
	var ch []domain.FieldChange
	if old.Name != next.Name {
		set["name"] = next.Name
		ch = append(ch, domain.FieldChange{Field: "name", Old: old.Name, New: next.Name})
	}
	if !reflect.DeepEqual(old.Statuses, next.Statuses) {
		set["statuses"] = mustJSON(next.Statuses)
		ch = append(ch, domain.FieldChange{Field: "statuses", Old: old.Statuses, New: next.Statuses})
	}
	if !reflect.DeepEqual(old.Transitions, next.Transitions) {
		set["transitions"] = mustJSON(next.Transitions)
		ch = append(ch, domain.FieldChange{Field: "transitions", Old: old.Transitions, New: next.Transitions})
	}
	if old.Enforcement != next.Enforcement {
		set["enforcement"] = next.Enforcement
		ch = append(ch, domain.FieldChange{Field: "enforcement", Old: old.Enforcement, New: next.Enforcement})
	}
	return set, ch
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
