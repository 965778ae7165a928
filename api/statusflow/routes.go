// Package statusflow serves ticket-status workflows (the /workflows routes):
// their statuses, transitions and enforcement.
package statusflow

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/statusflow"
)

// Handlers serve the workflow routes.
type Handlers struct {
	flows *statusflow.Service
}

// New builds the handlers with every dependency they need.
func New(flows *statusflow.Service) Handlers {
	return Handlers{flows: flows}
}

// Routes registers the workflow routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/orgs/:org_id/workflows", h.create)
	r.Get("/orgs/:org_id/workflows", api.ListUnder("org_id", "organization", h.flows.List))
	r.Get("/workflows/:id", api.ByID("workflow", h.flows.Get))
	r.Patch("/workflows/:id", api.IfMatch, h.update)
	r.Delete("/workflows/:id", api.IfMatch, api.DeleteByID("workflow", h.flows.Delete))
}

type createReq struct {
	Name        string                  `json:"name" validate:"required"`
	Statuses    []statusflow.Status     `json:"statuses" validate:"required"`
	Transitions []statusflow.Transition `json:"transitions" validate:"required"`
	Enforcement string                  `json:"enforcement"`
}

func (h Handlers) create(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req createReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	w, err := h.flows.Create(c.UserContext(), api.Principal(c), orgID, statusflow.CreateInput{
		Name: req.Name, Statuses: req.Statuses, Transitions: req.Transitions, Enforcement: req.Enforcement})
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, w)
}

type patchReq struct {
	Name        domain.Opt[string]                  `json:"name"`
	Statuses    domain.Opt[[]statusflow.Status]     `json:"statuses"`
	Transitions domain.Opt[[]statusflow.Transition] `json:"transitions"`
	Enforcement domain.Opt[string]                  `json:"enforcement"`
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "workflow")
	if err != nil {
		return err
	}
	var req patchReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	w, err := h.flows.Update(c.UserContext(), api.Principal(c), id, statusflow.PatchInput{
		Name: req.Name, Statuses: req.Statuses, Transitions: req.Transitions, Enforcement: req.Enforcement})
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, w)
}
