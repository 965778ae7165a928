package tickets

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain/ticket"
)

func (h Handlers) create(c *fiber.Ctx) error {
	projectID, err := api.PathID(c, "project_id", "project")
	if err != nil {
		return err
	}
	var req createReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	in, err := req.toDomain()
	if err != nil {
		return err
	}
	t, err := h.tickets.Create(c.UserContext(), api.Principal(c), projectID, in)
	if err != nil {
		return err
	}
	return sendTicket(c, fiber.StatusCreated, t)
}

func (h Handlers) get(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	t, err := h.tickets.Get(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return sendTicket(c, fiber.StatusOK, t)
}

func (h Handlers) list(c *fiber.Ctx) error {
	projectID, err := api.PathID(c, "project_id", "project")
	if err != nil {
		return err
	}
	if c.Query("q") != "" || c.Query("count") != "" {
		return h.searchProject(c, projectID)
	}
	page, err := api.PageParams(c, 20)
	if err != nil {
		return err
	}
	assignee, err := api.QueryID(c, "assignee_id")
	if err != nil {
		return err
	}
	f := ticket.Filter{Status: c.Query("status"), Priority: c.Query("priority"), AssigneeID: assignee}
	ts, err := h.tickets.List(c.UserContext(), api.Principal(c), projectID, f, page)
	if err != nil {
		return err
	}
	return sendPage(c, ts)
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "ticket")
	if err != nil {
		return err
	}
	var req patchReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	pt, err := req.toDomain(c.Body())
	if err != nil {
		return err
	}
	res, err := h.tickets.Update(c.UserContext(), api.Principal(c), id, pt)
	if err != nil {
		return err
	}
	return render(c, res)
}

func (h Handlers) resolve(c *fiber.Ctx) error {
	projectID, err := api.QueryID(c, "project_id")
	if err != nil {
		return err
	}
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	res, err := h.tickets.Resolve(c.UserContext(), api.Principal(c), c.Query("ref"), projectID, orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, res)
}

func (h Handlers) activity(c *fiber.Ctx) error {
	id, err := api.PathID(c, "ticket_id", "ticket")
	if err != nil {
		return err
	}
	page, err := api.PageParams(c, 20)
	if err != nil {
		return err
	}
	items, err := h.tickets.Activity(c.UserContext(), api.Principal(c), id, page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(items))
}
