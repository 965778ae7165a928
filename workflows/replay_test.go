package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	attachmentwf "tracker/workflows/attachment"
	capexwf "tracker/workflows/capex"
	cascadewf "tracker/workflows/cascade"
	chatwf "tracker/workflows/chat"
	exchangewf "tracker/workflows/exchange"
	webhookwf "tracker/workflows/webhook"
)

// captured lists every history in testdata and the workflow type it is a
// run of. The list is explicit so that a missing file fails the test
// instead of being skipped, and a captured file nobody listed fails too.
var captured = map[string]string{
	"webhook_delivery_retry.json":   webhookwf.WorkflowName,
	"webhook_takeover_retry.json":   webhookwf.WorkflowName,
	"cascade_continued_1.json":      cascadewf.WorkflowName,
	"cascade_continued_2.json":      cascadewf.WorkflowName,
	"import_batches.json":           exchangewf.WorkflowName,
	"import_batches_dbqueue.json":   exchangewf.WorkflowName,
	"capex_export_scheduled.json":   capexwf.WorkflowName,
	"chat_notification_gone.json":   chatwf.WorkflowName,
	"chat_notification_posted.json": chatwf.WorkflowName,
	"chat_command_followup.json":    chatwf.FollowupWorkflowName,
	"chat_reply_comment.json":       chatwf.ReplyWorkflowName,
	"attachment_verify_ready.json":  attachmentwf.VerifyWorkflowName,
}

// TestReplayCapturedHistories replays the histories in testdata, captured
// from end-to-end runs on the real dev server (go test ./e2e -run
// TestCaptureHistories -args -capture), against the workflows as they are
// now. A failure means a change would break the runs in flight when it is
// deployed: put it behind workflow.GetVersion, or make it a new workflow
// type (docs/testing.md, "Development: replay-safe workflow changes").
func TestReplayCapturedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := captured[filepath.Base(f)]; !ok {
			t.Errorf("%s is not listed in captured: list it with its workflow type so it is replayed", f)
		}
	}
	types := map[string]bool{}
	for _, wt := range captured {
		types[wt] = true
	}
	for _, wt := range []string{webhookwf.WorkflowName, cascadewf.WorkflowName, exchangewf.WorkflowName, capexwf.WorkflowName,
		chatwf.WorkflowName, chatwf.FollowupWorkflowName, chatwf.ReplyWorkflowName} {
		if !types[wt] {
			t.Errorf("no captured history of the %s workflow", wt)
		}
	}
	for name, wt := range captured {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join("testdata", name)
			h, err := client.HistoryFromJSON(mustOpen(t, f), client.HistoryJSONOptions{})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			events := h.GetEvents()
			if len(events) == 0 || events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName() != wt {
				t.Fatalf("%s is not a history of %s", f, wt)
			}
			if last := events[len(events)-1].GetEventType(); last != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED &&
				last != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
				t.Fatalf("%s does not end with the run's close (%v): a partial history replays without checking the commands after it", f, last)
			}
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(webhookwf.WebhookDelivery, workflow.RegisterOptions{Name: webhookwf.WorkflowName})
			r.RegisterWorkflowWithOptions(cascadewf.CascadeDelete, workflow.RegisterOptions{Name: cascadewf.WorkflowName})
			r.RegisterWorkflowWithOptions(exchangewf.Import, workflow.RegisterOptions{Name: exchangewf.WorkflowName})
			r.RegisterWorkflowWithOptions(capexwf.CapitalizationExport, workflow.RegisterOptions{Name: capexwf.WorkflowName})
			r.RegisterWorkflowWithOptions(chatwf.ChatNotification, workflow.RegisterOptions{Name: chatwf.WorkflowName})
			r.RegisterWorkflowWithOptions(chatwf.ChatCommandFollowup, workflow.RegisterOptions{Name: chatwf.FollowupWorkflowName})
			r.RegisterWorkflowWithOptions(chatwf.ChatReplyComment, workflow.RegisterOptions{Name: chatwf.ReplyWorkflowName})
			r.RegisterWorkflowWithOptions(attachmentwf.Verify, workflow.RegisterOptions{Name: attachmentwf.VerifyWorkflowName})
			if err := r.ReplayWorkflowHistory(nil, h); err != nil {
				t.Fatalf("%s no longer replays: %v", f, err)
			}
		})
	}
}

func mustOpen(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
