package chat_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	chatapi "tracker/api/chat"
	"tracker/api/tickets"
	"tracker/domain"
	"tracker/domain/chat"
	"tracker/domain/search"
	"tracker/domain/testfactory"
	"tracker/domain/ticket"
)

// setup is apitest's world with tickets and chat notifications mounted
// (chat's default channel given) and ABC-1 "Login <!channel>" in the
// owner's org; it returns the Owner, the Viewer, the Outsider and the
// ticket's id.
func setup(t *testing.T, defaultChannel string) (*apitest.Env, apitest.User, apitest.User, apitest.User, uuid.UUID) {
	t.Helper()
	w := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{tickets.New(ticket.New(e.DB, e.Clock), search.New(e.DB, e.Clock)),
			chatapi.New(chat.New(e.DB, domain.SystemClock{}, chat.Config{DefaultChannel: defaultChannel}))}
	}})
	project := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "ABC", Name: "P"})
	tk := testfactory.Ticket(t, w.Env.DB, project, w.Owner.ID, testfactory.TicketOpts{Title: "Login <!channel>"})
	return w.Env, w.Owner, w.Viewer, w.Outsider, tk.ID
}

func TestNotifyQueuesThroughTheOutbox(t *testing.T) {
	t.Parallel()
	env, owner, viewer, outsider, tk := setup(t, "")
	body := map[string]any{"notification_type": "status_change", "ticket_id": tk, "old_status": "Todo", "new_status": "Done", "actor_name": "Ada"}
	// No channel, no mapping, no default → 422.
	env.Do("POST", "/api/v1/integrations/chat/notify", owner.Token, body).Expect(t, 422)
	env.Do("POST", "/api/v1/integrations/chat/notify", viewer.Token, body).Expect(t, 403)
	env.Do("POST", "/api/v1/integrations/chat/notify", outsider.Token, body).Expect(t, 404)
	env.Do("POST", "/api/v1/integrations/chat/notify", owner.Token, map[string]any{"notification_type": "fax", "ticket_id": tk}).Expect(t, 422)

	// A mapping sends it into the thread.
	m := env.Do("POST", "/api/v1/integrations/chat/thread-mappings", owner.Token, map[string]any{"ticket_id": tk, "channel_id": "C9", "thread_ts": "1700000000.000100"}).Expect(t, 201).Map(t)
	if m["channel_id"] != "C9" || m["ticket_id"] != tk.String() {
		t.Fatalf("mapping %v", m)
	}
	env.Do("POST", "/api/v1/integrations/chat/thread-mappings", owner.Token, map[string]any{"ticket_id": tk, "channel_id": "C9", "thread_ts": "1700000000.000100"}).Expect(t, 409)
	env.Do("POST", "/api/v1/integrations/chat/thread-mappings", viewer.Token, map[string]any{"ticket_id": tk, "channel_id": "C9", "thread_ts": "1.2"}).Expect(t, 403)
	list := env.Do("GET", "/api/v1/tickets/"+tk.String()+"/thread-mappings", viewer.Token, nil).Expect(t, 200).Map(t)
	if len(list["items"].([]any)) != 1 {
		t.Fatalf("list %v", list)
	}
	env.Do("GET", "/api/v1/tickets/"+tk.String()+"/thread-mappings", outsider.Token, nil).Expect(t, 404)

	q := env.Do("POST", "/api/v1/integrations/chat/notify", owner.Token, body).Expect(t, 202).Map(t)
	if q["status"] != "queued" || q["notification_type"] != "status_change" {
		t.Fatalf("queued %v", q)
	}
	id := q["id"].(string)
	var n int
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE topic = $1 AND payload->>'notification_id' = $2`, chat.TopicNotify, id).Scan(&n); err != nil || n != 1 {
		t.Fatalf("outbox rows %d %v", n, err)
	}
	rec := env.Do("GET", "/api/v1/integrations/chat/notifications/"+id, viewer.Token, nil).Expect(t, 200).Map(t)
	want := "*ABC-1* Login &lt;!channel&gt; moved from *Todo* to *Done* by Ada"
	if rec["status"] != "queued" || rec["channel_id"] != "C9" || rec["thread_ts"] != "1700000000.000100" || rec["text"] != want {
		t.Fatalf("record %v", rec)
	}
	env.Do("GET", "/api/v1/integrations/chat/notifications/"+id, outsider.Token, nil).Expect(t, 404)
}

func TestNotifyDefaultChannelAndSubscriptions(t *testing.T) {
	t.Parallel()
	env, owner, viewer, _, tk := setup(t, "CDEF")
	q := env.Do("POST", "/api/v1/integrations/chat/notify", owner.Token, map[string]any{"notification_type": "mention", "ticket_id": tk, "user_slack_id": "U1"}).Expect(t, 202).Map(t)
	rec := env.Do("GET", "/api/v1/integrations/chat/notifications/"+q["id"].(string), owner.Token, nil).Expect(t, 200).Map(t)
	if rec["channel_id"] != "CDEF" || rec["thread_ts"] != nil {
		t.Fatalf("record %v", rec)
	}
	path := "/api/v1/orgs/" + owner.OrgID.String() + "/integrations/chat/subscriptions"
	env.Do("PUT", path, viewer.Token, map[string]any{"channel_id": "C1", "event_types": []string{"ticket.created"}}).Expect(t, 403)
	env.Do("PUT", path, owner.Token, map[string]any{"channel_id": "C1", "event_types": []string{"nope"}}).Expect(t, 422)
	env.Do("PUT", path, owner.Token, map[string]any{"channel_id": "C1", "event_types": []string{"ticket.created", "ticket.status_changed"}}).Expect(t, 200)
	// The relay's hook: a status_changed event queues one notification per
	// subscribed channel, the same ids when offered again.
	svc := chat.New(env.DB, domain.SystemClock{}, chat.Config{})
	env.Do("POST", "/api/v1/tickets/"+tk.String()+"/transition", owner.Token, map[string]any{"to_status": "Done"}).Expect(t, 200)
	var evID uuid.UUID
	var payload []byte
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT id, payload::text::bytea FROM outbox WHERE topic = 'ticket.status_changed'`).Scan(&evID, &payload); err != nil {
		t.Fatal(err)
	}
	ids, err := svc.QueueForEvent(context.Background(), evID, owner.OrgID, payload)
	again, _ := svc.QueueForEvent(context.Background(), evID, owner.OrgID, payload)
	if err != nil || len(ids) != 1 || len(again) != 1 || ids[0] != again[0] {
		t.Fatalf("queued %v %v %v", ids, again, err)
	}
	rec = env.Do("GET", "/api/v1/integrations/chat/notifications/"+ids[0].String(), owner.Token, nil).Expect(t, 200).Map(t)
	if rec["channel_id"] != "C1" || rec["text"] != "*ABC-1* Login &lt;!channel&gt; moved from *Backlog* to *Done*" {
		t.Fatalf("auto %v", rec)
	}
	// Assignment: a ticket.updated that changed the assignee, named.
	env.Do("PUT", path, owner.Token, map[string]any{"channel_id": "C2", "event_types": []string{"ticket.assigned"}}).Expect(t, 200)
	env.Do("PATCH", "/api/v1/tickets/"+tk.String(), owner.Token, map[string]any{"title": "Login <!channel> broken"}).Expect(t, 200)
	env.Do("PATCH", "/api/v1/tickets/"+tk.String(), owner.Token, map[string]any{"assignee_id": owner.ID}).Expect(t, 200)
	rows, err := env.DB.Pool.Query(context.Background(), `SELECT id, payload::text::bytea FROM outbox WHERE topic = 'ticket.updated' ORDER BY created_at, id`)
	if err != nil {
		t.Fatal(err)
	}
	var queued [][]uuid.UUID
	for rows.Next() {
		if err := rows.Scan(&evID, &payload); err != nil {
			t.Fatal(err)
		}
		ids, err := svc.QueueForEvent(context.Background(), evID, owner.OrgID, payload)
		if err != nil {
			t.Fatal(err)
		}
		queued = append(queued, ids)
	}
	rows.Close()
	if len(queued) != 2 || len(queued[0]) != 0 || len(queued[1]) != 1 {
		t.Fatalf("assignment notifications %v", queued)
	}
	rec = env.Do("GET", "/api/v1/integrations/chat/notifications/"+queued[1][0].String(), owner.Token, nil).Expect(t, 200).Map(t)
	if rec["channel_id"] != "C2" || rec["text"] != "*ABC-1* Login &lt;!channel&gt; broken was assigned to Owner" {
		t.Fatalf("assigned %v", rec)
	}
}
