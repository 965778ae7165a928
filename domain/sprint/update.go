package sprint

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/sprintdb"
)

// Patch is an update of a sprint; absent fields stay, a null goal clears it.
type Patch struct {
	Name      domain.Opt[string]
	Goal      domain.Opt[string]
	StartDate domain.Opt[string]
	EndDate   domain.Opt[string]
}

// apply merges the patch into cur, collecting problems and field changes.
func (pt Patch) apply(cur sprintdb.Row, probs *domain.Problems) (sprintdb.Row, []domain.FieldChange) {
	next := cur
	var changes []domain.FieldChange
	if pt.Name.Set {
		if pt.Name.Null {
			probs.Add("name", "cannot be null")
		} else if pt.Name.Value != cur.Name {
			next.Name = pt.Name.Value
			changes = append(changes, domain.FieldChange{Field: "name", Old: cur.Name, New: next.Name})
		}
	}
	if pt.Goal.Set {
		next.Goal = pt.Goal.Ptr()
		if !equalPtr(cur.Goal, next.Goal) {
			changes = append(changes, domain.FieldChange{Field: "goal", Old: cur.Goal, New: next.Goal})
		}
	}
	var c *domain.FieldChange
	if next.StartDate, c = patchDate(probs, "start_date", pt.StartDate, cur.StartDate); c != nil {
		changes = append(changes, *c)
	}
	if next.EndDate, c = patchDate(probs, "end_date", pt.EndDate, cur.EndDate); c != nil {
		changes = append(changes, *c)
	}
	checkFields(probs, next)
	return next, changes
}

// patchDate reads a date field of a patch: the date to store and its change,
// if any.
func patchDate(probs *domain.Problems, field string, o domain.Opt[string], cur time.Time) (time.Time, *domain.FieldChange) {
	if !o.Set {
		return cur, nil
	}
	if o.Null {
		probs.Add(field, "cannot be null")
		return cur, nil
	}
	v := parseDate(probs, field, o.Value)
	if v.IsZero() || v.Equal(cur) {
		return cur, nil
	}
	return v, &domain.FieldChange{Field: field, Old: cur.Format(DateLayout), New: v.Format(DateLayout)}
}

func equalPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// Update edits a sprint's name, goal and dates (Member); under If-Match
// (domain.Versions) a stale version is a 412.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, pt Patch) (Sprint, error) {
	var out Sprint
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		cur, err := load(ctx, q, p, id, domain.RoleMember, sprintdb.ForChange)
		if err != nil {
			return err
		}
		var probs domain.Problems
		next, changes := pt.apply(cur, &probs)
		if err := probs.Err(); err != nil {
			return err
		}
		if len(changes) == 0 {
			// Nothing to write: the version read under the row lock decides.
			out = toSprint(cur)
			return domain.CheckIfMatch(ctx, "sprint", cur.RowVersion)
		}
		next.UpdatedAt = s.now()
		// If-Match is checked in the UPDATE's WHERE.
		r, err := sprintdb.Update(ctx, q, next, domain.Versions(ctx))
		if err != nil {
			return domain.StaleAs(ctx, err, "sprint")
		}
		out = toSprint(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "sprint", EntityID: id,
			Action: "updated", Changes: changes})
	})
	return out, err
}

// Start moves a Planned sprint to Active (Member) and emits sprint.started.
func (s *Service) Start(ctx context.Context, p domain.Principal, id uuid.UUID) (Sprint, error) {
	return s.move(ctx, p, id, StatusPlanned, StatusActive, "started", domain.EventSprintStarted)
}

// Complete moves an Active sprint to Completed (Member) and emits
// sprint.completed.
func (s *Service) Complete(ctx context.Context, p domain.Principal, id uuid.UUID) (Sprint, error) {
	return s.move(ctx, p, id, StatusActive, StatusCompleted, "completed", domain.EventSprintCompleted)
}

// move is the sprint state machine: only from → to is allowed; a sprint in
// any other state is a 409 naming its current status.
func (s *Service) move(ctx context.Context, p domain.Principal, id uuid.UUID, from, to, action, event string) (Sprint, error) {
	var out Sprint
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		cur, err := load(ctx, q, p, id, domain.RoleMember, sprintdb.ForChange)
		if err != nil {
			return err
		}
		if cur.Status != from {
			return domain.Conflict("the sprint is "+cur.Status+"; only a "+from+" sprint can be "+action, "status: "+cur.Status)
		}
		next := cur
		next.Status, next.UpdatedAt = to, s.now()
		r, err := sprintdb.Update(ctx, q, next, domain.Versions(ctx))
		if err != nil {
			return domain.StaleAs(ctx, err, "sprint")
		}
		out = toSprint(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "sprint", EntityID: id,
			Action: action, Changes: []domain.FieldChange{{Field: "status", Old: from, New: to}},
			Events: []string{event}, Data: out})
	})
	return out, err
}
