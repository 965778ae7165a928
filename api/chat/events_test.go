package chat_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"tracker/domain/chat"
)

func message(eventID, team, user, botID, subtype, channel, ts, thread, text string) []byte {
	ev := map[string]any{"type": "message", "user": user, "text": text, "channel": channel, "ts": ts}
	if thread != "" {
		ev["thread_ts"] = thread
	}
	if botID != "" {
		ev["bot_id"] = botID
	}
	if subtype != "" {
		ev["subtype"] = subtype
	}
	b, _ := json.Marshal(map[string]any{"type": "event_callback", "team_id": team, "event_id": eventID, "event": ev})
	return b
}

func TestEventsQueueThreadRepliesOnce(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	path := "/api/v1/integrations/chat/events"
	send := func(body []byte) map[string]any {
		t.Helper()
		return f.post(t, path, "application/json", body, time.Now(), nil).Expect(t, 200).Map(t)
	}
	if r := send([]byte(`{"token":"x","type":"url_verification","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}`)); r["challenge"] != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" || r["status"] != "ok" {
		t.Fatalf("url_verification %v", r)
	}
	f.post(t, path, "application/json", []byte(`{"type":`), time.Now(), nil).Expect(t, 400)
	f.env.Do("POST", "/api/v1/integrations/chat/thread-mappings", f.owner.Token, map[string]any{"ticket_id": f.ticket.ID,
		"channel_id": "C5", "thread_ts": "1700000000.000100"}).Expect(t, 201)

	reply := message("Ev01", "T1", "U1", "", "", "C5", "1700000005.000200", "1700000000.000100", "Repro on <Safari>")
	if r := send(reply); r["status"] != "queued" {
		t.Fatalf("reply %v", r)
	}
	if r := send(reply); r["status"] != "duplicate" { // Slack's retry
		t.Fatalf("retry %v", r)
	}
	var job chat.ReplyJob
	var payload []byte
	if n := f.count(t, `SELECT count(*) FROM outbox WHERE topic = $1`, chat.TopicReplyComment); n != 1 {
		t.Fatalf("%d reply jobs", n)
	}
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT payload::text::bytea FROM outbox WHERE topic = $1`, chat.TopicReplyComment).Scan(&payload); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(payload, &job); err != nil || job.TicketID != f.ticket.ID || job.OrgID != f.owner.OrgID ||
		job.SlackUserID != "U1" || job.Text != "Repro on <Safari>" || job.EventID != "Ev01" || job.MessageTS != "1700000005.000200" {
		t.Fatalf("job %+v %v", job, err)
	}
	ignored := map[string][]byte{
		"bot":             message("Ev02", "T1", "U1", "B1", "", "C5", "1700000006.000200", "1700000000.000100", "bot says"),
		"bot_message":     message("Ev03", "T1", "", "", "bot_message", "C5", "1700000007.000200", "1700000000.000100", "bot says"),
		"edit":            message("Ev04", "T1", "U1", "", "message_changed", "C5", "1700000008.000200", "1700000000.000100", "edited"),
		"not in a thread": message("Ev05", "T1", "U1", "", "", "C5", "1700000009.000200", "", "top level"),
		"thread root":     message("Ev06", "T1", "U1", "", "", "C5", "1700000000.000100", "1700000000.000100", "root"),
		"unmapped thread": message("Ev07", "T1", "U1", "", "", "C6", "1700000010.000200", "1700000000.000100", "elsewhere"),
		"reaction":        []byte(`{"type":"event_callback","team_id":"T1","event_id":"Ev08","event":{"type":"reaction_added","user":"U1"}}`),
	}
	for name, body := range ignored {
		if r := send(body); r["status"] != "ignored" {
			t.Errorf("%s: %v", name, r)
		}
	}
	// A workspace connected to another org does not reach this org's thread.
	f.connect(t, f.outsider, f.outsider.OrgID, "TOTHER")
	if r := send(message("Ev09", "TOTHER", "U1", "", "", "C5", "1700000011.000200", "1700000000.000100", "cross")); r["status"] != "ignored" {
		t.Fatalf("cross-org %v", r)
	}
	if n := f.count(t, `SELECT count(*) FROM outbox WHERE topic = $1`, chat.TopicReplyComment); n != 1 {
		t.Fatalf("%d reply jobs after ignored events", n)
	}
}

// A signed event whose object names a member twice (the reply's text or
// team twice: which one a reader keeps is its own choice) is refused like
// any JSON body: 422, nothing queued.
func TestEventsWithDuplicateNamesQueueNothing(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	f.env.Do("POST", "/api/v1/integrations/chat/thread-mappings", f.owner.Token, map[string]any{"ticket_id": f.ticket.ID,
		"channel_id": "C5", "thread_ts": "1700000000.000100"}).Expect(t, 201)
	reply := string(message("Ev01", "T1", "U1", "", "", "C5", "1700000005.000200", "1700000000.000100", "Repro"))
	for _, body := range []string{
		strings.Replace(reply, `"text":"Repro"`, `"text":"Repro","text":"something else"`, 1),
		strings.Replace(reply, `"team_id":"T1"`, `"team_id":"TOTHER","team_id":"T1"`, 1),
	} {
		if body == reply {
			t.Fatalf("no duplicate made in %s", reply)
		}
		r := f.post(t, "/api/v1/integrations/chat/events", "application/json", []byte(body), time.Now(), nil)
		if r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	if n := f.count(t, `SELECT count(*) FROM outbox WHERE topic = $1`, chat.TopicReplyComment); n != 0 {
		t.Fatalf("%d reply jobs", n)
	}
}
