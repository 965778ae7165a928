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
	r.Patch("/labels/:id", api.IfMatch, api.WithPatch("label", h.update))
	r.Delete("/labels/:id", api.IfMatch, api.CascadeDelete("label", h.labels.Delete))
	r.Post("/labels/:id/batch-assign", api.BatchAssign("label", h.labels.BatchAssign))
	r.Post("/tickets/:ticket_id/labels", api.WithBody("ticket_id", "ticket", fiber.StatusOK, h.replaceTicketLabels))
	r.Get("/tickets/:ticket_id/labels", h.ticketLabels)
	r.Post("/tickets/:ticket_id/labels/:label_id", h.addTicketLabel)
	r.Delete("/tickets/:ticket_id/labels/:label_id", h.removeTicketLabel)
}

// createReq takes the keys a create requires beside the label's own values
// (label.Content), which decode under their json keys as they render.
type createReq struct {
	Name  string `json:"name" validate:"required,min=1"`
	Color string `json:"color" validate:"required,min=4,max=7"`
	label.Content
}

func (h Handlers) create(ctx context.Context, p domain.Principal, orgID uuid.UUID, req createReq) (label.Label, error) {
	req.Content.Name, req.Content.Color = req.Name, req.Color
	return h.labels.Create(ctx, p, orgID, req.Content)
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req label.Content, body []byte) (label.Label, error) {
	return h.labels.Update(ctx, p, id, domain.PatchOf(body, req))
}
