package attachmentwf_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/attachmentwf"
	"tracker/domain/attachment"
	"tracker/workflows/attachmentwf"
	"tracker/workflows/workflowtest"
)

func env(t *testing.T) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	e := workflowtest.Patient(s.NewTestWorkflowEnvironment())
	a := &acts.Activities{}
	attachmentwf.Register(e, a)
	return e
}

func TestDeleteObjectsRetriesUntilTheStorageAnswers(t *testing.T) {
	e := env(t)
	calls := 0
	e.OnActivity(acts.DeleteObjectsName, mock.Anything, mock.Anything).Return(func(_ context.Context, job attachment.DeleteJob) error {
		calls++
		if len(job.Keys) != 2 {
			t.Errorf("job %+v", job)
		}
		if calls < 3 {
			return errors.New("storage down")
		}
		return nil
	})
	e.ExecuteWorkflow(attachmentwf.DeleteWorkflowName, attachment.DeleteJob{Keys: []string{"a", "b"}})
	if !e.IsWorkflowCompleted() || e.GetWorkflowError() != nil || calls != 3 {
		t.Fatalf("completed %v, err %v, calls %d", e.IsWorkflowCompleted(), e.GetWorkflowError(), calls)
	}
}

func TestSweepPagesWithOneCutoff(t *testing.T) {
	e := env(t)
	var cutoffs []time.Time
	var afters []string
	e.OnActivity(acts.SweepPageName, mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.SweepInput) (attachment.SweepPage, error) {
		cutoffs = append(cutoffs, in.Cutoff)
		afters = append(afters, in.After)
		if len(afters) < 3 {
			return attachment.SweepPage{Next: "k" + string(rune('0'+len(afters))), Deleted: 2}, nil
		}
		return attachment.SweepPage{Deleted: 1}, nil
	})
	start := e.Now()
	e.ExecuteWorkflow(attachmentwf.SweepWorkflowName, attachmentwf.SweepInput{})
	var res attachmentwf.SweepResult
	if err := e.GetWorkflowResult(&res); err != nil || res.Deleted != 5 {
		t.Fatalf("result %+v %v", res, err)
	}
	if len(afters) != 3 || afters[0] != "" || afters[1] != "k1" || afters[2] != "k2" {
		t.Fatalf("cursors %v", afters)
	}
	want := start.Add(-attachment.UnconfirmedTTL)
	for _, c := range cutoffs {
		if !c.Equal(want) {
			t.Fatalf("cutoff %v, want %v", c, want)
		}
	}
}
