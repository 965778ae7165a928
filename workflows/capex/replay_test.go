package capexwf_test

import (
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	capexwf "tracker/workflows/capex"
	"tracker/workflows/workflowtest"
)

// TestReplayCapturedHistories replays the runs captured in testdata
// against the workflows as they are now (workflowtest.Replay).
func TestReplayCapturedHistories(t *testing.T) {
	workflowtest.Replay(t, map[string]string{
		"capex_export_scheduled.json": capexwf.WorkflowName,
	}, func(r sdkworker.Registry) { capexwf.RegisterOn(r, nil) })
}
