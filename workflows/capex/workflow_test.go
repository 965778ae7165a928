package capexwf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/capex"
	"tracker/domain/capex"
	"tracker/workflows/workflowtest"
)

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := workflowtest.Patient(s.NewTestWorkflowEnvironment())
	env.RegisterWorkflowWithOptions(CapitalizationExport, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterActivityWithOptions(&acts.Activities{}, activity.RegisterOptions{Name: acts.Prefix})
	return env
}

// recorder keeps the jobs the mocked activities saw.
type recorder struct {
	mu      sync.Mutex
	exports []capex.ExportJob
	failed  []acts.MarkFailedInput
}

func (r *recorder) export(fail map[uuid.UUID]bool) func(_ context.Context, job capex.ExportJob) (acts.ExportResult, error) {
	return func(_ context.Context, job capex.ExportJob) (acts.ExportResult, error) {
		r.mu.Lock()
		r.exports = append(r.exports, job)
		r.mu.Unlock()
		if fail[job.OrgID] {
			return acts.ExportResult{}, temporal.NewNonRetryableApplicationError("boom", "Test", nil)
		}
		return acts.ExportResult{ExportID: job.ExportID, SizeBytes: 100}, nil
	}
}

func (r *recorder) markFailed(_ context.Context, in acts.MarkFailedInput) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, in)
	return nil
}

func orgs(n int) []uuid.UUID {
	out := make([]uuid.UUID, n)
	for i := range out {
		out[i] = uuid.MustParse(fmt.Sprintf("00000000-0000-7000-8000-%012d", i+1))
	}
	return out
}

func TestScheduledRunExportsThePreviousMonthOfEveryOrg(t *testing.T) {
	tests := []struct {
		name       string
		start      time.Time
		scheduled  *time.Time
		wantPeriod string
	}{
		{"on time", time.Date(2026, 4, 1, 2, 0, 0, 0, time.UTC), nil, "2026-03"},
		{"across the year", time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC), nil, "2025-12"},
		{"a late catch-up run uses the scheduled time", time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC),
			ptr(time.Date(2026, 4, 1, 2, 0, 0, 0, time.UTC)), "2026-03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.SetStartTime(tt.start)
			if tt.scheduled != nil {
				if err := env.SetTypedSearchAttributesOnStart(temporal.NewSearchAttributes(scheduledStartKey.ValueSet(*tt.scheduled))); err != nil {
					t.Fatal(err)
				}
			}
			all := orgs(5)
			rec := &recorder{}
			env.OnActivity(acts.ListOrgsName, mock.Anything, acts.ListOrgsInput{After: uuid.Nil, Limit: OrgPageSize}).Return(all, nil).Once()
			env.OnActivity(acts.ExportOrgName, mock.Anything, mock.Anything).Return(rec.export(map[uuid.UUID]bool{all[3]: true}))
			env.OnActivity(acts.MarkFailedName, mock.Anything, mock.Anything).Return(rec.markFailed)
			env.ExecuteWorkflow(CapitalizationExport, Input{})
			if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
				t.Fatalf("workflow: completed %v, error %v", env.IsWorkflowCompleted(), env.GetWorkflowError())
			}
			var res Result
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res != (Result{Period: tt.wantPeriod, Completed: 4, Failed: 1}) {
				t.Fatalf("result %+v", res)
			}
			seen := map[uuid.UUID]bool{}
			for _, j := range rec.exports {
				if j.Period != tt.wantPeriod || j.Trigger != capex.TriggerSchedule || j.RequestedBy != nil || j.ExportID == uuid.Nil || seen[j.ExportID] {
					t.Fatalf("job %+v", j)
				}
				seen[j.ExportID] = true
			}
			if len(rec.exports) != 5 || len(rec.failed) != 1 || rec.failed[0].Job.OrgID != all[3] || rec.failed[0].Error == "" {
				t.Fatalf("exports %d, failed %+v", len(rec.exports), rec.failed)
			}
			env.AssertExpectations(t)
		})
	}
}

func TestScheduledRunContinuesAsNewAfterAPageOfOrgs(t *testing.T) {
	env := newEnv(t)
	env.SetStartTime(time.Date(2026, 7, 1, 2, 0, 0, 0, time.UTC))
	page := orgs(OrgPageSize)
	rec := &recorder{}
	env.OnActivity(acts.ListOrgsName, mock.Anything, mock.Anything).Return(page, nil).Once()
	env.OnActivity(acts.ExportOrgName, mock.Anything, mock.Anything).Return(rec.export(nil))
	env.ExecuteWorkflow(CapitalizationExport, Input{})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("want continue-as-new, got %v", err)
	}
	if can.WorkflowType.Name != WorkflowName || len(rec.exports) != OrgPageSize {
		t.Fatalf("continued as %s after %d exports", can.WorkflowType.Name, len(rec.exports))
	}
}

func TestContinuedRunKeepsItsPeriodAndCounts(t *testing.T) {
	env := newEnv(t)
	env.SetStartTime(time.Date(2026, 9, 15, 0, 0, 0, 0, time.UTC)) // not used: the period is carried
	after := orgs(1)[0]
	rest := orgs(3)[1:]
	rec := &recorder{}
	env.OnActivity(acts.ListOrgsName, mock.Anything, acts.ListOrgsInput{After: after, Limit: OrgPageSize}).Return(rest, nil).Once()
	env.OnActivity(acts.ExportOrgName, mock.Anything, mock.Anything).Return(rec.export(nil))
	env.ExecuteWorkflow(CapitalizationExport, Input{Period: "2026-06", After: after, Result: Result{Period: "2026-06", Completed: 100, Failed: 2}})
	var res Result
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res != (Result{Period: "2026-06", Completed: 102, Failed: 2}) {
		t.Fatalf("result %+v", res)
	}
}

func TestOnDemandRun(t *testing.T) {
	job := capex.ExportJob{ExportID: uuid.New(), OrgID: uuid.New(), Period: "2026-02", Trigger: capex.TriggerManual, RequestedBy: ptr(uuid.New())}
	t.Run("completes", func(t *testing.T) {
		env := newEnv(t)
		rec := &recorder{}
		env.OnActivity(acts.ExportOrgName, mock.Anything, job).Return(rec.export(nil)).Once()
		env.ExecuteWorkflow(CapitalizationExport, Input{Job: &job})
		var res Result
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		if res != (Result{Period: "2026-02", Completed: 1}) || len(rec.exports) != 1 || !reflect.DeepEqual(rec.exports[0], job) {
			t.Fatalf("result %+v, jobs %+v", res, rec.exports)
		}
	})
	t.Run("a failure is recorded on the run and fails the workflow", func(t *testing.T) {
		env := newEnv(t)
		rec := &recorder{}
		env.OnActivity(acts.ExportOrgName, mock.Anything, job).Return(rec.export(map[uuid.UUID]bool{job.OrgID: true}))
		env.OnActivity(acts.MarkFailedName, mock.Anything, mock.Anything).Return(rec.markFailed).Once()
		env.ExecuteWorkflow(CapitalizationExport, Input{Job: &job})
		if env.GetWorkflowError() == nil {
			t.Fatal("want a workflow error")
		}
		if len(rec.failed) != 1 || !reflect.DeepEqual(rec.failed[0].Job, job) {
			t.Fatalf("failed %+v", rec.failed)
		}
	})
	t.Run("a transient failure is retried", func(t *testing.T) {
		env := newEnv(t)
		calls := 0
		env.OnActivity(acts.ExportOrgName, mock.Anything, job).Return(func(_ context.Context, j capex.ExportJob) (acts.ExportResult, error) {
			calls++
			if calls < 3 {
				return acts.ExportResult{}, errors.New("database restarting")
			}
			return acts.ExportResult{ExportID: j.ExportID}, nil
		})
		env.ExecuteWorkflow(CapitalizationExport, Input{Job: &job})
		if err := env.GetWorkflowError(); err != nil || calls != 3 {
			t.Fatalf("error %v after %d calls", err, calls)
		}
	})
}

func ptr[T any](v T) *T { return &v }
