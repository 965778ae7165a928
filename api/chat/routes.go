// Package chat serves the chat integration: the signature-verified slash
// commands and events and the install callback (no credentials), and the
// authenticated routes:
// notifications (queued, 202) and their delivery records, ticket thread
// mappings, channel subscriptions to ticket events, workspaces connected to
// orgs and members' linked chat identities.
package chat

import (
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/chat"
)

// Handlers serve the chat routes.
type Handlers struct {
	chat *chat.Service
}

// New builds the handlers with every dependency they need.
func New(svc *chat.Service) Handlers {
	return Handlers{chat: svc}
}

// Routes registers the chat routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/integrations/chat/notify", api.Body(fiber.StatusAccepted, h.notify))
	r.Get("/integrations/chat/notifications/:id", api.ByID("notification", h.chat.Get))
	r.Post("/integrations/chat/thread-mappings", api.Body(fiber.StatusCreated, h.createMapping))
	r.Get("/tickets/:ticket_id/thread-mappings", api.ListUnder("ticket_id", "ticket", h.chat.Mappings))
	r.Put("/orgs/:org_id/integrations/chat/subscriptions", api.WithBody("org_id", "organization", fiber.StatusOK, h.subscribe))
	r.Get("/orgs/:org_id/integrations/chat/subscriptions", api.ListUnder("org_id", "organization", h.chat.Subscriptions))
	r.Public().Post("/integrations/chat/commands", h.command)
	r.Public().Post("/integrations/chat/events", h.event)
	r.Post("/orgs/:org_id/integrations/chat/install", h.install)
	r.Public().Get("/integrations/chat/oauth/callback", h.callback)
	r.Get("/orgs/:org_id/integrations/chat", api.ListUnder("org_id", "organization", h.chat.Workspaces))
	r.Delete("/orgs/:org_id/integrations/chat/:team_id", h.disconnect)
	r.Get("/orgs/:org_id/integrations/chat/settings", h.getSettings)
	r.Put("/orgs/:org_id/integrations/chat/settings", api.WithBody("org_id", "organization", fiber.StatusOK, h.putSettings))
	r.Put("/integrations/chat/identities/me", h.linkMe)
	r.Get("/integrations/chat/identities/me", h.me)
	r.Delete("/integrations/chat/identities/me", h.unlinkMe)
}

// signed verifies a chat request on its raw bytes before anything reads
// them: the service's X-Chat-* headers, or Slack's own X-Slack-* names.
func (h Handlers) signed(c *fiber.Ctx) ([]byte, error) {
	body := append([]byte(nil), c.Body()...)
	sig, ts := c.Get("X-Chat-Signature"), c.Get("X-Chat-Request-Timestamp")
	if sig == "" && ts == "" {
		sig, ts = c.Get("X-Slack-Signature"), c.Get("X-Slack-Request-Timestamp")
	}
	return body, h.chat.Verify(chat.Signed{Signature: sig, Timestamp: ts, Body: body})
}

func (h Handlers) command(c *fiber.Ctx) error {
	body, err := h.signed(c)
	if err != nil {
		return err
	}
	cmd, err := chat.ParseCommand(body)
	if err != nil {
		return err
	}
	out, err := h.chat.HandleCommand(c.UserContext(), cmd)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) event(c *fiber.Ctx) error {
	body, err := h.signed(c)
	if err != nil {
		return err
	}
	// The payload's shape is the chat service's (slack-go reads it); its
	// names are unique like every JSON body's.
	if json.Valid(body) {
		if err := domain.JSONNames(body, nil); err != nil {
			return err
		}
	}
	out, err := h.chat.HandleEvent(c.UserContext(), body)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

// install answers the authorize URL an Admin opens to install the chat app
// in a workspace for the org.
func (h Handlers) install(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.chat.StartInstall(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return api.Send(c, fiber.StatusOK, out)
}

// callback is where the chat service sends the installing browser back:
// 201 with the connected workspace, 200 for a reinstall.
func (h Handlers) callback(c *fiber.Ctx) error {
	out, created, err := h.chat.FinishInstall(c.UserContext(), chat.Callback{Code: c.Query("code"), State: c.Query("state"),
		Error: c.Query("error")})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	status := fiber.StatusOK
	if created {
		status = fiber.StatusCreated
	}
	return api.Send(c, status, out)
}

func (h Handlers) disconnect(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	if err := h.chat.Disconnect(c.UserContext(), api.Principal(c), orgID, c.Params("team_id")); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) getSettings(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.chat.GetSettings(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

type settingsReq struct {
	AcceptUnconnectedWorkspaces *bool `json:"accept_unconnected_workspaces"`
}

func (h Handlers) putSettings(ctx context.Context, p domain.Principal, orgID uuid.UUID, req settingsReq) (chat.Settings, error) {
	return h.chat.PutSettings(ctx, p, orgID, req.AcceptUnconnectedWorkspaces)
}

type linkReq struct {
	SlackUserID string    `json:"slack_user_id" validate:"required"`
	OrgID       uuid.UUID `json:"org_id"`
}

// orgOf is the org an identity route is about: org_id given, else the
// caller's token's org.
func orgOf(c *fiber.Ctx, given uuid.UUID) uuid.UUID {
	if given != uuid.Nil {
		return given
	}
	return api.Principal(c).OrgID
}

func (h Handlers) linkMe(c *fiber.Ctx) error {
	var req linkReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.chat.LinkMe(c.UserContext(), api.Principal(c), orgOf(c, req.OrgID), req.SlackUserID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) me(c *fiber.Ctx) error {
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	out, err := h.chat.Me(c.UserContext(), api.Principal(c), orgOf(c, orgID))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) unlinkMe(c *fiber.Ctx) error {
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	if err := h.chat.UnlinkMe(c.UserContext(), api.Principal(c), orgOf(c, orgID)); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
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

func (h Handlers) notify(ctx context.Context, p domain.Principal, req notifyReq) (chat.Queued, error) {
	return h.chat.Notify(ctx, p, chat.NotifyRequest{Type: req.NotificationType,
		TicketID: req.TicketID, ChannelID: req.ChannelID, UserSlackID: req.UserSlackID, Message: req.Message,
		OldStatus: req.OldStatus, NewStatus: req.NewStatus, ActorName: req.ActorName, ThreadTS: req.ThreadTS})
}

type mappingReq struct {
	TicketID  uuid.UUID `json:"ticket_id" validate:"required"`
	ChannelID string    `json:"channel_id" validate:"required"`
	ThreadTS  string    `json:"thread_ts" validate:"required"`
}

func (h Handlers) createMapping(ctx context.Context, p domain.Principal, req mappingReq) (chat.Mapping, error) {
	return h.chat.CreateMapping(ctx, p, req.TicketID, req.ChannelID, req.ThreadTS)
}

type subscribeReq struct {
	ChannelID  string   `json:"channel_id" validate:"required"`
	EventTypes []string `json:"event_types"`
}

func (h Handlers) subscribe(ctx context.Context, p domain.Principal, orgID uuid.UUID, req subscribeReq) (chat.Subscription, error) {
	return h.chat.Subscribe(ctx, p, orgID, req.ChannelID, req.EventTypes)
}
