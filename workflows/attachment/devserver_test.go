package attachmentwf_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/attachments"
	"tracker/domain"
	"tracker/domain/attachment"
	"tracker/domain/testfactory"
	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
	"tracker/worker/workertest"
	attachmentwf "tracker/workflows/attachment"
	"tracker/workflows/workflowtest"
)

// TestSweepScheduleOnTheDevServer runs the feature's worker registration
// against the real Temporal dev server, PostgreSQL and the local object
// store: the hourly Schedule exists, and a triggered run removes an old
// upload nobody confirmed while a confirmed one (just as old) and a recent
// unconfirmed one stay.
func TestSweepScheduleOnTheDevServer(t *testing.T) {
	srv := workertest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	taskQueue := "attachments-e2e-" + uuid.NewString()[:8]

	objects := objectstoretest.Local(t, nil)
	var svc *attachment.Service
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		svc = attachment.New(e.DB, objects, domain.SystemClock{}, 1<<20)
		return []api.Module{attachments.New(svc, nil)}
	}})

	// The worker as the shared worker sets it up: Register before start,
	// Start (the Schedule) after.
	reg := attachmentwf.Register(attachmentwf.Deps{Attachments: svc})
	wenv := workflowtest.Run(t, c, taskQueue, reg)

	handle := c.ScheduleClient().GetHandle(ctx, attachmentwf.ScheduleID)
	t.Run("the Schedule exists, hourly, on the worker's queue", func(t *testing.T) {
		if err := reg.Start(ctx, wenv); err != nil { // a second worker start updates, not fails
			t.Fatalf("second start: %v", err)
		}
		d, err := handle.Describe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		iv := d.Schedule.Spec.Intervals
		if len(iv) != 1 || iv[0].Every != time.Hour {
			t.Fatalf("spec intervals %+v", iv)
		}
		if len(d.Info.NextActionTimes) < 2 || d.Info.NextActionTimes[1].Sub(d.Info.NextActionTimes[0]) != time.Hour {
			t.Fatalf("next actions %v", d.Info.NextActionTimes)
		}
		a, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction)
		if !ok || a.TaskQueue != taskQueue || a.Workflow != attachmentwf.SweepWorkflowName {
			t.Fatalf("action %+v", d.Schedule.Action)
		}
	})

	owner := env.Register("Owner")
	project := testfactory.Project(t, env.DB, owner.OrgID, testfactory.ProjectOpts{Key: "SWP"})
	ticket := testfactory.Ticket(t, env.DB, project, owner.ID, testfactory.TicketOpts{}).ID
	prefix := "org/" + owner.OrgID.String() + "/tickets/" + ticket.String() + "/"
	write := func(key string, body []byte, age time.Duration) {
		t.Helper()
		if err := objects.Write(key, "text/plain", int64(len(body)), bytes.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(filepath.Join(objects.Dir, "objects", filepath.FromSlash(key)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	// A confirmed attachment whose object is two days old.
	var up attachment.Upload
	env.Do("POST", "/api/v1/tickets/"+ticket.String()+"/attachments/presign", owner.Token,
		map[string]any{"filename": "kept.txt", "content_type": "text/plain", "size_bytes": 4}).Expect(t, 200).Decode(t, &up)
	write(up.StorageKey, []byte("kept"), 48*time.Hour)
	env.Do("POST", "/api/v1/tickets/"+ticket.String()+"/attachments/confirm", owner.Token, map[string]any{
		"filename": "kept.txt", "content_type": "text/plain", "size_bytes": 4, "storage_key": up.StorageKey,
		"uploaded_by": owner.ID}).Expect(t, 201)
	orphan := prefix + uuid.NewString() + "/orphan.txt"
	write(orphan, []byte("orphan"), 25*time.Hour)
	recent := prefix + uuid.NewString() + "/recent.txt"
	write(recent, []byte("recent"), time.Hour)

	t.Run("a triggered run removes only the old unconfirmed upload", func(t *testing.T) {
		if err := handle.Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
			t.Fatal(err)
		}
		var run *client.ScheduleWorkflowExecution
		deadline := time.Now().Add(60 * time.Second)
		for run == nil {
			d, err := handle.Describe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(d.Info.RecentActions); n > 0 {
				run = d.Info.RecentActions[n-1].StartWorkflowResult
			} else if time.Now().After(deadline) {
				t.Fatal("the triggered run never started")
			} else {
				time.Sleep(200 * time.Millisecond)
			}
		}
		wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		var res attachmentwf.SweepResult
		if err := c.GetWorkflow(wctx, run.WorkflowID, run.FirstExecutionRunID).Get(wctx, &res); err != nil {
			t.Fatalf("sweep run: %v", err)
		}
		if res.Deleted != 1 {
			t.Fatalf("deleted %d, want 1", res.Deleted)
		}
		saveHistory(t, c, run.WorkflowID, run.FirstExecutionRunID, "attachment_uploads_sweep.json")
		if _, err := objects.Head(ctx, orphan); !errors.Is(err, objectstore.ErrNotFound) {
			t.Fatalf("old unconfirmed upload still there: %v", err)
		}
		for _, k := range []string{up.StorageKey, recent} {
			if _, err := objects.Head(ctx, k); err != nil {
				t.Fatalf("%s removed: %v", k, err)
			}
		}
	})
}
