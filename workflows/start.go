// Package workflows holds what every feature's durable work shares: start
// options that make a start idempotent, the custom search attributes and
// job summaries that make a run findable in the Temporal UI, the status a
// run shows as it goes, and the routing of DB-heavy activities to their own
// queue. Each feature's workflow lives in its own package below it
// (workflows/webhook, workflows/cascade, workflows/exchange, ...) and
// plugs into the worker with the jobkind.Registration its Register returns.
package workflows

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// StartOptions make a start with a business-key id idempotent: a running
// workflow with the id is reused, and a closed one is never run again.
func StartOptions(id, taskQueue string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                taskQueue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}
}

// Starter starts workflows; client.Client is one.
type Starter interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
}

// StartOnce starts a workflow with StartOptions; a workflow that already ran
// or runs under the id counts as started, so the outbox relay may start the
// same row's workflows any number of times.
func StartOnce(ctx context.Context, c Starter, id, taskQueue string, wf any, args ...any) error {
	_, err := c.ExecuteWorkflow(ctx, StartOptions(id, taskQueue), wf, args...)
	if err != nil && !temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return fmt.Errorf("start %s: %w", id, err)
	}
	return nil
}

// DBQueueSuffix names the task queue of DB-heavy activities (import steps,
// purge batches): a worker polls <task queue>-db with at most as many
// activities at once as its database pool has connections, while outbound
// HTTP (webhook attempts, chat posts) and the workflows themselves run on
// <task queue> with their own, larger, limit. Routing is deterministic:
// the queue is derived from the workflow's own task queue.
const DBQueueSuffix = "-db"

// DBTaskQueue is the DB-heavy activities' queue beside taskQueue.
func DBTaskQueue(taskQueue string) string { return taskQueue + DBQueueSuffix }

// OnDBQueue routes the activities of ctx with options o to the DB-heavy
// queue beside the workflow's own.
func OnDBQueue(ctx workflow.Context, o workflow.ActivityOptions) workflow.Context {
	o.TaskQueue = DBTaskQueue(workflow.GetInfo(ctx).TaskQueueName)
	return workflow.WithActivityOptions(ctx, o)
}
