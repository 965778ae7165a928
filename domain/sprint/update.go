package sprint

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/sprintdb"
)

// Patch is an update of a sprint's own values (absent fields stay, a null
// goal clears it), the dates as the request spelled them.
type Patch struct {
	Content domain.Patch[Content]
	Dates
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
		if err := checkContent(&pt.Content, pt.Dates, cur.Content); err != nil {
			return err
		}
		c := domain.Changeset{Set: map[string]any{}}
		pt.Content.Track(&c, cur.Content)
		if len(c.Changes) == 0 {
			// Nothing to write: the version read under the row lock decides.
			out = toSprint(cur)
			return domain.CheckIfMatch(ctx, "sprint", cur.RowVersion)
		}
		// If-Match is checked in the UPDATE's WHERE.
		r, err := sprintdb.Update(ctx, q, cur.OrgID, id, c.Set, s.now(), domain.Versions(ctx))
		if err != nil {
			return domain.StaleAs(ctx, err, "sprint")
		}
		out = toSprint(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "sprint", EntityID: id,
			Action: "updated", Changes: c.Changes})
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
		r, err := sprintdb.Update(ctx, q, cur.OrgID, id, map[string]any{"status": to}, s.now(), domain.Versions(ctx))
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
