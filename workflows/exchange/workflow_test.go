package exchangewf_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/exchange"
	"tracker/api/apitest"
	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
	"tracker/store/exchangedb/importdb"
	exchangewf "tracker/workflows/exchange"
	"tracker/workflows/workflowtest"
)

// submitted is an import of a seeded org's export into a new org, recorded
// and waiting for its workflow.
func submitted(t *testing.T) (*apitest.Env, uuid.UUID, exportseed.Seeded) {
	t.Helper()
	env := apitest.New(t, apitest.Options{})
	owner := env.Register("Owner")
	ctx := context.Background()
	seeded, err := exportseed.Seed(ctx, env.DB, owner.OrgID, owner.ID, exportseed.Options{Projects: 2, TicketsPerProject: 9,
		CommentsPerTicket: 2, EntriesPerTicket: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := domain.Principal{UserID: owner.ID, OrgID: owner.OrgID, Scopes: []string{domain.ScopeAll}}
	es := export.New(env.DB, env.Clock)
	sc, err := es.Prepare(ctx, p, owner.OrgID, "")
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := es.WriteJSON(ctx, sc, &doc); err != nil {
		t.Fatal(err)
	}
	org := env.Do("POST", "/api/v1/orgs", owner.Token, map[string]any{"name": "B", "slug": "b-" + uuid.NewString()[:8]}).Expect(t, 201).Map(t)
	id, err := importer.New(env.DB, env.Clock, nil).Submit(ctx, p, uuid.MustParse(org["id"].(string)), doc.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return env, id, seeded
}

// run is a submitted import with a test workflow environment that has the
// import's workflow and activities (batches of batch tickets) registered.
type run struct {
	env    *apitest.Env
	id     uuid.UUID
	seeded exportseed.Seeded
	te     *testsuite.TestWorkflowEnvironment
	a      *acts.Activities
}

func newRun(t *testing.T, batch int) run {
	t.Helper()
	env, id, seeded := submitted(t)
	var s testsuite.WorkflowTestSuite
	te := workflowtest.Patient(s.NewTestWorkflowEnvironment())
	a := &acts.Activities{Runner: importer.NewRunner(env.DB, env.Clock, batch, nil)}
	exchangewf.RegisterOn(te, a)
	return run{env: env, id: id, seeded: seeded, te: te, a: a}
}

// onBatch answers ImportTicketBatch with fn, told the call's number (from
// 1); it returns the count of calls.
func (r run) onBatch(fn func(ctx context.Context, call int) (importer.Step, error)) *int {
	calls := new(int)
	r.te.OnActivity(r.a.ImportTicketBatch, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ uuid.UUID) (importer.Step, error) {
			*calls++
			return fn(ctx, *calls)
		})
	return calls
}

// status is the import as its requester reads it.
func (r run) status(t *testing.T) (importer.Status, error) {
	t.Helper()
	return importer.New(r.env.DB, r.env.Clock, nil).Get(context.Background(), principalOf(t, r.env, r.id), r.id)
}

func TestImportWorkflowRunsTheImport(t *testing.T) {
	t.Parallel()
	r := newRun(t, 4)
	env, id, seeded, te, a := r.env, r.id, r.seeded, r.te, r.a
	te.ExecuteWorkflow(exchangewf.Import, exchangewf.Input{ImportID: id})
	if !te.IsWorkflowCompleted() || te.GetWorkflowError() != nil {
		t.Fatalf("workflow: %v", te.GetWorkflowError())
	}
	var res exchangewf.Result
	if err := te.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	want := importer.Summary{WorkflowsCreated: 1, LabelsCreated: 2, ProjectsCreated: 2, SprintsCreated: 6,
		TicketsCreated: seeded.Tickets, CommentsCreated: seeded.Comments, TimeEntriesCreated: seeded.Entries,
		TeamsCreated: 1, LinksCreated: seeded.Links, ParentsSet: seeded.Parents}
	if res.Summary != want || seeded.Links == 0 || seeded.Parents == 0 {
		t.Fatalf("summary %+v, want %+v", res.Summary, want)
	}
	v, err := te.QueryWorkflow(exchangewf.QueryProgress)
	if err != nil {
		t.Fatal(err)
	}
	var pr exchangewf.Progress
	if err := v.Get(&pr); err != nil {
		t.Fatal(err)
	}
	if pr.Status != "completed" || pr.TicketsProcessed != seeded.Tickets || pr.TicketsTotal != seeded.Tickets || pr.Summary != want {
		t.Fatalf("progress %+v", pr)
	}
	row, err := importdb.Get(context.Background(), env.DB.Q(), id)
	if err != nil || row.Status != importdb.StatusCompleted || row.FinishedAt == nil {
		t.Fatalf("row %+v %v", row, err)
	}
	// A second run of the same import (a replayed start) finds it done.
	var s testsuite.WorkflowTestSuite
	te2 := workflowtest.Patient(s.NewTestWorkflowEnvironment())
	exchangewf.RegisterOn(te2, a)
	te2.ExecuteWorkflow(exchangewf.Import, exchangewf.Input{ImportID: id})
	var again exchangewf.Result
	if err := te2.GetWorkflowResult(&again); err != nil || again.Summary != want {
		t.Fatalf("second run %+v %v", again, err)
	}
}

func TestImportWorkflowRetriesABatchWithoutDuplicates(t *testing.T) {
	t.Parallel()
	r := newRun(t, 5)
	env, id, seeded, te, a := r.env, r.id, r.seeded, r.te, r.a
	// The third batch commits, then its worker "dies" before reporting:
	// the retry must not import those tickets again.
	r.onBatch(func(ctx context.Context, call int) (importer.Step, error) {
		st, err := a.ImportTicketBatch(ctx, id)
		if call == 3 {
			return importer.Step{}, errors.New("worker lost after commit")
		}
		return st, err
	})
	te.ExecuteWorkflow(exchangewf.Import, exchangewf.Input{ImportID: id})
	if err := te.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res exchangewf.Result
	_ = te.GetWorkflowResult(&res)
	if res.Summary.TicketsCreated != seeded.Tickets || res.Summary.CommentsCreated != seeded.Comments {
		t.Fatalf("summary %+v", res.Summary)
	}
	var tickets, keys int
	_ = env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM tickets t JOIN imports i ON i.org_id = t.org_id WHERE i.id = $1`, id).Scan(&tickets)
	_ = env.DB.Pool.QueryRow(context.Background(), `SELECT count(*) FROM import_key_map WHERE import_id = $1 AND kind = 'ticket'`, id).Scan(&keys)
	if tickets != seeded.Tickets || keys != seeded.Tickets {
		t.Fatalf("%d tickets and %d ticket keys, want %d", tickets, keys, seeded.Tickets)
	}
}

func TestImportWorkflowFailsOnAPermanentError(t *testing.T) {
	t.Parallel()
	r := newRun(t, 0)
	id, te, a := r.id, r.te, r.a
	te.OnActivity(a.ImportCatalog, mock.Anything, mock.Anything).Return(importer.Step{},
		temporal.NewNonRetryableApplicationError("user x could not be created", acts.ErrTypePermanent, nil)).Once()
	te.ExecuteWorkflow(exchangewf.Import, exchangewf.Input{ImportID: id})
	if te.GetWorkflowError() == nil {
		t.Fatal("workflow succeeded")
	}
	st, err := r.status(t)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != "failed" || len(st.Errors) != 1 {
		t.Fatalf("status %+v", st)
	}
}

// principalOf is the requester of an import.
func principalOf(t *testing.T, env *apitest.Env, id uuid.UUID) domain.Principal {
	t.Helper()
	var user, org uuid.UUID
	if err := env.DB.Pool.QueryRow(context.Background(), `SELECT requested_by, org_id FROM imports WHERE id = $1`, id).Scan(&user, &org); err != nil {
		t.Fatal(err)
	}
	return domain.Principal{UserID: user, OrgID: org, Scopes: []string{domain.ScopeAll}}
}

// A step that keeps failing with an error that looks passing (the
// database refusing connections, say) is retried within its bounds, then
// the import ends failed with that reason instead of running for ever.
func TestImportWorkflowFailsWhenAStepExhaustsItsBounds(t *testing.T) {
	t.Parallel()
	r := newRun(t, 4)
	calls := r.onBatch(func(context.Context, int) (importer.Step, error) {
		return importer.Step{}, errors.New("connection refused")
	})
	r.te.ExecuteWorkflow(exchangewf.Import, exchangewf.Input{ImportID: r.id})
	if r.te.GetWorkflowError() == nil {
		t.Fatal("workflow succeeded")
	}
	if *calls != int(exchangewf.StepOptions.RetryPolicy.MaximumAttempts) {
		t.Fatalf("%d attempts, want %d", *calls, exchangewf.StepOptions.RetryPolicy.MaximumAttempts)
	}
	st, err := r.status(t)
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != "failed" || len(st.Errors) != 1 || !strings.Contains(st.Errors[0], "connection refused") || st.FinishedAt == nil {
		t.Fatalf("status %+v", st)
	}
}

// An Admin cancels through the API while a batch runs: the batch commits,
// the workflow finds the import cancelled at its next step and ends
// normally with what was imported.
func TestImportWorkflowStopsAfterTheBatchWhenCancelled(t *testing.T) {
	t.Parallel()
	r := newRun(t, 4)
	env, id, te, a := r.env, r.id, r.te, r.a
	svc := importer.New(env.DB, env.Clock, nil)
	p := principalOf(t, env, id)
	calls := r.onBatch(func(ctx context.Context, call int) (importer.Step, error) {
		st, err := a.ImportTicketBatch(ctx, id)
		if call == 2 {
			if _, err := svc.Cancel(ctx, p, id); err != nil {
				return st, err
			}
		}
		return st, err
	})
	te.ExecuteWorkflow(exchangewf.Import, exchangewf.Input{ImportID: id})
	if err := te.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res exchangewf.Result
	_ = te.GetWorkflowResult(&res)
	if *calls != 3 || res.Summary.TicketsCreated != 8 {
		t.Fatalf("%d batch calls, summary %+v", *calls, res.Summary)
	}
	st, err := svc.Get(context.Background(), p, id)
	if err != nil || st.Status != "cancelled" || st.Summary.TicketsCreated != 8 {
		t.Fatalf("status %+v %v", st, err)
	}
	v, _ := te.QueryWorkflow(exchangewf.QueryProgress)
	var pr exchangewf.Progress
	if err := v.Get(&pr); err != nil || pr.Status != "cancelled" {
		t.Fatalf("progress %+v %v", pr, err)
	}
}

// A workflow cancelled in Temporal (UI, CLI) records the import as
// cancelled too.
func TestImportWorkflowCancelledInTemporal(t *testing.T) {
	t.Parallel()
	r := newRun(t, 4)
	r.onBatch(func(ctx context.Context, call int) (importer.Step, error) {
		if call == 2 {
			r.te.CancelWorkflow()
		}
		return r.a.ImportTicketBatch(ctx, r.id)
	})
	r.te.ExecuteWorkflow(exchangewf.Import, exchangewf.Input{ImportID: r.id})
	if err := r.te.GetWorkflowError(); !temporal.IsCanceledError(err) {
		t.Fatalf("workflow error %v", err)
	}
	st, err := r.status(t)
	if err != nil || st.Status != "cancelled" {
		t.Fatalf("status %+v %v", st, err)
	}
}
