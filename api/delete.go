package api

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/domain"
)

// CascadeDeleter is the use case behind DELETE …/{id}?cascade=&dry_run= of
// projects, tickets, sprints and labels: a dry run returns its preview, a
// delete returns nil.
type CascadeDeleter[T any] func(ctx context.Context, p domain.Principal, id uuid.UUID, cascade, dryRun bool) (*T, error)

// CascadeDelete serves such a route: 200 with the dry run's preview
// (`{<what>_id, dependents}`), or 204 once deleted.
func CascadeDelete[T any](what string, del CascadeDeleter[T]) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := PathID(c, "id", what)
		if err != nil {
			return err
		}
		cascade, err := QueryBool(c, "cascade")
		if err != nil {
			return err
		}
		dryRun, err := QueryBool(c, "dry_run")
		if err != nil {
			return err
		}
		preview, err := del(c.UserContext(), Principal(c), id, cascade, dryRun)
		if err != nil {
			return err
		}
		if preview != nil {
			return Send(c, fiber.StatusOK, preview)
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
}
