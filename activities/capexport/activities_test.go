package capexport_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/capexport"
	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/capex/capextest"
	"tracker/store"
	"tracker/store/capexdb"
	"tracker/store/storetest"
)

func TestActivities(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	f := capextest.F{T: t, DB: db}
	owner := f.User("Owner")
	org := f.Org(owner)
	project := f.Project(org, capextest.Project{Key: "CORE", DevelopmentPhase: capextest.Ptr("ApplicationDevelopment")})
	ticket := f.Ticket(project, owner)
	f.Rate(org, owner, 12000, "2026-01-01")
	f.Entry(capextest.Entry{OrgID: org, UserID: owner, ProjectID: project, TicketID: ticket, Date: "2026-03-03", Minutes: 75})
	svc := capex.New(db, domain.SystemClock{})
	a := &acts.Activities{Exports: svc}
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(a)

	t.Run("ExportOrg stores the CSV once, however often it runs", func(t *testing.T) {
		job := capex.ExportJob{ExportID: uuid.Must(uuid.NewV7()), OrgID: org, Period: "2026-03", Trigger: capex.TriggerSchedule}
		var first, again acts.ExportResult
		v, err := env.ExecuteActivity(a.ExportOrg, job)
		if err != nil {
			t.Fatal(err)
		}
		_ = v.Get(&first)
		v, err = env.ExecuteActivity(a.ExportOrg, job) // a retry after a lost response
		if err != nil {
			t.Fatal(err)
		}
		_ = v.Get(&again)
		if first != again || first.ExportID != job.ExportID || first.SizeBytes == 0 {
			t.Fatalf("first %+v, again %+v", first, again)
		}
		rows, err := capexdb.ListExports(t.Context(), db.Q(), org, "", store.Page{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows.Items) != 1 || rows.Items[0].Status != capex.ExportCompleted || rows.Items[0].Trigger != "schedule" || rows.Items[0].RequestedBy != nil {
			t.Fatalf("rows %+v", rows.Items)
		}
		file, err := capexdb.ExportFile(t.Context(), db.Q(), job.ExportID)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(file, []byte("2026-03,Project CORE,CORE,Owner,,,1.25,Coding,ApplicationDevelopment,CapEx,120.00,150.00")) {
			t.Fatalf("file %q", file)
		}
	})
	t.Run("ExportOrg of an invalid job is not retried", func(t *testing.T) {
		_, err := env.ExecuteActivity(a.ExportOrg, capex.ExportJob{ExportID: uuid.New(), OrgID: org, Period: "2026-13", Trigger: capex.TriggerSchedule})
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || !appErr.NonRetryable() {
			t.Fatalf("want a non-retryable error, got %v", err)
		}
	})
	t.Run("MarkFailed records a run that never started", func(t *testing.T) {
		job := capex.ExportJob{ExportID: uuid.Must(uuid.NewV7()), OrgID: org, Period: "2026-02", Trigger: capex.TriggerSchedule}
		if _, err := env.ExecuteActivity(a.MarkFailed, acts.MarkFailedInput{Job: job, Error: "database gone"}); err != nil {
			t.Fatal(err)
		}
		e, err := capexdb.ExportByID(t.Context(), db.Q(), job.ExportID)
		if err != nil || e.Status != capex.ExportFailed || e.Error == nil || *e.Error != "database gone" || e.FinishedAt == nil {
			t.Fatalf("run %+v, %v", e, err)
		}
		// A failure report never overwrites a completed run.
		done := capex.ExportJob{ExportID: uuid.Must(uuid.NewV7()), OrgID: org, Period: "2026-03", Trigger: capex.TriggerSchedule}
		if _, err := env.ExecuteActivity(a.ExportOrg, done); err != nil {
			t.Fatal(err)
		}
		if _, err := env.ExecuteActivity(a.MarkFailed, acts.MarkFailedInput{Job: done, Error: "late"}); err != nil {
			t.Fatal(err)
		}
		if e, _ := capexdb.ExportByID(t.Context(), db.Q(), done.ExportID); e.Status != capex.ExportCompleted {
			t.Fatalf("completed run became %s", e.Status)
		}
	})
	t.Run("ListOrgs pages every org", func(t *testing.T) {
		other := f.Org(f.User("Other"))
		var all []uuid.UUID
		after := uuid.Nil
		for {
			v, err := env.ExecuteActivity(a.ListOrgs, acts.ListOrgsInput{After: after, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			var page []uuid.UUID
			_ = v.Get(&page)
			if len(page) == 0 {
				break
			}
			all = append(all, page...)
			after = page[len(page)-1]
		}
		if len(all) != 2 || !strings.Contains(all[0].String()+all[1].String(), org.String()) || !strings.Contains(all[0].String()+all[1].String(), other.String()) {
			t.Fatalf("orgs %v", all)
		}
	})
}
