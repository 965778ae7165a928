package worker

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/activity"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/store/storetest"
	"tracker/worker/jobkind"
	"tracker/worker/workertest"
	"tracker/workflows"
)

// echoWorkflow runs echoActivity on the DB queue and returns what it says.
func echoWorkflow(ctx workflow.Context, s string) (string, error) {
	ctx = workflows.OnDBQueue(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var out string
	err := workflow.ExecuteActivity(ctx, "TrackerTestEcho", s).Get(ctx, &out)
	return out, err
}

// TestRunPlugsInRegistrations runs the worker on the real dev server with
// one made-up feature, as cmd/tracker plugs in the real ones: its workflow
// on the task queue and its DB-heavy activity on the DB queue, its start
// hook, and its outbox topic, which the relay dispatches to it.
func TestRunPlugsInRegistrations(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	srv := workertest.Start(t)
	var started atomic.Int32
	reg := jobkind.Registration{
		Name: "echo",
		Register: func(r sdkworker.Registry) {
			r.RegisterWorkflowWithOptions(echoWorkflow, workflow.RegisterOptions{Name: "TrackerTestEchoWorkflow"})
		},
		RegisterDB: func(r sdkworker.Registry) {
			r.RegisterActivityWithOptions(func(ctx context.Context, s string) (string, error) {
				return "echo " + s + " from " + activity.GetInfo(ctx).TaskQueue, nil
			}, activity.RegisterOptions{Name: "TrackerTestEcho"})
		},
		Start: func(context.Context, jobkind.Env) error {
			if started.Add(1) == 1 {
				return context.DeadlineExceeded // a failing hook is retried
			}
			return nil
		},
		Topics: map[string]jobkind.Dispatch{"test.echo": func(ctx context.Context, env jobkind.Env, row store.OutboxRow) error {
			return workflows.StartOnce(ctx, env.Client, "echo:"+row.ID.String(), env.TaskQueue, "TrackerTestEchoWorkflow", row.ID.String())
		}},
	}
	queue := "run-" + uuid.NewString()[:8]
	workertest.Background(t, func(ctx context.Context) error {
		return Run(ctx, Deps{Log: slog.New(slog.NewTextHandler(io.Discard, nil)), DB: db, Metrics: prometheus.NewRegistry(),
			Address: srv.Address, Namespace: "default", TaskQueue: queue, PollInterval: 200 * time.Millisecond,
			StopTimeout: 5 * time.Second, Registrations: []jobkind.Registration{reg}})
	})

	row := store.OutboxRow{ID: uuid.Must(uuid.NewV7()), OrgID: uuid.New(), Topic: "test.echo", Payload: []byte(`{}`),
		CreatedAt: time.Now()}
	if err := store.InsertOutbox(context.Background(), db.Q(), row); err != nil {
		t.Fatal(err)
	}
	c := srv.Client(t)
	var out string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := c.GetWorkflow(wctx, "echo:"+row.ID.String(), "").Get(wctx, &out)
		wcancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the relay never ran the registration's workflow: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if want := "echo " + row.ID.String() + " from " + workflows.DBTaskQueue(queue); out != want {
		t.Fatalf("workflow returned %q, want %q (the activity on the DB queue)", out, want)
	}
	for time.Now().Before(deadline) {
		if n, _ := outboxdb.Pending(context.Background(), db.Q()); n == 0 && started.Load() >= 2 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n, _ := outboxdb.Pending(context.Background(), db.Q()); n != 0 {
		t.Fatalf("%d outbox rows still pending after the workflow ran", n)
	}
	if n := started.Load(); n != 2 {
		t.Fatalf("start hook ran %d times, want 2 (a failure, then retried once)", n)
	}
}
