package api

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/domain"
)

// ByID serves a …/:id route whose use case takes only the id (a read, or an
// action such as start or submit) and renders its result; a non-UUID id or
// a resource the caller cannot see is a 404 naming what.
func ByID[T any](what string, get func(context.Context, domain.Principal, uuid.UUID) (T, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := PathID(c, "id", what)
		if err != nil {
			return err
		}
		out, err := get(c.UserContext(), Principal(c), id)
		if err != nil {
			return err
		}
		return Send(c, fiber.StatusOK, out)
	}
}

// ListUnder serves a paginated list of the resource named by the path
// parameter param (an org, project or ticket).
func ListUnder[T any](param, what string, list func(context.Context, domain.Principal, uuid.UUID, domain.Page) (domain.Paged[T], error)) fiber.Handler {
	return ListUnderLimit(param, what, domain.DefaultPageLimit, list)
}

// ListUnderLimit is ListUnder with its own default page size.
func ListUnderLimit[T any](param, what string, limit int, list func(context.Context, domain.Principal, uuid.UUID, domain.Page) (domain.Paged[T], error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		parent, err := PathID(c, param, what)
		if err != nil {
			return err
		}
		page, err := PageParams(c, limit)
		if err != nil {
			return err
		}
		out, err := list(c.UserContext(), Principal(c), parent, page)
		if err != nil {
			return err
		}
		return Send(c, fiber.StatusOK, PageOf(out))
	}
}

// Body serves a route that decodes a JSON body B and answers the use
// case's result with status.
func Body[B, T any](status int, do func(context.Context, domain.Principal, B) (T, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var req B
		if err := Bind(c, &req); err != nil {
			return err
		}
		out, err := do(c.UserContext(), Principal(c), req)
		if err != nil {
			return err
		}
		return Send(c, status, out)
	}
}

// WithBody serves a route that decodes a JSON body B for the resource named
// by the path parameter param and answers the use case's result with
// status; the id is parsed first, so a bad id is a 404 before the body is read.
func WithBody[B, T any](param, what string, status int, do func(context.Context, domain.Principal, uuid.UUID, B) (T, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := PathID(c, param, what)
		if err != nil {
			return err
		}
		var req B
		if err := Bind(c, &req); err != nil {
			return err
		}
		out, err := do(c.UserContext(), Principal(c), id, req)
		if err != nil {
			return err
		}
		return Send(c, status, out)
	}
}

// WithPatch serves PATCH …/:id: it binds the body into B, which do reads
// with the body's own bytes (domain.PatchOf tells the keys sent from those
// absent), and answers 200 with the result.
func WithPatch[B, T any](what string, do func(context.Context, domain.Principal, uuid.UUID, B, []byte) (T, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		return WithBody("id", what, fiber.StatusOK, func(ctx context.Context, p domain.Principal, id uuid.UUID, req B) (T, error) {
			return do(ctx, p, id, req, c.Body())
		})(c)
	}
}

// DeleteByID serves DELETE …/:id without cascade options: 204 once deleted.
func DeleteByID(what string, del func(context.Context, domain.Principal, uuid.UUID) error) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := PathID(c, "id", what)
		if err != nil {
			return err
		}
		if err := del(c.UserContext(), Principal(c), id); err != nil {
			return err
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
}

type batchAssignReq struct {
	TicketIDs []uuid.UUID `json:"ticket_ids" validate:"required,min=1"`
}

// BatchAssign serves POST …/:id/batch-assign {ticket_ids}: the answer is
// `{assigned: n}`, the tickets newly assigned.
func BatchAssign(what string, assign func(context.Context, domain.Principal, uuid.UUID, []uuid.UUID) (int, error)) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := PathID(c, "id", what)
		if err != nil {
			return err
		}
		var req batchAssignReq
		if err := Bind(c, &req); err != nil {
			return err
		}
		n, err := assign(c.UserContext(), Principal(c), id, req.TicketIDs)
		if err != nil {
			return err
		}
		return Send(c, fiber.StatusOK, fiber.Map{"assigned": n})
	}
}
