package exchangeact_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/exchange"
	"tracker/domain"
	"tracker/domain/exchange/importer"
	"tracker/store/storetest"
)

// A step for an import that does not exist can never succeed: it must not
// be retried for ever.
func TestMissingImportIsPermanent(t *testing.T) {
	t.Parallel()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	a := &acts.Activities{Runner: importer.NewRunner(storetest.New(t), domain.SystemClock{}, 0, nil)}
	env.RegisterActivity(a)
	_, err := env.ExecuteActivity(a.StageImport, uuid.New())
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() || appErr.Type() != acts.ErrTypePermanent {
		t.Fatalf("error %v", err)
	}
	for _, step := range []any{a.ImportCatalog, a.ImportTicketBatch, a.FinishImport} {
		_, err := env.ExecuteActivity(step, uuid.New())
		if !errors.As(err, &appErr) || !appErr.NonRetryable() {
			t.Fatalf("error %v", err)
		}
	}
}
