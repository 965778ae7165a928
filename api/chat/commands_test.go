package chat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
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
	"tracker/domain/comment"
	"tracker/domain/search"
	"tracker/domain/ticket"
)

const signingSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// slackAPI is a stand-in for the chat Web API speaking its HTTP API:
// users.info answers the profile of the users it knows, chat.postMessage
// answers ok with a fresh ts (or the scripted error codes, in order), and
// /commands/… takes response_url posts. Every call is recorded.
type slackAPI struct {
	mu        sync.Mutex
	emails    map[string]string // chat user id → email
	names     map[string]string // chat user id → display name
	calls     []url.Values      // users.info
	posts     []url.Values      // chat.postMessage, with "auth" the Authorization header
	responses []map[string]any  // response_url posts, with "path"
	failPosts []string          // error codes the next chat.postMessage calls answer
}

func (s *slackAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, "/commands/") {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		m["path"] = r.URL.Path
		s.responses = append(s.responses, m)
		_, _ = w.Write([]byte(`ok`))
		return
	}
	_ = r.ParseForm()
	if strings.HasSuffix(r.URL.Path, "/chat.postMessage") {
		f := url.Values{}
		for k, v := range r.PostForm {
			f[k] = v
		}
		f.Set("auth", r.Header.Get("Authorization"))
		s.posts = append(s.posts, f)
		if len(s.failPosts) > 0 {
			code := s.failPosts[0]
			s.failPosts = s.failPosts[1:]
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": code})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": f.Get("channel"),
			"ts": fmt.Sprintf("1700001000.%06d", len(s.posts))})
		return
	}
	s.calls = append(s.calls, r.Form)
	email, ok := s.emails[r.Form.Get("user")]
	name := s.names[r.Form.Get("user")]
	if !strings.HasSuffix(r.URL.Path, "/users.info") || (!ok && name == "") {
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "user_not_found"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "user": map[string]any{"id": r.Form.Get("user"),
		"name": "someone", "real_name": "Some One", "profile": map[string]any{"email": email, "real_name": "Some One",
			"display_name": name}}})
}

type chatFixture struct {
	env                   *apitest.Env
	owner, member, viewer apitest.User
	outsider              apitest.User
	project               uuid.UUID
	ticket                ticket.Ticket
	slack                 *slackAPI
	slackURL              string
	chat                  *chat.Service
	secret                string
}

func newChat(t *testing.T, secret string) *chatFixture {
	t.Helper()
	box := apitest.SecretBox(t)
	sa := &slackAPI{emails: map[string]string{}, names: map[string]string{}}
	srv := httptest.NewServer(sa)
	t.Cleanup(srv.Close)
	var svc *chat.Service
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		ts := ticket.New(e.DB, e.Clock)
		svc = chat.New(e.DB, domain.SystemClock{}, chat.Config{SigningSecret: secret, BotToken: "xoxb-service",
			APIURL: srv.URL + "/api/", PublicURL: "http://tracker.test", Box: box, Tickets: ts})
		return []api.Module{tickets.New(ts, search.New(e.DB, e.Clock)), comments.New(comment.New(e.DB, e.Clock)),
			chatapi.New(svc)}
	}})
	f := &chatFixture{env: env, slack: sa, slackURL: srv.URL, chat: svc, secret: secret}
	f.owner = env.Register("Owner")
	f.member = env.Member(f.owner, "member")
	f.viewer = env.Member(f.owner, "viewer")
	f.outsider = env.Register("Outsider")
	f.project = f.projectIn(t, f.owner.OrgID, "ABC")
	env.Do("POST", "/api/v1/projects/"+f.project.String()+"/tickets", f.owner.Token,
		map[string]any{"title": "Login <!channel> fails", "priority": "High"}).Expect(t, 201).Decode(t, &f.ticket)
	return f
}

func (f *chatFixture) projectIn(t *testing.T, org uuid.UUID, key string) uuid.UUID {
	id := uuid.Must(uuid.NewV7())
	if _, err := f.env.DB.Pool.Exec(context.Background(), `INSERT INTO projects (id, org_id, key, name) VALUES ($1, $2, $3, 'P')`, id, org, key); err != nil {
		t.Fatal(err)
	}
	return id
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
		"command": {"/ticket"}, "text": {text}, "response_url": {f.slackURL + "/commands/1/2"}}
	return f.post(t, "/api/v1/integrations/chat/commands", "application/x-www-form-urlencoded", []byte(form.Encode()), time.Now(), nil).
		Expect(t, 200).Map(t)
}

func (f *chatFixture) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := f.env.DB.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSignaturesRefuseForgeriesAndReplays(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	form := []byte(url.Values{"team_id": {"T1"}, "user_id": {"U1"}, "command": {"/ticket"}, "text": {"create ABC forged"}}.Encode())
	cmd := "/api/v1/integrations/chat/commands"
	events := "/api/v1/integrations/chat/events"
	form2 := "application/x-www-form-urlencoded"
	before := f.count(t, `SELECT count(*) FROM tickets`)
	flip := func(h http.Header) { // one byte of the signature changed
		s := []byte(h.Get("X-Chat-Signature"))
		if s[len(s)-1] == '0' {
			s[len(s)-1] = '1'
		} else {
			s[len(s)-1] = '0'
		}
		h.Set("X-Chat-Signature", string(s))
	}
	cases := map[string]func(h http.Header){
		"one byte changed":  flip,
		"missing signature": func(h http.Header) { h.Del("X-Chat-Signature") },
		"missing timestamp": func(h http.Header) { h.Del("X-Chat-Request-Timestamp") },
		"no v0 prefix": func(h http.Header) {
			h.Set("X-Chat-Signature", strings.TrimPrefix(h.Get("X-Chat-Signature"), "v0="))
		},
		"wrong secret": func(h http.Header) {
			sig, _ := chat.Sign("guess", time.Now(), form)
			h.Set("X-Chat-Signature", sig)
		},
		"timestamp moved": func(h http.Header) { h.Set("X-Chat-Request-Timestamp", "1700000000") },
	}
	for name, mutate := range cases {
		if r := f.post(t, cmd, form2, form, time.Now(), mutate); r.Status != 401 || r.ErrorCode() == "" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// Stale and future timestamps, correctly signed: replays.
	for _, at := range []time.Time{time.Now().Add(-6 * time.Minute), time.Now().Add(6 * time.Minute)} {
		if r := f.post(t, cmd, form2, form, at, nil); r.Status != 401 {
			t.Errorf("timestamp %v: %d %s", at, r.Status, r.Body)
		}
	}
	ev := []byte(`{"type":"url_verification","challenge":"abc"}`)
	if r := f.post(t, events, "application/json", ev, time.Now(), flip); r.Status != 401 {
		t.Errorf("events forged: %d", r.Status)
	}
	// Slack's own header names are accepted too.
	r := f.post(t, events, "application/json", ev, time.Now(), func(h http.Header) {
		h.Set("X-Slack-Signature", h.Get("X-Chat-Signature"))
		h.Set("X-Slack-Request-Timestamp", h.Get("X-Chat-Request-Timestamp"))
		h.Del("X-Chat-Signature")
		h.Del("X-Chat-Request-Timestamp")
	}).Expect(t, 200).Map(t)
	if r["challenge"] != "abc" || r["status"] != "ok" {
		t.Fatalf("url_verification %v", r)
	}
	if after := f.count(t, `SELECT count(*) FROM tickets`); after != before {
		t.Fatalf("tickets %d → %d", before, after)
	}
	// No secret configured: everything is 401.
	off := newChat(t, "")
	if r := off.post(t, events, "application/json", ev, time.Now(), nil); r.Status != 401 {
		t.Fatalf("unconfigured: %d", r.Status)
	}
}

// blocks checks the answer to a ticket: in_channel, one section whose text
// names the ref and title and whose fields show status, priority, assignee
// and a link.
func blocks(t *testing.T, r map[string]any, wantText string, wantFields []string) {
	t.Helper()
	bs, _ := r["blocks"].([]any)
	if r["response_type"] != "in_channel" || len(bs) != 1 {
		t.Fatalf("answer %v", r)
	}
	b := bs[0].(map[string]any)
	text := b["text"].(map[string]any)
	if b["type"] != "section" || text["type"] != "mrkdwn" || text["text"] != wantText {
		t.Fatalf("section %v", b)
	}
	fs := b["fields"].([]any)
	if len(fs) != len(wantFields) {
		t.Fatalf("fields %v", fs)
	}
	for i, w := range wantFields {
		if got := fs[i].(map[string]any)["text"]; got != w {
			t.Errorf("field %d: %q, want %q", i, got, w)
		}
	}
}

func TestCommandsAsLinkedMembers(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	org := f.owner.OrgID.String()
	f.env.Do("POST", "/api/v1/orgs/"+org+"/integrations/chat", f.owner.Token, map[string]any{"team_id": "T1"}).Expect(t, 201)
	f.env.Do("PUT", "/api/v1/integrations/chat/identities/me", f.member.Token, map[string]any{"slack_user_id": "UMEMBER", "org_id": org}).Expect(t, 200)
	f.env.Do("PUT", "/api/v1/integrations/chat/identities/me", f.viewer.Token, map[string]any{"slack_user_id": "UVIEWER", "org_id": org}).Expect(t, 200)

	link := "<http://tracker.test/api/v1/tickets/" + f.ticket.ID.String() + "|Open ABC-1>"
	for _, ref := range []string{"ABC-1", "abc-1"} {
		r := f.command(t, "T1", "UMEMBER", ref)
		blocks(t, r, "*ABC-1* Login &lt;!channel&gt; fails", []string{"*Status*\nBacklog", "*Priority*\nHigh", "*Assignee*\nUnassigned", "*Link*\n" + link})
	}
	for _, text := range []string{"", "help", "  HELP ", "frobnicate the thing", "ABC-x"} {
		r := f.command(t, "T1", "UMEMBER", text)
		if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "Usage:") || r["blocks"] != nil {
			t.Errorf("%q: %v", text, r)
		}
	}
	for _, text := range []string{"ABC-99", "ZZZ-1"} {
		if r := f.command(t, "T1", "UMEMBER", text); r["response_type"] != "ephemeral" {
			t.Errorf("%q: %v", text, r)
		}
	}

	// create: as the linked member, answered with the same blocks, and the
	// follow-up queued through the outbox.
	r := f.command(t, "T1", "UMEMBER", "create abc Export  fails on <Safari>")
	var id uuid.UUID
	var reporter uuid.UUID
	var title string
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT id, reporter_id, title FROM tickets WHERE project_id = $1 AND ticket_number = 2`,
		f.project).Scan(&id, &reporter, &title); err != nil {
		t.Fatal(err)
	}
	if reporter != f.member.ID || title != "Export  fails on <Safari>" {
		t.Fatalf("created by %v: %q", reporter, title)
	}
	blocks(t, r, "Created *ABC-2* Export  fails on &lt;Safari&gt;", []string{"*Status*\nBacklog", "*Priority*\nNone",
		"*Assignee*\nUnassigned", "*Link*\n<http://tracker.test/api/v1/tickets/" + id.String() + "|Open ABC-2>"})
	var job chat.FollowupJob
	var payload []byte
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT payload::text::bytea FROM outbox WHERE topic = $1`, chat.TopicCommandFollowup).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(payload, &job); err != nil || job.TicketID != id || job.ChannelID != "C100" ||
		job.ResponseURL != f.slackURL+"/commands/1/2" || job.OrgID != f.owner.OrgID || job.TeamID != "T1" {
		t.Fatalf("job %+v %v", job, err)
	}

	// A Viewer may look up but not create; an unlinked chat user is told
	// to link their account; lookups follow the org's read rules.
	before := f.count(t, `SELECT count(*) FROM tickets`)
	r = f.command(t, "T1", "UVIEWER", "create ABC nope")
	if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "Could not create the ticket") {
		t.Fatalf("viewer create %v", r)
	}
	blocks(t, f.command(t, "T1", "UVIEWER", "ABC-1"), "*ABC-1* Login &lt;!channel&gt; fails",
		[]string{"*Status*\nBacklog", "*Priority*\nHigh", "*Assignee*\nUnassigned", "*Link*\n" + link})
	r = f.command(t, "T1", "USTRANGER", "create ABC nope")
	if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "Link your account") {
		t.Fatalf("unlinked create %v", r)
	}
	if r := f.command(t, "T1", "USTRANGER", "ABC-1"); r["response_type"] != "in_channel" {
		t.Fatalf("unlinked lookup %v", r)
	}
	if r := f.command(t, "T1", "UMEMBER", "create ABC"); r["response_type"] != "ephemeral" {
		t.Fatalf("create without title %v", r)
	}
	if after := f.count(t, `SELECT count(*) FROM tickets`); after != before {
		t.Fatalf("refused creates made tickets: %d → %d", before, after)
	}
	// The workspace's org decides: a key of another org is not found.
	other := f.projectIn(t, f.outsider.OrgID, "OUT")
	_ = other
	if r := f.command(t, "T1", "UMEMBER", "OUT-1"); r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "No project OUT") {
		t.Fatalf("other org's key %v", r)
	}
}

func TestCommandLinksByEmailFromUsersInfo(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	f.env.Do("POST", "/api/v1/orgs/"+f.owner.OrgID.String()+"/integrations/chat", f.owner.Token, map[string]any{"team_id": "T2"}).Expect(t, 201)
	f.slack.mu.Lock()
	f.slack.emails["UBYMAIL"] = strings.ToUpper(f.member.Email)
	f.slack.mu.Unlock()
	f.command(t, "T2", "UBYMAIL", "create ABC Linked by email")
	var reporter uuid.UUID
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT reporter_id FROM tickets WHERE title = 'Linked by email'`).Scan(&reporter); err != nil || reporter != f.member.ID {
		t.Fatalf("reporter %v %v", reporter, err)
	}
	me := f.env.Do("GET", "/api/v1/integrations/chat/identities/me?org_id="+f.owner.OrgID.String(), f.member.Token, nil).Expect(t, 200).Map(t)
	if me["slack_user_id"] != "UBYMAIL" {
		t.Fatalf("identity %v", me)
	}
	f.slack.mu.Lock()
	defer f.slack.mu.Unlock()
	if len(f.slack.calls) != 1 || f.slack.calls[0].Get("user") != "UBYMAIL" {
		t.Fatalf("users.info calls %v", f.slack.calls)
	}
}

func TestCommandsWithoutWorkspace(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	// One org holds ABC: the integration user creates there, recording the
	// chat user on the audit row.
	f.command(t, "TNONE", "UANY", "create ABC From chat")
	var reporter uuid.UUID
	var via []byte
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT t.reporter_id, a.via::text::bytea FROM tickets t
		JOIN audit_log a ON a.entity_id = t.id AND a.action = 'created' WHERE t.title = 'From chat'`).Scan(&reporter, &via); err != nil {
		t.Fatal(err)
	}
	if reporter != chat.UserID || !strings.Contains(string(via), `"chat_user_id": "UANY"`) && !strings.Contains(string(via), `"chat_user_id":"UANY"`) {
		t.Fatalf("reporter %v via %s", reporter, via)
	}
	blocks(t, f.command(t, "TNONE", "UANY", "ABC-1"), "*ABC-1* Login &lt;!channel&gt; fails",
		[]string{"*Status*\nBacklog", "*Priority*\nHigh", "*Assignee*\nUnassigned", "*Link*\n<http://tracker.test/api/v1/tickets/" + f.ticket.ID.String() + "|Open ABC-1>"})
	// A key held in two orgs is ambiguous.
	f.projectIn(t, f.outsider.OrgID, "ABC")
	r := f.command(t, "TNONE", "UANY", "ABC-1")
	if r["response_type"] != "ephemeral" || !strings.Contains(r["text"].(string), "several organizations") {
		t.Fatalf("ambiguous %v", r)
	}
}

func TestWorkspacesAndIdentities(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	org := f.owner.OrgID.String()
	path := "/api/v1/orgs/" + org + "/integrations/chat"
	f.env.Do("POST", path, f.member.Token, map[string]any{"team_id": "T9"}).Expect(t, 403)
	f.env.Do("POST", path, f.outsider.Token, map[string]any{"team_id": "T9"}).Expect(t, 404)
	f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "lower"}).Expect(t, 422)
	f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "T9", "bot_token": "nope"}).Expect(t, 422)
	w := f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "T9", "team_name": "Acme", "bot_token": "xoxb-123-abc"}).Expect(t, 201)
	if strings.Contains(string(w.Body), "xoxb") || w.Map(t)["has_bot_token"] != true {
		t.Fatalf("connect %s", w.Body)
	}
	var sealed []byte
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT bot_token_enc FROM chat_workspaces WHERE team_id = 'T9'`).Scan(&sealed); err != nil ||
		strings.Contains(string(sealed), "xoxb") {
		t.Fatalf("stored token %q %v", sealed, err)
	}
	f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "T9"}).Expect(t, 409)
	f.env.Do("POST", "/api/v1/orgs/"+f.outsider.OrgID.String()+"/integrations/chat", f.outsider.Token, map[string]any{"team_id": "T9"}).Expect(t, 409)
	list := f.env.Do("GET", path, f.owner.Token, nil).Expect(t, 200)
	if items := list.Map(t)["items"].([]any); len(items) != 1 || strings.Contains(string(list.Body), "xoxb") {
		t.Fatalf("list %s", list.Body)
	}
	f.env.Do("GET", path, f.member.Token, nil).Expect(t, 403)
	f.env.Do("DELETE", path+"/T9", f.member.Token, nil).Expect(t, 403)
	f.env.Do("DELETE", path+"/T9", f.owner.Token, nil).Expect(t, 204)
	f.env.Do("DELETE", path+"/T9", f.owner.Token, nil).Expect(t, 404)

	me := "/api/v1/integrations/chat/identities/me"
	f.env.Do("GET", me+"?org_id="+org, f.member.Token, nil).Expect(t, 404)
	f.env.Do("PUT", me, f.member.Token, map[string]any{"slack_user_id": "bad id", "org_id": org}).Expect(t, 422)
	f.env.Do("PUT", me, f.outsider.Token, map[string]any{"slack_user_id": "U1", "org_id": org}).Expect(t, 404)
	got := f.env.Do("PUT", me, f.member.Token, map[string]any{"slack_user_id": "U1", "org_id": org}).Expect(t, 200).Map(t)
	if got["slack_user_id"] != "U1" || got["user_id"] != f.member.ID.String() {
		t.Fatalf("link %v", got)
	}
	f.env.Do("PUT", me, f.viewer.Token, map[string]any{"slack_user_id": "U1", "org_id": org}).Expect(t, 409)
	// Relinking replaces the member's link.
	f.env.Do("PUT", me, f.member.Token, map[string]any{"slack_user_id": "U2", "org_id": org}).Expect(t, 200)
	if g := f.env.Do("GET", me+"?org_id="+org, f.member.Token, nil).Expect(t, 200).Map(t); g["slack_user_id"] != "U2" {
		t.Fatalf("me %v", g)
	}
	// Without org_id: the token's org (the owner's own).
	f.env.Do("PUT", me, f.owner.Token, map[string]any{"slack_user_id": "UOWNER"}).Expect(t, 200)
	if g := f.env.Do("GET", me, f.owner.Token, nil).Expect(t, 200).Map(t); g["org_id"] != org {
		t.Fatalf("default org %v", g)
	}
	f.env.Do("DELETE", me+"?org_id="+org, f.member.Token, nil).Expect(t, 204)
	f.env.Do("GET", me+"?org_id="+org, f.member.Token, nil).Expect(t, 404)
}
