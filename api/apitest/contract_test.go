package apitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// recorder is a testing.TB that keeps what the contract check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                      {}
func (r *recorder) Errorf(f string, args ...any) { r.errs = append(r.errs, fmt.Sprintf(f, args...)) }

// TestContractCatchesDrift: an exchange the document does not declare
// fails the test that made it — an undeclared status, a body of another
// shape, a route the document lacks, a request the service accepted that
// the document would refuse — while declared ones, and 404s of routes
// nobody serves, pass.
func TestContractCatchesDrift(t *testing.T) {
	app := fiber.New()
	app.Get("/api/v1/version", func(c *fiber.Ctx) error {
		switch c.Query("case") {
		case "teapot":
			return c.SendStatus(fiber.StatusTeapot)
		case "shape":
			return c.JSON(fiber.Map{"version": 1, "service": "tracker"})
		}
		return c.JSON(fiber.Map{"version": "1", "service": "tracker", "profile": "test"})
	})
	app.Get("/api/v1/undocumented", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{}) })
	app.Post("/api/v1/auth/login", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"access_token": "a", "refresh_token": "r", "user_id": "0b6f8a52-3c1d-4e8f-9a0b-7d2c5e4f1a36",
			"email": "a@example.test", "display_name": "A"})
	})
	app.Use(func(c *fiber.Ctx) error {
		return c.Status(404).JSON(fiber.Map{"error": fiber.Map{"code": "not_found", "message": "route not found", "details": []string{}}})
	})
	for _, tc := range []struct {
		method, path string
		body         any
		headers      map[string]string
		want         string // "" = passes
	}{
		{"GET", "/api/v1/version", nil, nil, ""},
		{"GET", "/api/v1/no/such/route", nil, nil, ""},
		{"GET", "/api/v1/version?case=teapot", nil, nil, "418"},
		{"GET", "/api/v1/version?case=shape", nil, nil, "version"},
		{"GET", "/api/v1/undocumented", nil, nil, "undocumented"},
		{"POST", "/api/v1/auth/login", map[string]any{"email": "a@example.test", "password": "x"}, nil, ""},
		{"POST", "/api/v1/auth/login", map[string]any{"email": "a@example.test"}, nil, "password"},
		// One request may opt out, saying why; without a reason it fails.
		{"GET", "/api/v1/undocumented", nil, map[string]string{SkipContract: "a probe"}, ""},
		{"GET", "/api/v1/undocumented", nil, map[string]string{SkipContract: " "}, "needs a reason"},
	} {
		rec := &recorder{TB: t}
		env := &Env{T: rec, App: app}
		env.DoHeaders(tc.method, tc.path, "", tc.body, tc.headers)
		got := strings.Join(rec.errs, "\n")
		if tc.want == "" && got != "" {
			t.Errorf("%s %s: reported %s", tc.method, tc.path, got)
		}
		if tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s %s: want a report naming %q, got %q", tc.method, tc.path, tc.want, got)
		}
	}
}
