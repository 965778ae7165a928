package api

import "github.com/gofiber/fiber/v2"

// SendSVG answers a server-rendered chart (internal/svgchart) as
// image/svg+xml. The chart is the org's private data: caches may keep it
// only for the caller who fetched it, for a minute. The policy forbids
// scripts and every external load should the document be opened directly.
func SendSVG(c *fiber.Ctx, data []byte) error {
	c.Set(fiber.HeaderContentType, "image/svg+xml; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "private, max-age=60")
	c.Set(fiber.HeaderVary, fiber.HeaderAuthorization)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderContentSecurityPolicy, "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	return c.Send(data)
}
