package capex

import (
	"bytes"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/capex"
)

// policyRoutes registers the org's dated capitalization policies.
func (h Handlers) policyRoutes(r api.Router) {
	r.Get("/orgs/:org_id/capitalization/policies", h.listPolicies)
	r.Post("/orgs/:org_id/capitalization/policies", h.createPolicy)
	r.Get("/orgs/:org_id/capitalization/policies/:id/preview", h.previewPolicy)
	r.Put("/tickets/:id/capitalization", h.setOverride)
	r.Delete("/tickets/:id/capitalization", h.deleteOverride)
}

func (h Handlers) setOverride(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	var req capex.OverrideInput
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.reports.SetOverride(c.UserContext(), api.Principal(c), id, req)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) deleteOverride(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	if err := h.reports.DeleteOverride(c.UserContext(), api.Principal(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) previewPolicy(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	id, err := api.PathID(c, "id", "capitalization policy")
	if err != nil {
		return err
	}
	out, err := h.reports.PreviewPolicy(c.UserContext(), api.Principal(c), orgID, id, c.Query("period"))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) listPolicies(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.reports.ListPolicies(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, fiber.Map{"items": out})
}

func (h Handlers) createPolicy(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req capex.PolicyInput
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.reports.CreatePolicy(c.UserContext(), api.Principal(c), orgID, req)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, out)
}

// people serves the per-person capitalization of a period as JSON, CSV or
// XLSX.
func (h Handlers) people(c *fiber.Ctx) error {
	format := c.Query("format")
	if format != "" && format != "csv" && format != "json" && format != "xlsx" {
		return domain.Invalid("format: must be json, csv or xlsx")
	}
	q, err := query(c, false)
	if err != nil {
		return err
	}
	rep, err := h.reports.People(c.UserContext(), api.Principal(c), q)
	if err != nil {
		return err
	}
	switch format {
	case "csv":
		data, err := capex.WritePeopleCSV(rep)
		if err != nil {
			return err
		}
		return sendCSV(c, "capitalization-people-"+rep.Period+".csv", data)
	case "xlsx":
		var buf bytes.Buffer
		if err := capex.WritePeopleXLSX(&buf, rep); err != nil {
			return err
		}
		return sendXLSX(c, "capitalization-people-"+rep.Period+".xlsx", buf.Bytes())
	}
	return api.Send(c, fiber.StatusOK, rep)
}
