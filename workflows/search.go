package workflows

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// The custom search attributes every tracker workflow carries, so an admin
// finds "the import of org X" in the Temporal UI with a query such as
//
//	TrackerOrgId = '<org id>' AND TrackerJobKind = 'import'
//
// They are registered when the dev server starts (--search-attribute in
// deploy/dev/temporal.sh and workertest) and, idempotently, when a worker
// starts (worker.EnsureSearchAttributes through the OperatorService).
var (
	OrgIDKey   = temporal.NewSearchAttributeKeyKeyword("TrackerOrgId")
	JobKindKey = temporal.NewSearchAttributeKeyKeyword("TrackerJobKind")
	StatusKey  = temporal.NewSearchAttributeKeyKeyword("TrackerStatus")
)

// Job kinds (TrackerJobKind).
const (
	KindWebhook     = "webhook"
	KindCascade     = "cascade"
	KindImport      = "import"
	KindCapexExport = "capex_export"
	KindChat        = "chat"
	// KindNotificationEmail: a user's email digest and the due-soon sweep.
	KindNotificationEmail = "notification_email"
)

// StatusQueued is TrackerStatus when the relay starts a workflow.
const StatusQueued = "queued"

// SearchAttributeTypes are the custom search attributes by name, as the
// OperatorService registers them.
func SearchAttributeTypes() map[string]enumspb.IndexedValueType {
	return map[string]enumspb.IndexedValueType{
		OrgIDKey.GetName():   enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		JobKindKey.GetName(): enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		StatusKey.GetName():  enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}
}

// DevServerSearchAttributes are the attributes a test dev server registers
// at start (testsuite.DevServerOptions.SearchAttributes; only the keys and
// their types matter there).
func DevServerSearchAttributes() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(OrgIDKey.ValueSet(""), JobKindKey.ValueSet(""), StatusKey.ValueSet(""))
}

// Job describes a workflow to the Temporal UI: whose it is, what kind, and
// a one-line summary shown on its page.
type Job struct {
	OrgID   uuid.UUID // uuid.Nil: not one org's (the monthly export)
	Kind    string
	Summary string
}

// SearchAttributes are the job's attributes at start (status queued).
func (j Job) SearchAttributes() temporal.SearchAttributes {
	up := []temporal.SearchAttributeUpdate{JobKindKey.ValueSet(j.Kind), StatusKey.ValueSet(StatusQueued)}
	if j.OrgID != uuid.Nil {
		up = append(up, OrgIDKey.ValueSet(j.OrgID.String()))
	}
	return temporal.NewSearchAttributes(up...)
}

// StartJob is StartOnce for a workflow the UI should find: it carries the
// job's search attributes and its summary.
func StartJob(ctx context.Context, c Starter, id, taskQueue string, job Job, wf any, args ...any) error {
	opts := StartOptions(id, taskQueue)
	opts.TypedSearchAttributes = job.SearchAttributes()
	opts.StaticSummary = job.Summary
	_, err := c.ExecuteWorkflow(ctx, opts, wf, args...)
	if err != nil && !temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return fmt.Errorf("start %s: %w", id, err)
	}
	return nil
}

// Options for a Schedule's action carry the kind (no org: a scheduled run
// spans them all).
func (j Job) ScheduleAction(a *client.ScheduleWorkflowAction) *client.ScheduleWorkflowAction {
	a.TypedSearchAttributes = j.SearchAttributes()
	a.StaticSummary = j.Summary
	return a
}

// ChangeStatusAttribute is the workflow.GetVersion change id under which
// workflows upsert TrackerStatus. Runs that started before it replay
// without the upserts (version DefaultVersion), new runs record version 1.
const ChangeStatusAttribute = "tracker-status-attribute"

// SetStatus upserts TrackerStatus (the first call records the version
// marker; on a history from before the change it does nothing) and shows
// details, a line of live progress, in the UI's "current details".
func SetStatus(ctx workflow.Context, status, details string) {
	if details != "" {
		workflow.SetCurrentDetails(ctx, details)
	}
	if workflow.GetVersion(ctx, ChangeStatusAttribute, workflow.DefaultVersion, 1) < 1 {
		return
	}
	if cur, ok := workflow.GetTypedSearchAttributes(ctx).GetKeyword(StatusKey); ok && cur == status {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, StatusKey.ValueSet(status)); err != nil {
		workflow.GetLogger(ctx).Warn("could not upsert TrackerStatus", "status", status, "error", err)
	}
}
