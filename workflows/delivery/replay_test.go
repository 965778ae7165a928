package deliverywf_test

import (
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	deliverywf "tracker/workflows/delivery"
	"tracker/workflows/workflowtest"
)

// TestReplayCapturedHistories replays the runs captured in testdata
// against the workflows as they are now (workflowtest.Replay).
func TestReplayCapturedHistories(t *testing.T) {
	workflowtest.Replay(t, map[string]string{
		"email_digest_sent.json":    deliverywf.DigestWorkflowName,
		"email_digest_refused.json": deliverywf.DigestWorkflowName,
		"due_soon_sweep.json":       deliverywf.SweepWorkflowName,
	}, func(r sdkworker.Registry) { deliverywf.RegisterOn(r, nil) })
}
