// Package exchangewf is the Import workflow: it runs an import's steps
// (stage, catalog, ticket batches, finish) as activities with heartbeats,
// and shows its progress by the "progress" Query and in its memo, so the
// Temporal Web UI shows how far a long import is.
package exchangewf

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	acts "tracker/activities/exchange"
	"tracker/domain/exchange/importer"
	"tracker/workflows"
)

// WorkflowName is the registered name of the workflow.
const WorkflowName = "Import"

// QueryProgress is the name of the progress Query.
const QueryProgress = "progress"

// MemoProgress is the memo key holding the progress.
const MemoProgress = "progress"

// Input names the import; its document is in the database (workflow
// payloads are limited to a few MB). Calls carries the number of batch
// calls across continue-as-new.
type Input struct {
	ImportID uuid.UUID
	OrgID    uuid.UUID
	Calls    int
	// Progress is the progress so far, carried across continue-as-new so
	// the memo and the Query keep their counts (nil: a first run).
	Progress *Progress `json:",omitempty"`
}

// Progress is what the Query and the memo show.
type Progress struct {
	Status           string           `json:"status"` // running, completed, failed, cancelled
	Stage            string           `json:"stage"`
	TicketsTotal     int              `json:"tickets_total"`
	TicketsProcessed int              `json:"tickets_processed"`
	TicketsSkipped   int              `json:"tickets_skipped"`
	Summary          importer.Summary `json:"summary"`
	Error            string           `json:"error,omitempty"`
}

// statusOf is TrackerStatus for a progress: its stage while it runs
// (staged, catalog, tickets, done), else how it ended.
func statusOf(p Progress) string {
	if p.Status != "running" {
		return p.Status
	}
	return p.Stage
}

// details is the UI's one line of live progress.
func (p Progress) details() string {
	line := fmt.Sprintf("**%s** (%s): %d of %d tickets imported", p.Status, p.Stage, p.TicketsProcessed, p.TicketsTotal)
	if p.TicketsSkipped > 0 {
		line += fmt.Sprintf(", %d skipped", p.TicketsSkipped)
	}
	if p.Error != "" {
		line += "; " + p.Error
	}
	return line
}

// Result is the finished import's summary.
type Result struct {
	Summary importer.Summary
}

// maxCallsPerRun bounds one run's history; the import continues as new.
const maxCallsPerRun = 2000

var a *acts.Activities // activity references; never called directly

// StepOptions bound every step: 10 minutes per attempt with a heartbeat
// every few seconds, retried with backoff on errors that may pass (the
// database briefly away), at most 25 attempts within an hour. A step that
// exhausts them fails the import with the last error as its reason, so no
// import stays "running" forever; a permanent error fails it at once.
var StepOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    10 * time.Minute,
	ScheduleToCloseTimeout: time.Hour,
	HeartbeatTimeout:       15 * time.Second,
	RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
		MaximumInterval: 30 * time.Second, MaximumAttempts: 25, NonRetryableErrorTypes: []string{acts.ErrTypePermanent}},
}

// RecordOptions bound the activity that records a failed or cancelled
// import: one short statement, retried for up to a day (the database must
// come back for the record to be written at all).
var RecordOptions = workflow.ActivityOptions{
	StartToCloseTimeout:    30 * time.Second,
	ScheduleToCloseTimeout: 24 * time.Hour,
	RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 5 * time.Minute},
}

// Import runs one import to its end. Every step is idempotent (it locks the
// import's row and finds what is done), so retries and a resumed workflow
// after a crash create nothing twice; permanent failures fail the import.
func Import(ctx workflow.Context, in Input) (Result, error) {
	progress := Progress{Status: "running", Stage: "queued"}
	if in.Progress != nil {
		progress = *in.Progress
	}
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (Progress, error) { return progress, nil }); err != nil {
		return Result{}, err
	}
	show := func(st importer.Step) {
		progress.Stage, progress.TicketsTotal = st.Stage, st.TicketsTotal
		progress.TicketsProcessed = max(st.NextSeq-1, 0)
		progress.TicketsSkipped = st.Counts.TicketsSkipped
		progress.Summary = importer.SummaryOf(st.Counts)
		_ = workflow.UpsertMemo(ctx, map[string]any{MemoProgress: progress})
		workflows.SetStatus(ctx, statusOf(progress), progress.details())
	}
	_ = workflow.UpsertMemo(ctx, map[string]any{MemoProgress: progress})
	actx := workflows.OnDBQueue(ctx, StepOptions)
	var st importer.Step
	// end records how the import ended when it did not complete: failed (a
	// permanent error, or a step that used up its bounds) or cancelled
	// (from the Temporal UI or CLI). The record is written in a
	// disconnected context, so a cancelled workflow still writes it.
	end := func(err error) (Result, error) {
		dctx, cancel := workflow.NewDisconnectedContext(ctx)
		defer cancel()
		dctx = workflows.OnDBQueue(dctx, RecordOptions)
		if temporal.IsCanceledError(err) {
			progress.Status = "cancelled"
			_ = workflow.UpsertMemo(ctx, map[string]any{MemoProgress: progress})
			workflows.SetStatus(ctx, progress.Status, progress.details())
			_ = workflow.ExecuteActivity(dctx, a.CancelImport, in.ImportID).Get(dctx, nil)
			return Result{}, err
		}
		progress.Status, progress.Error = "failed", err.Error()
		_ = workflow.UpsertMemo(ctx, map[string]any{MemoProgress: progress})
		workflows.SetStatus(ctx, progress.Status, progress.details())
		_ = workflow.ExecuteActivity(dctx, a.FailImport, acts.FailInput{ImportID: in.ImportID, Reason: err.Error()}).Get(dctx, nil)
		return Result{}, err
	}
	// stopped ends the run of an import an Admin cancelled (or that failed
	// elsewhere): it ends normally, with the summary of what was imported.
	stopped := func() (Result, error) {
		progress.Status = st.Status
		show(st)
		workflow.GetLogger(ctx).Info("import stopped", "import_id", in.ImportID, "status", st.Status)
		return Result{Summary: progress.Summary}, nil
	}
	for _, step := range []any{a.StageImport, a.ImportCatalog} {
		if err := workflow.ExecuteActivity(actx, step, in.ImportID).Get(actx, &st); err != nil {
			return end(err)
		}
		if st.Stopped() {
			return stopped()
		}
		show(st)
	}
	for !st.Done {
		if in.Calls >= maxCallsPerRun {
			in.Calls, in.Progress = 0, &progress
			return Result{}, workflow.NewContinueAsNewError(ctx, Import, in)
		}
		if err := workflow.ExecuteActivity(actx, a.ImportTicketBatch, in.ImportID).Get(actx, &st); err != nil {
			return end(err)
		}
		in.Calls++
		if st.Stopped() {
			return stopped()
		}
		show(st)
	}
	if err := workflow.ExecuteActivity(actx, a.FinishImport, in.ImportID).Get(actx, &st); err != nil {
		return end(err)
	}
	if st.Stopped() {
		return stopped()
	}
	progress.Status = "completed"
	show(st)
	workflow.GetLogger(ctx).Info("import done", "import_id", in.ImportID, "tickets", progress.TicketsProcessed)
	return Result{Summary: progress.Summary}, nil
}
