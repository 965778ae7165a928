package cascadewf_test

import (
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	cascadewf "tracker/workflows/cascade"
	"tracker/workflows/workflowtest"
)

// TestReplayCapturedHistories replays the runs captured in testdata
// against the workflows as they are now (workflowtest.Replay).
func TestReplayCapturedHistories(t *testing.T) {
	workflowtest.Replay(t, map[string]string{
		"cascade_continued_1.json": cascadewf.WorkflowName,
		"cascade_continued_2.json": cascadewf.WorkflowName,
	}, func(r sdkworker.Registry) { cascadewf.RegisterOn(r, nil) })
}
