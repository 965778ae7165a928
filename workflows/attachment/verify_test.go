package attachmentwf_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	acts "tracker/activities/attachment"
	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/attachments"
	"tracker/domain"
	"tracker/domain/attachment"
	"tracker/domain/testfactory"
	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
	"tracker/worker"
	"tracker/worker/jobkind"
	"tracker/worker/workertest"
	attachmentwf "tracker/workflows/attachment"
	"tracker/workflows/workflowtest"
)

var capture = flag.Bool("capture", false, "the dev server tests write the histories of the runs they close into testdata")

// saveHistory writes a closed run's history (runID "": the latest run) to
// testdata/name in the JSON the Temporal CLI downloads, where
// replay_test.go replays it. Only under -capture: these tests capture the
// attachment workflows, which e2e's TestCaptureHistories does not run.
//
//	go test ./workflows/attachment -run OnTheDevServer -count=1 -args -capture
func saveHistory(t *testing.T, c client.Client, workflowID, runID, name string) {
	t.Helper()
	if !*capture {
		return
	}
	n := workflowtest.SaveHistory(t, c, workflowID, runID, filepath.Join("testdata", name))
	t.Logf("wrote %s: %d events", name, n)
}

// minioWorld is an API with attachments on an object store (a MinIO
// bucket unless told otherwise), a ticket, and its owner.
type minioWorld struct {
	env     *apitest.Env
	objects objectstore.Store
	svc     *attachment.Service
	owner   apitest.User
	ticket  uuid.UUID
}

func newMinioWorld(t *testing.T, objects objectstore.Store) minioWorld {
	t.Helper()
	if objects == nil {
		objects = objectstoretest.MinIO(t)
	}
	w := minioWorld{objects: objects}
	w.env = apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		w.svc = attachment.New(e.DB, w.objects, domain.SystemClock{}, 1<<20)
		return []api.Module{attachments.New(w.svc, nil)}
	}})
	w.owner = w.env.Register("Owner")
	project := testfactory.Project(t, w.env.DB, w.owner.OrgID, testfactory.ProjectOpts{Key: "VRF"})
	w.ticket = testfactory.Ticket(t, w.env.DB, project, w.owner.ID, testfactory.TicketOpts{}).ID
	return w
}

type presigned struct {
	UploadURL  string            `json:"upload_url"`
	StorageKey string            `json:"storage_key"`
	Method     string            `json:"method"`
	Headers    map[string]string `json:"headers"`
}

// confirmFirst presigns and confirms name before any upload: the
// attachment is pending. It returns the presign and the attachment's id.
func (w minioWorld) confirmFirst(t *testing.T, name string, size int) (presigned, string) {
	t.Helper()
	base := "/api/v1/tickets/" + w.ticket.String() + "/attachments"
	var up presigned
	w.env.Do("POST", base+"/presign", w.owner.Token,
		map[string]any{"filename": name, "content_type": "text/plain", "size_bytes": size}).Expect(t, 200).Decode(t, &up)
	a := w.env.Do("POST", base+"/confirm", w.owner.Token, map[string]any{"filename": name, "content_type": "text/plain",
		"size_bytes": size, "storage_key": up.StorageKey, "uploaded_by": w.owner.ID}).Expect(t, 201).Map(t)
	if a["state"] != "pending" {
		t.Fatalf("confirmed %v", a)
	}
	return up, a["id"].(string)
}

// job is the verification job the confirm of attachment id enqueued.
func (w minioWorld) job(t *testing.T, id string) attachment.VerifyJob {
	t.Helper()
	for _, m := range w.env.Outbox(t, w.owner.OrgID, attachment.TopicVerify) {
		if m["attachment_id"] == id {
			b, _ := json.Marshal(m)
			var j attachment.VerifyJob
			if err := json.Unmarshal(b, &j); err != nil {
				t.Fatal(err)
			}
			return j
		}
	}
	t.Fatalf("no verification job for %s", id)
	return attachment.VerifyJob{}
}

// TestVerifyRemovesANeverUploadedAttachmentAfterADay runs the verification
// of an attachment nobody uploads, with its real activities (PostgreSQL,
// the local object store: a missing object looks the same in any), through the 24 hours it waits (time-skipping test environment):
// the attachment stays listed as pending until the deadline, then it is
// removed, with an entry on the ticket's activity and its object's removal
// enqueued.
func TestVerifyRemovesANeverUploadedAttachmentAfterADay(t *testing.T) {
	w := newMinioWorld(t, objectstoretest.Local(t, nil))
	up, id := w.confirmFirst(t, "never.txt", 5)
	job := w.job(t, id)

	e := workflowtest.NewEnv(t)
	attachmentwf.RegisterOn(e, &acts.Activities{Attachments: w.svc})
	// The job's deadline is the confirm's time plus a day, on the wall
	// clock; the test environment's clock starts now.
	looks := 0
	e.SetStartTime(time.Now())
	e.SetOnActivityCompletedListener(func(*activity.Info, converter.EncodedValue, error) { looks++ })
	halfway := false
	e.RegisterDelayedCallback(func() {
		halfway = true
		l := w.env.Do("GET", "/api/v1/tickets/"+w.ticket.String()+"/attachments", w.owner.Token, nil).Expect(t, 200).Map(t)
		items := l["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["state"] != "pending" {
			t.Errorf("12 hours in: %v", l)
		}
	}, 12*time.Hour)
	e.ExecuteWorkflow(attachmentwf.VerifyWorkflowName, job)
	var v attachment.Verification
	if err := e.GetWorkflowResult(&v); err != nil || v.Outcome != attachment.OutcomeRemoved || v.Reason != attachment.ReasonNeverUploaded {
		t.Fatalf("result %+v %v", v, err)
	}
	if !halfway || looks < 100 {
		t.Fatalf("halfway check ran %v, %d looks", halfway, looks)
	}
	if !e.Now().Before(job.Deadline.Add(time.Minute)) || e.Now().Before(job.Deadline) {
		t.Fatalf("ended at %v, deadline %v", e.Now(), job.Deadline)
	}
	w.env.Do("GET", "/api/v1/attachments/"+id, w.owner.Token, nil).Expect(t, 404)
	var removed int
	for _, r := range w.env.Audit(t, "ticket", w.ticket) {
		if r.Action == attachment.ActionRemoved && r.Changes[0].Old.(map[string]any)["id"] == id {
			removed++
		}
	}
	if removed != 1 {
		t.Fatalf("%d removal entries", removed)
	}
	var found bool
	for _, m := range w.env.Outbox(t, w.owner.OrgID, attachment.TopicDeleteObjects) {
		for _, k := range m["keys"].([]any) {
			found = found || k == up.StorageKey
		}
	}
	if !found {
		t.Fatal("the object's removal was not enqueued")
	}
}

// TestVerifyOnTheDevServer runs the verification as it runs in production:
// the confirm's outbox row, the relay, the Temporal dev server, the worker
// registration, MinIO. An upload after the confirm turns the attachment
// ready; another object under a confirmed key removes the attachment and,
// through the removal job, the object.
func TestVerifyOnTheDevServer(t *testing.T) {
	w := newMinioWorld(t, nil)
	srv := workertest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	reg := attachmentwf.Register(attachmentwf.Deps{Attachments: w.svc})
	reg.Start = nil // the sweep's Schedule is another test's
	wenv := workflowtest.Run(t, c, "attachments-verify-"+uuid.NewString()[:8], reg)
	topics := map[string][]jobkind.Dispatch{}
	for topic, d := range reg.Topics {
		topics[topic] = []jobkind.Dispatch{d}
	}
	relay := &worker.Relay{DB: w.env.DB, Log: wenv.Log, Env: wenv, Poll: 200 * time.Millisecond, Topics: topics}
	stop := workertest.Background(t, func(ctx context.Context) error { relay.Run(ctx); return nil })
	defer stop()

	result := func(id string) attachment.Verification {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		var v attachment.Verification
		workertest.WaitFor(t, 60*time.Second, "the verification to start", func() bool {
			_, err := c.DescribeWorkflowExecution(wctx, attachmentwf.VerifyWorkflowID(uuid.MustParse(id)), "")
			return err == nil
		})
		if err := c.GetWorkflow(wctx, attachmentwf.VerifyWorkflowID(uuid.MustParse(id)), "").Get(wctx, &v); err != nil {
			t.Fatalf("verification of %s: %v", id, err)
		}
		return v
	}

	t.Run("confirm, then upload: ready", func(t *testing.T) {
		body := []byte("hello")
		up, id := w.confirmFirst(t, "late.txt", len(body))
		time.Sleep(time.Second) // the job has looked once, and waits
		if code, b := objectstoretest.Put(t, up.Method, up.UploadURL, up.Headers, body); code != 200 {
			t.Fatalf("upload %d %s", code, b)
		}
		if v := result(id); v.Outcome != attachment.OutcomeReady {
			t.Fatalf("verification %+v", v)
		}
		saveHistory(t, c, attachmentwf.VerifyWorkflowID(uuid.MustParse(id)), "", "attachment_verify_ready.json")
		a := w.env.Do("GET", "/api/v1/attachments/"+id, w.owner.Token, nil).Expect(t, 200).Map(t)
		if a["state"] != "ready" || a["download_url"] == nil {
			t.Fatalf("attachment %v", a)
		}
		resp, got := objectstoretest.Get(t, a["download_url"].(string))
		if resp.StatusCode != 200 || string(got) != string(body) {
			t.Fatalf("download %d %q", resp.StatusCode, got)
		}
	})

	t.Run("confirm, then another object: removed, object too", func(t *testing.T) {
		body := []byte("<p>x</p>")
		up, id := w.confirmFirst(t, "wrong.txt", len(body))
		p, err := w.objects.PresignPut(ctx, up.StorageKey, "text/html", int64(len(body)), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if code, b := objectstoretest.Put(t, p.Method, p.URL, p.Headers, body); code != 200 {
			t.Fatalf("upload %d %s", code, b)
		}
		if v := result(id); v.Outcome != attachment.OutcomeRemoved || v.Reason == "" {
			t.Fatalf("verification %+v", v)
		}
		w.env.Do("GET", "/api/v1/attachments/"+id, w.owner.Token, nil).Expect(t, 404)
		workertest.WaitFor(t, 60*time.Second, "the object's removal", func() bool {
			_, err := w.objects.Head(ctx, up.StorageKey)
			return errors.Is(err, objectstore.ErrNotFound)
		})
		if *capture {
			var runs *workflowservice.ListWorkflowExecutionsResponse
			workertest.WaitFor(t, 60*time.Second, "the closed removal run", func() bool {
				var err error
				runs, err = c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default",
					Query: "WorkflowType = '" + attachmentwf.DeleteWorkflowName + "' AND TaskQueue = '" + wenv.TaskQueue +
						"' AND ExecutionStatus = 'Completed'"})
				return err == nil && len(runs.GetExecutions()) == 1
			})
			e := runs.GetExecutions()[0].GetExecution()
			saveHistory(t, c, e.GetWorkflowId(), e.GetRunId(), "attachment_objects_delete.json")
		}
	})
}
