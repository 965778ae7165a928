// Package sso serves per-org single sign-on: the Owner's provider
// configuration and the public sign-in routes (discover, callback).
package sso

import (
	"context"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/sso"
)

// Handlers serve the SSO routes.
type Handlers struct {
	sso *sso.Service
}

// New builds the handlers with every dependency they need.
func New(svc *sso.Service) Handlers {
	return Handlers{sso: svc}
}

// Routes registers the SSO routes.
func (h Handlers) Routes(r api.Router) {
	r.Put("/orgs/:org_id/sso", api.WithBody("org_id", "organization", fiber.StatusOK, h.put))
	r.Get("/orgs/:org_id/sso", h.get)
	r.Delete("/orgs/:org_id/sso", h.delete)
	r.Post("/orgs/:org_id/sso/scim-token", h.scimToken)
	h.domainRoutes(r)
	pub := r.Public()
	pub.Get("/auth/sso/discover", h.discover)
	pub.Get("/auth/sso/callback", h.callback)
}

type putReq struct {
	IssuerURL      string   `json:"issuer_url"`
	ClientID       string   `json:"client_id"`
	ClientSecret   string   `json:"client_secret"`
	AllowedDomains []string `json:"allowed_domains"`
	DefaultRole    string   `json:"default_role"`
}

func (h Handlers) put(ctx context.Context, p domain.Principal, orgID uuid.UUID, req putReq) (sso.Config, error) {
	return h.sso.Put(ctx, p, orgID, sso.ConfigInput{IssuerURL: req.IssuerURL, ClientID: req.ClientID,
		ClientSecret: req.ClientSecret, AllowedDomains: req.AllowedDomains, DefaultRole: req.DefaultRole})
}

func (h Handlers) get(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.sso.Get(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) delete(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	if err := h.sso.Delete(c.UserContext(), api.Principal(c), orgID); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) discover(c *fiber.Ctx) error {
	orgID, err := uuid.Parse(c.Query("org_id"))
	if err != nil {
		return domain.Invalid("org_id: required, a UUID")
	}
	out, err := h.sso.Discover(c.UserContext(), orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

// callback answers the auth result as JSON; a browser (Accept: text/html)
// is redirected to SERVICE_PUBLIC_URL with the tokens in the fragment,
// which never reaches a server's logs.
func (h Handlers) callback(c *fiber.Ctx) error {
	out, err := h.sso.Callback(c.UserContext(), c.Query("code"), c.Query("state"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	if strings.Contains(c.Get(fiber.HeaderAccept), "text/html") {
		frag := url.Values{"access_token": {out.AccessToken}, "refresh_token": {out.RefreshToken},
			"user_id": {out.UserID.String()}, "token_type": {"Bearer"}}
		return c.Redirect(strings.TrimRight(h.sso.PublicURL(), "/")+"/#"+frag.Encode(), fiber.StatusSeeOther)
	}
	return api.Send(c, fiber.StatusOK, out)
}

// scimToken issues the org's SCIM token: 201, the token shown this once.
func (h Handlers) scimToken(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	out, err := h.sso.IssueScimToken(c.UserContext(), api.Principal(c), orgID)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return api.Send(c, fiber.StatusCreated, out)
}
