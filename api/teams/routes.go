// Package teams serves teams and their members.
package teams

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/team"
)

// Handlers serve the team routes.
type Handlers struct {
	teams *team.Service
}

// New builds the handlers with every dependency they need.
func New(teams *team.Service) Handlers {
	return Handlers{teams: teams}
}

// Routes registers the team routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/orgs/:org_id/teams", api.WithBody("org_id", "organization", fiber.StatusCreated, h.create))
	r.Get("/orgs/:org_id/teams", api.ListUnder("org_id", "organization", h.teams.List))
	r.Get("/teams/:id", api.ByID("team", h.teams.Get))
	r.Patch("/teams/:id", api.WithBody("id", "team", fiber.StatusOK, h.update))
	r.Delete("/teams/:id", api.CascadeDelete("team", h.teams.Delete))
	r.Get("/teams/:id/members", api.ListUnder("id", "team", h.teams.Members))
	r.Put("/teams/:id/members/:user_id", h.addMember)
	r.Delete("/teams/:id/members/:user_id", h.removeMember)
}

type createReq struct {
	Name string `json:"name" validate:"required,min=1,max=255"`
}

func (h Handlers) create(ctx context.Context, p domain.Principal, orgID uuid.UUID, req createReq) (team.Team, error) {
	return h.teams.Create(ctx, p, orgID, req.Name)
}

type updateReq struct {
	Name domain.Opt[string] `json:"name"`
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req updateReq) (team.Team, error) {
	return h.teams.Rename(ctx, p, id, req.Name)
}

// addMember answers 201 when the user joined the team, 200 when already in it.
func (h Handlers) addMember(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "team")
	if err != nil {
		return err
	}
	userID, err := api.PathID(c, "user_id", "user")
	if err != nil {
		return err
	}
	created, err := h.teams.AddMember(c.UserContext(), api.Principal(c), id, userID)
	if err != nil {
		return err
	}
	status := fiber.StatusOK
	if created {
		status = fiber.StatusCreated
	}
	return api.Send(c, status, fiber.Map{"team_id": id, "user_id": userID})
}

func (h Handlers) removeMember(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "team")
	if err != nil {
		return err
	}
	userID, err := api.PathID(c, "user_id", "user")
	if err != nil {
		return err
	}
	if err := h.teams.RemoveMember(c.UserContext(), api.Principal(c), id, userID); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
