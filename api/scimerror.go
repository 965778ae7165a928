package api

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tracker/domain"
)

// SCIMPrefix is where SCIM 2.0 is served; errors there use the SCIM error
// schema instead of the envelope.
const SCIMPrefix = "/scim/"

// SCIMContentType is SCIM's media type (RFC 7644 §3.1).
const SCIMContentType = "application/scim+json"

// SCIMError is RFC 7644 §3.12's error body: status is a string.
type SCIMError struct {
	Schemas  []string `json:"schemas"`
	Status   string   `json:"status"`
	ScimType string   `json:"scimType,omitempty"`
	Detail   string   `json:"detail"`
}

// scimTyped is an error carrying SCIM's scimType (domain/scim.Error).
type scimTyped interface {
	ScimType() string
	HTTPStatus() int
}

// writeSCIMError answers an error under /scim/ in the SCIM error schema.
func writeSCIMError(c *fiber.Ctx, de *domain.Error, err error) error {
	status := kindStatus[de.Kind].status
	typ := ""
	var st scimTyped
	if errors.As(err, &st) {
		typ = st.ScimType()
		if s := st.HTTPStatus(); s != 0 {
			status = s
		}
	}
	detail := de.Message
	if len(de.Details) > 0 {
		detail += ": " + strings.Join(de.Details, "; ")
	}
	if typ == "" && de.Kind == domain.KindValidation {
		typ = "invalidValue"
		status = fiber.StatusBadRequest
	}
	if status == fiber.StatusUnauthorized {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="SCIM"`)
	}
	c.Set(fiber.HeaderContentType, SCIMContentType)
	body, _ := json.Marshal(SCIMError{Schemas: []string{"urn:ietf:params:scim:api:messages:2.0:Error"},
		Status: strconv.Itoa(status), ScimType: typ, Detail: detail})
	return c.Status(status).Send(body)
}

func isSCIM(c *fiber.Ctx) bool { return strings.HasPrefix(c.Path(), SCIMPrefix) }
