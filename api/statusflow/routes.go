// Package statusflow serves ticket-status workflows (the /workflows routes):
// their statuses, transitions and enforcement.
package statusflow

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

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
	r.Post("/orgs/:org_id/workflows", api.WithBody("org_id", "organization", fiber.StatusCreated, h.create))
	r.Get("/orgs/:org_id/workflows", api.ListUnder("org_id", "organization", h.flows.List))
	r.Get("/workflows/:id", api.ByID("workflow", h.flows.Get))
	r.Patch("/workflows/:id", api.IfMatch, api.WithBody("id", "workflow", fiber.StatusOK, h.update))
	r.Delete("/workflows/:id", api.IfMatch, api.DeleteByID("workflow", h.flows.Delete))
}

type createReq struct {
	Name        string                  `json:"name" validate:"required"`
	Statuses    []statusflow.Status     `json:"statuses" validate:"required"`
	Transitions []statusflow.Transition `json:"transitions" validate:"required"`
	Enforcement string                  `json:"enforcement"`
}

func (h Handlers) create(ctx context.Context, p domain.Principal, orgID uuid.UUID, req createReq) (statusflow.Workflow, error) {
	return h.flows.Create(ctx, p, orgID, statusflow.CreateInput{
		Name: req.Name, Statuses: req.Statuses, Transitions: req.Transitions, Enforcement: req.Enforcement})
}

type patchReq struct {
	Name        domain.Opt[string]                  `json:"name"`
	Statuses    domain.Opt[[]statusflow.Status]     `json:"statuses"`
	Transitions domain.Opt[[]statusflow.Transition] `json:"transitions"`
	Enforcement domain.Opt[string]                  `json:"enforcement"`
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req patchReq) (statusflow.Workflow, error) {
	return h.flows.Update(ctx, p, id, statusflow.PatchInput{
		Name: req.Name, Statuses: req.Statuses, Transitions: req.Transitions, Enforcement: req.Enforcement})
}
