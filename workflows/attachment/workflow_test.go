package attachmentwf_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/attachment"
	"tracker/domain/attachment"
	attachmentwf "tracker/workflows/attachment"
	"tracker/workflows/workflowtest"
)

func env(t *testing.T) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	e := workflowtest.Patient(s.NewTestWorkflowEnvironment())
	a := &acts.Activities{}
	attachmentwf.RegisterOn(e, a)
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

func TestVerifyLooksWithBackoffUntilTheObjectArrives(t *testing.T) {
	e := env(t)
	start := e.Now()
	job := attachment.VerifyJob{AttachmentID: uuid.New(), Deadline: start.Add(attachment.PendingTTL)}
	var at []time.Duration
	e.OnActivity(acts.VerifyName, mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.VerifyInput) (attachment.Verification, error) {
		at = append(at, e.Now().Sub(start))
		if in.Job.AttachmentID != job.AttachmentID || !in.Job.Deadline.Equal(job.Deadline) || in.Final {
			t.Errorf("input %+v", in)
		}
		if len(at) < 5 {
			return attachment.Verification{Outcome: attachment.OutcomePending}, nil
		}
		return attachment.Verification{Outcome: attachment.OutcomeReady}, nil
	})
	e.ExecuteWorkflow(attachmentwf.VerifyWorkflowName, job)
	var v attachment.Verification
	if err := e.GetWorkflowResult(&v); err != nil || v.Outcome != attachment.OutcomeReady {
		t.Fatalf("result %+v %v", v, err)
	}
	// At once, then after 1, 2, 4 and 8 s more.
	want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second}
	if !reflect.DeepEqual(at, want) {
		t.Fatalf("looked at %v, want %v", at, want)
	}
}

// TestVerifyRemovesAtTheDeadline skips through the day a pending
// attachment waits: the looks space out to VerifyMaxWait, and the last one,
// exactly at the deadline, is final.
func TestVerifyRemovesAtTheDeadline(t *testing.T) {
	e := env(t)
	start := e.Now()
	job := attachment.VerifyJob{AttachmentID: uuid.New(), Deadline: start.Add(attachment.PendingTTL)}
	var looks, finals int
	var last time.Time
	var gaps []time.Duration
	e.OnActivity(acts.VerifyName, mock.Anything, mock.Anything).Return(func(_ context.Context, in acts.VerifyInput) (attachment.Verification, error) {
		if looks > 0 {
			gaps = append(gaps, e.Now().Sub(last))
		}
		looks++
		last = e.Now()
		if in.Final {
			finals++
			return attachment.Verification{Outcome: attachment.OutcomeRemoved, Reason: attachment.ReasonNeverUploaded}, nil
		}
		return attachment.Verification{Outcome: attachment.OutcomePending}, nil
	})
	e.ExecuteWorkflow(attachmentwf.VerifyWorkflowName, job)
	var v attachment.Verification
	if err := e.GetWorkflowResult(&v); err != nil || v.Outcome != attachment.OutcomeRemoved {
		t.Fatalf("result %+v %v", v, err)
	}
	if finals != 1 || !last.Equal(job.Deadline) {
		t.Fatalf("%d final looks, the last at %v, deadline %v", finals, last, job.Deadline)
	}
	for _, g := range gaps {
		if g > attachmentwf.VerifyMaxWait {
			t.Fatalf("a gap of %v between looks", g)
		}
	}
	// About one look per VerifyMaxWait over the day: a bounded history.
	if most := int(attachment.PendingTTL/attachmentwf.VerifyMaxWait) + 20; looks > most || looks < most-40 {
		t.Fatalf("%d looks over a day", looks)
	}
}

func TestVerifyEndsWhenTheAttachmentIsGone(t *testing.T) {
	e := env(t)
	e.OnActivity(acts.VerifyName, mock.Anything, mock.Anything).Return(attachment.Verification{Outcome: attachment.OutcomeGone}, nil).Once()
	e.ExecuteWorkflow(attachmentwf.VerifyWorkflowName, attachment.VerifyJob{AttachmentID: uuid.New(), Deadline: e.Now().Add(time.Hour)})
	var v attachment.Verification
	if err := e.GetWorkflowResult(&v); err != nil || v.Outcome != attachment.OutcomeGone {
		t.Fatalf("result %+v %v", v, err)
	}
}
