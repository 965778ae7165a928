package api

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"

	"tracker/domain"
)

// LoginLimits bounds login and register attempts per client IP and per email
// address within Window; a zero Max disables that limit.
type LoginLimits struct {
	PerIP    int
	PerEmail int
	Window   time.Duration
}

// LoginLimiters are the brute-force guards of login and register (429 with
// Retry-After). Counters live in the replica's memory.
func LoginLimiters(l LoginLimits) []fiber.Handler {
	if l.Window == 0 {
		l.Window = time.Minute
	}
	reached := func(c *fiber.Ctx) error {
		return &domain.Error{Kind: domain.KindRateLimited, Message: "too many attempts; retry later"}
	}
	var hs []fiber.Handler
	if l.PerIP > 0 {
		hs = append(hs, limiter.New(limiter.Config{
			Max: l.PerIP, Expiration: l.Window, LimitReached: reached,
			KeyGenerator: func(c *fiber.Ctx) string { return "ip:" + c.IP() },
		}))
	}
	if l.PerEmail > 0 {
		hs = append(hs, limiter.New(limiter.Config{
			Max: l.PerEmail, Expiration: l.Window, LimitReached: reached,
			Next:         func(c *fiber.Ctx) bool { return emailOf(c) == "" },
			KeyGenerator: func(c *fiber.Ctx) string { return "email:" + emailOf(c) },
		}))
	}
	return hs
}

func emailOf(c *fiber.Ctx) string {
	var b struct {
		Email string `json:"email"`
	}
	_ = json.Unmarshal(c.Body(), &b)
	return strings.ToLower(strings.TrimSpace(b.Email))
}
