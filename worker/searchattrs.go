package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"tracker/workflows"
)

// EnsureSearchAttributes registers the tracker's custom search attributes
// (workflows.SearchAttributeTypes: TrackerOrgId, TrackerJobKind,
// TrackerStatus) in the namespace through the OperatorService, as
// Temporal's reference application does at worker start. It is idempotent:
// attributes that already exist (the dev server registers them at start
// with --search-attribute) are success. Every worker replica calls it before
// the relay starts workflows that carry them.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	want := workflows.SearchAttributeTypes()
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err == nil {
		for name := range have.GetCustomAttributes() {
			delete(want, name)
		}
		if len(want) == 0 {
			return nil
		}
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: namespace, SearchAttributes: want})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) && !strings.Contains(err.Error(), "already exists") {
		return fmt.Errorf("register search attributes: %w", err)
	}
	return nil
}
