package cascadewf

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/cascade"
	"tracker/domain"
	"tracker/workflows/workflowtest"
)

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	env := workflowtest.NewEnv(t)
	env.RegisterWorkflowWithOptions(CascadeDelete, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterActivity(&acts.Activities{})
	return env
}

func TestWorkflowID(t *testing.T) {
	job := cascadeJob()
	if got := WorkflowID(job); got != "cascade:project:"+job.EntityID.String() {
		t.Fatalf("id %q", got)
	}
}

func cascadeJob() domain.CascadeJob {
	return domain.CascadeJob{OrgID: uuid.New(), EntityType: "project", EntityID: uuid.New()}
}

func TestCascadeDeleteRunsStepsInOrderUntilDone(t *testing.T) {
	env := newEnv(t)
	job := cascadeJob()
	env.OnActivity(cascade.CheckCascade, mock.Anything, job).
		Return(acts.CascadeCheck{Proceed: true, Steps: []string{"comments", "tickets", "root"}}, nil).Once()
	var ran []string
	calls := map[string]int{}
	env.OnActivity(cascade.PurgeCascadeStep, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in acts.CascadeStepInput) (acts.CascadeStepResult, error) {
			if in.Job != job {
				return acts.CascadeStepResult{}, errors.New("wrong job")
			}
			calls[in.Step]++
			ran = append(ran, in.Step)
			// tickets needs three calls (its time budget ran out twice)
			done := in.Step != "tickets" || calls[in.Step] == 3
			return acts.CascadeStepResult{Affected: 10, Done: done}, nil
		})
	env.ExecuteWorkflow(CascadeDelete, CascadeInput{Job: job})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var r CascadeResult
	_ = env.GetWorkflowResult(&r)
	if want := []string{"comments", "tickets", "tickets", "tickets", "root"}; !slices.Equal(ran, want) || r.Affected != 50 {
		t.Fatalf("ran %v (affected %d), want %v", ran, r.Affected, want)
	}
}

func TestCascadeDeleteResumesAfterAFailedStep(t *testing.T) {
	env := newEnv(t)
	job := cascadeJob()
	env.OnActivity(cascade.CheckCascade, mock.Anything, job).
		Return(acts.CascadeCheck{Proceed: true, Steps: []string{"comments", "root"}}, nil)
	failures := 0
	env.OnActivity(cascade.PurgeCascadeStep, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in acts.CascadeStepInput) (acts.CascadeStepResult, error) {
			if in.Step == "comments" && failures < 2 { // the worker died mid-step, twice
				failures++
				return acts.CascadeStepResult{}, errors.New("worker lost")
			}
			return acts.CascadeStepResult{Affected: 1, Done: true}, nil
		})
	env.ExecuteWorkflow(CascadeDelete, CascadeInput{Job: job})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("purge did not survive the failures: %v", err)
	}
	if failures != 2 {
		t.Fatalf("failures %d", failures)
	}
}

func TestCascadeDeleteNothingToDo(t *testing.T) {
	env := newEnv(t)
	job := cascadeJob()
	env.OnActivity(cascade.CheckCascade, mock.Anything, job).Return(acts.CascadeCheck{Reason: "project no longer exists"}, nil)
	env.ExecuteWorkflow(CascadeDelete, CascadeInput{Job: job})
	var r CascadeResult
	if err := env.GetWorkflowResult(&r); err != nil || r.Skipped == "" {
		t.Fatalf("result %+v, %v", r, err)
	}
}

func TestCascadeDeleteContinuesAsNew(t *testing.T) {
	env := newEnv(t)
	job := cascadeJob()
	env.OnActivity(cascade.PurgeCascadeStep, mock.Anything, mock.Anything).
		Return(acts.CascadeStepResult{Affected: 1}, nil) // never done
	env.ExecuteWorkflow(CascadeDelete, CascadeInput{Job: job, Steps: []string{"comments", "root"}})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("error %v, want continue-as-new", err)
	}
	// The next run is the same type under the name histories in flight know.
	if can.WorkflowType == nil || can.WorkflowType.Name != "CascadeDelete" {
		t.Fatalf("continues as %+v, want CascadeDelete", can.WorkflowType)
	}
}
