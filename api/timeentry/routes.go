// Package timeentry serves time entries and their Draft → Submitted →
// Approved moves.
package timeentry

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
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
	r.Post("/time-entries/:id/reject", api.WithBody("id", "time entry", fiber.StatusOK, h.reject))
	r.Get("/tickets/:ticket_id/time-entries", h.listByTicket)
	r.Get("/users/:user_id/time-entries", h.listByUser)
}

// createReq and patchReq embed the entry's own values (timeentry.Content),
// which decode under their json keys as they render. The fields beside them
// take the keys the create requires, and the date as text: a malformed date
// is the check's problem, not the decoder's.
type createReq struct {
	UserID          uuid.UUID `json:"user_id" validate:"required"`
	TicketID        uuid.UUID `json:"ticket_id" validate:"required"`
	ProjectID       uuid.UUID `json:"project_id" validate:"required"`
	Date            string    `json:"date" validate:"required"`
	DurationMinutes *int      `json:"duration_minutes" validate:"required"`
	ActivityType    string    `json:"activity_type" validate:"required"`
	timeentry.Content
}

func (h Handlers) create(c *fiber.Ctx) error {
	var req createReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	in := timeentry.CreateInput{UserID: req.UserID, TicketID: req.TicketID, ProjectID: req.ProjectID, Content: req.Content, Date: req.Date}
	in.DurationMinutes, in.ActivityType = *req.DurationMinutes, req.ActivityType
	e, err := h.entries.Create(c.UserContext(), api.Principal(c), in)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, e)
}

type patchReq struct {
	timeentry.Content
	Date domain.Opt[string] `json:"date"`
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "time entry")
	if err != nil {
		return err
	}
	var req patchReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	in := timeentry.Patch{Content: domain.PatchOf(c.Body(), req.Content), Date: req.Date.Value}
	e, err := h.entries.Update(c.UserContext(), api.Principal(c), id, in)
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

type rejectReq struct {
	Reason string `json:"reason" validate:"required"`
}

func (h Handlers) reject(ctx context.Context, p domain.Principal, id uuid.UUID, req rejectReq) (timeentry.Entry, error) {
	return h.entries.Reject(ctx, p, id, req.Reason)
}
