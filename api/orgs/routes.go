// Package orgs serves organizations, members and invites.
package orgs

import (
	"context"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/org"
)

// Handlers serve the org routes.
type Handlers struct {
	orgs *org.Service
}

// New builds the handlers with every dependency they need.
func New(orgs *org.Service) Handlers {
	return Handlers{orgs: orgs}
}

// Routes registers the org routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/orgs", api.Body(fiber.StatusCreated, h.create))
	r.Get("/orgs", h.list)
	r.Post("/orgs/:id/members", api.WithBody("id", "organization", fiber.StatusCreated, h.addMember))
	r.Get("/orgs/:id/members", api.ListUnderLimit("id", "organization", 100, h.orgs.ListMembers))
	r.Patch("/orgs/:id/members/:user_id", h.updateMember)
	r.Delete("/orgs/:id/members/:user_id", h.removeMember)
	r.Post("/orgs/:org_id/invites", api.WithBody("org_id", "organization", fiber.StatusCreated, h.createInvite))
	r.Get("/orgs/:org_id/invites", h.listInvites)
	r.Delete("/orgs/:org_id/invites/:id", h.revokeInvite)
}

type createReq struct {
	Name string `json:"name" validate:"required,min=1,max=255"`
	Slug string `json:"slug" validate:"required,min=1,max=100"`
}

func (h Handlers) create(ctx context.Context, p domain.Principal, req createReq) (org.Org, error) {
	return h.orgs.Create(ctx, p, req.Name, req.Slug)
}

func (h Handlers) list(c *fiber.Ctx) error {
	orgs, err := h.orgs.List(c.UserContext(), api.Principal(c))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, fiber.Map{"items": orgs})
}

type addMemberReq struct {
	UserID uuid.UUID `json:"user_id" validate:"required"`
	Role   string    `json:"role"`
}

func (h Handlers) addMember(ctx context.Context, p domain.Principal, orgID uuid.UUID, req addMemberReq) (org.Membership, error) {
	return h.orgs.AddMember(ctx, p, orgID, req.UserID, req.Role)
}

type inviteReq struct {
	Email string `json:"email"`
	Role  string `json:"role"`
}

func (h Handlers) createInvite(ctx context.Context, p domain.Principal, orgID uuid.UUID, req inviteReq) (org.Invite, error) {
	return h.orgs.CreateInvite(ctx, p, orgID, req.Email, req.Role)
}

func (h Handlers) listInvites(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	invs, err := h.orgs.ListInvites(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, invs)
}

func (h Handlers) revokeInvite(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	id, err := api.PathID(c, "id", "invite")
	if err != nil {
		return err
	}
	if err := h.orgs.RevokeInvite(c.UserContext(), api.Principal(c), orgID, id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

type updateMemberReq struct {
	Role string `json:"role" validate:"required"`
}

func memberPath(c *fiber.Ctx) (orgID, userID uuid.UUID, err error) {
	if orgID, err = api.PathID(c, "id", "organization"); err != nil {
		return
	}
	userID, err = api.PathID(c, "user_id", "member")
	return
}

func (h Handlers) updateMember(c *fiber.Ctx) error {
	orgID, userID, err := memberPath(c)
	if err != nil {
		return err
	}
	var req updateMemberReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	m, err := h.orgs.UpdateMemberRole(c.UserContext(), api.Principal(c), orgID, userID, req.Role)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, m)
}

func (h Handlers) removeMember(c *fiber.Ctx) error {
	orgID, userID, err := memberPath(c)
	if err != nil {
		return err
	}
	if err := h.orgs.RemoveMember(c.UserContext(), api.Principal(c), orgID, userID); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
