// Package laborrate serves labor rates (all Admin or Owner).
package laborrate

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain/laborrate"
)

// DefaultPageLimit is the spec's page size of the labor rate list.
const DefaultPageLimit = 50

// Handlers serve the labor rate routes.
type Handlers struct {
	rates *laborrate.Service
}

// New builds the handlers with every dependency they need.
func New(rates *laborrate.Service) Handlers {
	return Handlers{rates: rates}
}

// Routes registers the labor rate routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/labor-rates", h.create)
	r.Get("/labor-rates/:id", api.ByID("labor rate", h.rates.Get))
	r.Get("/users/:user_id/orgs/:org_id/labor-rates/current", h.current)
	r.Get("/users/:user_id/orgs/:org_id/labor-rates", h.list)
}

type createReq struct {
	UserID          uuid.UUID `json:"user_id" validate:"required"`
	OrgID           uuid.UUID `json:"org_id" validate:"required"`
	LoadedRateCents *int64    `json:"loaded_rate_cents" validate:"required"`
	EffectiveDate   string    `json:"effective_date" validate:"required"`
}

func (h Handlers) create(c *fiber.Ctx) error {
	var req createReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	rate, err := h.rates.Create(c.UserContext(), api.Principal(c), laborrate.CreateInput{
		UserID: req.UserID, OrgID: req.OrgID, LoadedRateCents: *req.LoadedRateCents, EffectiveDate: req.EffectiveDate,
	})
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, rate)
}

func userOrg(c *fiber.Ctx) (uuid.UUID, uuid.UUID, error) {
	userID, err := api.PathID(c, "user_id", "user")
	if err != nil {
		return uuid.Nil, uuid.Nil, err
	}
	orgID, err := api.PathID(c, "org_id", "organization")
	return userID, orgID, err
}

func (h Handlers) current(c *fiber.Ctx) error {
	userID, orgID, err := userOrg(c)
	if err != nil {
		return err
	}
	rate, err := h.rates.Current(c.UserContext(), api.Principal(c), userID, orgID)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, rate)
}

func (h Handlers) list(c *fiber.Ctx) error {
	userID, orgID, err := userOrg(c)
	if err != nil {
		return err
	}
	page, err := api.PageParams(c, DefaultPageLimit)
	if err != nil {
		return err
	}
	rates, err := h.rates.List(c.UserContext(), api.Principal(c), userID, orgID, page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(rates))
}
