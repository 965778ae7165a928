// Package labels serves labels and their links to tickets.
package labels

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

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
	r.Post("/orgs/:org_id/labels", api.WithBody("org_id", "organization", fiber.StatusCreated, h.create))
	r.Get("/orgs/:org_id/labels", api.ListUnder("org_id", "organization", h.labels.List))
	r.Get("/labels/:id", api.ByID("label", h.labels.Get))
	r.Patch("/labels/:id", api.IfMatch, api.WithBody("id", "label", fiber.StatusOK, h.update))
	r.Delete("/labels/:id", api.IfMatch, api.CascadeDelete("label", h.labels.Delete))
	r.Post("/labels/:id/batch-assign", api.BatchAssign("label", h.labels.BatchAssign))
	r.Post("/tickets/:ticket_id/labels", api.WithBody("ticket_id", "ticket", fiber.StatusOK, h.replaceTicketLabels))
	r.Get("/tickets/:ticket_id/labels", h.ticketLabels)
	r.Post("/tickets/:ticket_id/labels/:label_id", h.addTicketLabel)
	r.Delete("/tickets/:ticket_id/labels/:label_id", h.removeTicketLabel)
}

type createReq struct {
	Name  string `json:"name" validate:"required,min=1"`
	Color string `json:"color" validate:"required,min=4,max=7"`
}

func (h Handlers) create(ctx context.Context, p domain.Principal, orgID uuid.UUID, req createReq) (label.Label, error) {
	return h.labels.Create(ctx, p, orgID, req.Name, req.Color)
}

type updateReq struct {
	Name  domain.Opt[string] `json:"name"`
	Color domain.Opt[string] `json:"color"`
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req updateReq) (label.Label, error) {
	return h.labels.Update(ctx, p, id, label.Patch{Name: req.Name, Color: req.Color})
}
