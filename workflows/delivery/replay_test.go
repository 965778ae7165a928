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
		// A timed window (a digest minute of a second): two signals while
		// its timer runs, one send, continue-as-new with what arrived
		// during the send (_1); the next run's own window sends it (_2).
		"email_digest_window_1.json": deliverywf.DigestWorkflowName,
		"email_digest_window_2.json": deliverywf.DigestWorkflowName,
		"due_soon_sweep.json":        deliverywf.SweepWorkflowName,
	}, func(r sdkworker.Registry) { deliverywf.RegisterOn(r, nil) })
}
