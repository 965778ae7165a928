// Package labels serves labels and their links to tickets.
package labels

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/label"
)

// Handlers serve the label routes.
type Handlers struct {
	labels *label.Service
}

// New builds the handlers with every dependency they need.
func New(labels *label.Service) Handlers {
	return Handlers{labels: labels}
}

// Routes registers the label routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/orgs/:org_id/labels", h.create)
	r.Get("/orgs/:org_id/labels", api.ListUnder("org_id", "organization", h.labels.List))
	r.Get("/labels/:id", api.ByID("label", h.labels.Get))
	r.Patch("/labels/:id", api.IfMatch, h.update)
	r.Delete("/labels/:id", api.IfMatch, api.CascadeDelete("label", h.labels.Delete))
	r.Post("/labels/:id/batch-assign", api.BatchAssign("label", h.labels.BatchAssign))
	r.Post("/tickets/:ticket_id/labels", h.replaceTicketLabels)
	r.Get("/tickets/:ticket_id/labels", h.ticketLabels)
	r.Post("/tickets/:ticket_id/labels/:label_id", h.addTicketLabel)
	r.Delete("/tickets/:ticket_id/labels/:label_id", h.removeTicketLabel)
}

type createReq struct {
	Name  string `json:"name" validate:"required,min=1"`
	Color string `json:"color" validate:"required,min=4,max=7"`
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
	out, err := h.labels.Create(c.UserContext(), api.Principal(c), orgID, req.Name, req.Color)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, out)
}

type updateReq struct {
	Name  domain.Opt[string] `json:"name"`
	Color domain.Opt[string] `json:"color"`
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "label")
	if err != nil {
		return err
	}
	var req updateReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.labels.Update(c.UserContext(), api.Principal(c), id, label.Patch{Name: req.Name, Color: req.Color})
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}
