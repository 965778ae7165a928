package sso

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
)

// domainRoutes registers the org's email domains (Admin).
func (h Handlers) domainRoutes(r api.Router) {
	r.Post("/orgs/:org_id/domains", h.addDomain)
	r.Get("/orgs/:org_id/domains", h.listDomains)
	r.Delete("/orgs/:org_id/domains/:domain", h.deleteDomain)
	r.Post("/orgs/:org_id/domains/:domain/verify", h.verifyDomain)
}

type domainReq struct {
	Domain string `json:"domain"`
}

func (h Handlers) addDomain(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req domainReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.sso.AddDomain(c.UserContext(), api.Principal(c), orgID, req.Domain)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, out)
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
