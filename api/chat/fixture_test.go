package chat_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	chatapi "tracker/api/chat"
	"tracker/api/comments"
	"tracker/api/tickets"
	"tracker/domain"
	"tracker/domain/chat"
	"tracker/domain/chat/chattest"
	"tracker/domain/comment"
	"tracker/domain/search"
	"tracker/domain/testfactory"
	"tracker/domain/ticket"
	"tracker/store/projectdb"
	"tracker/store/ticketdb"
)

const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// chatFixture is apitest's world with the chat integration mounted against
// the chat Web API stand-in, and project ABC holding ABC-1 "Login <!channel>
// fails" (High) in the owner's org.
type chatFixture struct {
	env                   *apitest.Env
	owner, member, viewer apitest.User
	outsider              apitest.User
	project               uuid.UUID
	ticket                ticketdb.Row
	slack                 *chattest.SlackAPI
	chat                  *chat.Service
	secret                string
}

// newChat is the fixture in the installation tenancy (the spec's model).
func newChat(t *testing.T, secret string) *chatFixture {
	t.Helper()
	return newChatIn(t, secret, chat.TenancyInstallation)
}

// newChatIn is the fixture in the given tenancy.
func newChatIn(t *testing.T, secret, tenancy string) *chatFixture {
	t.Helper()
	box := apitest.SecretBox(t)
	sa := chattest.NewSlackAPI(t)
	var svc *chat.Service
	w := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		ts := ticket.New(e.DB, e.Clock)
		svc = chat.New(e.DB, domain.SystemClock{}, chat.Config{Tenancy: tenancy, SigningSecret: secret, BotToken: "xoxb-service",
			APIURL: sa.URL + "/api/", PublicURL: "http://tracker.test", Box: box, Tickets: ts,
			ClientID: chattest.ClientID, ClientSecret: chattest.ClientSecret})
		return []api.Module{tickets.New(ts, search.New(e.DB, e.Clock)), comments.New(comment.New(e.DB, e.Clock)),
			chatapi.New(svc)}
	}})
	f := &chatFixture{env: w.Env, owner: w.Owner, member: w.Member, viewer: w.Viewer, outsider: w.Outsider,
		slack: sa, chat: svc, secret: secret}
	f.project = f.projectIn(t, f.owner.OrgID, "ABC")
	f.ticket = testfactory.Ticket(t, f.env.DB, projectdb.Row{ID: f.project}, f.owner.ID,
		testfactory.TicketOpts{Title: "Login <!channel> fails", Priority: "High"})
	return f
}

func (f *chatFixture) projectIn(t *testing.T, org uuid.UUID, key string) uuid.UUID {
	t.Helper()
	return testfactory.Project(t, f.env.DB, org, testfactory.ProjectOpts{Key: key, Name: "P"}).ID
}

// connect connects workspace team to org as admin, through the chat app's
// install.
func (f *chatFixture) connect(t *testing.T, admin apitest.User, org uuid.UUID, team string) {
	t.Helper()
	f.env.InstallChat(f.slack, admin, org, team).Expect(t, 201)
}

// linkT1 connects workspace T1 to the owner's org and links the Member as
// chat user UMEMBER and the Viewer as UVIEWER.
func (f *chatFixture) linkT1(t *testing.T) {
	t.Helper()
	org := f.owner.OrgID.String()
	f.connect(t, f.owner, f.owner.OrgID, "T1")
	f.env.Do("PUT", "/api/v1/integrations/chat/identities/me", f.member.Token, map[string]any{"slack_user_id": "UMEMBER", "org_id": org}).Expect(t, 200)
	f.env.Do("PUT", "/api/v1/integrations/chat/identities/me", f.viewer.Token, map[string]any{"slack_user_id": "UVIEWER", "org_id": org}).Expect(t, 200)
}

// post sends a body signed as the chat service signs it, at the given time.
func (f *chatFixture) post(t *testing.T, path, contentType string, body []byte, at time.Time, mutate func(h http.Header)) apitest.Resp {
	t.Helper()
	sig, ts := chat.Sign(f.secret, at, body)
	req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Chat-Signature", sig)
	req.Header.Set("X-Chat-Request-Timestamp", ts)
	if mutate != nil {
		mutate(req.Header)
	}
	return f.env.Send(req) // held to docs/openapi.yaml
}

func (f *chatFixture) command(t *testing.T, team, user, text string) map[string]any {
	t.Helper()
	form := url.Values{"team_id": {team}, "channel_id": {"C100"}, "user_id": {user}, "user_name": {"ada"},
		"command": {"/ticket"}, "text": {text}, "response_url": {f.slack.URL + "/commands/1/2"}}
	return f.post(t, "/api/v1/integrations/chat/commands", "application/x-www-form-urlencoded", []byte(form.Encode()), time.Now(), nil).
		Expect(t, 200).Map(t)
}

// event delivers a signed event payload and returns the acknowledgement.
func (f *chatFixture) event(t *testing.T, body []byte) map[string]any {
	t.Helper()
	return f.post(t, "/api/v1/integrations/chat/events", "application/json", body, time.Now(), nil).Expect(t, 200).Map(t)
}

// mapThread maps (channel, ts) to a ticket as user.
func (f *chatFixture) mapThread(t *testing.T, u apitest.User, ticketID uuid.UUID, channel, ts string) apitest.Resp {
	t.Helper()
	return f.env.Do("POST", "/api/v1/integrations/chat/thread-mappings", u.Token, map[string]any{"ticket_id": ticketID,
		"channel_id": channel, "thread_ts": ts})
}

func (f *chatFixture) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	return apitest.Scalar[int](t, f.env, sql, args...)
}
