package labels

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/label"
)

type replaceReq struct {
	LabelIDs []uuid.UUID `json:"label_ids" validate:"required"`
}

// replaceTicketLabels answers 200: the ticket's whole label set is returned.
func (h Handlers) replaceTicketLabels(ctx context.Context, p domain.Principal, ticketID uuid.UUID, req replaceReq) ([]label.Label, error) {
	return h.labels.ReplaceTicketLabels(ctx, p, ticketID, req.LabelIDs)
}

func (h Handlers) ticketLabels(c *fiber.Ctx) error {
	ticketID, err := api.PathID(c, "ticket_id", "ticket")
	if err != nil {
		return err
	}
	out, err := h.labels.TicketLabels(c.UserContext(), api.Principal(c), ticketID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

// addTicketLabel answers 200 (not 201): it is idempotent and returns the
// ticket's labels, not a new resource.
func (h Handlers) addTicketLabel(c *fiber.Ctx) error {
	ticketID, err := api.PathID(c, "ticket_id", "ticket")
	if err != nil {
		return err
	}
	labelID, err := api.PathID(c, "label_id", "label")
	if err != nil {
		return err
	}
	out, err := h.labels.AddTicketLabel(c.UserContext(), api.Principal(c), ticketID, labelID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) removeTicketLabel(c *fiber.Ctx) error {
	ticketID, err := api.PathID(c, "ticket_id", "ticket")
	if err != nil {
		return err
	}
	labelID, err := api.PathID(c, "label_id", "label")
	if err != nil {
		return err
	}
	if err := h.labels.RemoveTicketLabel(c.UserContext(), api.Principal(c), ticketID, labelID); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
