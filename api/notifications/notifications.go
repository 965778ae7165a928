// Package notifications serves ticket watchers, the caller's notification
// inbox, its live stream and the caller's notification settings.
package notifications

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/notification"
)

// Handlers serve the notification routes.
type Handlers struct {
	svc    *notification.Service
	hub    *notification.Hub
	stream api.StreamOptions
}

// New builds the handlers: hub wakes the live streams, which stream tunes.
func New(svc *notification.Service, hub *notification.Hub, stream api.StreamOptions) Handlers {
	return Handlers{svc: svc, hub: hub, stream: stream}
}

// Routes registers the routes. The fixed paths come before the ones with an
// id so they are not read as ids.
func (h Handlers) Routes(r api.Router) {
	r.Get("/tickets/:ticket_id/watchers", api.ListUnder("ticket_id", "ticket", h.svc.Watchers))
	r.Put("/tickets/:ticket_id/watchers/me", h.self(h.svc.WatchSelf))
	r.Delete("/tickets/:ticket_id/watchers/me", h.self(h.svc.UnwatchSelf))
	r.Put("/tickets/:ticket_id/watchers/:user_id", h.other(h.svc.Watch))
	r.Delete("/tickets/:ticket_id/watchers/:user_id", h.other(h.svc.Unwatch))

	r.Get("/notifications", h.list)
	r.Get("/notifications/unread-count", h.unreadCount)
	r.Get("/notifications/stream", h.live)
	r.Post("/notifications/read-all", h.readAll)
	r.Post("/notifications/:id/read", h.read)

	r.Get("/me/notification-settings", h.settings)
	// The caller is checked before the body is read: a key that may not
	// change settings is told so whatever it sent.
	r.Put("/me/notification-settings", func(c *fiber.Ctx) error {
		if err := notification.MayChangeSettings(api.Principal(c)); err != nil {
			return err
		}
		return c.Next()
	}, api.Body(fiber.StatusOK, h.putSettings))
}

func (h Handlers) self(do func(context.Context, domain.Principal, uuid.UUID) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := api.PathID(c, "ticket_id", "ticket")
		if err != nil {
			return err
		}
		if err := do(c.UserContext(), api.Principal(c), id); err != nil {
			return err
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
}

func (h Handlers) other(do func(context.Context, domain.Principal, uuid.UUID, uuid.UUID) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := api.PathID(c, "ticket_id", "ticket")
		if err != nil {
			return err
		}
		user, err := uuid.Parse(c.Params("user_id"))
		if err != nil {
			return domain.Invalid("user_id: must be a UUID")
		}
		if err := do(c.UserContext(), api.Principal(c), id, user); err != nil {
			return err
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
}

func query(c *fiber.Ctx) (notification.Query, error) {
	var q notification.Query
	var err error
	if q.UnreadOnly, err = api.QueryBool(c, "unread"); err != nil {
		return q, err
	}
	q.OrgID, err = api.QueryID(c, "org_id")
	return q, err
}

func (h Handlers) list(c *fiber.Ctx) error {
	q, err := query(c)
	if err != nil {
		return err
	}
	page, err := api.PageParams(c, domain.DefaultPageLimit)
	if err != nil {
		return err
	}
	out, err := h.svc.List(c.UserContext(), api.Principal(c), q, page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(out))
}

type count struct {
	Count int64 `json:"count"`
}

func (h Handlers) unreadCount(c *fiber.Ctx) error {
	q, err := query(c)
	if err != nil {
		return err
	}
	n, err := h.svc.UnreadCount(c.UserContext(), api.Principal(c), q)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, count{Count: n})
}

func (h Handlers) read(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "notification")
	if err != nil {
		return err
	}
	if err := h.svc.Read(c.UserContext(), api.Principal(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// readAllReq takes the org in the body or, as the list does, in the query.
type readAllReq struct {
	OrgID *uuid.UUID `json:"org_id"`
}

func (h Handlers) readAll(c *fiber.Ctx) error {
	q, err := query(c)
	if err != nil {
		return err
	}
	var req readAllReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	if req.OrgID != nil {
		q.OrgID = *req.OrgID
	}
	q.UnreadOnly = false
	if err := h.svc.ReadAll(c.UserContext(), api.Principal(c), q); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) settings(c *fiber.Ctx) error {
	out, err := h.svc.Settings(c.UserContext(), api.Principal(c))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

// settingsReq is the whole settings document; a type left out of types is on.
type settingsReq struct {
	Email *notification.EmailSettings `json:"email" validate:"required"`
	Chat  *notification.ChatSettings  `json:"chat" validate:"required"`
	Types map[string]bool             `json:"types"`
}

func (h Handlers) putSettings(ctx context.Context, p domain.Principal, req settingsReq) (notification.Settings, error) {
	return h.svc.PutSettings(ctx, p, notification.Settings{Email: *req.Email, Chat: *req.Chat, Types: req.Types})
}

// live streams the caller's new notifications as Server-Sent Events.
func (h Handlers) live(c *fiber.Ctx) error {
	p := api.Principal(c)
	ctx := c.UserContext()
	var last uuid.UUID
	if s := strings.TrimSpace(c.Get("Last-Event-ID")); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			return domain.Invalid("Last-Event-ID: must be a notification id")
		}
		last = id
	}
	// Without Last-Event-ID (or with one not the caller's) the stream
	// starts now; the inbox has the rest.
	cursor, err := h.svc.StartCursor(ctx, p, last)
	if err != nil {
		return err
	}
	wake, cancel := h.hub.Subscribe(p.UserID)
	return api.Stream(c, h.stream, &source{svc: h.svc, p: p, cursor: cursor, wake: wake, cancel: cancel})
}

// source feeds one caller's stream from their inbox.
type source struct {
	svc    *notification.Service
	p      domain.Principal
	cursor *notification.Cursor
	wake   <-chan struct{}
	cancel func()
}

func (s *source) Wake() <-chan struct{} { return s.wake }
func (s *source) Close()                { s.cancel() }

func (s *source) Send(ctx context.Context, w api.SSE) error {
	next := func(ctx context.Context, n int) ([]notification.Notification, error) {
		return s.svc.Next(ctx, s.p, s.cursor, n)
	}
	return api.SendBatches(ctx, w, 100, next, func(n notification.Notification) (string, string) { return n.ID.String(), "notification" })
}
