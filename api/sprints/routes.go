// Package sprints serves sprints, their lifecycle, board and burndown.
package sprints

import (
	"context"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/sprint"
)

// Handlers serve the sprint routes.
type Handlers struct {
	sprints *sprint.Service
}

// New builds the handlers with every dependency they need.
func New(sprints *sprint.Service) Handlers {
	return Handlers{sprints: sprints}
}

// Routes registers the sprint routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/projects/:project_id/sprints", api.WithBody("project_id", "project", fiber.StatusCreated, h.create))
	r.Get("/projects/:project_id/sprints", api.ListUnder("project_id", "project", h.sprints.List))
	r.Get("/sprints/:id", api.ByID("sprint", h.sprints.Get))
	r.Patch("/sprints/:id", api.IfMatch, api.WithPatch("sprint", h.update))
	r.Delete("/sprints/:id", api.IfMatch, api.CascadeDelete("sprint", h.sprints.Delete))
	r.Post("/sprints/:id/start", api.ByID("sprint", h.sprints.Start))
	r.Post("/sprints/:id/complete", api.ByID("sprint", h.sprints.Complete))
	r.Post("/sprints/:id/batch-assign", api.BatchAssign("sprint", h.sprints.BatchAssign))
	r.Get("/sprints/:id/board", h.board)
	r.Get("/sprints/:id/burndown", api.ByID("sprint", h.sprints.Burndown))
	r.Get("/sprints/:id/burndown.svg", h.burndownSVG)
	r.Get("/projects/:project_id/velocity", h.velocity)
}

// velocity serves a project's last completed sprints (?sprints=, default 6).
func (h Handlers) velocity(c *fiber.Ctx) error {
	id, err := api.PathID(c, "project_id", "project")
	if err != nil {
		return err
	}
	n := sprint.DefaultVelocitySprints
	if v := c.Query("sprints"); v != "" {
		if n, err = strconv.Atoi(v); err != nil || n < 1 || n > sprint.MaxVelocitySprints {
			return domain.Invalid("sprints: must be an integer between 1 and 24")
		}
	}
	out, err := h.sprints.Velocity(c.UserContext(), api.Principal(c), id, n)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

// createReq and patchReq embed the sprint's own values (sprint.Content),
// which decode under their json keys as they render. The fields beside them
// take the keys the create requires, and the dates as text: a malformed
// date is the check's problem, not the decoder's.
type createReq struct {
	Name      string `json:"name" validate:"required,min=1"`
	StartDate string `json:"start_date" validate:"required"`
	EndDate   string `json:"end_date" validate:"required"`
	sprint.Content
}

func (h Handlers) create(ctx context.Context, p domain.Principal, projectID uuid.UUID, req createReq) (sprint.Sprint, error) {
	req.Content.Name = req.Name
	return h.sprints.Create(ctx, p, projectID, req.Content, sprint.Dates{Start: req.StartDate, End: req.EndDate})
}

type patchReq struct {
	sprint.Content
	StartDate domain.Opt[string] `json:"start_date"`
	EndDate   domain.Opt[string] `json:"end_date"`
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req patchReq, body []byte) (sprint.Sprint, error) {
	return h.sprints.Update(ctx, p, id,
		sprint.Patch{Content: domain.PatchOf(body, req.Content), Dates: sprint.Dates{Start: req.StartDate.Value, End: req.EndDate.Value}})
}

// board is the sprint board, narrowed by the search query q when given.
func (h Handlers) board(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "sprint")
	if err != nil {
		return err
	}
	b, err := h.sprints.BoardQ(c.UserContext(), api.Principal(c), id, c.Query("q"))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, b)
}
