package timeentry

import (
	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain/timeentry"
)

// listFilter reads the spec's list query parameters; withUser also reads
// user_id (the ticket list filters by it, the user list has it in the path).
func listFilter(c *fiber.Ctx, withUser bool) (timeentry.ListFilter, error) {
	var f timeentry.ListFilter
	var err error
	if withUser {
		if f.UserID, err = api.QueryID(c, "user_id"); err != nil {
			return f, err
		}
	}
	if f.ProjectID, err = api.QueryID(c, "project_id"); err != nil {
		return f, err
	}
	f.Date = c.Query("date")
	return f, nil
}

func (h Handlers) listByTicket(c *fiber.Ctx) error {
	ticketID, err := api.PathID(c, "ticket_id", "ticket")
	if err != nil {
		return err
	}
	f, err := listFilter(c, true)
	if err != nil {
		return err
	}
	page, err := api.PageParams(c, 20)
	if err != nil {
		return err
	}
	entries, err := h.entries.ListByTicket(c.UserContext(), api.Principal(c), ticketID, f, page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(entries))
}

// listByUser lists a user's entries in the org of query org_id (default:
// the caller's session org).
func (h Handlers) listByUser(c *fiber.Ctx) error {
	userID, err := api.PathID(c, "user_id", "user")
	if err != nil {
		return err
	}
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	f, err := listFilter(c, false)
	if err != nil {
		return err
	}
	page, err := api.PageParams(c, 20)
	if err != nil {
		return err
	}
	entries, err := h.entries.ListByUser(c.UserContext(), api.Principal(c), userID, orgID, f, page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(entries))
}

// submitted is the approval queue of query org_id (default: the session org).
func (h Handlers) submitted(c *fiber.Ctx) error {
	orgID, err := api.QueryID(c, "org_id")
	if err != nil {
		return err
	}
	entries, err := h.entries.ListSubmitted(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []timeentry.Entry{}
	}
	return api.Send(c, fiber.StatusOK, entries)
}
