// Package feed serves an org's event feed: GET /orgs/{org_id}/events, a
// page of the events its webhooks carry, or with stream=true the same
// events as Server-Sent Events.
package feed

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/feed"
)

// Waker wakes live streams when events may have been committed (by any API
// replica): notification.Hub, which LISTENs on the outbox channel.
type Waker interface {
	SubscribeAny() (<-chan struct{}, func())
}

// Handlers serve the feed.
type Handlers struct {
	svc    *feed.Service
	wake   Waker
	stream api.StreamOptions
}

// New builds the handlers: wake wakes the streams, which stream tunes.
func New(svc *feed.Service, wake Waker, stream api.StreamOptions) Handlers {
	return Handlers{svc: svc, wake: wake, stream: stream}
}

// Routes registers the route.
func (h Handlers) Routes(r api.Router) {
	r.Get("/orgs/:org_id/events", h.list)
}

// streamBatch is how many events a stream reads per statement.
const streamBatch = 100

func (h Handlers) list(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	types, err := feed.ParseTypes(c.Query("types"))
	if err != nil {
		return err
	}
	if c.Query("cursor") != "" {
		// The feed's position is after; a cursor ignored would silently
		// restart an integrator from the oldest event.
		return domain.Invalid("cursor: the feed takes after (an event id or a next_cursor)")
	}
	page, err := api.PageParams(c, domain.DefaultPageLimit)
	if err != nil {
		return err
	}
	stream, err := api.QueryBool(c, "stream")
	if err != nil {
		return err
	}
	after := strings.TrimSpace(c.Query("after"))
	if !stream {
		out, err := h.svc.List(c.UserContext(), api.Principal(c), orgID, feed.Query{After: after, Types: types, Limit: page.Limit})
		if err != nil {
			return err
		}
		return api.Send(c, fiber.StatusOK, out)
	}
	// A reconnecting client's Last-Event-ID is where it stopped; it wins
	// over the after of the URL it first opened.
	if id := strings.TrimSpace(c.Get("Last-Event-ID")); id != "" {
		after = id
	}
	r, err := h.svc.Open(c.UserContext(), api.Principal(c), orgID, after, types)
	if err != nil {
		return err
	}
	wake, cancel := h.wake.SubscribeAny()
	return api.Stream(c, h.stream, &source{r: r, wake: wake, cancel: cancel})
}

// source feeds one stream from its reader.
type source struct {
	r      *feed.Reader
	wake   <-chan struct{}
	cancel func()
}

func (s *source) Wake() <-chan struct{} { return s.wake }
func (s *source) Close()                { s.cancel() }

// Send writes every event readable now; an error (the caller lost access)
// ends the stream.
func (s *source) Send(ctx context.Context, w api.SSE) error {
	return api.SendBatches(ctx, w, streamBatch, s.r.Next, func(ev feed.Event) (string, string) { return ev.ID.String(), ev.Type })
}
