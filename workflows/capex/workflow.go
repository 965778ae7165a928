// Package capexwf is the CapitalizationExport workflow: the monthly run
// (a Temporal Schedule, 02:00 UTC on the 1st) renders the previous month's
// capitalization CSV for every org and stores it; an on-demand run does the
// same for one org and one period. Every run stores a new file.
package capexwf

import (
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/capex"
	"tracker/domain"
	"tracker/domain/capex"
)

// WorkflowName is the registered workflow type.
const WorkflowName = "CapitalizationExport"

// OrgPageSize is how many orgs one run handles before it continues as new,
// keeping the history small however many orgs there are.
const OrgPageSize = 100

// Parallel is how many org exports run at once (each is one report query).
const Parallel = 4

// Input of the workflow. The schedule starts it empty; an on-demand run
// carries its Job; a continued run carries the period, the cursor and the
// counts so far.
type Input struct {
	Period string           `json:"period,omitempty"`
	Job    *capex.ExportJob `json:"job,omitempty"`
	After  uuid.UUID        `json:"after"`
	Result Result           `json:"result"`
}

// Result counts the stored and failed runs.
type Result struct {
	Period    string `json:"period"`
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
}

// scheduledStartKey is the search attribute the server sets on workflows a
// Schedule starts: the nominal time, also for a late (caught-up) start.
var scheduledStartKey = temporal.NewSearchAttributeKeyTime("TemporalScheduledStartTime")

var activityOptions = workflow.ActivityOptions{
	StartToCloseTimeout: 10 * time.Minute,
	RetryPolicy: &temporal.RetryPolicy{
		InitialInterval:    2 * time.Second,
		BackoffCoefficient: 2,
		MaximumInterval:    time.Minute,
		MaximumAttempts:    5,
	},
}

// CapitalizationExport runs one export (Input.Job) or the monthly export of
// every org.
func CapitalizationExport(ctx workflow.Context, in Input) (Result, error) {
	ctx = workflow.WithActivityOptions(ctx, activityOptions)
	if in.Job != nil {
		res := Result{Period: in.Job.Period}
		if err := exportOne(ctx, *in.Job).Get(ctx, nil); err != nil {
			markFailed(ctx, *in.Job, err)
			res.Failed++
			return res, err
		}
		res.Completed++
		return res, nil
	}
	res := in.Result
	res.Period = in.Period
	if res.Period == "" {
		res.Period = previousPeriod(ctx).String()
	}
	var orgs []uuid.UUID
	if err := workflow.ExecuteActivity(ctx, acts.ListOrgsName, acts.ListOrgsInput{After: in.After, Limit: OrgPageSize}).Get(ctx, &orgs); err != nil {
		return res, err
	}
	for start := 0; start < len(orgs); start += Parallel {
		batch := orgs[start:min(start+Parallel, len(orgs))]
		jobs := make([]capex.ExportJob, len(batch))
		futures := make([]workflow.Future, len(batch))
		for i, org := range batch {
			jobs[i] = capex.ExportJob{ExportID: newID(ctx), OrgID: org, Period: res.Period, Trigger: capex.TriggerSchedule}
			futures[i] = exportOne(ctx, jobs[i])
		}
		for i, f := range futures {
			if err := f.Get(ctx, nil); err != nil {
				// One org's failure is recorded on its run; the others go on.
				markFailed(ctx, jobs[i], err)
				res.Failed++
				continue
			}
			res.Completed++
		}
	}
	if len(orgs) == OrgPageSize {
		return res, workflow.NewContinueAsNewError(ctx, WorkflowName, Input{Period: res.Period, After: orgs[len(orgs)-1], Result: res})
	}
	return res, nil
}

func exportOne(ctx workflow.Context, job capex.ExportJob) workflow.Future {
	return workflow.ExecuteActivity(ctx, acts.ExportOrgName, job)
}

func markFailed(ctx workflow.Context, job capex.ExportJob, cause error) {
	in := acts.MarkFailedInput{Job: job, Error: cause.Error()}
	if err := workflow.ExecuteActivity(ctx, acts.MarkFailedName, in).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Error("could not record a failed export", "export_id", job.ExportID, "error", err)
	}
}

// previousPeriod is the month before the run's nominal time: the schedule's
// scheduled start when a Schedule started the run, else the workflow's now.
func previousPeriod(ctx workflow.Context) capex.Period {
	t := workflow.Now(ctx)
	if st, ok := workflow.GetTypedSearchAttributes(ctx).GetTime(scheduledStartKey); ok {
		t = st
	}
	return capex.PeriodOf(t).Previous()
}

// newID is a UUIDv7 recorded in the history, so a replay and a retried
// activity see the same export id.
func newID(ctx workflow.Context) uuid.UUID {
	var id uuid.UUID
	_ = workflow.SideEffect(ctx, func(workflow.Context) any { return domain.NewID() }).Get(&id)
	return id
}
