// Package comments serves ticket comments.
package comments

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
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
	r.Post("/tickets/:ticket_id/comments", api.WithBody("ticket_id", "ticket", fiber.StatusCreated, h.create))
	r.Get("/tickets/:ticket_id/comments", api.ListUnder("ticket_id", "ticket", h.comments.List))
	r.Get("/comments/:id", api.ByID("comment", h.comments.Get))
	r.Patch("/comments/:id", api.IfMatch, api.WithPatch("comment", h.update))
	r.Delete("/comments/:id", api.IfMatch, h.delete)
}

// createReq and updateReq take the body a create and a PATCH require
// beside the comment's own values (comment.Content), which decode under
// their json keys as they render. createReq ignores the deprecated
// author_id: the author is the caller.
type createReq struct {
	Body string `json:"body" validate:"required,min=1"`
	comment.Content
	ParentCommentID *uuid.UUID `json:"parent_comment_id"`
}

type updateReq struct {
	Body string `json:"body" validate:"required,min=1"`
	comment.Content
}

func (h Handlers) create(ctx context.Context, p domain.Principal, ticketID uuid.UUID, req createReq) (comment.Comment, error) {
	req.Content.Body = req.Body
	return h.comments.Create(ctx, p, ticketID, req.Content, req.ParentCommentID)
}

func (h Handlers) update(ctx context.Context, p domain.Principal, id uuid.UUID, req updateReq, body []byte) (comment.Comment, error) {
	req.Content.Body = req.Body
	return h.comments.Update(ctx, p, id, domain.PatchOf(body, req.Content))
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
