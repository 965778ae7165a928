package api

import (
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Module is a feature's route table.
type Module interface {
	Routes(r Router)
}

// Deps are what the edge itself needs; feature modules hold their own.
type Deps struct {
	Log     *slog.Logger
	Metrics *Metrics
	Auth    Authenticator
	Health  HealthChecker
	Version string
	Profile string
	// BodyLimit caps request bodies (bytes); imports need a large one.
	BodyLimit int
}

// New builds the Fiber app: request id → recover → access log + metrics,
// the system routes, then every module under /api/v1.
func New(d Deps, modules ...Module) *fiber.App {
	if d.BodyLimit == 0 {
		d.BodyLimit = 64 << 20
	}
	app := fiber.New(fiber.Config{
		AppName:               ServiceName,
		DisableStartupMessage: true,
		ErrorHandler:          ErrorHandler(d.Log),
		BodyLimit:             d.BodyLimit,
		ReadTimeout:           60 * time.Second,
		WriteTimeout:          5 * time.Minute,
		IdleTimeout:           2 * time.Minute,
	})
	app.Use(requestID, recoverer(d.Log), observe(d.Log, d.Metrics))
	systemRoutes(app, d)
	r := Router{group: app.Group("/api/v1"), root: app, auth: authenticate(d.Auth)}
	for _, m := range modules {
		m.Routes(r)
	}
	return app
}
