// Package chat serves the chat integration's authenticated routes:
// notifications (queued, 202) and their delivery records, ticket thread
// mappings, and channel subscriptions to ticket events.
package chat

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain/chat"
)

// Handlers serve the chat routes.
type Handlers struct {
	Chat *chat.Service
}

// Routes registers the chat routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/integrations/chat/notify", h.notify)
	r.Get("/integrations/chat/notifications/:id", api.ByID("notification", h.Chat.Get))
	r.Post("/integrations/chat/thread-mappings", h.createMapping)
	r.Get("/tickets/:ticket_id/thread-mappings", api.ListUnder("ticket_id", "ticket", h.Chat.Mappings))
	r.Put("/orgs/:org_id/integrations/chat/subscriptions", h.subscribe)
	r.Get("/orgs/:org_id/integrations/chat/subscriptions", api.ListUnder("org_id", "organization", h.Chat.Subscriptions))
}

type notifyReq struct {
	NotificationType string    `json:"notification_type" validate:"required"`
	TicketID         uuid.UUID `json:"ticket_id" validate:"required"`
	ChannelID        string    `json:"channel_id"`
	UserSlackID      string    `json:"user_slack_id"`
	Message          string    `json:"message"`
	OldStatus        string    `json:"old_status"`
	NewStatus        string    `json:"new_status"`
	ActorName        string    `json:"actor_name"`
	ThreadTS         string    `json:"thread_ts"`
}

func (h Handlers) notify(c *fiber.Ctx) error {
	var req notifyReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.Chat.Notify(c.UserContext(), api.Principal(c), chat.NotifyRequest{Type: req.NotificationType,
		TicketID: req.TicketID, ChannelID: req.ChannelID, UserSlackID: req.UserSlackID, Message: req.Message,
		OldStatus: req.OldStatus, NewStatus: req.NewStatus, ActorName: req.ActorName, ThreadTS: req.ThreadTS})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(out)
}

type mappingReq struct {
	TicketID  uuid.UUID `json:"ticket_id" validate:"required"`
	ChannelID string    `json:"channel_id" validate:"required"`
	ThreadTS  string    `json:"thread_ts" validate:"required"`
}

func (h Handlers) createMapping(c *fiber.Ctx) error {
	var req mappingReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.Chat.CreateMapping(c.UserContext(), api.Principal(c), req.TicketID, req.ChannelID, req.ThreadTS)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(out)
}

type subscribeReq struct {
	ChannelID  string   `json:"channel_id" validate:"required"`
	EventTypes []string `json:"event_types"`
}

func (h Handlers) subscribe(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req subscribeReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.Chat.Subscribe(c.UserContext(), api.Principal(c), orgID, req.ChannelID, req.EventTypes)
	if err != nil {
		return err
	}
	return c.JSON(out)
}
