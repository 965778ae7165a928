package api

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"

	"tracker/domain"
)

// LoginLimits bounds attempts at the public credential routes (register,
// login, refresh, logout, onboard) per client IP and per client IP and
// email address within Window; a zero Max disables that limit.
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
			KeyGenerator: func(c *fiber.Ctx) string { return "ip:" + ClientIP(c) },
		}))
	}
	if l.PerEmail > 0 {
		hs = append(hs, limiter.New(limiter.Config{
			Max: l.PerEmail, Expiration: l.Window, LimitReached: reached,
			Next: func(c *fiber.Ctx) bool { return emailOf(c) == "" },
			// By client and email: a third party failing on a victim's
			// email exhausts only its own bucket, never the victim's.
			KeyGenerator: func(c *fiber.Ctx) string { return "email:" + ClientIP(c) + "|" + emailOf(c) },
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

// ClientIP is the address of the client: the peer's address, or, when the
// peer is a trusted proxy (SERVICE_TRUSTED_PROXIES), the right-most address
// of X-Forwarded-For that is not itself a trusted proxy. Right-most, not
// left-most: a client can put anything at the left of the header, and the
// trusted proxies only append.
func ClientIP(c *fiber.Ctx) string {
	peer := c.Context().RemoteIP().String()
	if !c.App().Config().EnableTrustedProxyCheck || !c.IsProxyTrusted() {
		return peer
	}
	hops := strings.Split(c.Get(fiber.HeaderXForwardedFor), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		ip := net.ParseIP(strings.TrimSpace(hops[i]))
		if ip == nil {
			return peer // a hop our proxies did not write: trust nothing left of it
		}
		if !trusted(c.App().Config().TrustedProxies, ip) {
			return ip.String()
		}
	}
	return peer
}

func trusted(proxies []string, ip net.IP) bool {
	for _, p := range proxies {
		if _, n, err := net.ParseCIDR(p); err == nil {
			if n.Contains(ip) {
				return true
			}
		} else if q := net.ParseIP(p); q != nil && q.Equal(ip) {
			return true
		}
	}
	return false
}

// ParseProxies checks a comma-separated list of IP addresses and CIDR
// ranges (SERVICE_TRUSTED_PROXIES).
func ParseProxies(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR range", p)
		}
		out = append(out, p)
	}
	return out, nil
}
