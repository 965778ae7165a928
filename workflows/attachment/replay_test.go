package attachmentwf_test

import (
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	attachmentwf "tracker/workflows/attachment"
	"tracker/workflows/workflowtest"
)

// TestReplayCapturedHistories replays the runs captured in testdata
// against the workflows as they are now (workflowtest.Replay).
func TestReplayCapturedHistories(t *testing.T) {
	workflowtest.Replay(t, map[string]string{
		"attachment_verify_ready.json":   attachmentwf.VerifyWorkflowName,
		"attachment_objects_delete.json": attachmentwf.DeleteWorkflowName,
		"attachment_uploads_sweep.json":  attachmentwf.SweepWorkflowName,
	}, func(r sdkworker.Registry) { attachmentwf.RegisterOn(r, nil) })
}
