package chat_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	acts "tracker/activities/chat"
	"tracker/domain"
	"tracker/domain/chat"
	"tracker/domain/chat/chattest"
	chatwf "tracker/workflows/chat"
	"tracker/workflows/workflowtest"
)

// The chat work slower than the chat service's 3-second budget, from the
// signed request through the outbox row it writes to the workflow the relay
// starts for it, run in Temporal's test environment with the real
// activities against the stand-in.

// job reads the payload and id of the only outbox row of a topic (after
// the given time's rows are skipped by the caller's count).
func (f *chatFixture) jobs(t *testing.T, topic string) ([]uuid.UUID, [][]byte) {
	t.Helper()
	rows, err := f.env.DB.Pool.Query(context.Background(), `SELECT id, payload::text::bytea FROM outbox WHERE topic = $1 ORDER BY created_at, id`, topic)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []uuid.UUID
	var payloads [][]byte
	for rows.Next() {
		var id uuid.UUID
		var p []byte
		if err := rows.Scan(&id, &p); err != nil {
			t.Fatal(err)
		}
		ids, payloads = append(ids, id), append(payloads, p)
	}
	return ids, payloads
}

// run executes a chat workflow with the real activities (the service's
// bot token is xoxb-service; the stand-in is the Web API).
func (f *chatFixture) run(t *testing.T, wf any, in any, out any) {
	t.Helper()
	a := &acts.Activities{DB: f.env.DB, Clock: domain.SystemClock{}, Chat: f.chat,
		Slack: acts.NewSlackClient("xoxb-service", f.slack.URL+"/api/")}
	workflowtest.Execute(t, a, acts.Prefix, wf, in, out)
}

func (f *chatFixture) followup(t *testing.T, n int) (acts.FollowupInput, chatwf.FollowupResult) {
	t.Helper()
	ids, payloads := f.jobs(t, chat.TopicCommandFollowup)
	if len(ids) != n {
		t.Fatalf("%d follow-up jobs, want %d", len(ids), n)
	}
	in := acts.FollowupInput{JobID: ids[n-1]}
	if err := json.Unmarshal(payloads[n-1], &in.Job); err != nil {
		t.Fatal(err)
	}
	var res chatwf.FollowupResult
	f.run(t, chatwf.ChatCommandFollowup, in, &res)
	return in, res
}

func TestCreateFollowupAnnouncesMapsAndResponds(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	org := f.owner.OrgID.String()
	// The workspace's own bot token posts its org's messages.
	f.connect(t, f.owner, f.owner.OrgID, "T1")
	token := chattest.Token("T1", 1)
	f.env.Do("PUT", "/api/v1/integrations/chat/identities/me", f.member.Token, map[string]any{"slack_user_id": "UMEMBER", "org_id": org}).Expect(t, 200)
	f.command(t, "T1", "UMEMBER", "create ABC Export fails")
	var ticketID uuid.UUID
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT id FROM tickets WHERE title = 'Export fails'`).Scan(&ticketID); err != nil {
		t.Fatal(err)
	}
	if posts, responses := f.slack.Got(); len(posts) != 0 || len(responses) != 0 {
		t.Fatalf("the command itself called the chat service: %v %v", posts, responses)
	}
	_, res := f.followup(t, 1)
	if !res.Announced || !res.Mapped || res.ThreadTS != "1700001000.000001" || res.Responded != "sent" {
		t.Fatalf("result %+v", res)
	}
	posts, responses := f.slack.Got()
	if len(posts) != 1 || len(responses) != 1 {
		t.Fatalf("posts %v responses %v", posts, responses)
	}
	p := posts[0]
	wantText := "*ABC-2* Export fails\nReplies in this thread become comments on the ticket. <http://tracker.test/api/v1/tickets/" +
		ticketID.String() + "|Open ABC-2>"
	if p.Get("channel") != "C100" || p.Get("text") != wantText || p.Has("thread_ts") || (p.Get("token") != token && p.Get("auth") != "Bearer "+token) {
		t.Fatalf("chat.postMessage %v", p)
	}
	r := responses[0]
	if r["path"] != "/commands/1/2" || r["response_type"] != "ephemeral" || r["replace_original"] != false ||
		r["text"] != "Announced *ABC-2* in <#C100>: replies in its thread become comments on the ticket." {
		t.Fatalf("response_url %v", r)
	}
	maps := f.env.Do("GET", "/api/v1/tickets/"+ticketID.String()+"/thread-mappings", f.member.Token, nil).Expect(t, 200).Map(t)
	items := maps["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["channel_id"] != "C100" || items[0].(map[string]any)["thread_ts"] != "1700001000.000001" {
		t.Fatalf("mappings %v", maps)
	}
	// The same follow-up again (a redelivered outbox row): nothing twice.
	if _, again := f.followup(t, 1); !again.Mapped || again.ThreadTS != res.ThreadTS {
		t.Fatalf("rerun %+v", again)
	}
	if posts, responses := f.slack.Got(); len(posts) != 1 || len(responses) != 1 {
		t.Fatalf("rerun posted again: %d posts, %d responses", len(posts), len(responses))
	}
	if n := f.count(t, `SELECT count(*) FROM chat_thread_mappings WHERE ticket_id = $1`, ticketID); n != 1 {
		t.Fatalf("%d mappings", n)
	}

	// The announcement's thread is mapped: a reply there is queued for the
	// ticket.
	reply := message("EvF1", "T1", "UMEMBER", "", "", "C100", "1700001000.000009", res.ThreadTS, "Seen on Firefox too")
	if out := f.post(t, "/api/v1/integrations/chat/events", "application/json", reply, time.Now(), nil).Expect(t, 200).Map(t); out["status"] != "queued" {
		t.Fatalf("reply in the announced thread %v", out)
	}

	// The bot is not in the channel: recorded, not retried, no mapping, and
	// the response_url says why.
	f.slack.FailPosts("not_in_channel")
	f.command(t, "T1", "UMEMBER", "create ABC Second")
	in, res := f.followup(t, 2)
	if res.Announced || res.Mapped || res.Responded != "sent" {
		t.Fatalf("result %+v", res)
	}
	posts, responses = f.slack.Got()
	if len(posts) != 2 || len(responses) != 2 {
		t.Fatalf("posts %d responses %d", len(posts), len(responses))
	}
	if txt := responses[1]["text"].(string); !strings.HasPrefix(txt, "Created *ABC-3*, but could not start its thread in <#C100> (not_in_channel)") {
		t.Fatalf("response %q", txt)
	}
	var status, lastErr string
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT status, last_error FROM chat_notifications WHERE id = $1`,
		uuid.NewSHA1(in.JobID, []byte("announce"))).Scan(&status, &lastErr); err != nil || status != "failed" || !strings.Contains(lastErr, "not_in_channel") {
		t.Fatalf("announcement record %s %q %v", status, lastErr, err)
	}
	if n := f.count(t, `SELECT count(*) FROM chat_thread_mappings WHERE ticket_id = $1`, in.Job.TicketID); n != 0 {
		t.Fatalf("%d mappings of an unannounced ticket", n)
	}
}

func (f *chatFixture) reply(t *testing.T, eventID, user, text string) chat.ReplyOutcome {
	t.Helper()
	body := message(eventID, "T1", user, "", "", "C5", "1700000005."+eventID[len(eventID)-3:]+"000", "1700000000.000100", text)
	out := f.post(t, "/api/v1/integrations/chat/events", "application/json", body, time.Now(), nil).Expect(t, 200).Map(t)
	if out["status"] != "queued" {
		t.Fatalf("event %s: %v", eventID, out)
	}
	_, payloads := f.jobs(t, chat.TopicReplyComment)
	var job chat.ReplyJob
	for _, p := range payloads {
		var j chat.ReplyJob
		if err := json.Unmarshal(p, &j); err != nil {
			t.Fatal(err)
		}
		if j.EventID == eventID {
			job = j
		}
	}
	var res chat.ReplyOutcome
	f.run(t, chatwf.ChatReplyComment, job, &res)
	// A rerun (the workflow retried, or started again) writes nothing new.
	var again chat.ReplyOutcome
	f.run(t, chatwf.ChatReplyComment, job, &again)
	if again.Outcome != res.Outcome || (res.CommentID != nil && *again.CommentID != *res.CommentID) {
		t.Fatalf("rerun %+v, first %+v", again, res)
	}
	return res
}

func TestThreadRepliesBecomeComments(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	f.linkT1(t)
	f.env.Do("POST", "/api/v1/integrations/chat/thread-mappings", f.owner.Token, map[string]any{"ticket_id": f.ticket.ID,
		"channel_id": "C5", "thread_ts": "1700000000.000100"}).Expect(t, 201)
	f.slack.AddUser("UGRACE", "", "Grace H")
	comments := func() []map[string]any {
		r := f.env.Do("GET", "/api/v1/tickets/"+f.ticket.ID.String()+"/comments", f.owner.Token, nil).Expect(t, 200).Map(t)
		var out []map[string]any
		for _, c := range r["items"].([]any) {
			out = append(out, c.(map[string]any))
		}
		return out
	}

	// A linked member: the comment is theirs, the text unescaped.
	res := f.reply(t, "Ev101", "UMEMBER", "Repro on &lt;Safari&gt; &amp; Chrome")
	if res.Outcome != chat.OutcomeCommented || res.AuthorID == nil || *res.AuthorID != f.member.ID {
		t.Fatalf("linked %+v", res)
	}
	cs := comments()
	if len(cs) != 1 || cs[0]["author_id"] != f.member.ID.String() || cs[0]["body"] != "Repro on <Safari> & Chrome" {
		t.Fatalf("comments %v", cs)
	}
	// An unlinked chat user: the integration user writes it, the chat
	// user's name (users.info) leading the body.
	res = f.reply(t, "Ev102", "UGRACE", "Also on iOS")
	if res.Outcome != chat.OutcomeCommented || *res.AuthorID != chat.UserID {
		t.Fatalf("unlinked %+v", res)
	}
	cs = comments()
	if len(cs) != 2 || cs[1]["author_id"] != chat.UserID.String() || cs[1]["body"] != "**Grace H** (via chat):\n\nAlso on iOS" {
		t.Fatalf("comments %v", cs)
	}
	var via []byte
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT via::text::bytea FROM audit_log WHERE entity_id = $1 AND actor_id = $2`,
		f.ticket.ID, chat.UserID).Scan(&via); err != nil || !strings.Contains(string(via), "Ev102") || !strings.Contains(string(via), "UGRACE") {
		t.Fatalf("audit via %s %v", via, err)
	}
	// A linked Viewer may not comment: the refusal is the outcome.
	res = f.reply(t, "Ev103", "UVIEWER", "I cannot write")
	if res.CommentID != nil || !strings.HasPrefix(res.Outcome, "refused: ") {
		t.Fatalf("viewer %+v", res)
	}
	if n := len(comments()); n != 2 {
		t.Fatalf("%d comments", n)
	}
	if n := f.count(t, `SELECT count(*) FROM chat_events WHERE event_id IN ('Ev101','Ev102','Ev103') AND outcome IS NOT NULL`); n != 3 {
		t.Fatalf("%d outcomes recorded", n)
	}
}
