package worker

import (
	"context"
	"io"
	"testing"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"tracker/worker/workertest"
	"tracker/workflows"
)

// TestEnsureSearchAttributes: on a server that does not know them (a
// compose stack's Temporal), the worker's registration adds the three
// attributes; a second call, as every replica makes at start, succeeds.
func TestEnsureSearchAttributes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dev, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{ExistingPath: workertest.CLI(t), LogLevel: "error",
		ClientOptions: &client.Options{Namespace: "default"}, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dev.Stop() }()
	c := dev.Client()
	for i := 0; i < 2; i++ {
		if err := EnsureSearchAttributes(ctx, c, "default"); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	res, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for name, typ := range workflows.SearchAttributeTypes() {
		if got := res.GetCustomAttributes()[name]; got != typ {
			t.Errorf("%s registered as %v, want %v", name, got, typ)
		}
	}
}
