package tickets

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
)

func (h Handlers) transition(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	var req transitionReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	res, err := h.tickets.Transition(c.UserContext(), api.Principal(c), id, req.ToStatus)
	if err != nil {
		return err
	}
	return render(c, res)
}

func (h Handlers) available(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	out, err := h.tickets.Available(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) batchUpdate(c *fiber.Ctx) error {
	var req batchUpdateReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	pt, err := req.toDomain(c.Body())
	if err != nil {
		return err
	}
	if pt.SprintID, err = optID("sprint_id", req.SprintID); err != nil {
		return err
	}
	out, err := h.tickets.BatchUpdate(c.UserContext(), api.Principal(c), req.TicketIDs, pt)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) batchDelete(c *fiber.Ctx) error {
	var req batchDeleteReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.tickets.BatchDelete(c.UserContext(), api.Principal(c), req.TicketIDs, req.Cascade, req.DryRun)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) batchTransition(c *fiber.Ctx) error {
	var req batchTransitionReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.tickets.BatchTransition(c.UserContext(), api.Principal(c), req.TicketIDs, req.ToStatus)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}
