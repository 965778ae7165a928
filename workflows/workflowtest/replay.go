package workflowtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"
)

// Replay replays the histories in the calling package's testdata/ against
// the workflows as they are now. captured names every history file and the
// workflow type it is a run of; register is the kind's RegisterOn (its
// activities are ignored: a replay runs none). It fails when a file in
// testdata is not listed or a listed one is missing, when a workflow type
// register puts on a worker has no history, when a history is of another
// type or does not end with its run's close (a partial history replays
// without checking the commands after it), and when a history no longer
// replays: then a change would break the runs in flight when it is
// deployed; put it behind workflow.GetVersion, or make it a new workflow
// type (docs/testing.md, "Development: replay-safe workflow changes").
//
// The histories are captured from real runs on the dev server: go test
// ./e2e -run TestCaptureHistories -args -capture, and each kind's dev
// server tests with -args -capture where e2e does not run that type.
func Replay(t *testing.T, captured map[string]string, register func(sdkworker.Registry)) {
	t.Helper()
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
	var kind workflowsOnly
	register(&kind)
	for name := range kind.names {
		if !types[name] {
			t.Errorf("no captured history of the %s workflow", name)
		}
	}
	for name, wt := range captured {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join("testdata", name)
			file, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			h, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			events := h.GetEvents()
			if len(events) == 0 || events[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName() != wt {
				t.Fatalf("%s is not a history of %s", f, wt)
			}
			if last := events[len(events)-1].GetEventType(); last != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED &&
				last != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW {
				t.Fatalf("%s does not end with the run's close (%v)", f, last)
			}
			r := workflowsOnly{replayer: sdkworker.NewWorkflowReplayer()}
			register(&r)
			if err := r.replayer.ReplayWorkflowHistory(nil, h); err != nil {
				t.Fatalf("%s no longer replays: %v", f, err)
			}
		})
	}
}

// workflowsOnly takes a kind's registration: it records the workflow
// types, hands the workflows to a replayer (when it has one) and drops the
// activities. The embedded Registry is nil: no kind registers anything
// else.
type workflowsOnly struct {
	sdkworker.Registry
	replayer sdkworker.WorkflowReplayer
	names    map[string]bool
}

func (w *workflowsOnly) RegisterWorkflowWithOptions(fn any, o workflow.RegisterOptions) {
	if w.names == nil {
		w.names = map[string]bool{}
	}
	w.names[o.Name] = true
	if w.replayer != nil {
		w.replayer.RegisterWorkflowWithOptions(fn, o)
	}
}

func (w *workflowsOnly) RegisterActivity(any)                                      {}
func (w *workflowsOnly) RegisterActivityWithOptions(any, activity.RegisterOptions) {}

// RegisterWorkflow is refused: a history names its workflow type, so every
// kind registers its workflows under a fixed name.
func (w *workflowsOnly) RegisterWorkflow(any) {
	panic("workflowtest.Replay: register workflows with RegisterWorkflowWithOptions and a Name")
}

// SaveHistory writes a run's history (runID "": the latest run) to path,
// creating its folder, in the JSON the Temporal CLI and UI download: what
// Replay reads. It returns the number of events.
func SaveHistory(t testing.TB, c client.Client, workflowID, runID, path string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	it := c.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return len(h.Events)
}
