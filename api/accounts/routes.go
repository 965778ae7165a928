// Package accounts serves registration, sessions, the current user, API
// keys and onboarding.
package accounts

import (
	"context"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/account"
)

// Handlers serve the account routes.
type Handlers struct {
	accounts *account.Service
	limits   api.LoginLimits
}

// New builds the handlers with every dependency they need.
func New(accounts *account.Service, limits api.LoginLimits) Handlers {
	return Handlers{accounts: accounts, limits: limits}
}

// Routes registers the account routes.
func (h Handlers) Routes(r api.Router) {
	pub := r.Public()
	// The brute-force guard covers every public route that takes a
	// credential or hashes a password.
	limits := api.LoginLimiters(h.limits)
	guard := func(h fiber.Handler) []fiber.Handler { return append(slices.Clip(limits), h) }
	pub.Post("/auth/register", guard(api.Body(fiber.StatusCreated, h.register))...)
	pub.Post("/auth/login", guard(api.Body(fiber.StatusOK, h.login))...)
	pub.Post("/auth/refresh", guard(api.Body(fiber.StatusOK, h.refresh))...)
	pub.Post("/auth/logout", guard(h.logout)...)
	pub.Get("/onboard", h.onboardStatus)
	pub.Post("/onboard", guard(api.Body(fiber.StatusCreated, h.onboard))...)
	r.Get("/auth/me", h.me)
	r.Post("/api-keys", api.Body(fiber.StatusCreated, h.createKey))
	r.Get("/api-keys", h.listKeys)
	r.Delete("/api-keys/:id", h.deleteKey)
}

type registerReq struct {
	Email       string `json:"email" validate:"required,email"`
	Password    string `json:"password" validate:"required,min=8,maxbytes=1024"`
	DisplayName string `json:"display_name" validate:"required,min=1,max=255"`
	InviteCode  string `json:"invite_code"`
}

func (h Handlers) register(ctx context.Context, _ domain.Principal, req registerReq) (account.AuthResult, error) {
	return h.accounts.Register(ctx, account.RegisterInput{Email: req.Email, Password: req.Password,
		DisplayName: req.DisplayName, InviteCode: req.InviteCode})
}

type loginReq struct {
	Email    string `json:"email" validate:"required,max=320"`
	Password string `json:"password" validate:"required,maxbytes=1024"`
}

func (h Handlers) login(ctx context.Context, _ domain.Principal, req loginReq) (account.AuthResult, error) {
	return h.accounts.Login(ctx, req.Email, req.Password)
}

type refreshReq struct {
	RefreshToken string `json:"refresh_token" validate:"required,max=256"`
}

func (h Handlers) refresh(ctx context.Context, _ domain.Principal, req refreshReq) (account.AuthResult, error) {
	return h.accounts.Refresh(ctx, req.RefreshToken)
}

func (h Handlers) logout(c *fiber.Ctx) error {
	var req refreshReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	if err := h.accounts.Logout(c.UserContext(), req.RefreshToken); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) me(c *fiber.Ctx) error {
	me, err := h.accounts.Me(c.UserContext(), api.Principal(c))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, me)
}

type createKeyReq struct {
	Name       string      `json:"name" validate:"required,min=1,max=255"`
	Scopes     []string    `json:"scopes" validate:"omitempty,dive,oneof=read write admin"`
	ProjectIDs []uuid.UUID `json:"project_ids"`
	ExpiresAt  *time.Time  `json:"expires_at"`
	OrgID      *uuid.UUID  `json:"org_id"`
}

func (h Handlers) createKey(ctx context.Context, p domain.Principal, req createKeyReq) (account.APIKey, error) {
	return h.accounts.CreateKey(ctx, p, account.CreateKeyInput{
		Name: req.Name, Scopes: req.Scopes, ProjectIDs: req.ProjectIDs, ExpiresAt: req.ExpiresAt, OrgID: req.OrgID})
}

func (h Handlers) listKeys(c *fiber.Ctx) error {
	keys, err := h.accounts.ListKeys(c.UserContext(), api.Principal(c))
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, keys)
}

func (h Handlers) deleteKey(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "API key")
	if err != nil {
		return err
	}
	if err := h.accounts.DeleteKey(c.UserContext(), api.Principal(c), id); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) onboardStatus(c *fiber.Ctx) error {
	need, err := h.accounts.NeedsOnboarding(c.UserContext())
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, fiber.Map{"needs_onboarding": need})
}

type onboardReq struct {
	Email    string `json:"email" validate:"required,email"`
	Password string `json:"password" validate:"required,min=8,maxbytes=1024"`
	OrgName  string `json:"org_name" validate:"required,min=1,max=255"`
	OrgSlug  string `json:"org_slug" validate:"required,min=1,max=100"`
}

func (h Handlers) onboard(ctx context.Context, _ domain.Principal, req onboardReq) (account.Onboarded, error) {
	return h.accounts.Onboard(ctx, account.OnboardInput{Email: req.Email, Password: req.Password,
		OrgName: req.OrgName, OrgSlug: req.OrgSlug})
}
