// Package delivery serves the public unsubscribe link of notification
// emails (RFC 8058 one-click): no credentials, the link's signed token.
package delivery

import (
	"html/template"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain/delivery"
)

// Handlers serve the unsubscribe link.
type Handlers struct {
	delivery *delivery.Service
}

// New builds the handlers with every dependency they need.
func New(svc *delivery.Service) Handlers { return Handlers{delivery: svc} }

// Routes registers the public unsubscribe routes: a GET shows a
// confirmation page and changes nothing (link scanners follow GETs); a POST
// (the mail client's one-click, or the page's button) turns email off.
func (h Handlers) Routes(r api.Router) {
	path := strings.TrimPrefix(delivery.UnsubscribePath, "/api/v1")
	r.Public().Get(path, h.confirm)
	r.Public().Post(path, h.unsubscribe)
}

var page = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Tracker email notifications</title></head>
<body style="font-family: sans-serif">
{{if .Done}}<p>Email notifications are off. Turn them on again in your notification settings.</p>
{{else}}<form method="post" action="?token={{.Token}}">
<p>Stop emailing you notifications? The inbox keeps them.</p>
<button type="submit" name="List-Unsubscribe" value="One-Click">Turn off email notifications</button>
</form>{{end}}
</body></html>
`))

func render(c *fiber.Ctx, token string, done bool) error {
	var b strings.Builder
	if err := page.Execute(&b, map[string]any{"Token": token, "Done": done}); err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("Referrer-Policy", "no-referrer")
	c.Type("html", "utf-8")
	return c.Status(fiber.StatusOK).SendString(b.String())
}

func (h Handlers) confirm(c *fiber.Ctx) error {
	token := c.Query("token")
	if err := h.delivery.CheckToken(token); err != nil {
		return err
	}
	return render(c, token, false)
}

func (h Handlers) unsubscribe(c *fiber.Ctx) error {
	token := c.Query("token")
	if err := h.delivery.Unsubscribe(c.UserContext(), token); err != nil {
		return err
	}
	return render(c, token, true)
}

var _ api.Module = Handlers{}
