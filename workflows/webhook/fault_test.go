package webhookwf

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/webhook"
	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/internal/safehttp"
	"tracker/store"
	"tracker/store/storetest"
	"tracker/store/webhookdb"
	"tracker/workflows/workflowtest"
)

// TestFaultReceiverDownSixHours: a receiver down for six hours (every
// connection closed unanswered), then answering 410 Gone, under the
// production retry schedule in Temporal's time-skipping test environment
// with the real activities, database and HTTP. The attempts come at the
// schedule's offsets (0, 5 s, 5 min, 30 min, 2 h, 5 h: six while it is
// down; the next, at 10 h, meets the 410), the 410 switches the webhook
// off, and the delivery log holds every attempt, once, with its outcome.
func TestFaultReceiverDownSixHours(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	var down atomic.Bool
	down.Store(true)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.WriteHeader(http.StatusGone)
	}))
	t.Cleanup(rcv.Close)
	org, hook := newOrgHook(t, db, rcv.URL, domain.EventTicketCreated)
	emit(t, db, org, domain.EventTicketCreated)
	var event uuid.UUID
	if err := db.Q().QueryRow(context.Background(), `SELECT id FROM outbox WHERE org_id = $1`, org).Scan(&event); err != nil {
		t.Fatal(err)
	}

	const outage = 6 * time.Hour
	real := &acts.Activities{DB: db, HTTP: safehttp.NewClient(true, webhook.AttemptTimeout)}
	env := workflowtest.NewEnv(t)
	env.RegisterWorkflowWithOptions(WebhookDelivery, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterActivity(real)
	var start time.Time
	var at []time.Duration
	// The receiver's state follows the test clock: each attempt is made as
	// the clock stands when the workflow schedules it.
	env.RegisterActivityWithOptions(func(ctx context.Context, in acts.DeliverInput) (acts.DeliverResult, error) {
		if in.Attempt == 1 {
			start = env.Now()
		}
		at = append(at, env.Now().Sub(start))
		down.Store(env.Now().Sub(start) < outage)
		return real.DeliverWebhook(ctx, in)
	}, activity.RegisterOptions{Name: "DeliverWebhook"})
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{OrgID: org, WebhookID: hook.ID, EventID: event, EventType: domain.EventTicketCreated})

	r := result(t, env)
	if r.Outcome != acts.OutcomeGone || !r.Disabled || r.StatusCode != http.StatusGone {
		t.Fatalf("result %+v", r)
	}
	var want []time.Duration
	for _, off := range webhook.RetrySchedule {
		want = append(want, off)
		if off >= outage {
			break
		}
	}
	if len(at) != len(want) || r.Attempts != len(want) {
		t.Fatalf("attempts at %v (%d), want %v", at, r.Attempts, want)
	}
	for i, w := range want {
		if d := at[i] - w; d < 0 || d > time.Second {
			t.Errorf("attempt %d at %v, want %v", i+1, at[i], w)
		}
	}

	// The delivery log: one row per attempt, each finished, under the one
	// delivery id; the down ones without a status and with the error, the
	// last one 410.
	page, err := webhookdb.ListDeliveries(context.Background(), db.Q(), org, hook.ID, store.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	f := faultFigures{attempted: len(at), retried: len(at) - 1}
	seen := map[int]bool{}
	for _, d := range page.Items {
		if seen[d.Attempt] {
			f.duplicated++
		}
		seen[d.Attempt] = true
		if d.FinishedAt == nil || d.DeliveryKey != webhook.DeliveryKey(event, hook.ID) {
			t.Errorf("attempt %d: not finished, or under another delivery id: %+v", d.Attempt, d)
			continue
		}
		last := d.Attempt == len(want)
		switch {
		case last && (d.StatusCode == nil || *d.StatusCode != http.StatusGone):
			t.Errorf("attempt %d: %+v, want 410", d.Attempt, d)
		case !last && (d.StatusCode != nil || d.Error == nil):
			t.Errorf("attempt %d while the receiver was down: %+v, want no status and an error", d.Attempt, d)
		default:
			f.succeeded++
		}
	}
	for n := 1; n <= len(at); n++ {
		if !seen[n] {
			f.lost++
		}
	}
	after, err := webhookdb.Get(context.Background(), db.Q(), org, hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Active || after.DisabledAt == nil || after.DisabledReason == nil {
		t.Errorf("webhook after the 410: %+v", after)
	}
	f.recovery = at[len(at)-1] - outage
	t.Log(f.line("receiver down 6 h"))
	if f.lost != 0 || f.duplicated != 0 || f.succeeded != f.attempted {
		t.Errorf("%+v", f)
	}
}

// faultFigures is the fault suite's line of figures (e2e prints the same).
type faultFigures struct {
	attempted, succeeded, retried, lost, duplicated int
	recovery                                        time.Duration
}

func (f faultFigures) line(name string) string {
	return fmt.Sprintf("FAULT %-26s attempted=%d succeeded=%d retried=%d lost=%d duplicated=%d recovery=%s (test clock: from the receiver's return to the next attempt)",
		name, f.attempted, f.succeeded, f.retried, f.lost, f.duplicated, f.recovery)
}
