// Package scim serves SCIM 2.0 (RFC 7644) under /scim/v2/, each request
// authenticated by an org's SCIM bearer token. Bodies are read as JSON
// whatever their declared type (application/scim+json or application/json);
// answers are application/scim+json; errors use the SCIM error schema
// (api.ErrorHandler writes them for every path under /scim/).
package scim

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/scim"
)

// Handlers serve SCIM.
type Handlers struct {
	scim *scim.Service
}

// New builds the handlers with every dependency they need.
func New(svc *scim.Service) Handlers {
	return Handlers{scim: svc}
}

const localActor = "scim_actor"

// Routes registers /scim/v2/ on the app root: the token is checked before
// any route, so without one every path is a 401.
func (h Handlers) Routes(r api.Router) {
	g := r.Root().Group(scim.BasePath, h.authenticate)
	g.Get("/ServiceProviderConfig", h.spConfig)
	g.Get("/ResourceTypes", h.resourceTypes)
	g.Get("/ResourceTypes/:name", h.resourceType)
	g.Get("/Schemas", h.schemas)
	g.Get("/Schemas/:id", h.schema)
	g.Get("/Users", h.listUsers)
	g.Post("/Users", h.createUser)
	g.Get("/Users/:id", h.getUser)
	g.Put("/Users/:id", h.replaceUser)
	g.Patch("/Users/:id", h.patchUser)
	g.Delete("/Users/:id", h.deleteUser)
	g.Get("/Groups", h.listGroups)
	g.Post("/Groups", h.createGroup)
	g.Get("/Groups/:id", h.getGroup)
	g.Put("/Groups/:id", h.replaceGroup)
	g.Patch("/Groups/:id", h.patchGroup)
	g.Delete("/Groups/:id", h.deleteGroup)
}

func (h Handlers) authenticate(c *fiber.Ctx) error {
	token, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		return domain.Unauthorized("a SCIM bearer token is required")
	}
	a, err := h.scim.Authenticate(c.UserContext(), strings.TrimSpace(token))
	if err != nil {
		return err
	}
	c.Locals(localActor, a)
	return c.Next()
}

func actor(c *fiber.Ctx) scim.Actor {
	a, _ := c.Locals(localActor).(scim.Actor)
	return a
}

// send answers v as application/scim+json.
func send(c *fiber.Ctx, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, api.SCIMContentType)
	return c.Status(status).Send(b)
}

// sendResource answers one resource with its version as ETag.
func sendResource(c *fiber.Ctx, status int, res map[string]any) error {
	if meta, ok := res["meta"].(map[string]any); ok {
		if v, ok := meta["version"].(string); ok {
			c.Set(fiber.HeaderETag, v)
		}
		if l, ok := meta["location"].(string); ok && status == fiber.StatusCreated {
			c.Set(fiber.HeaderLocation, l)
		}
	}
	return send(c, status, res)
}

// body reads the request body: valid UTF-8 JSON without NUL characters
// whose numbers fit a double (domain.JSONText), no object of which names
// an attribute twice, in any case (domain.JSONNamesCaseless: SCIM's names
// are case-insensitive, so userName and username are one attribute).
func body(c *fiber.Ctx) ([]byte, error) {
	b := bytes.TrimSpace(c.Body())
	if len(b) == 0 || !json.Valid(b) {
		return nil, badSyntax("the body must be a JSON object")
	}
	if domain.JSONText(b) != nil {
		return nil, badSyntax("the body must be valid UTF-8 without NUL characters, its numbers doubles")
	}
	if err := domain.JSONNamesCaseless(b); err != nil {
		return nil, badSyntax("an object names an attribute twice (names are case-insensitive): " + detailOf(err))
	}
	return b, nil
}

// detailOf is the first detail of a domain error (the path and problem).
func detailOf(err error) string {
	var de *domain.Error
	if errors.As(err, &de) && len(de.Details) > 0 {
		return de.Details[0]
	}
	return err.Error()
}

func badSyntax(msg string) error {
	return &scim.Error{Err: &domain.Error{Kind: domain.KindBadRequest, Message: msg}, Type: "invalidSyntax"}
}

func listParams(c *fiber.Ctx) (scim.ListParams, error) {
	p := scim.ListParams{Filter: c.Query("filter"), StartIndex: 1}
	if s := c.Query("startIndex"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, &scim.Error{Err: &domain.Error{Kind: domain.KindBadRequest, Message: "startIndex must be an integer"}, Type: "invalidValue"}
		}
		p.StartIndex = n
	}
	if s := c.Query("count"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, &scim.Error{Err: &domain.Error{Kind: domain.KindBadRequest, Message: "count must be an integer"}, Type: "invalidValue"}
		}
		p.Count, p.CountSet = n, true
	}
	return p, nil
}

func projection(c *fiber.Ctx) scim.Projection {
	return scim.NewProjection(c.Query("attributes"), c.Query("excludedAttributes"))
}

func (h Handlers) spConfig(c *fiber.Ctx) error {
	return send(c, fiber.StatusOK, h.scim.ServiceProviderConfig())
}

func (h Handlers) resourceTypes(c *fiber.Ctx) error {
	items := h.scim.ResourceTypes()
	return send(c, fiber.StatusOK, scim.List{Schemas: []string{scim.ListSchema}, TotalResults: int64(len(items)),
		StartIndex: 1, ItemsPerPage: len(items), Resources: items})
}

func (h Handlers) resourceType(c *fiber.Ctx) error {
	rt := h.scim.ResourceType(c.Params("name"))
	if rt == nil {
		return domain.NotFound("resource type")
	}
	return send(c, fiber.StatusOK, rt)
}

func (h Handlers) schemas(c *fiber.Ctx) error {
	items := h.scim.Schemas()
	return send(c, fiber.StatusOK, scim.List{Schemas: []string{scim.ListSchema}, TotalResults: int64(len(items)),
		StartIndex: 1, ItemsPerPage: len(items), Resources: items})
}

func (h Handlers) schema(c *fiber.Ctx) error {
	s := h.scim.Schema(c.Params("id"))
	if s == nil {
		return domain.NotFound("schema")
	}
	return send(c, fiber.StatusOK, s)
}

func (h Handlers) listUsers(c *fiber.Ctx) error {
	p, err := listParams(c)
	if err != nil {
		return err
	}
	out, err := h.scim.ListUsers(c.UserContext(), actor(c), p, projection(c))
	if err != nil {
		return err
	}
	return send(c, fiber.StatusOK, out)
}

func (h Handlers) getUser(c *fiber.Ctx) error {
	out, err := h.scim.GetUser(c.UserContext(), actor(c), c.Params("id"), projection(c))
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusOK, out)
}

func (h Handlers) createUser(c *fiber.Ctx) error {
	b, err := body(c)
	if err != nil {
		return err
	}
	out, err := h.scim.CreateUser(c.UserContext(), actor(c), b)
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusCreated, out)
}

func (h Handlers) replaceUser(c *fiber.Ctx) error {
	b, err := body(c)
	if err != nil {
		return err
	}
	out, err := h.scim.ReplaceUser(c.UserContext(), actor(c), c.Params("id"), b, c.Get(fiber.HeaderIfMatch))
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusOK, out)
}

func (h Handlers) patchUser(c *fiber.Ctx) error {
	b, err := body(c)
	if err != nil {
		return err
	}
	out, err := h.scim.PatchUser(c.UserContext(), actor(c), c.Params("id"), b, c.Get(fiber.HeaderIfMatch))
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusOK, out)
}

func (h Handlers) deleteUser(c *fiber.Ctx) error {
	if err := h.scim.DeleteUser(c.UserContext(), actor(c), c.Params("id"), c.Get(fiber.HeaderIfMatch)); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

func (h Handlers) listGroups(c *fiber.Ctx) error {
	p, err := listParams(c)
	if err != nil {
		return err
	}
	out, err := h.scim.ListGroups(c.UserContext(), actor(c), p, projection(c))
	if err != nil {
		return err
	}
	return send(c, fiber.StatusOK, out)
}

func (h Handlers) getGroup(c *fiber.Ctx) error {
	out, err := h.scim.GetGroup(c.UserContext(), actor(c), c.Params("id"), projection(c))
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusOK, out)
}

func (h Handlers) createGroup(c *fiber.Ctx) error {
	b, err := body(c)
	if err != nil {
		return err
	}
	out, err := h.scim.CreateGroup(c.UserContext(), actor(c), b)
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusCreated, out)
}

func (h Handlers) replaceGroup(c *fiber.Ctx) error {
	b, err := body(c)
	if err != nil {
		return err
	}
	out, err := h.scim.ReplaceGroup(c.UserContext(), actor(c), c.Params("id"), b, c.Get(fiber.HeaderIfMatch))
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusOK, out)
}

func (h Handlers) patchGroup(c *fiber.Ctx) error {
	b, err := body(c)
	if err != nil {
		return err
	}
	out, err := h.scim.PatchGroup(c.UserContext(), actor(c), c.Params("id"), b, c.Get(fiber.HeaderIfMatch))
	if err != nil {
		return err
	}
	return sendResource(c, fiber.StatusOK, out)
}

func (h Handlers) deleteGroup(c *fiber.Ctx) error {
	if err := h.scim.DeleteGroup(c.UserContext(), actor(c), c.Params("id"), c.Get(fiber.HeaderIfMatch)); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}
