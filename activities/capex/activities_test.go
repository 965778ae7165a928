package capexact_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/capex"
	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/capexdb"
	"tracker/store/storetest"
)

func TestActivities(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	owner := testfactory.User(t, db, testfactory.UserOpts{Name: "Owner"}).ID
	org := testfactory.Org(t, db, owner, testfactory.OrgOpts{}).ID
	project := testfactory.Project(t, db, org, testfactory.ProjectOpts{Key: "CORE", DevelopmentPhase: testfactory.Ptr("ApplicationDevelopment")})
	ticket := testfactory.Ticket(t, db, project, owner, testfactory.TicketOpts{})
	testfactory.LaborRate(t, db, org, owner, testfactory.LaborRateOpts{Cents: 12000, EffectiveDate: testfactory.Day("2026-01-01")})
	testfactory.TimeEntry(t, db, ticket, owner, testfactory.TimeEntryOpts{Date: testfactory.Day("2026-03-03"), Minutes: 75, Status: "Approved"})
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
		// The XLSX is stored beside it, once, with the same row as typed
		// cells: 1.25 hours, rate 120.00 and amount 150.00 as numbers.
		book, err := capexdb.ExportXLSX(t.Context(), db.Q(), job.ExportID)
		if err != nil || len(book) == 0 || rows.Items[0].XLSXSize == nil || *rows.Items[0].XLSXSize != int64(len(book)) {
			t.Fatalf("xlsx %d bytes (%v), row %+v", len(book), err, rows.Items[0])
		}
		x, err := excelize.OpenReader(bytes.NewReader(book))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		got, err := x.GetRows("Capitalization", excelize.Options{RawCellValue: true})
		if err != nil || len(got) != 3 || strings.Join(got[1][1:12], "|") != "Project CORE|CORE|Owner|||1.25|Coding|ApplicationDevelopment|CapEx|120|150" ||
			got[2][0] != "Total" || got[2][11] != "150" {
			t.Fatalf("xlsx rows %q (%v)", got, err)
		}
		for _, cell := range []string{"G2", "K2", "L2"} {
			if ty, _ := x.GetCellType("Capitalization", cell); ty != excelize.CellTypeUnset {
				t.Fatalf("%s is not a number: %v", cell, ty)
			}
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
		other := testfactory.Org(t, db, testfactory.User(t, db, testfactory.UserOpts{Name: "Other"}).ID, testfactory.OrgOpts{}).ID
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
