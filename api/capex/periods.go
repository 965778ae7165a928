package capex

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/capex"
)

// periodRoutes registers period close, reopen, list and the org's opt-in
// to the automatic close.
func (h Handlers) periodRoutes(r api.Router) {
	r.Get("/orgs/:org_id/periods", h.listPeriods)
	r.Put("/orgs/:org_id/periods/settings", h.periodSettings)
	r.Post("/orgs/:org_id/periods/:period/close", h.closePeriod)
	r.Post("/orgs/:org_id/periods/:period/reopen", h.reopenPeriod)
	r.Post("/orgs/:org_id/periods/:period/close/approve", h.approveClose)
	r.Post("/orgs/:org_id/periods/:period/close/reject", h.rejectClose)
}

func (h Handlers) approveClose(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.reports.Approve(c.UserContext(), api.Principal(c), orgID, c.Params("period"))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) rejectClose(c *fiber.Ctx) error { return h.lift(c, h.reports.Reject) }

func (h Handlers) listPeriods(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.reports.ListPeriods(c.UserContext(), api.Principal(c), orgID, c.Query("from"), c.Query("to"))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) closePeriod(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.reports.Close(c.UserContext(), api.Principal(c), orgID, c.Params("period"))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, out)
}

type reopenReq struct {
	Reason string `json:"reason"`
}

func (h Handlers) reopenPeriod(c *fiber.Ctx) error { return h.lift(c, h.reports.Reopen) }

// lift answers a reopen or a rejection: both lift the month's close with
// the reason of the body.
func (h Handlers) lift(c *fiber.Ctx, by func(context.Context, domain.Principal, uuid.UUID, string, string) (capex.CloseInfo, error)) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req reopenReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := by(c.UserContext(), api.Principal(c), orgID, c.Params("period"), req.Reason)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) periodSettings(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req capex.PeriodSettings
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	p := api.Principal(c)
	if err := h.reports.SetPeriodSettings(c.UserContext(), p, orgID, req); err != nil {
		return err
	}
	out, err := h.reports.ListPeriods(c.UserContext(), p, orgID, "", "")
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, fiber.Map{"org_id": out.OrgID, "auto_close": out.AutoClose,
		"require_second_approver": out.RequireSecondApprover})
}
