package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"tracker/api/docsui"
	"tracker/docs"
)

// HealthChecker reports on the database.
type HealthChecker interface {
	DatabaseHealth(ctx context.Context) (healthy bool, migrationVersion int32)
}

// ServiceName is the service's name in health and version.
const ServiceName = "tracker"

type health struct {
	Status           string `json:"status"`
	Service          string `json:"service"`
	Version          string `json:"version"`
	Database         string `json:"database"`
	DBHealthy        bool   `json:"db_healthy"`
	MigrationVersion int32  `json:"migration_version"`
	UptimeSeconds    int64  `json:"uptime_seconds"`
}

type version struct {
	Version string `json:"version"`
	Service string `json:"service"`
	Profile string `json:"profile"`
}

func systemRoutes(app *fiber.App, d Deps) {
	started := time.Now()
	app.Get("/health", func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		ok, v := d.Health.DatabaseHealth(ctx)
		h := health{Status: "ok", Service: ServiceName, Version: d.Version, Database: "connected", DBHealthy: ok,
			MigrationVersion: v, UptimeSeconds: int64(time.Since(started).Seconds())}
		if !ok {
			h.Status, h.Database = "degraded", "unreachable"
			return Send(c, fiber.StatusServiceUnavailable, h)
		}
		return Send(c, fiber.StatusOK, h)
	})
	app.Get("/api/v1/version", func(c *fiber.Ctx) error {
		return Send(c, fiber.StatusOK, version{Version: d.Version, Service: ServiceName, Profile: d.Profile})
	})
	app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(d.Metrics.Registry, promhttp.HandlerOpts{})))
	contractRoutes(app)
}

// contractRoutes serve the API contract (docs/openapi.yaml, embedded) as
// YAML and JSON, and the API reference page rendering it; all public.
func contractRoutes(app *fiber.App) {
	app.Get("/api/v1/openapi.yaml", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, "application/yaml; charset=utf-8")
		c.Set(fiber.HeaderCacheControl, "no-cache")
		return c.Send(docs.YAML)
	})
	app.Get("/api/v1/openapi.json", func(c *fiber.Ctx) error {
		j, err := docs.JSON()
		if err != nil {
			return err
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
		c.Set(fiber.HeaderCacheControl, "no-cache")
		return c.Send(j)
	})
	docsui.Routes(app)
}
