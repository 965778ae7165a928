package sprint

import (
	"context"
	"strconv"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/sprintdb"
)

// DeletePreview is the dry-run answer of a sprint delete.
type DeletePreview struct {
	SprintID   uuid.UUID `json:"sprint_id"`
	Dependents struct {
		Tickets int64 `json:"tickets"`
	} `json:"dependents"`
}

// Delete removes a sprint (Admin). Its tickets are its dependents: without
// cascade they block the delete (409); with cascade the sprint and its
// tickets are hidden at once and the durable purge removes them. A dry run
// reports the dependents and changes nothing.
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID, cascade, dryRun bool) (*DeletePreview, error) {
	var preview *DeletePreview
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		sp, err := load(ctx, q, p, id, domain.RoleAdmin, sprintdb.ForDelete)
		if err != nil {
			return err
		}
		n, err := sprintdb.CountTickets(ctx, q, sp.OrgID, id)
		if err != nil {
			return err
		}
		if dryRun {
			preview = &DeletePreview{SprintID: id}
			preview.Dependents.Tickets = n
			return nil
		}
		change := domain.Change{At: s.now(), OrgID: sp.OrgID, ActorID: &p.UserID, EntityType: "sprint", EntityID: id, Action: "deleted",
			Changes: []domain.FieldChange{{Field: "name", Old: sp.Name, New: nil}}}
		if n == 0 {
			// If-Match is checked in the DELETE's WHERE.
			if err := sprintdb.HardDelete(ctx, q, sp.OrgID, id, domain.Versions(ctx)); err != nil {
				return domain.StaleAs(ctx, err, "sprint")
			}
			return domain.Record(ctx, q, change)
		}
		if !cascade {
			return domain.Conflict("sprint has tickets; delete with cascade=true to delete them too",
				"tickets: "+strconv.FormatInt(n, 10))
		}
		if err := sprintdb.SoftDelete(ctx, q, sp.OrgID, id, domain.Versions(ctx), s.now()); err != nil {
			return domain.StaleAs(ctx, err, "sprint")
		}
		change.Changes = append(change.Changes, domain.FieldChange{Field: "tickets", Old: n, New: 0})
		if err := domain.Record(ctx, q, change); err != nil {
			return err
		}
		return domain.ScheduleCascade(ctx, q, domain.CascadeJob{OrgID: sp.OrgID, EntityType: "sprint", EntityID: id}, s.now())
	})
	return preview, err
}
