// Package views serves saved views: named ticket queries of an org, private
// or shared, and running them.
package views

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/tickets"
	"tracker/domain"
	"tracker/domain/view"
)

// Handlers serve the view routes.
type Handlers struct {
	views *view.Service
}

// New builds the view routes on the view service.
func New(views *view.Service) Handlers { return Handlers{views: views} }

// Routes registers the view routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/orgs/:org_id/views", api.WithBody("org_id", "organization", fiber.StatusCreated, h.create))
	r.Get("/orgs/:org_id/views", api.ListUnder("org_id", "organization", h.views.List))
	r.Get("/views/:id", api.ByID("view", h.views.Get))
	r.Patch("/views/:id", api.WithBody("id", "view", fiber.StatusOK, h.update))
	r.Delete("/views/:id", h.delete)
	r.Get("/views/:id/tickets", h.tickets)
}

// viewReq is a view's body; absent, null and value are told apart (PATCH).
// Fields are checked by the domain after authorization.
type viewReq struct {
	Name       domain.Opt[string]   `json:"name"`
	Q          domain.Opt[string]   `json:"q"`
	Sort       domain.Opt[string]   `json:"sort"`
	Columns    domain.Opt[[]string] `json:"columns"`
	Visibility domain.Opt[string]   `json:"visibility"`
}

func (r viewReq) input() view.Input {
	return view.Input{Name: r.Name, Q: r.Q, Sort: r.Sort, Columns: r.Columns, Visibility: r.Visibility}
}

func (h Handlers) create(ctx context.Context, p domain.Principal, orgID uuid.UUID, req viewReq) (view.View, error) {
	return h.views.Create(ctx, p, orgID, req.input())
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req viewReq) (view.View, error) {
	return h.views.Update(ctx, p, id, req.input())
}

func (h Handlers) delete(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "view")
	if err != nil {
		return err
	}
	if err := h.views.Delete(c.UserContext(), api.Principal(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) tickets(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "view")
	if err != nil {
		return err
	}
	r, err := tickets.SearchRequest(c)
	if err != nil {
		return err
	}
	_, res, err := h.views.Tickets(c.UserContext(), api.Principal(c), id, r)
	if err != nil {
		return err
	}
	return tickets.SendResult(c, res)
}
