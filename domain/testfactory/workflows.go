package testfactory

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/store"
	"tracker/store/projectdb"
	"tracker/store/statusflowdb"
	"tracker/store/ticketdb"
)

// WorkflowOpts are a workflow's options; zero values are "Workflow" with
// the Default workflow's statuses, no transitions, enforcement none.
type WorkflowOpts struct {
	Name        string
	Statuses    []statusflow.Status
	Transitions []statusflow.Transition
	Enforcement string
}

// Workflow inserts a workflow in orgID (a project takes it through
// ProjectOpts.WorkflowID).
func Workflow(t testing.TB, db *store.DB, orgID uuid.UUID, o WorkflowOpts) statusflowdb.Row {
	t.Helper()
	if o.Name == "" {
		o.Name = "Workflow"
	}
	if o.Statuses == nil {
		o.Statuses = statusflow.DefaultStatuses()
	}
	if o.Transitions == nil {
		o.Transitions = []statusflow.Transition{}
	}
	if o.Enforcement == "" {
		o.Enforcement = statusflow.EnforceNone
	}
	statuses, err := json.Marshal(o.Statuses)
	if err != nil {
		t.Fatal(err)
	}
	transitions, err := json.Marshal(o.Transitions)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := statusflowdb.Row{ID: domain.NewID(), OrgID: orgID, Name: o.Name, Statuses: statuses, Transitions: transitions,
		Enforcement: o.Enforcement, CreatedAt: now, UpdatedAt: now, RowVersion: 1}
	if err := statusflowdb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.Workflow: %v", err)
	}
	return r
}

// StatusChangeOpts are a status change: From and To, recorded At (zero:
// now).
type StatusChangeOpts struct {
	From, To string
	At       time.Time
}

// StatusChange inserts the audit row of a ticket's status change (tk.ID and
// tk.OrgID are read), shaped as the ticket use cases write it, at a chosen
// time: what burndowns and cycle times read. The ticket row keeps its
// status; a test sets the status it ends in when it makes the ticket.
func StatusChange(t testing.TB, db *store.DB, tk ticketdb.Row, o StatusChangeOpts) store.AuditRow {
	t.Helper()
	if o.At.IsZero() {
		o.At = time.Now().UTC()
	}
	changes, err := json.Marshal([]domain.FieldChange{{Field: "status", Old: o.From, New: o.To}})
	if err != nil {
		t.Fatal(err)
	}
	r := store.AuditRow{ID: domain.NewID(), OrgID: tk.OrgID, EntityType: "ticket", EntityID: tk.ID, Action: "status_changed",
		Changes: changes, CreatedAt: o.At}
	if err := store.InsertAudit(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.StatusChange: %v", err)
	}
	return r
}

// UseWorkflow puts an existing project on workflowID (p.ID and p.OrgID are
// read); a new one takes it through ProjectOpts.WorkflowID.
func UseWorkflow(t testing.TB, db *store.DB, p projectdb.Row, workflowID uuid.UUID) {
	t.Helper()
	if _, err := projectdb.Update(context.Background(), db.Q(), p.OrgID, p.ID, store.Versions{},
		map[string]any{"workflow_id": workflowID}, time.Now().UTC()); err != nil {
		t.Fatalf("testfactory.UseWorkflow: %v", err)
	}
}
