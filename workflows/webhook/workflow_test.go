package webhookwf

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/webhook"
	"tracker/domain/webhook"
	"tracker/workflows/workflowtest"
)

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	env := workflowtest.NewEnv(t)
	env.RegisterWorkflowWithOptions(WebhookDelivery, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterActivity(&acts.Activities{})
	return env
}

func deliveryInput() WebhookDeliveryInput {
	return WebhookDeliveryInput{OrgID: uuid.New(), WebhookID: uuid.New(), EventID: uuid.New(), EventType: "ticket.created"}
}

// attempts mocks DeliverWebhook with answer(n) for the n-th attempt and
// records when (test clock, relative to the start) each attempt ran.
func attempts(env *testsuite.TestWorkflowEnvironment, answer func(n int) (acts.DeliverResult, error)) *[]time.Duration {
	var at []time.Duration
	var start time.Time
	env.OnActivity(wh.DeliverWebhook, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in acts.DeliverInput) (acts.DeliverResult, error) {
			if in.Attempt == 1 {
				start = env.Now()
			}
			if in.Attempt != len(at)+1 {
				return acts.DeliverResult{}, errors.New("attempt numbers out of order")
			}
			at = append(at, env.Now().Sub(start))
			return answer(in.Attempt)
		})
	return &at
}

func failed(int) (acts.DeliverResult, error) {
	return acts.DeliverResult{Outcome: acts.OutcomeFailed, StatusCode: 500}, nil
}

func result(t *testing.T, env *testsuite.TestWorkflowEnvironment) WebhookDeliveryResult {
	t.Helper()
	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var r WebhookDeliveryResult
	if err := env.GetWorkflowResult(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestWebhookDeliveryRetrySchedule(t *testing.T) {
	env := newEnv(t)
	at := attempts(env, failed)
	env.OnActivity(wh.RecordWebhookExhausted, mock.Anything, mock.Anything).Return(acts.ExhaustedResult{ConsecutiveFailures: 1}, nil).Once()
	env.ExecuteWorkflow(WebhookDelivery, deliveryInput())

	r := result(t, env)
	if r.Outcome != OutcomeExhausted || r.Attempts != 10 || r.Disabled {
		t.Fatalf("result %+v", r)
	}
	want := []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
		5 * time.Hour, 10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	if len(*at) != len(want) {
		t.Fatalf("attempts at %v", *at)
	}
	for i, w := range want {
		// The test clock moves by whole timers; allow for the activity's own time.
		if d := (*at)[i] - w; d < 0 || d > time.Second {
			t.Errorf("attempt %d at %v, want %v", i+1, (*at)[i], w)
		}
	}
}

func TestWebhookDeliveryRetryThenSuccess(t *testing.T) {
	env := newEnv(t)
	at := attempts(env, func(n int) (acts.DeliverResult, error) {
		if n == 1 {
			return failed(n)
		}
		return acts.DeliverResult{Outcome: acts.OutcomeDelivered, StatusCode: 200}, nil
	})
	env.ExecuteWorkflow(WebhookDelivery, deliveryInput())
	r := result(t, env)
	if r.Outcome != acts.OutcomeDelivered || r.Attempts != 2 || r.StatusCode != 200 {
		t.Fatalf("result %+v", r)
	}
	if (*at)[1] < 5*time.Second || (*at)[1] > 6*time.Second {
		t.Fatalf("second attempt at %v", (*at)[1])
	}
}

func TestWebhookDeliveryGoneDisables(t *testing.T) {
	env := newEnv(t)
	in := deliveryInput()
	attempts(env, func(int) (acts.DeliverResult, error) {
		return acts.DeliverResult{Outcome: acts.OutcomeGone, StatusCode: 410}, nil
	})
	env.OnActivity(wh.DisableWebhook, mock.Anything, mock.MatchedBy(func(d acts.DisableInput) bool {
		return d.WebhookID == in.WebhookID && d.OrgID == in.OrgID && strings.Contains(d.Reason, "410")
	})).Return(nil).Once()
	env.ExecuteWorkflow(WebhookDelivery, in)
	r := result(t, env)
	if r.Outcome != acts.OutcomeGone || r.Attempts != 1 || !r.Disabled {
		t.Fatalf("result %+v", r)
	}
}

func TestWebhookDeliveryLostAttemptGoesOn(t *testing.T) {
	env := newEnv(t)
	in := deliveryInput()
	// Attempt 1 never reports back (its worker crashed); the workflow
	// records it as lost and attempt 2 runs on schedule.
	at := attempts(env, func(n int) (acts.DeliverResult, error) {
		if n == 1 {
			return acts.DeliverResult{}, errors.New("worker crashed")
		}
		return acts.DeliverResult{Outcome: acts.OutcomeDelivered, StatusCode: 204}, nil
	})
	env.OnActivity(wh.RecordLostWebhookAttempt, mock.Anything, mock.MatchedBy(func(l acts.LostAttemptInput) bool {
		return l.Attempt.Attempt == 1 && l.Attempt.EventID == in.EventID && strings.Contains(l.Reason, "worker crashed")
	})).Return(nil).Once()
	env.ExecuteWorkflow(WebhookDelivery, in)
	r := result(t, env)
	if r.Outcome != acts.OutcomeDelivered || r.Attempts != 2 || len(*at) != 2 {
		t.Fatalf("result %+v, attempts %v", r, *at)
	}
}

func TestWebhookDeliverySkippedStops(t *testing.T) {
	env := newEnv(t)
	attempts(env, func(int) (acts.DeliverResult, error) {
		return acts.DeliverResult{Outcome: acts.OutcomeSkipped, Reason: "webhook deleted"}, nil
	})
	env.ExecuteWorkflow(WebhookDelivery, deliveryInput())
	if r := result(t, env); r.Outcome != acts.OutcomeSkipped || r.Attempts != 1 {
		t.Fatalf("result %+v", r)
	}
}

func TestWebhookRedeliveryOneAttemptNotCounted(t *testing.T) {
	env := newEnv(t)
	in := deliveryInput()
	in.Redelivery, in.Schedule = 2, []time.Duration{0}
	at := attempts(env, failed)
	env.ExecuteWorkflow(WebhookDelivery, in) // no RecordWebhookExhausted expected: AssertExpectations fails otherwise
	if r := result(t, env); r.Outcome != OutcomeExhausted || r.Attempts != 1 || len(*at) != 1 {
		t.Fatalf("result %+v", r)
	}
}

func TestWebhookDeliveryAutoDisabled(t *testing.T) {
	env := newEnv(t)
	in := deliveryInput()
	in.Schedule = webhook.ScaledSchedule(0.001)
	attempts(env, failed)
	env.OnActivity(wh.RecordWebhookExhausted, mock.Anything, acts.WebhookRef{OrgID: in.OrgID, WebhookID: in.WebhookID}).
		Return(acts.ExhaustedResult{ConsecutiveFailures: webhook.AutoDisableAfter, Disabled: true}, nil).Once()
	env.ExecuteWorkflow(WebhookDelivery, in)
	if r := result(t, env); !r.Disabled || r.Attempts != 10 {
		t.Fatalf("result %+v", r)
	}
}

func TestWorkflowIDs(t *testing.T) {
	in := deliveryInput()
	if got := WorkflowID(in); got != "webhook:"+in.EventID.String()+":"+in.WebhookID.String() {
		t.Fatalf("id %q", got)
	}
	in.Redelivery = 3
	if got := WorkflowID(in); !strings.HasSuffix(got, ":redeliver:3") {
		t.Fatalf("redelivery id %q", got)
	}
}
