package exchangewf_test

import (
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	exchangewf "tracker/workflows/exchange"
	"tracker/workflows/workflowtest"
)

// TestReplayCapturedHistories replays the runs captured in testdata
// against the workflows as they are now (workflowtest.Replay).
func TestReplayCapturedHistories(t *testing.T) {
	workflowtest.Replay(t, map[string]string{
		"import_batches.json":         exchangewf.WorkflowName,
		"import_batches_dbqueue.json": exchangewf.WorkflowName,
	}, func(r sdkworker.Registry) { exchangewf.RegisterOn(r, nil) })
}
