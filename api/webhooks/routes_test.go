package webhooks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"tracker/store"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/webhooks"
	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store/webhookdb"
)

func setup(t *testing.T) (*apitest.Env, apitest.User) {
	t.Helper()
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{webhooks.New(webhook.New(e.DB, e.Clock))}
	}})
	return env, env.Register("Owner")
}

func create(t *testing.T, env *apitest.Env, u apitest.User, url string, types ...string) map[string]any {
	t.Helper()
	if len(types) == 0 {
		types = []string{"ticket.created"}
	}
	return env.Do("POST", "/api/v1/orgs/"+u.OrgID.String()+"/webhooks", u.Token,
		map[string]any{"url": url, "event_types": types}).Expect(t, 201).Map(t)
}

func TestCreateAndRead(t *testing.T) {
	t.Parallel()
	env, owner := setup(t)
	org := owner.OrgID.String()

	w := create(t, env, owner, "https://hooks.example.com/in", "ticket.created", "comment.created", "ticket.created")
	secret, _ := w["secret"].(string)
	if !strings.HasPrefix(secret, webhook.SecretPrefix) || w["active"] != true || w["org_id"] != org ||
		w["url"] != "https://hooks.example.com/in" || len(w["event_types"].([]any)) != 2 || w["created_at"] == nil || w["updated_at"] == nil {
		t.Fatalf("created %v", w)
	}
	id := w["id"].(string)

	got := env.Do("GET", "/api/v1/webhooks/"+id, owner.Token, nil).Expect(t, 200).Map(t)
	if _, has := got["secret"]; has || got["id"] != id {
		t.Fatalf("get %v", got)
	}
	list := env.Do("GET", "/api/v1/orgs/"+org+"/webhooks", owner.Token, nil).Expect(t, 200)
	if strings.Contains(string(list.Body), "secret") || strings.Contains(string(list.Body), "whsec_") {
		t.Fatalf("list shows the secret: %s", list.Body)
	}

	// Pagination.
	create(t, env, owner, "https://a.example.com")
	create(t, env, owner, "https://b.example.com")
	var p struct {
		Items      []map[string]any `json:"items"`
		NextCursor *string          `json:"next_cursor"`
		HasMore    bool             `json:"has_more"`
	}
	env.Do("GET", "/api/v1/orgs/"+org+"/webhooks?limit=2", owner.Token, nil).Expect(t, 200).Decode(t, &p)
	if len(p.Items) != 2 || !p.HasMore || p.NextCursor == nil || p.Items[0]["id"] != id {
		t.Fatalf("page 1 %+v", p)
	}
	env.Do("GET", "/api/v1/orgs/"+org+"/webhooks?limit=2&cursor="+*p.NextCursor, owner.Token, nil).Expect(t, 200).Decode(t, &p)
	if len(p.Items) != 1 || p.HasMore || p.NextCursor != nil {
		t.Fatalf("page 2 %+v", p)
	}

	// Delete.
	env.Do("DELETE", "/api/v1/webhooks/"+id, owner.Token, nil).Expect(t, 204)
	env.Do("GET", "/api/v1/webhooks/"+id, owner.Token, nil).Expect(t, 404)
	env.Do("DELETE", "/api/v1/webhooks/"+id, owner.Token, nil).Expect(t, 404)
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	env, owner := setup(t)
	path := "/api/v1/orgs/" + owner.OrgID.String() + "/webhooks"
	tests := []struct {
		name   string
		body   any
		status int
		field  string
	}{
		{"missing url", map[string]any{"event_types": []string{"ticket.created"}}, 422, "url"},
		{"not a url", map[string]any{"url": "not a url", "event_types": []string{"ticket.created"}}, 422, "url"},
		{"ftp", map[string]any{"url": "ftp://x.example.com", "event_types": []string{"ticket.created"}}, 422, "url"},
		{"missing types", map[string]any{"url": "https://x.example.com"}, 422, "event_types"},
		{"empty types", map[string]any{"url": "https://x.example.com", "event_types": []string{}}, 422, "event_types"},
		{"unknown type", map[string]any{"url": "https://x.example.com", "event_types": []string{"ticket.deleted"}}, 422, "event_types"},
		{"wrong type", map[string]any{"url": "https://x.example.com", "event_types": "ticket.created"}, 422, "event_types"},
		{"malformed", "{", 400, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := env.Do("POST", path, owner.Token, tc.body).Expect(t, tc.status)
			if tc.field != "" && !strings.Contains(strings.Join(r.Error().Details, ";"), tc.field) {
				t.Fatalf("details %v do not name %s", r.Error().Details, tc.field)
			}
		})
	}
}

// seedDelivery records a finished attempt for the webhook.
func seedDelivery(t *testing.T, env *apitest.Env, org, hook uuid.UUID) webhookdb.Delivery {
	t.Helper()
	ctx := context.Background()
	event := domain.NewID()
	// The event itself, as the change that caused it wrote it.
	if err := store.InsertOutbox(ctx, env.DB.Q(), store.OutboxRow{ID: event, OrgID: org, Topic: "ticket.created",
		Payload: []byte(`{"type":"ticket.created"}`), CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	d, err := webhookdb.StartAttempt(ctx, env.DB.Q(), webhookdb.Delivery{ID: domain.NewID(), OrgID: org, WebhookID: hook,
		EventID: event, EventType: "ticket.created", DeliveryKey: webhook.DeliveryKey(event, hook), Attempt: 1, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	code, msg, excerpt := 500, "receiver answered 500", "boom"
	if err := webhookdb.FinishAttempt(ctx, env.DB.Q(), org, d.ID, webhookdb.Outcome{StatusCode: &code, DurationMS: 12,
		Error: &msg, ResponseExcerpt: &excerpt, FinishedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDeliveriesAndRedeliver(t *testing.T) {
	t.Parallel()
	env, owner := setup(t)
	w := create(t, env, owner, "https://hooks.example.com/in")
	hook := uuid.MustParse(w["id"].(string))
	d := seedDelivery(t, env, owner.OrgID, hook)

	var page struct {
		Items   []map[string]any `json:"items"`
		HasMore bool             `json:"has_more"`
	}
	env.Do("GET", "/api/v1/webhooks/"+hook.String()+"/deliveries", owner.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 1 {
		t.Fatalf("deliveries %+v", page)
	}
	got := page.Items[0]
	for k, v := range map[string]any{"id": d.ID.String(), "event_id": d.EventID.String(), "event_type": "ticket.created",
		"attempt": 1.0, "status_code": 500.0, "duration_ms": 12.0, "error": "receiver answered 500",
		"response_excerpt": "boom", "succeeded": false, "delivery_id": d.DeliveryKey.String(), "webhook_id": hook.String()} {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if got["created_at"] == nil || got["finished_at"] == nil {
		t.Errorf("timestamps %v", got)
	}

	path := "/api/v1/webhooks/" + hook.String() + "/deliveries/" + d.ID.String() + "/redeliver"
	for n := 1; n <= 2; n++ {
		r := env.Do("POST", path, owner.Token, nil).Expect(t, 202).Map(t)
		if r["workflow_id"] != webhook.RedeliveryWorkflowID(d.EventID, hook, n) || r["status"] != "queued" {
			t.Fatalf("redeliver %d: %v", n, r)
		}
	}
	var jobs []json.RawMessage
	rows, _ := env.DB.Q().Query(context.Background(), `SELECT payload FROM outbox WHERE topic = $1 ORDER BY id`, webhook.TopicRedeliver)
	for rows.Next() {
		var b []byte
		_ = rows.Scan(&b)
		jobs = append(jobs, b)
	}
	rows.Close()
	if len(jobs) != 2 {
		t.Fatalf("%d redelivery jobs in the outbox", len(jobs))
	}
	var job webhook.RedeliverJob
	_ = json.Unmarshal(jobs[1], &job)
	if job.Redelivery != 2 || job.EventID != d.EventID || job.WebhookID != hook || job.OrgID != owner.OrgID {
		t.Fatalf("job %+v", job)
	}

	env.Do("POST", "/api/v1/webhooks/"+hook.String()+"/deliveries/"+uuid.NewString()+"/redeliver", owner.Token, nil).Expect(t, 404)
	// An event past the outbox retention can no longer be redelivered.
	pruned := seedDelivery(t, env, owner.OrgID, hook)
	if _, err := env.DB.Pool.Exec(context.Background(), "DELETE FROM outbox WHERE id = $1", pruned.EventID); err != nil {
		t.Fatal(err)
	}
	r := env.Do("POST", "/api/v1/webhooks/"+hook.String()+"/deliveries/"+pruned.ID.String()+"/redeliver", owner.Token, nil).Expect(t, 404)
	if !strings.Contains(r.Error().Message, "event") {
		t.Fatalf("404 should name the event: %s", r.Body)
	}
	if err := webhookdb.Disable(context.Background(), env.DB.Q(), owner.OrgID, hook, "test", time.Now()); err != nil {
		t.Fatal(err)
	}
	env.Do("POST", path, owner.Token, nil).Expect(t, 409)
	if g := env.Do("GET", "/api/v1/webhooks/"+hook.String(), owner.Token, nil).Expect(t, 200).Map(t); g["active"] != false {
		t.Fatalf("disabled webhook shows %v", g)
	}
}

func TestAccess(t *testing.T) {
	t.Parallel()
	env, owner := setup(t)
	w := create(t, env, owner, "https://hooks.example.com/in")
	hook := uuid.MustParse(w["id"].(string))
	d := seedDelivery(t, env, owner.OrgID, hook)
	stranger := env.Register("Stranger")
	admin := env.Member(owner, "admin")
	org := owner.OrgID.String()
	routes := []struct{ method, path string }{
		{"POST", "/api/v1/orgs/" + org + "/webhooks"},
		{"GET", "/api/v1/orgs/" + org + "/webhooks"},
		{"GET", "/api/v1/webhooks/" + hook.String()},
		{"GET", "/api/v1/webhooks/" + hook.String() + "/deliveries"},
		{"POST", "/api/v1/webhooks/" + hook.String() + "/deliveries/" + d.ID.String() + "/redeliver"},
		{"DELETE", "/api/v1/webhooks/" + hook.String()},
	}
	body := map[string]any{"url": "https://x.example.com", "event_types": []string{"ticket.created"}}
	t.Run("non-member 404", func(t *testing.T) {
		for _, r := range routes {
			if got := env.Do(r.method, r.path, stranger.Token, body); got.Status != 404 {
				t.Errorf("%s %s: %d", r.method, r.path, got.Status)
			}
		}
	})
	for _, role := range []string{"viewer", "member"} {
		u := env.Member(owner, role)
		t.Run(role+" 403", func(t *testing.T) {
			for _, r := range routes {
				got := env.Do(r.method, r.path, u.Token, body)
				if got.Status != 403 || !strings.Contains(got.Error().Message, "Admin") {
					t.Errorf("%s %s: %d %s", r.method, r.path, got.Status, got.Body)
				}
			}
		})
	}
	t.Run("unauthenticated 401", func(t *testing.T) {
		env.Do("GET", "/api/v1/webhooks/"+hook.String(), "", nil).Expect(t, 401)
	})
	t.Run("unknown and malformed ids 404", func(t *testing.T) {
		env.Do("GET", "/api/v1/webhooks/"+uuid.NewString(), owner.Token, nil).Expect(t, 404)
		env.Do("GET", "/api/v1/webhooks/nope", owner.Token, nil).Expect(t, 404)
		env.Do("GET", "/api/v1/webhooks/"+hook.String()+"/deliveries?limit=0", owner.Token, nil).Expect(t, 422)
	})
	t.Run("another admin may act", func(t *testing.T) {
		env.Do("GET", "/api/v1/webhooks/"+hook.String()+"/deliveries", admin.Token, nil).Expect(t, 200)
		env.Do("DELETE", "/api/v1/webhooks/"+hook.String(), admin.Token, nil).Expect(t, 204)
		var n int
		_ = env.DB.Q().QueryRow(context.Background(), `SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1`, hook).Scan(&n)
		if n != 0 {
			t.Fatalf("%d delivery rows left after delete", n)
		}
	})
}
