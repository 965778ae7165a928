package sso

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/sso"
)

// domainRoutes registers the org's email domains (Admin).
func (h Handlers) domainRoutes(r api.Router) {
	r.Post("/orgs/:org_id/domains", api.WithBody("org_id", "organization", fiber.StatusCreated, h.addDomain))
	r.Get("/orgs/:org_id/domains", h.listDomains)
	r.Delete("/orgs/:org_id/domains/:domain", h.deleteDomain)
	r.Post("/orgs/:org_id/domains/:domain/verify", h.verifyDomain)
}

type domainReq struct {
	Domain string `json:"domain"`
}

func (h Handlers) addDomain(ctx context.Context, p domain.Principal, orgID uuid.UUID, req domainReq) (sso.Domain, error) {
	return h.sso.AddDomain(ctx, p, orgID, req.Domain)
}

func (h Handlers) listDomains(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.sso.Domains(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, fiber.Map{"items": out})
}

func (h Handlers) deleteDomain(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	if err := h.sso.DeleteDomain(c.UserContext(), api.Principal(c), orgID, c.Params("domain")); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) verifyDomain(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.sso.VerifyDomain(c.UserContext(), api.Principal(c), orgID, c.Params("domain"))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}
