package webhookact

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/domain/webhook"
	"tracker/internal/safehttp"
	"tracker/store"
	"tracker/store/storetest"
	"tracker/store/webhookdb"
)

// receiver is a webhook endpoint on 127.0.0.1 answering with status().
type receiver struct {
	*httptest.Server
	hits   atomic.Int32
	mu     sync.Mutex
	last   *http.Request
	body   []byte
	status func() int
}

func newReceiver(t *testing.T, status int) *receiver {
	r := &receiver{status: func() int { return status }}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.last, r.body = req, b
		r.mu.Unlock()
		r.hits.Add(1)
		if s := r.status(); s >= 300 && s < 400 {
			w.Header().Set("Location", r.URL+"/elsewhere")
			w.WriteHeader(s)
			return
		} else {
			w.WriteHeader(s)
		}
		_, _ = w.Write([]byte("answer " + strings.Repeat("x", 2000)))
	}))
	t.Cleanup(r.Close)
	return r
}

type fixture struct {
	db    *store.DB
	org   uuid.UUID
	hook  webhookdb.Row
	event uuid.UUID
}

// setupHook makes an org, a webhook to url and one ticket.created event.
func setupHook(t *testing.T, db *store.DB, url string) fixture {
	t.Helper()
	ctx := context.Background()
	f := fixture{db: db, org: testfactory.Org(t, db, uuid.Nil, testfactory.OrgOpts{}).ID}
	now := time.Now().UTC()
	f.hook = webhookdb.Row{ID: domain.NewID(), OrgID: f.org, URL: url, Secret: webhook.NewSecret(),
		EventTypes: []string{domain.EventTicketCreated}, Active: true, CreatedAt: now, UpdatedAt: now}
	if err := webhookdb.Insert(ctx, db.Q(), f.hook); err != nil {
		t.Fatal(err)
	}
	err := db.InTx(ctx, func(q store.Querier) error {
		return domain.Record(ctx, q, domain.Change{At: time.Now(), OrgID: f.org, EntityType: "ticket", EntityID: domain.NewID(),
			Action: "created", Events: []string{domain.EventTicketCreated}, Data: map[string]any{"title": "Hello"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Q().QueryRow(ctx, `SELECT id FROM outbox WHERE org_id = $1`, f.org).Scan(&f.event); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) input(attempt int) DeliverInput {
	return DeliverInput{OrgID: f.org, WebhookID: f.hook.ID, EventID: f.event, EventType: domain.EventTicketCreated, Attempt: attempt}
}

// newActivityEnv is an activity test environment that logs nowhere.
func newActivityEnv() *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	return s.NewTestActivityEnvironment()
}

func deliver(t *testing.T, a *Activities, in DeliverInput) DeliverResult {
	t.Helper()
	env := newActivityEnv()
	env.RegisterActivity(a)
	v, err := env.ExecuteActivity(a.DeliverWebhook, in)
	if err != nil {
		t.Fatalf("DeliverWebhook: %v", err)
	}
	var r DeliverResult
	if err := v.Get(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func deliveries(t *testing.T, f fixture) []webhookdb.Delivery {
	t.Helper()
	p, err := webhookdb.ListDeliveries(context.Background(), f.db.Q(), f.org, f.hook.ID, store.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func TestDeliverWebhookSignedAndRecorded(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	rcv := newReceiver(t, 200)
	f := setupHook(t, db, rcv.URL+"/hook")
	a := &Activities{DB: db, HTTP: safehttp.NewClient(true, webhook.AttemptTimeout)}

	r := deliver(t, a, f.input(1))
	if r.Outcome != OutcomeDelivered || r.StatusCode != 200 {
		t.Fatalf("result %+v", r)
	}
	rcv.mu.Lock()
	req, body := rcv.last, rcv.body
	rcv.mu.Unlock()
	if err := webhook.Verify(f.hook.Secret, req.Header, body, time.Minute, time.Now()); err != nil {
		t.Fatalf("signature: %v", err)
	}
	key := webhook.DeliveryKey(f.event, f.hook.ID).String()
	if req.Header.Get(webhook.HeaderDelivery) != key || req.Header.Get(webhook.HeaderEvent) != "ticket.created" {
		t.Fatalf("headers %v", req.Header)
	}
	var ev map[string]any
	if err := json.Unmarshal(body, &ev); err != nil {
		t.Fatal(err)
	}
	if ev["id"] != f.event.String() || ev["type"] != "ticket.created" || ev["org_id"] != f.org.String() ||
		ev["created_at"] == nil || ev["data"].(map[string]any)["title"] != "Hello" {
		t.Fatalf("payload %s", body)
	}

	ds := deliveries(t, f)
	if len(ds) != 1 {
		t.Fatalf("%d delivery rows", len(ds))
	}
	d := ds[0]
	if *d.StatusCode != 200 || d.Attempt != 1 || d.FinishedAt == nil || d.DurationMS == nil || d.Error != nil ||
		len(*d.ResponseExcerpt) != webhook.ExcerptLimit || d.DeliveryKey.String() != key {
		t.Fatalf("row %+v", d)
	}

	// The same attempt again (a replayed activity) posts nothing new.
	if r2 := deliver(t, a, f.input(1)); r2.Outcome != OutcomeDelivered || rcv.hits.Load() != 1 || len(deliveries(t, f)) != 1 {
		t.Fatalf("replayed attempt: %+v, hits %d", r2, rcv.hits.Load())
	}
}

func TestDeliverWebhookAnswers(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	tests := []struct {
		name    string
		status  int
		outcome string
		errText string
	}{
		{"server error", 500, OutcomeFailed, "receiver answered 500"},
		{"gone", 410, OutcomeGone, "receiver answered 410"},
		{"redirect not followed", 302, OutcomeFailed, "redirects are not followed"},
		{"accepted", 202, OutcomeDelivered, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rcv := newReceiver(t, tc.status)
			f := setupHook(t, db, rcv.URL)
			r := deliver(t, &Activities{DB: db, HTTP: safehttp.NewClient(true, webhook.AttemptTimeout)}, f.input(1))
			if r.Outcome != tc.outcome || r.StatusCode != tc.status || rcv.hits.Load() != 1 {
				t.Fatalf("result %+v, hits %d", r, rcv.hits.Load())
			}
			d := deliveries(t, f)[0]
			if tc.errText == "" && d.Error != nil || tc.errText != "" && (d.Error == nil || !strings.Contains(*d.Error, tc.errText)) {
				t.Fatalf("row error %v, want %q", d.Error, tc.errText)
			}
		})
	}
}

func TestDeliverWebhookRefusedAndUnreachable(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	rcv := newReceiver(t, 200)

	t.Run("private address refused at dial time", func(t *testing.T) {
		f := setupHook(t, db, rcv.URL)
		r := deliver(t, &Activities{DB: db, HTTP: safehttp.NewClient(false, webhook.AttemptTimeout)}, f.input(1))
		if r.Outcome != OutcomeFailed || rcv.hits.Load() != 0 || !strings.Contains(r.Reason, "refused") {
			t.Fatalf("result %+v, hits %d", r, rcv.hits.Load())
		}
		// localhost resolves to loopback: refused too, after resolution.
		f2 := setupHook(t, db, strings.Replace(rcv.URL, "127.0.0.1", "localhost", 1))
		if r := deliver(t, &Activities{DB: db, HTTP: safehttp.NewClient(false, webhook.AttemptTimeout)}, f2.input(1)); !strings.Contains(r.Reason, "refused") {
			t.Fatalf("localhost: %+v", r)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}))
		defer slow.Close()
		f := setupHook(t, db, slow.URL)
		c := safehttp.NewClient(true, webhook.AttemptTimeout)
		c.Timeout = 200 * time.Millisecond
		r := deliver(t, &Activities{DB: db, HTTP: c}, f.input(1))
		if r.Outcome != OutcomeFailed || !strings.Contains(r.Reason, "no answer") {
			t.Fatalf("result %+v", r)
		}
	})
	t.Run("webhook deleted or inactive", func(t *testing.T) {
		f := setupHook(t, db, rcv.URL)
		a := &Activities{DB: db, HTTP: safehttp.NewClient(true, webhook.AttemptTimeout)}
		if err := webhookdb.Disable(context.Background(), db.Q(), f.org, f.hook.ID, "test", time.Now()); err != nil {
			t.Fatal(err)
		}
		if r := deliver(t, a, f.input(1)); r.Outcome != OutcomeSkipped {
			t.Fatalf("inactive: %+v", r)
		}
		if _, err := webhookdb.Delete(context.Background(), db.Q(), f.org, f.hook.ID); err != nil {
			t.Fatal(err)
		}
		if r := deliver(t, a, f.input(2)); r.Outcome != OutcomeSkipped || rcv.hits.Load() != 0 {
			t.Fatalf("deleted: %+v", r)
		}
	})
}

func TestWebhookBooks(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	f := setupHook(t, db, "http://127.0.0.1:1/")
	a := &Activities{DB: db}
	env := newActivityEnv()
	env.RegisterActivity(a)
	ctx := context.Background()

	// A lost attempt is recorded once, and closes a row left open.
	lost := LostAttemptInput{Attempt: f.input(3), Reason: "attempt lost: worker stopped"}
	for i := 0; i < 2; i++ {
		if _, err := env.ExecuteActivity(a.RecordLostWebhookAttempt, lost); err != nil {
			t.Fatal(err)
		}
	}
	open, err := webhookdb.StartAttempt(ctx, db.Q(), f.input(4).row())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.ExecuteActivity(a.RecordLostWebhookAttempt, LostAttemptInput{Attempt: f.input(4), Reason: "lost"}); err != nil {
		t.Fatal(err)
	}
	ds := deliveries(t, f)
	if len(ds) != 2 || ds[0].Attempt != 3 || *ds[0].Error != lost.Reason || ds[0].FinishedAt == nil ||
		ds[1].ID != open.ID || ds[1].FinishedAt == nil {
		t.Fatalf("rows %+v", ds)
	}

	// Exhausted deliveries count up; the threshold switches the webhook off.
	ref := WebhookRef{OrgID: f.org, WebhookID: f.hook.ID}
	for i := 1; i <= webhook.AutoDisableAfter; i++ {
		v, err := env.ExecuteActivity(a.RecordWebhookExhausted, ref)
		if err != nil {
			t.Fatal(err)
		}
		var r ExhaustedResult
		_ = v.Get(&r)
		if r.ConsecutiveFailures != i || r.Disabled != (i == webhook.AutoDisableAfter) {
			t.Fatalf("after %d: %+v", i, r)
		}
	}
	w, _ := webhookdb.Get(ctx, db.Q(), f.org, f.hook.ID)
	if w.Active || w.DisabledReason == nil || !strings.Contains(*w.DisabledReason, "in a row") || w.FailingSince == nil {
		t.Fatalf("webhook %+v", w)
	}

	// A webhook deleted while its delivery runs leaves nothing to record.
	if _, err := webhookdb.Delete(ctx, db.Q(), f.org, f.hook.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.ExecuteActivity(a.RecordLostWebhookAttempt, LostAttemptInput{Attempt: f.input(5), Reason: "lost"}); err != nil {
		t.Fatalf("lost attempt of a deleted webhook: %v", err)
	}
	if _, err := env.ExecuteActivity(a.RecordWebhookExhausted, ref); err != nil {
		t.Fatalf("exhausted delivery of a deleted webhook: %v", err)
	}
}
