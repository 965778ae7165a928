package label

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/labeldb"
)

// DeletePreview is the dry-run answer of a label delete.
type DeletePreview struct {
	LabelID    uuid.UUID `json:"label_id"`
	Dependents struct {
		Tickets int64 `json:"tickets"`
	} `json:"dependents"`
}

// Delete removes a label (Admin). Tickets carrying it are its dependents:
// without cascade they block the delete (409); with cascade the label is
// hidden and unlinked from them at once, and the durable purge removes the
// row. A dry run reports the dependents and changes nothing.
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID, cascade, dryRun bool) (*DeletePreview, error) {
	var preview *DeletePreview
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		l, err := labeldb.GetWithAccess(ctx, q, id, p.UserID, labeldb.ForDelete)
		if err != nil {
			return domain.NotFoundAs(err, "label")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(l.AccessRow), domain.RoleAdmin, "label"); err != nil {
			return err
		}
		n, err := labeldb.CountTickets(ctx, q, l.Row.OrgID, id)
		if err != nil {
			return err
		}
		if dryRun {
			preview = &DeletePreview{LabelID: id}
			preview.Dependents.Tickets = n
			return nil
		}
		change := domain.Change{At: s.now(), OrgID: l.Row.OrgID, ActorID: &p.UserID, EntityType: "label", EntityID: id, Action: "deleted",
			Changes: []domain.FieldChange{{Field: "name", Old: l.Name, New: nil}}}
		if n == 0 {
			// If-Match is checked in the DELETE's WHERE.
			if err := labeldb.HardDelete(ctx, q, l.Row.OrgID, id, domain.Versions(ctx)); err != nil {
				return domain.StaleAs(ctx, err, "label")
			}
			return domain.Record(ctx, q, change)
		}
		if !cascade {
			return domain.Conflict("label is used by tickets; delete with cascade=true to remove it from them", tickets(n))
		}
		return s.cascade(ctx, q, p, l.Row, change)
	})
	return preview, err
}

// cascade unlinks the label from its tickets (each ticket's audit trail
// records the change), hides it, and schedules the purge of the row.
func (s *Service) cascade(ctx context.Context, q store.Querier, p domain.Principal, l labeldb.Row, change domain.Change) error {
	linked, err := labeldb.LinkedTickets(ctx, q, l.OrgID, l.ID)
	if err != nil {
		return err
	}
	before, err := labelSets(ctx, q, l.OrgID, linked)
	if err != nil {
		return err
	}
	if err := labeldb.UnlinkLabel(ctx, q, l.OrgID, l.ID); err != nil {
		return err
	}
	// If-Match is checked in the soft delete's WHERE (a stale version rolls
	// the unlinking back with the transaction).
	if err := labeldb.SoftDelete(ctx, q, l.OrgID, l.ID, domain.Versions(ctx), s.now()); err != nil {
		return domain.StaleAs(ctx, err, "label")
	}
	for _, t := range linked {
		if err := s.recordLabels(ctx, q, p, l.OrgID, t, before[t], without(before[t], l.ID)); err != nil {
			return err
		}
	}
	if err := domain.Record(ctx, q, change); err != nil {
		return err
	}
	return domain.ScheduleCascade(ctx, q, domain.CascadeJob{OrgID: l.OrgID, EntityType: "label", EntityID: l.ID}, s.now())
}

func tickets(n int64) string { return "tickets: " + itoa(n) }
