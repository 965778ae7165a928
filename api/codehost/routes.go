// Package codehost serves the inbound code-hosting webhook (signature
// verified, no credentials) and the per-org connections that give an org
// its own webhook URL and secret (Admin).
package codehost

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/codehost"
)

// Handlers serve the code-host routes.
type Handlers struct {
	codehost *codehost.Service
}

// New builds the handlers with every dependency they need.
func New(svc *codehost.Service) Handlers {
	return Handlers{codehost: svc}
}

// Routes registers the code-host routes.
func (h Handlers) Routes(r api.Router) {
	r.Public().Post("/integrations/codehost/webhook", h.webhook)
	r.Public().Post("/integrations/codehost/webhook/:connection_id", h.webhook)
	r.Post("/orgs/:org_id/integrations/codehost", h.create)
	r.Get("/orgs/:org_id/integrations/codehost", api.ListUnder("org_id", "organization", h.codehost.List))
	r.Delete("/orgs/:org_id/integrations/codehost/:id", h.delete)
}

// webhook hands the raw body, exactly as received, to the domain, which
// verifies the signature before parsing anything.
func (h Handlers) webhook(c *fiber.Ctx) error {
	d := codehost.Delivery{
		Event:      c.Get("X-Codehost-Event"),
		DeliveryID: c.Get("X-Codehost-Delivery"),
		Signature:  c.Get("X-Codehost-Signature-256"),
		Body:       append([]byte(nil), c.Body()...),
	}
	if s := c.Params("connection_id"); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			return domain.Unauthorized("invalid or missing X-Codehost-Signature-256")
		}
		d.ConnectionID = &id
	}
	out, err := h.codehost.Handle(c.UserContext(), d)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

type createReq struct {
	Repositories []string `json:"repositories"`
}

func (h Handlers) create(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req createReq
	if len(c.Body()) > 0 {
		if err := api.Bind(c, &req); err != nil {
			return err
		}
	}
	out, err := h.codehost.Create(c.UserContext(), api.Principal(c), orgID, req.Repositories)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, out)
}

func (h Handlers) delete(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	id, err := api.PathID(c, "id", "code-host connection")
	if err != nil {
		return err
	}
	if err := h.codehost.Delete(c.UserContext(), api.Principal(c), orgID, id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
