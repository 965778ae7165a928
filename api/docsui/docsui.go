// Package docsui serves the API reference page at /docs: Redoc's standalone
// bundle from the npm registry (pinned in REDOC_VERSION, MIT licensed, see
// LICENSE; `make docsui` refreshes it), embedded so that the page works
// offline, rendering the document served at /api/v1/openapi.json.
package docsui

import (
	_ "embed"
	"strings"

	"github.com/gofiber/fiber/v2"
)

var (
	//go:embed index.html
	page []byte
	//go:embed redoc.standalone.js
	bundle []byte
	//go:embed REDOC_VERSION
	version string
)

// Version is the embedded Redoc release.
func Version() string { return strings.TrimSpace(version) }

// Routes registers GET /docs (the page) and GET /docs/redoc.standalone.js.
func Routes(app fiber.Router) {
	app.Get("/docs", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
		c.Set(fiber.HeaderCacheControl, "no-cache")
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		return c.Send(page)
	})
	app.Get("/docs/redoc.standalone.js", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
		c.Set(fiber.HeaderCacheControl, "public, max-age=86400")
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		return c.Send(bundle)
	})
}
