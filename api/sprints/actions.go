package sprints

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
)

func (h Handlers) start(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "sprint")
	if err != nil {
		return err
	}
	out, err := h.Sprints.Start(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (h Handlers) complete(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "sprint")
	if err != nil {
		return err
	}
	out, err := h.Sprints.Complete(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

type batchAssignReq struct {
	TicketIDs []uuid.UUID `json:"ticket_ids" validate:"required,min=1"`
}

func (h Handlers) batchAssign(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "sprint")
	if err != nil {
		return err
	}
	var req batchAssignReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	n, err := h.Sprints.BatchAssign(c.UserContext(), api.Principal(c), id, req.TicketIDs)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"assigned": n})
}

func (h Handlers) board(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "sprint")
	if err != nil {
		return err
	}
	out, err := h.Sprints.Board(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(out)
}

func (h Handlers) burndown(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "sprint")
	if err != nil {
		return err
	}
	out, err := h.Sprints.Burndown(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
