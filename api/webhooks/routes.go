// Package webhooks serves outbound webhooks and their delivery history.
package webhooks

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/webhook"
)

// Handlers serve the webhook routes.
type Handlers struct {
	webhooks *webhook.Service
}

// New builds the handlers with every dependency they need.
func New(webhooks *webhook.Service) Handlers {
	return Handlers{webhooks: webhooks}
}

// Routes registers the webhook routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/orgs/:org_id/webhooks", api.WithBody("org_id", "organization", fiber.StatusCreated, h.create))
	r.Get("/orgs/:org_id/webhooks", api.ListUnder("org_id", "organization", h.webhooks.List))
	r.Get("/webhooks/:id", api.ByID("webhook", h.webhooks.Get))
	r.Delete("/webhooks/:id", api.DeleteByID("webhook", h.webhooks.Delete))
	r.Get("/webhooks/:id/deliveries", api.ListUnderLimit("id", "webhook", 20, h.webhooks.ListDeliveries))
	r.Post("/webhooks/:id/deliveries/:delivery_id/redeliver", h.redeliver)
}

// createReq leaves the URL and event type rules to the domain, so a request
// gets every problem listed at once.
type createReq struct {
	URL        string   `json:"url"`
	EventTypes []string `json:"event_types"`
}

func (h Handlers) create(ctx context.Context, p domain.Principal, orgID uuid.UUID, req createReq) (webhook.Webhook, error) {
	return h.webhooks.Create(ctx, p, orgID,
		webhook.CreateInput{URL: req.URL, EventTypes: req.EventTypes})
}

func (h Handlers) redeliver(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "webhook")
	if err != nil {
		return err
	}
	deliveryID, err := api.PathID(c, "delivery_id", "delivery")
	if err != nil {
		return err
	}
	r, err := h.webhooks.Redeliver(c.UserContext(), api.Principal(c), id, deliveryID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusAccepted, r)
}
