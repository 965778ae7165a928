// Package timeentry serves time entries and their Draft → Submitted →
// Approved moves.
package timeentry

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain/timeentry"
)

// Handlers serve the time entry routes.
type Handlers struct {
	entries *timeentry.Service
}

// New builds the handlers with every dependency they need.
func New(entries *timeentry.Service) Handlers {
	return Handlers{entries: entries}
}

// Routes registers the time entry routes. The submitted queue comes before
// /time-entries/:id so that "submitted" is not read as an id.
func (h Handlers) Routes(r api.Router) {
	r.Get("/time-entries/submitted", h.submitted)
	r.Post("/time-entries", h.create)
	r.Get("/time-entries/:id", api.ByID("time entry", h.entries.Get))
	r.Patch("/time-entries/:id", api.IfMatch, h.update)
	r.Delete("/time-entries/:id", api.IfMatch, h.delete)
	r.Post("/time-entries/:id/submit", api.ByID("time entry", h.entries.Submit))
	r.Post("/time-entries/:id/approve", api.ByID("time entry", h.entries.Approve))
	r.Get("/tickets/:ticket_id/time-entries", h.listByTicket)
	r.Get("/users/:user_id/time-entries", h.listByUser)
}

type createReq struct {
	UserID          uuid.UUID `json:"user_id" validate:"required"`
	TicketID        uuid.UUID `json:"ticket_id" validate:"required"`
	ProjectID       uuid.UUID `json:"project_id" validate:"required"`
	Date            string    `json:"date" validate:"required"`
	DurationMinutes *int      `json:"duration_minutes" validate:"required"`
	Description     *string   `json:"description"`
	ActivityType    string    `json:"activity_type" validate:"required"`
}

func (h Handlers) create(c *fiber.Ctx) error {
	var req createReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	e, err := h.entries.Create(c.UserContext(), api.Principal(c), timeentry.CreateInput{
		UserID: req.UserID, TicketID: req.TicketID, ProjectID: req.ProjectID, Date: req.Date,
		DurationMinutes: *req.DurationMinutes, Description: req.Description, ActivityType: req.ActivityType,
	})
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, e)
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "time entry")
	if err != nil {
		return err
	}
	var req timeentry.Patch
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	e, err := h.entries.Update(c.UserContext(), api.Principal(c), id, req)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, e)
}

func (h Handlers) delete(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "time entry")
	if err != nil {
		return err
	}
	if err := h.entries.Delete(c.UserContext(), api.Principal(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
