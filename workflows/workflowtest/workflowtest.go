// Package workflowtest runs one feature's worker registration against the
// Temporal dev server (worker/workertest) the way the shared worker does:
// Register before the worker starts, Start (its Schedules) after.
package workflowtest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"

	"tracker/worker/jobkind"
)

// Run registers reg on a new worker of taskQueue, starts the worker (it
// stops when the test ends) and runs reg.Start once. It returns the
// jobkind.Env the registration was started with (its log discards).
func Run(t testing.TB, c client.Client, taskQueue string, reg jobkind.Registration) jobkind.Env {
	t.Helper()
	w := sdkworker.New(c, taskQueue, sdkworker.Options{DeadlockDetectionTimeout: DeadlockTimeout})
	reg.Register(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	env := jobkind.Env{Client: c, TaskQueue: taskQueue, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if reg.Start != nil {
		if err := reg.Start(context.Background(), env); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// NewEnv is a test workflow environment (Temporal's testsuite) that logs
// nowhere and asserts its mocked activities' expectations when the test
// ends.
func NewEnv(t testing.TB) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := Patient(s.NewTestWorkflowEnvironment())
	t.Cleanup(func() { env.AssertExpectations(t) })
	return env
}

// DeadlockTimeout replaces the SDK's 1 s deadlock detector in tests: on a
// loaded 2-core machine a workflow task can wait more than a second for the
// CPU, and the SDK then fails it as a "potential deadlock" although there is
// none. Production workers keep the SDK's default.
const DeadlockTimeout = time.Minute

// Patient gives env's deadlock detector DeadlockTimeout (env has no other
// worker options to keep: call it before any other SetWorkerOptions).
func Patient(env *testsuite.TestWorkflowEnvironment) *testsuite.TestWorkflowEnvironment {
	return env.SetWorkerOptions(sdkworker.Options{DeadlockDetectionTimeout: DeadlockTimeout})
}

// Execute runs the workflow wf with input in to completion in a fresh
// NewEnv that has acts registered under name prefix (prefix plus the method
// name, as the feature's Registration registers them), fails the test on a
// workflow error and stores the result in out (nil: not read).
func Execute(t testing.TB, acts any, prefix string, wf, in, out any) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	env := NewEnv(t)
	env.RegisterActivityWithOptions(acts, activity.RegisterOptions{Name: prefix})
	env.ExecuteWorkflow(wf, in)
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("workflow: %v", env.GetWorkflowError())
	}
	if out != nil {
		if err := env.GetWorkflowResult(out); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// NewActivityEnv is a test activity environment (Temporal's testsuite)
// that logs nowhere, with acts registered under name prefix.
func NewActivityEnv(acts any, prefix string) *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(acts, activity.RegisterOptions{Name: prefix})
	return env
}
