package feed_test

import (
	"encoding/json"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/comments"
	feedapi "tracker/api/feed"
	"tracker/api/tickets"
	"tracker/api/webhooks"
	"tracker/domain/comment"
	"tracker/domain/feed"
	"tracker/domain/notification"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/domain/webhook"
)

// setup is apitest.NewWorld serving tickets, comments, webhooks and the feed.
func setup(t *testing.T) apitest.World { return setupWith(t, api.DefaultStreamOptions) }

func setupWith(t *testing.T, stream api.StreamOptions) apitest.World {
	return apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module { return modules(t, e, stream) }})
}

func modules(t *testing.T, e *apitest.Env, stream api.StreamOptions) []api.Module {
	hub := notification.NewHub(e.DB, e.Clock, e.Log)
	t.Cleanup(hub.Close)
	return []api.Module{
		tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock)),
		comments.New(comment.New(e.DB, e.Clock)),
		webhooks.New(webhook.New(e.DB, e.Clock)),
		feedapi.New(feed.New(e.DB), hub, stream),
	}
}

// item is a feed item as a client reads it.
type item struct {
	ID        uuid.UUID       `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
	Changes   json.RawMessage `json:"changes"`
}

type page struct {
	Items      []item  `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

func feedURL(w apitest.World, q url.Values) string {
	u := "/api/v1/orgs/" + w.Owner.OrgID.String() + "/events"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// read is one page of the org's feed as token.
func read(t *testing.T, w apitest.World, token string, q url.Values) page {
	t.Helper()
	var p page
	w.Env.Do("GET", feedURL(w, q), token, nil).Expect(t, 200).Decode(t, &p)
	return p
}

// drain reads the feed after `after` (a cursor or event id) in pages of
// limit until it has want items (the feed shows an event once every older
// transaction of the database cluster has ended, other tests' included, so
// it may lag a moment), then reads once more to see that nothing else
// comes; it returns the items and the last cursor.
func drain(t *testing.T, w apitest.World, token, after string, limit int, types string, want int) ([]item, string) {
	t.Helper()
	var out []item
	deadline := time.Now().Add(10 * time.Second)
	for {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if after != "" {
			q.Set("after", after)
		}
		if types != "" {
			q.Set("types", types)
		}
		p := read(t, w, token, q)
		out = append(out, p.Items...)
		if p.NextCursor != nil {
			after = *p.NextCursor
		}
		if len(p.Items) == 0 {
			if len(out) >= want {
				return out, after
			}
			if time.Now().After(deadline) {
				t.Fatalf("read %d events in 10 s, want %d", len(out), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func createTicket(t *testing.T, w apitest.World, token string, projectID uuid.UUID, title string) uuid.UUID {
	t.Helper()
	var out struct{ ID uuid.UUID }
	w.Env.Do("POST", "/api/v1/projects/"+projectID.String()+"/tickets", token, map[string]any{"title": title}).Expect(t, 201).Decode(t, &out)
	return out.ID
}

func ids(items []item) []uuid.UUID {
	out := make([]uuid.UUID, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}
