// Package customfield serves an org's custom field definitions.
package customfield

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/customfield"
)

// Handlers serve the custom field routes.
type Handlers struct {
	fields *customfield.Service
}

// New builds the custom field routes on the service.
func New(fields *customfield.Service) Handlers { return Handlers{fields: fields} }

// Routes registers the custom field routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/orgs/:org_id/fields", api.WithBody("org_id", "organization", fiber.StatusCreated, h.create))
	r.Get("/orgs/:org_id/fields", api.ListUnder("org_id", "organization", h.fields.List))
	r.Get("/fields/:id", api.ByID("custom field", h.fields.Get))
	r.Patch("/fields/:id", api.WithBody("id", "custom field", fiber.StatusOK, h.update))
	r.Delete("/fields/:id", api.DeleteByID("custom field", h.fields.Delete))
}

// fieldReq is a definition's body; absent, null and value are told apart
// (PATCH). Fields are checked by the domain after authorization.
type fieldReq struct {
	Name       domain.Opt[string]                 `json:"name"`
	Key        domain.Opt[string]                 `json:"key"`
	Type       domain.Opt[string]                 `json:"type"`
	Options    domain.Opt[[]customfield.OptionIn] `json:"options"`
	ProjectIDs domain.Opt[[]uuid.UUID]            `json:"project_ids"`
	Required   domain.Opt[bool]                   `json:"required"`
}

func (r fieldReq) input() customfield.Input {
	return customfield.Input{Name: r.Name, Key: r.Key, Type: r.Type, Options: r.Options, ProjectIDs: r.ProjectIDs, Required: r.Required}
}

func (h Handlers) create(ctx context.Context, p domain.Principal, orgID uuid.UUID, req fieldReq) (customfield.Field, error) {
	return h.fields.Create(ctx, p, orgID, req.input())
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req fieldReq) (customfield.Field, error) {
	return h.fields.Update(ctx, p, id, req.input())
}
