package notifications_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/comments"
	"tracker/api/notifications"
	"tracker/api/tickets"
	timeentryapi "tracker/api/timeentry"
	"tracker/domain/comment"
	"tracker/domain/notification"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/domain/timeentry"
)

// world is apitest.NewWorld serving tickets, comments, time entries and
// the notifications module.
type world struct {
	apitest.World
	hub *notification.Hub
}

func setup(t *testing.T) world { return setupWith(t, api.DefaultStreamOptions) }

// setupWith is setup with the live streams tuned by stream.
func setupWith(t *testing.T, stream api.StreamOptions) world {
	var hub *notification.Hub
	w := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		var mods []api.Module
		mods, hub = modules(t, e, stream)
		return mods
	}})
	return world{World: w, hub: hub}
}

func modules(t *testing.T, e *apitest.Env, stream api.StreamOptions) ([]api.Module, *notification.Hub) {
	hub := notification.NewHub(e.DB, e.Log)
	t.Cleanup(hub.Close)
	return []api.Module{
		tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock)),
		comments.New(comment.New(e.DB, e.Clock)),
		timeentryapi.New(timeentry.New(e.DB, e.Clock)),
		notifications.New(notification.New(e.DB, e.Clock), hub, stream),
	}, hub
}

func (w world) ticketURL(id uuid.UUID) string { return "/api/v1/tickets/" + id.String() }

// createTicket creates a ticket through the API as u, with more fields.
func (w world) createTicket(t *testing.T, u apitest.User, more map[string]any) uuid.UUID {
	t.Helper()
	body := map[string]any{"title": "Checkout fails"}
	for k, v := range more {
		body[k] = v
	}
	var out struct{ ID uuid.UUID }
	w.Env.Do("POST", "/api/v1/projects/"+w.Project.ID.String()+"/tickets", u.Token, body).Expect(t, 201).Decode(t, &out)
	return out.ID
}

func (w world) comment(t *testing.T, u apitest.User, ticketID uuid.UUID, body string, parent *uuid.UUID) uuid.UUID {
	t.Helper()
	req := map[string]any{"body": body}
	if parent != nil {
		req["parent_comment_id"] = parent
	}
	var out struct{ ID uuid.UUID }
	w.Env.Do("POST", w.ticketURL(ticketID)+"/comments", u.Token, req).Expect(t, 201).Decode(t, &out)
	return out.ID
}

type note struct {
	ID     uuid.UUID `json:"id"`
	OrgID  uuid.UUID `json:"org_id"`
	Type   string    `json:"type"`
	Ticket *struct {
		ID    uuid.UUID `json:"id"`
		Key   string    `json:"key"`
		Title string    `json:"title"`
	} `json:"ticket"`
	Actor *struct {
		ID          uuid.UUID `json:"id"`
		DisplayName string    `json:"display_name"`
	} `json:"actor"`
	Excerpt string  `json:"excerpt"`
	ReadAt  *string `json:"read_at"`
}

// inbox is u's notifications, newest first (one page of 100).
func (w world) inbox(t *testing.T, u apitest.User, query string) []note {
	t.Helper()
	var out struct{ Items []note }
	w.Env.Do("GET", "/api/v1/notifications?limit=100"+query, u.Token, nil).Expect(t, 200).Decode(t, &out)
	return out.Items
}

// types is u's notifications of ticketID as "type" strings, newest first.
func (w world) types(t *testing.T, u apitest.User, ticketID uuid.UUID) []string {
	t.Helper()
	var out []string
	for _, n := range w.inbox(t, u, "") {
		if n.Ticket != nil && n.Ticket.ID == ticketID {
			out = append(out, n.Type)
		}
	}
	return out
}

func (w world) expectTypes(t *testing.T, u apitest.User, ticketID uuid.UUID, want ...string) {
	t.Helper()
	if got := w.types(t, u, ticketID); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s's notifications %v, want %v", u.Name, got, want)
	}
}
