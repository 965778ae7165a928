package workflows_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"tracker/workflows/capexport"
	"tracker/workflows/cascadewf"
	"tracker/workflows/chatwf"
	"tracker/workflows/importwf"
	"tracker/workflows/webhookwf"
)

// TestReplayCapturedHistories replays the histories in testdata, captured
// from end-to-end runs on the real dev server (go test ./e2e -run
// TestCaptureHistories -args -capture), against the workflows as they are
// now. A failure means a change would break the runs in flight when it is
// deployed: put it behind workflow.GetVersion, or make it a new workflow
// type (README, Development: replay-safe workflow changes).
func TestReplayCapturedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, f := range files {
		kinds[strings.SplitN(filepath.Base(f), "_", 2)[0]] = true
	}
	for _, k := range []string{"webhook", "cascade", "import", "capex", "chat"} {
		if !kinds[k] {
			t.Errorf("no captured history of the %s workflow in testdata", k)
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(webhookwf.WebhookDelivery, workflow.RegisterOptions{Name: webhookwf.WorkflowName})
			r.RegisterWorkflowWithOptions(cascadewf.CascadeDelete, workflow.RegisterOptions{Name: cascadewf.WorkflowName})
			r.RegisterWorkflowWithOptions(importwf.Import, workflow.RegisterOptions{Name: importwf.WorkflowName})
			r.RegisterWorkflowWithOptions(capexport.CapitalizationExport, workflow.RegisterOptions{Name: capexport.WorkflowName})
			r.RegisterWorkflowWithOptions(chatwf.ChatNotification, workflow.RegisterOptions{Name: chatwf.WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatalf("%s no longer replays: %v", f, err)
			}
		})
	}
}
