// Package comments serves ticket comments.
package comments

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain/comment"
)

// Handlers serve the comment routes.
type Handlers struct {
	comments *comment.Service
}

// New builds the handlers with every dependency they need.
func New(comments *comment.Service) Handlers {
	return Handlers{comments: comments}
}

// Routes registers the comment routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/tickets/:ticket_id/comments", h.create)
	r.Get("/tickets/:ticket_id/comments", api.ListUnder("ticket_id", "ticket", h.comments.List))
	r.Get("/comments/:id", api.ByID("comment", h.comments.Get))
	r.Patch("/comments/:id", api.IfMatch, h.update)
	r.Delete("/comments/:id", api.IfMatch, h.delete)
}

// createReq ignores the deprecated author_id: the author is the caller.
type createReq struct {
	Body            string     `json:"body" validate:"required,min=1"`
	ParentCommentID *uuid.UUID `json:"parent_comment_id"`
}

func (h Handlers) create(c *fiber.Ctx) error {
	ticketID, err := api.PathID(c, "ticket_id", "ticket")
	if err != nil {
		return err
	}
	var req createReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.comments.Create(c.UserContext(), api.Principal(c), ticketID, req.Body, req.ParentCommentID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, out)
}

type updateReq struct {
	Body string `json:"body" validate:"required,min=1"`
}

func (h Handlers) update(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "comment")
	if err != nil {
		return err
	}
	var req updateReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	out, err := h.comments.Update(c.UserContext(), api.Principal(c), id, req.Body)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) delete(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "comment")
	if err != nil {
		return err
	}
	if err := h.comments.Delete(c.UserContext(), api.Principal(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
