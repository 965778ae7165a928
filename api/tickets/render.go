package tickets

import (
	"strconv"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/ticket"
)

// render answers a changed ticket: the Ticket itself, or, when the workflow
// warned about an unlisted move, an object with ticket and warning.
func render(c *fiber.Ctx, res ticket.Result) error {
	api.SetETag(c, res.Ticket.Version)
	if res.Warning != "" {
		return api.Send(c, fiber.StatusOK, fiber.Map{"ticket": res.Ticket, "warning": res.Warning})
	}
	return sendTicket(c, fiber.StatusOK, res.Ticket)
}

// sendTicket writes one ticket without reflection (see Ticket.AppendJSON).
// An answer that says the caller watches the ticket has its own ETag
// (api.VariantWatching): watching is not part of the row's version, and a
// conditional GET must not keep a stale one.
func sendTicket(c *fiber.Ctx, status int, t ticket.Ticket) error {
	c.Status(status).Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	variant := ""
	if t.Watching != nil && *t.Watching {
		variant = api.VariantWatching
	}
	api.SetETagVariant(c, t.Version, variant)
	b := t.AppendJSON(make([]byte, 0, 512))
	if t.Watching != nil {
		b = append(append(b[:len(b)-1], `,"watching":`...), strconv.AppendBool(nil, *t.Watching)...)
		b = append(b, '}')
	}
	return c.Send(b)
}

// sendPage writes a page of tickets in api.Paginated's shape.
func sendPage(c *fiber.Ctx, p domain.Paged[ticket.Ticket]) error {
	env := api.PageOf(p)
	b := make([]byte, 0, 64+len(env.Items)*480)
	b = append(b, `{"items":[`...)
	for i, t := range env.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = t.AppendJSON(b)
	}
	b = append(b, `],"next_cursor":`...)
	if env.NextCursor == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendQuote(b, *env.NextCursor) // base64url: nothing to escape
	}
	b = append(b, `,"has_more":`...)
	b = strconv.AppendBool(b, env.HasMore)
	b = append(b, '}')
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}
