package webhookwf_test

import (
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	webhookwf "tracker/workflows/webhook"
	"tracker/workflows/workflowtest"
)

// TestReplayCapturedHistories replays the runs captured in testdata
// against the workflows as they are now (workflowtest.Replay).
func TestReplayCapturedHistories(t *testing.T) {
	workflowtest.Replay(t, map[string]string{
		"webhook_delivery_retry.json": webhookwf.WorkflowName,
		"webhook_takeover_retry.json": webhookwf.WorkflowName,
	}, func(r sdkworker.Registry) { webhookwf.RegisterOn(r, nil) })
}
