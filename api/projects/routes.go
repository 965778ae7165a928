// Package projects serves projects and their member assignments.
package projects

import (
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/project"
)

// Handlers serve the project routes.
type Handlers struct {
	projects *project.Service
}

// New builds the handlers with every dependency they need.
func New(projects *project.Service) Handlers {
	return Handlers{projects: projects}
}

// Routes registers the project routes. The key lookup comes before the
// {id} routes so that /projects/key/... is never read as an id.
func (h Handlers) Routes(r api.Router) {
	r.Post("/projects", h.create)
	r.Get("/projects", h.list)
	r.Get("/projects/key/:key", h.byKey)
	r.Get("/projects/:id", api.ByID("project", h.projects.Get))
	r.Patch("/projects/:id", api.IfMatch, h.update)
	r.Delete("/projects/:id", api.IfMatch, api.CascadeDelete("project", h.projects.Delete))
	r.Post("/projects/:project_id/members", h.addMember)
	r.Get("/projects/:project_id/members", h.listMembers)
	r.Delete("/projects/:project_id/members/:user_id", h.removeMember)
}

func (h Handlers) create(c *fiber.Ctx) error {
	var req createReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	in, err := req.input()
	if err != nil {
		return err
	}
	pr, err := h.projects.Create(c.UserContext(), api.Principal(c), in)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, pr)
}

func (h Handlers) list(c *fiber.Ctx) error {
	orgID, err := api.RequiredQueryID(c, "org_id")
	if err != nil {
		return err
	}
	page, err := api.PageParams(c, domain.DefaultPageLimit)
	if err != nil {
		return err
	}
	out, err := h.projects.List(c.UserContext(), api.Principal(c), orgID, page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(out))
}

func (h Handlers) byKey(c *fiber.Ctx) error {
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	key, err := url.PathUnescape(c.Params("key"))
	if err != nil {
		return domain.NotFound("project")
	}
	pr, err := h.projects.ByKey(c.UserContext(), api.Principal(c), orgID, key)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, pr)
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "project")
	if err != nil {
		return err
	}
	var req patchReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	in, err := req.input(c.Body())
	if err != nil {
		return err
	}
	pr, err := h.projects.Update(c.UserContext(), api.Principal(c), id, in)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, pr)
}

type addMemberReq struct {
	UserID string `json:"user_id" validate:"required"`
}

func (h Handlers) addMember(c *fiber.Ctx) error {
	projectID, err := api.PathID(c, "project_id", "project")
	if err != nil {
		return err
	}
	var req addMemberReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	userID, err := uuid.Parse(req.UserID)
	if err != nil {
		return domain.Invalid("user_id: must be a UUID")
	}
	m, err := h.projects.AddMember(c.UserContext(), api.Principal(c), projectID, userID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, m)
}

func (h Handlers) listMembers(c *fiber.Ctx) error {
	projectID, err := api.PathID(c, "project_id", "project")
	if err != nil {
		return err
	}
	ms, err := h.projects.ListMembers(c.UserContext(), api.Principal(c), projectID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, ms)
}

func (h Handlers) removeMember(c *fiber.Ctx) error {
	projectID, err := api.PathID(c, "project_id", "project")
	if err != nil {
		return err
	}
	userID, err := api.PathID(c, "user_id", "project member")
	if err != nil {
		return err
	}
	if err := h.projects.RemoveMember(c.UserContext(), api.Principal(c), projectID, userID); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
