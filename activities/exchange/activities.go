// Package exchangeact holds the activities of the Import workflow: thin
// wrappers over the importer's idempotent steps that heartbeat while a
// step runs and turn permanent failures into non-retryable errors.
package exchangeact

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"tracker/domain"
	"tracker/domain/exchange/importer"
	"tracker/store"
	"tracker/store/exchangedb/exportdb"
)

// ErrTypePermanent is the non-retryable error type of a step that can
// never succeed.
const ErrTypePermanent = "ImportPermanent"

// Activities run the steps of imports.
type Activities struct {
	Runner *importer.Runner
	// BatchPause sleeps before each ticket batch: a test knob that lets
	// end-to-end tests stop a worker in the middle of an import.
	BatchPause time.Duration
	// HeartbeatEvery is how often a running step heartbeats (default 2 s).
	HeartbeatEvery time.Duration
}

// StageImport writes the stored document as staged rows (once).
func (a *Activities) StageImport(ctx context.Context, importID uuid.UUID) (importer.Step, error) {
	return a.run(ctx, "stage", func(ctx context.Context) (importer.Step, error) { return a.Runner.Stage(ctx, importID) })
}

// ImportCatalog imports users, workflows, labels, projects and sprints.
func (a *Activities) ImportCatalog(ctx context.Context, importID uuid.UUID) (importer.Step, error) {
	return a.run(ctx, "catalog", func(ctx context.Context) (importer.Step, error) { return a.Runner.Catalog(ctx, importID) })
}

// ImportTicketBatch imports the next batch of tickets.
func (a *Activities) ImportTicketBatch(ctx context.Context, importID uuid.UUID) (importer.Step, error) {
	if a.BatchPause > 0 {
		select {
		case <-ctx.Done():
			return importer.Step{}, ctx.Err()
		case <-time.After(a.BatchPause):
		}
	}
	return a.run(ctx, "tickets", func(ctx context.Context) (importer.Step, error) { return a.Runner.Batch(ctx, importID) })
}

// FinishImport marks the import completed.
func (a *Activities) FinishImport(ctx context.Context, importID uuid.UUID) (importer.Step, error) {
	return a.run(ctx, "finish", func(ctx context.Context) (importer.Step, error) { return a.Runner.Finish(ctx, importID) })
}

// FailInput names a failed import and why.
type FailInput struct {
	ImportID uuid.UUID
	Reason   string
}

// FailImport marks the import failed.
func (a *Activities) FailImport(ctx context.Context, in FailInput) error {
	return a.Runner.Fail(ctx, in.ImportID, in.Reason)
}

// CancelImport marks the import cancelled: its workflow was cancelled in
// Temporal (UI or CLI) rather than through the API.
func (a *Activities) CancelImport(ctx context.Context, importID uuid.UUID) error {
	return a.Runner.Cancel(ctx, importID)
}

// Heartbeat is what a running step's heartbeats carry (the Temporal UI
// shows it on the pending activity): the step, the attempt and how long it
// has run.
type Heartbeat struct {
	Step           string `json:"step"`
	Attempt        int32  `json:"attempt"`
	ElapsedSeconds int    `json:"elapsed_seconds"`
}

// run calls step while heartbeating, so a dead worker's step is retried
// elsewhere within the heartbeat timeout.
func (a *Activities) run(ctx context.Context, name string, step func(context.Context) (importer.Step, error)) (importer.Step, error) {
	every := a.HeartbeatEvery
	if every <= 0 {
		every = 2 * time.Second
	}
	type result struct {
		st  importer.Step
		err error
	}
	done := make(chan result, 1)
	go func() {
		st, err := step(ctx)
		done <- result{st, err}
	}()
	t := time.NewTicker(every)
	defer t.Stop()
	started := time.Now()
	beat := func() {
		activity.RecordHeartbeat(ctx, Heartbeat{Step: name, Attempt: activity.GetInfo(ctx).Attempt,
			ElapsedSeconds: int(time.Since(started).Seconds())})
	}
	beat()
	for {
		select {
		case r := <-done:
			return r.st, classify(r.err)
		case <-t.C:
			beat()
		}
	}
}

// classify makes permanent failures non-retryable (a reference the
// database refuses will refuse again); anything else (the database or
// Temporal briefly away) is retried.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var de *domain.Error
	if errors.Is(err, importer.ErrPermanent) || errors.Is(err, store.ErrInvalidRef) || errors.As(err, &de) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypePermanent, err)
	}
	return err
}

// OrgName is the org's name for an import's summary, its id when it cannot
// be read. The relay calls it when it starts the workflow; it is not an
// activity.
func OrgName(ctx context.Context, db *store.DB, orgID uuid.UUID) string {
	org, err := exportdb.GetOrg(ctx, db.Q(), orgID)
	if err != nil {
		return orgID.String()
	}
	return org.Name
}
