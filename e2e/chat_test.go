package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain/chat"
	"tracker/domain/chat/chattest"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// slackStandIn is the shared chat Web API stand-in (chattest.SlackAPI)
// under the names this package's tests use.
type slackStandIn struct{ *chattest.SlackAPI }

func newSlackStandIn(t *testing.T) *slackStandIn { return &slackStandIn{chattest.NewSlackAPI(t)} }

func (s *slackStandIn) got() ([]url.Values, []map[string]any) { return s.Got() }

// signedPost sends a body signed as the chat service signs it.
func (s *stack) signedPost(secret, path, contentType string, body []byte) resp {
	s.t.Helper()
	sig, ts := chat.Sign(secret, time.Now(), body)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.BaseURL+"/api/v1"+path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Signature", sig)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return resp{Status: res.StatusCode, Body: b}
}

// TestChatEndToEnd: through the binary and the Temporal dev server, a
// notification is posted in the ticket's thread on the stand-in; a
// /ticket create is announced in its channel with a follow-up to
// response_url; a reply in the announced thread becomes a comment.
func TestChatEndToEnd(t *testing.T) {
	t.Parallel()
	db, dbURL := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	slack := newSlackStandIn(t)
	const secret = "e2e-chat-signing-secret"
	s := newStack(t, dbURL, srv, map[string]string{"SERVICE_CHAT_SIGNING_SECRET": secret,
		"SERVICE_CHAT_BOT_TOKEN": "xoxb-e2e", "SERVICE_CHAT_API_URL": slack.URL + "/api/",
		"SERVICE_PUBLIC_URL": "http://tracker.e2e"})
	s.run("dev")
	u := s.register("owner")
	project := s.createProject(db, u, "CHT")
	ticket, _ := s.createTicket(db, u, project, "Checkout breaks")

	// notify → chat.postMessage in the mapped thread.
	s.must(201, "POST", "/integrations/chat/thread-mappings", u.Token, map[string]any{"ticket_id": ticket,
		"channel_id": "C42", "thread_ts": "1700000000.000100"})
	var q struct {
		Status           string    `json:"status"`
		NotificationType string    `json:"notification_type"`
		ID               uuid.UUID `json:"id"`
	}
	s.must(202, "POST", "/integrations/chat/notify", u.Token, map[string]any{"notification_type": "mention",
		"ticket_id": ticket, "user_slack_id": "U42", "actor_name": "Ada", "message": "can you look?"}).decode(t, &q)
	if q.Status != "queued" || q.NotificationType != "mention" {
		t.Fatalf("notify %+v", q)
	}
	waitFor(t, 60*time.Second, "the notification posted", func() bool { p, _ := slack.got(); return len(p) >= 1 })
	posts, _ := slack.got()
	p := posts[0]
	if len(posts) != 1 || p.Get("channel") != "C42" || p.Get("thread_ts") != "1700000000.000100" || p.Get("token") != "xoxb-e2e" ||
		p.Get("text") != "<@U42> mentioned by Ada on *CHT-1* Checkout breaks\n>can you look?" {
		t.Fatalf("chat.postMessage %v", posts)
	}
	waitFor(t, 30*time.Second, "the delivery record sent", func() bool {
		return s.must(200, "GET", "/integrations/chat/notifications/"+q.ID.String(), u.Token, nil).m(t)["status"] == "sent"
	})
	rec := s.must(200, "GET", "/integrations/chat/notifications/"+q.ID.String(), u.Token, nil).m(t)
	if rec["message_ts"] != chattest.TS(1) || rec["attempts"] != float64(1) {
		t.Fatalf("record %v", rec)
	}

	// An org's channel subscribed to ticket events: the relay starts the
	// same workflow for them.
	s.must(200, "PUT", "/orgs/"+u.OrgID.String()+"/integrations/chat/subscriptions", u.Token,
		map[string]any{"channel_id": "C99", "event_types": []string{"ticket.created", "ticket.status_changed"}})

	// /ticket create → the answer at once; the announcement, its thread
	// mapping and the response_url follow-up by the worker.
	form := url.Values{"team_id": {"TE2E"}, "channel_id": {"C77"}, "user_id": {"UANY"}, "user_name": {"ada"},
		"command": {"/ticket"}, "text": {"create CHT Refund fails"}, "response_url": {slack.URL + "/commands/e2e/1"}}
	r := s.signedPost(secret, "/integrations/chat/commands", "application/x-www-form-urlencoded", []byte(form.Encode()))
	if r.Status != 200 || r.m(t)["response_type"] != "in_channel" {
		t.Fatalf("command %d %s", r.Status, r.Body)
	}
	waitFor(t, 60*time.Second, "the announcement, the subscribed channel's post and the follow-up", func() bool {
		p, rs := slack.got()
		return len(p) >= 3 && len(rs) >= 1
	})
	posts, responses := slack.got()
	byChannel := map[string]url.Values{}
	for _, p := range posts[1:] {
		byChannel[p.Get("channel")] = p
	}
	if sub := byChannel["C99"]; len(posts) != 3 || sub == nil || sub.Get("text") != "New ticket *CHT-2* Refund fails" || sub.Has("thread_ts") {
		t.Fatalf("subscribed channel's post %v", posts)
	}
	a := byChannel["C77"]
	if a == nil || a.Get("channel") != "C77" || a.Has("thread_ts") || !strings.HasPrefix(a.Get("text"), "*CHT-2* Refund fails\nReplies in this thread") {
		t.Fatalf("announcement %v", a)
	}
	if len(responses) != 1 || responses[0]["response_type"] != "ephemeral" ||
		responses[0]["text"] != "Announced *CHT-2* in <#C77>: replies in its thread become comments on the ticket." {
		t.Fatalf("response_url %v", responses)
	}

	// A reply in the announced thread → a comment by the integration user
	// (the chat user is not linked), once though Slack retries.
	ev, _ := json.Marshal(map[string]any{"type": "event_callback", "team_id": "TE2E", "event_id": "EvE2E1",
		"event": map[string]any{"type": "message", "user": "UANY", "text": "Happens with &lt;EUR&gt; only",
			"channel": "C77", "ts": "1700002100.000100", "thread_ts": a.Get("answered_ts")}})
	for i, want := range []string{"queued", "duplicate"} {
		r := s.signedPost(secret, "/integrations/chat/events", "application/json", ev)
		if r.Status != 200 || r.m(t)["status"] != want {
			t.Fatalf("event delivery %d: %d %s", i, r.Status, r.Body)
		}
	}
	var created struct {
		ID uuid.UUID `json:"id"`
	}
	var mappings struct {
		Items []struct {
			TicketID uuid.UUID `json:"ticket_id"`
		} `json:"items"`
	}
	tickets := s.must(200, "GET", "/projects/"+project.String()+"/tickets?limit=10", u.Token, nil).m(t)
	for _, it := range tickets["items"].([]any) {
		if m := it.(map[string]any); m["title"] == "Refund fails" {
			created.ID = uuid.MustParse(m["id"].(string))
		}
	}
	s.must(200, "GET", "/tickets/"+created.ID.String()+"/thread-mappings", u.Token, nil).decode(t, &mappings)
	if len(mappings.Items) != 1 || mappings.Items[0].TicketID != created.ID {
		t.Fatalf("mappings %+v", mappings)
	}
	var comments struct {
		Items []struct {
			AuthorID uuid.UUID `json:"author_id"`
			Body     string    `json:"body"`
		} `json:"items"`
	}
	waitFor(t, 60*time.Second, "the reply written as a comment", func() bool {
		s.must(200, "GET", "/tickets/"+created.ID.String()+"/comments", u.Token, nil).decode(t, &comments)
		return len(comments.Items) > 0
	})
	if len(comments.Items) != 1 || comments.Items[0].AuthorID != chat.UserID ||
		comments.Items[0].Body != "**chat user UANY** (via chat):\n\nHappens with <EUR> only" {
		t.Fatalf("comments %+v", comments.Items)
	}
}
