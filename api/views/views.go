// Package views serves saved views: named ticket queries of an org, private
// or shared, and running them.
package views

import (
	"github.com/gofiber/fiber/v2"

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
	r.Post("/orgs/:org_id/views", h.create)
	r.Get("/orgs/:org_id/views", api.ListUnder("org_id", "organization", h.views.List))
	r.Get("/views/:id", api.ByID("view", h.views.Get))
	r.Patch("/views/:id", h.update)
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

func (h Handlers) create(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var req viewReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	v, err := h.views.Create(c.UserContext(), api.Principal(c), orgID, req.input())
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, v)
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "view")
	if err != nil {
		return err
	}
	var req viewReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	v, err := h.views.Update(c.UserContext(), api.Principal(c), id, req.input())
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, v)
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
