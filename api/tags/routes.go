// Package tags serves entity tags.
package tags

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/tag"
)

// Handlers serve the tag routes.
type Handlers struct {
	tags *tag.Service
}

// New builds the handlers with every dependency they need.
func New(tags *tag.Service) Handlers {
	return Handlers{tags: tags}
}

// Routes registers the tag routes. The search route has one segment less
// than the entity routes, so the two never match the same path.
func (h Handlers) Routes(r api.Router) {
	r.Get("/orgs/:org_id/tags/search", h.search)
	r.Put("/orgs/:org_id/:entity_type/:entity_id/tags", h.put)
	r.Get("/orgs/:org_id/:entity_type/:entity_id/tags", h.list)
	r.Delete("/orgs/:org_id/:entity_type/:entity_id/tags/:key", h.delete)
}

// entity reads the path's entity: an unknown type is a 422, a malformed id
// names nothing (404).
func entity(c *fiber.Ctx) (tag.Entity, error) {
	t := c.Params("entity_type")
	if err := tag.CheckEntityType(t); err != nil {
		return tag.Entity{}, err
	}
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return tag.Entity{}, err
	}
	id, err := api.PathID(c, "entity_id", t)
	if err != nil {
		return tag.Entity{}, err
	}
	return tag.Entity{OrgID: orgID, Type: t, ID: id}, nil
}

type pairReq struct {
	Key   string  `json:"key"`
	Value *string `json:"value"`
}

type putReq struct {
	Tags []pairReq `json:"tags"`
}

func (h Handlers) put(c *fiber.Ctx) error {
	e, err := entity(c)
	if err != nil {
		return err
	}
	var req putReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	var pairs []tag.Pair
	if req.Tags != nil {
		pairs = make([]tag.Pair, 0, len(req.Tags))
		for _, t := range req.Tags {
			pairs = append(pairs, tag.Pair{Key: t.Key, Value: t.Value})
		}
	}
	out, err := h.tags.Put(c.UserContext(), api.Principal(c), e, pairs)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) list(c *fiber.Ctx) error {
	e, err := entity(c)
	if err != nil {
		return err
	}
	out, err := h.tags.List(c.UserContext(), api.Principal(c), e)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, out)
}

func (h Handlers) delete(c *fiber.Ctx) error {
	e, err := entity(c)
	if err != nil {
		return err
	}
	key, err := url.PathUnescape(c.Params("key"))
	if err != nil {
		return domain.NotFound("tag")
	}
	if err := h.tags.Delete(c.UserContext(), api.Principal(c), e, key); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) search(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	var p domain.Problems
	args := c.Context().QueryArgs()
	if len(args.Peek("key")) == 0 {
		p.Add("key", "required")
	}
	// An empty value is a value (tags may have one), so only absence fails.
	if !args.Has("value") {
		p.Add("value", "required")
	}
	if err := p.Err(); err != nil {
		return err
	}
	page, err := api.PageParams(c, domain.DefaultPageLimit)
	if err != nil {
		return err
	}
	out, err := h.tags.Search(c.UserContext(), api.Principal(c), orgID, c.Query("key"), c.Query("value"), page)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, api.PageOf(out))
}
