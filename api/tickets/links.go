package tickets

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/ticket"
)

// linkReq is POST /tickets/:id/links. The fields are checked by the domain
// after authorization (a Viewer gets 403, not a validation error).
type linkReq struct {
	Type     string `json:"type"`
	TicketID string `json:"ticket_id"`
}

func (h Handlers) addLink(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	var req linkReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	l, err := h.tickets.AddLink(c.UserContext(), api.Principal(c), id, ticket.NewLink{Type: req.Type, TicketID: req.TicketID})
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, l)
}

func (h Handlers) links(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	ls, err := h.tickets.Links(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(domain.Paged[ticket.Link]{Items: ls}))
}

func (h Handlers) removeLink(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	if err := h.tickets.RemoveLink(c.UserContext(), api.Principal(c), id, c.Params("link_id")); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
