package statusflow

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/statusflowdb"
)

// Delete removes a workflow (Admin). The Default workflow cannot be deleted,
// nor one that live projects use (409 with "projects: N").
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		row, err := s.load(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		if row.Name == DefaultName {
			return domain.Conflict(fmt.Sprintf("the %s workflow of an organization cannot be deleted", DefaultName), "name: "+DefaultName)
		}
		n, err := statusflowdb.ProjectsUsing(ctx, q, id)
		if err != nil {
			return err
		}
		if n > 0 {
			return domain.Conflict(fmt.Sprintf("workflow %s is used by projects; assign them another workflow first", row.Name),
				fmt.Sprintf("projects: %d", n))
		}
		orgID := row.Row.OrgID
		// If-Match is checked in the DELETE's WHERE.
		if err := statusflowdb.Delete(ctx, q, orgID, id, domain.Versions(ctx)); err != nil {
			return domain.StaleAs(ctx, err, "workflow")
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "workflow",
			EntityID: id, Action: "deleted", Changes: []domain.FieldChange{{Field: "name", Old: row.Name}}})
	})
}
