package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	neturl "net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"tracker/domain"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/testfactory"
	"tracker/store/storetest"
	"tracker/worker/workertest"
	"tracker/workflows"
	capexwf "tracker/workflows/capex"
	cascadewf "tracker/workflows/cascade"
	chatwf "tracker/workflows/chat"
	"tracker/workflows/workflowtest"
)

var (
	capture     = flag.Bool("capture", false, "TestCaptureHistories writes workflow histories into workflows/<kind>/testdata")
	captureOnly = flag.String("capture-only", "", "with -capture: write only the histories whose file name starts with this (e.g. chat_)")
)

// TestCaptureHistories runs every workflow type end to end on the real
// dev server and writes its histories to workflows/<kind>/testdata, where
// the kind's replay_test.go replays them (workflowtest.Replay) in make
// test. It runs only when asked:
//
//	go test ./e2e -run TestCaptureHistories -count=1 -args -capture
//	go test ./e2e -run TestCaptureHistories -count=1 -args -capture -capture-only chat_
//
// (-capture-only writes only the files whose name starts with it and
// leaves the other committed histories as they are.)
// Recapture only on purpose (a new workflow type, or after a deliberate
// versioned change); the committed histories are what in-flight runs look
// like, and every later change must still replay them.
func TestCaptureHistories(t *testing.T) {
	if !*capture {
		t.Skip("captures histories only with -args -capture")
	}
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	slack := newSlackStandIn(t)
	const chatSecret = "capture-chat-signing-secret"
	s := newStack(t, url, srv, map[string]string{
		"SERVICE_CHAT_SIGNING_SECRET":      chatSecret,
		"SERVICE_CHAT_BOT_TOKEN":           "xoxb-capture",
		"SERVICE_CHAT_API_URL":             slack.URL + "/api/",
		"SERVICE_PUBLIC_URL":               "http://tracker.capture",
		"TRACKER_TEST_WEBHOOK_RETRY_SCALE": "0.001", // 0, 5 ms, 300 ms, …
		"TRACKER_TEST_CASCADE_BATCH":       "1",     // with a tiny budget, a call per row,
		"TRACKER_TEST_CASCADE_BUDGET":      "1ns",   // and 40 calls per run: the purge
		"TRACKER_TEST_CASCADE_CALLS":       "40",    // continues as new
		"TRACKER_TEST_IMPORT_BATCH":        "4",     // several ticket batches
	})
	s.run("dev")
	c := srv.Client(t)
	out := func(kind string) string { return filepath.Join(workertest.RepoRoot(t), "workflows", kind, "testdata") }
	u := s.register("owner")

	// WebhookDelivery with a retry: the receiver answers 500 twice (the
	// relay's first attempt, then the workflow's), then 200.
	rcv := newReceiver(t, func(n int) int {
		if n <= 2 {
			return 500
		}
		return 200
	})
	s.createWebhook(u, rcv, domain.EventTicketCreated)
	project := s.createProject(db, u, "CAP")
	s.createTicket(db, u, project, "captured")
	waitFor(t, 60*time.Second, "the retried delivery", func() bool { return len(rcv.got()) >= 3 })
	save(t, c, out("webhook"), "webhook_takeover_retry", closed(t, c, fmt.Sprintf("TrackerJobKind = 'webhook' AND TrackerOrgId = '%s'", u.OrgID), 1))

	// Import across batches.
	if _, err := exportseed.Seed(context.Background(), db, u.OrgID, u.ID, exportseed.Options{Projects: 1, TicketsPerProject: 10,
		CommentsPerTicket: 1, Suffix: "src"}); err != nil {
		t.Fatal(err)
	}
	doc := s.must(200, "GET", "/export?org_id="+u.OrgID.String(), u.Token, nil).Body
	target := uuid.MustParse(s.must(201, "POST", "/orgs", u.Token, map[string]any{"name": "Capture target",
		"slug": "capture-" + uuid.NewString()[:8]}).m(t)["id"].(string))
	if r := s.importRaw("/import?org_id="+target.String(), u.Token, doc); r.Status != 200 && r.Status != 202 {
		t.Fatalf("POST /import: %d %s", r.Status, r.Body)
	}
	save(t, c, out("exchange"), "import_batches_dbqueue", closed(t, c, fmt.Sprintf("TrackerJobKind = 'import' AND TrackerOrgId = '%s'", target), 1))

	// CascadeDelete across a continue-as-new: one row per call, more calls
	// than one run makes.
	doomed := s.createProject(db, u, "GONE")
	label := testfactory.Label(t, db, u.OrgID, testfactory.LabelOpts{Name: "cap", Color: "#fff"}).ID
	bulk(t, db, u.OrgID, u.ID, doomed, label, 12, 1)
	s.must(204, "DELETE", "/projects/"+doomed.String()+"?cascade=true", u.Token, nil)
	runs := closed(t, c, "WorkflowId = '"+cascadewf.WorkflowID(domain.CascadeJob{EntityType: "project", EntityID: doomed})+"'", 2)
	save(t, c, out("cascade"), "cascade_continued", runs)

	// CapitalizationExport from its Schedule.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitFor(t, 30*time.Second, "the export schedule", func() bool {
		_, err := c.ScheduleClient().GetHandle(ctx, capexwf.ScheduleID).Describe(ctx)
		return err == nil
	})
	if err := c.ScheduleClient().GetHandle(ctx, capexwf.ScheduleID).Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	save(t, c, out("capex"), "capex_export_scheduled", closed(t, c, "WorkflowType = '"+capexwf.WorkflowName+"'", 1))

	// ChatNotification: a notification that no longer exists (the
	// workflow's permanent-failure path; posting needs a chat workspace).
	if err := workflows.StartOnce(ctx, c, chatwf.WorkflowID(domain.NewID()), s.env["SERVICE_TASK_QUEUE"], chatwf.WorkflowName,
		chatwf.Input{NotificationID: domain.NewID()}); err != nil {
		t.Fatal(err)
	}
	save(t, c, out("chat"), "chat_notification_gone", closed(t, c, "WorkflowType = '"+chatwf.WorkflowName+"'", 1))

	// ChatNotification posted: a mention in a mapped thread, answered ok
	// by the chat stand-in.
	// (A project created after the import: its key is in one org only,
	// which is how a command without a connected workspace finds it.)
	chatProject := s.createProject(db, u, "CHT")
	ticket, _ := s.createTicket(db, u, chatProject, "chatty")
	s.must(201, "POST", "/integrations/chat/thread-mappings", u.Token, map[string]any{"ticket_id": ticket,
		"channel_id": "C42", "thread_ts": "1700000000.000100"})
	var q struct {
		ID uuid.UUID `json:"id"`
	}
	s.must(202, "POST", "/integrations/chat/notify", u.Token, map[string]any{"notification_type": "mention",
		"ticket_id": ticket, "user_slack_id": "U42", "actor_name": "Ada", "message": "can you look?"}).decode(t, &q)
	save(t, c, out("chat"), "chat_notification_posted", closed(t, c, "WorkflowId = '"+chatwf.WorkflowID(q.ID)+"'", 1))

	// /ticket create: the command creates the ticket, and its follow-up
	// workflow announces it in the channel (chat.postMessage on the
	// stand-in), maps the announcement's thread and answers response_url.
	form := neturl.Values{"team_id": {"TCAP"}, "channel_id": {"C77"}, "user_id": {"UANY"}, "user_name": {"ada"},
		"command": {"/ticket"}, "text": {"create CHT Refund fails"}, "response_url": {slack.URL + "/commands/capture/1"}}
	if r := s.signedPost(chatSecret, "/integrations/chat/commands", "application/x-www-form-urlencoded", []byte(form.Encode())); r.Status != 200 {
		t.Fatalf("command %d %s", r.Status, r.Body)
	}
	save(t, c, out("chat"), "chat_command_followup", closed(t, c, "WorkflowType = '"+chatwf.FollowupWorkflowName+"'", 1))
	var announced string
	posts, responses := slack.got()
	for _, p := range posts {
		if p.Get("channel") == "C77" {
			announced = p.Get("answered_ts")
		}
	}
	if announced == "" || len(responses) != 1 {
		t.Fatalf("the follow-up did not announce and answer: announced %q, responses %v", announced, responses)
	}

	// A reply in the announced thread becomes a comment on the ticket.
	ev, _ := json.Marshal(map[string]any{"type": "event_callback", "team_id": "TCAP", "event_id": "EvCapture1",
		"event": map[string]any{"type": "message", "user": "UANY", "text": "Happens with EUR only",
			"channel": "C77", "ts": "1700002100.000100", "thread_ts": announced}})
	if r := s.signedPost(chatSecret, "/integrations/chat/events", "application/json", ev); r.Status != 200 || r.m(t)["status"] != "queued" {
		t.Fatalf("event delivery %d %s", r.Status, r.Body)
	}
	save(t, c, out("chat"), "chat_reply_comment", closed(t, c, "WorkflowType = '"+chatwf.ReplyWorkflowName+"'", 1))
}

// closed waits for n closed executions matching query and returns them,
// oldest first.
func closed(t *testing.T, c client.Client, query string, n int) []*workflowservice.ListWorkflowExecutionsResponse {
	t.Helper()
	var res *workflowservice.ListWorkflowExecutionsResponse
	waitFor(t, 120*time.Second, fmt.Sprintf("%d closed runs of %s", n, query), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var err error
		res, err = c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default",
			Query: query + " AND ExecutionStatus != 'Running'"})
		return err == nil && len(res.GetExecutions()) >= n
	})
	return []*workflowservice.ListWorkflowExecutionsResponse{res}
}

// save writes each listed run's history into dir as <name>.json (several
// runs: <name>_1.json, … oldest first), in the JSON the Temporal CLI and UI
// download.
func save(t *testing.T, c client.Client, dir, name string, lists []*workflowservice.ListWorkflowExecutionsResponse) {
	t.Helper()
	if !strings.HasPrefix(name, *captureOnly) {
		return
	}
	execs := lists[0].GetExecutions()
	for i := range execs { // the visibility list is newest first
		e := execs[len(execs)-1-i]
		if e.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED && e.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
			t.Fatalf("%s run %s ended %v", e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId(), e.GetStatus())
		}
		file := name + ".json"
		if len(execs) > 1 {
			file = fmt.Sprintf("%s_%d.json", name, i+1)
		}
		n := workflowtest.SaveHistory(t, c, e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId(), filepath.Join(dir, file))
		t.Logf("wrote %s: %s, %d events", file, e.GetType().GetName(), n)
	}
}
