package capexwf_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/xuri/excelize/v2"
	"go.temporal.io/sdk/client"

	"tracker/api"
	"tracker/api/apitest"
	capexapi "tracker/api/capex"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/worker"
	"tracker/worker/jobkind"
	"tracker/worker/workertest"
	capexwf "tracker/workflows/capex"
	"tracker/workflows/workflowtest"
)

// TestEndToEnd runs the real app, a real worker and the Temporal dev server:
// the Schedule is ensured (twice), the on-demand run is requested over HTTP
// and its CSV downloaded, and a triggered scheduled run exports every org.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	c := workertest.Start(t).Client(t)
	ctx := context.Background()
	taskQueue := "capexport-e2e-" + uuid.NewString()[:8]

	var svc *capex.Service
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		svc = capex.New(e.DB, e.Clock)
		return []api.Module{capexapi.New(svc)}
	}})
	// The worker is set up as the shared worker does it, through the
	// feature's Registration: Register before start, Start (the Schedule)
	// after.
	reg := capexwf.Register(capexwf.Deps{Exports: svc})
	wenv := workflowtest.Run(t, c, taskQueue, reg)
	// The shared worker's outbox relay, with this feature's dispatchers: an
	// on-demand request reaches Temporal through it.
	relayCtx, stopRelay := context.WithCancel(ctx)
	t.Cleanup(stopRelay)
	relay := &worker.Relay{DB: env.DB, Log: wenv.Log, Env: wenv, Poll: 200 * time.Millisecond,
		Topics: map[string][]jobkind.Dispatch{capex.TopicExport: {reg.Topics[capex.TopicExport]}}}
	go relay.Run(relayCtx)

	owner := env.Register("Owner")
	other := env.Register("Other org owner")
	project := testfactory.Project(t, env.DB, owner.OrgID, testfactory.ProjectOpts{Key: "CORE", DevelopmentPhase: testfactory.Ptr("ApplicationDevelopment")})
	ticket := testfactory.Ticket(t, env.DB, project, owner.ID, testfactory.TicketOpts{})
	testfactory.LaborRate(t, env.DB, owner.OrgID, owner.ID, testfactory.LaborRateOpts{Cents: 9000, EffectiveDate: testfactory.Day("2026-01-01")})
	testfactory.TimeEntry(t, env.DB, ticket, owner.ID, testfactory.TimeEntryOpts{Date: testfactory.Day("2026-03-10"), Minutes: 200, Status: "Approved"})

	t.Run("EnsureSchedule is idempotent and fires at 02:00 UTC on the 1st", func(t *testing.T) {
		for i := 0; i < 2; i++ {
			if err := capexwf.EnsureSchedule(ctx, c, taskQueue); err != nil {
				t.Fatalf("call %d: %v", i+1, err)
			}
		}
		d, err := c.ScheduleClient().GetHandle(ctx, capexwf.ScheduleID).Describe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Info.NextActionTimes) == 0 {
			t.Fatal("no next action")
		}
		for _, next := range d.Info.NextActionTimes {
			n := next.UTC()
			if n.Day() != 1 || n.Hour() != 2 || n.Minute() != 0 || n.Second() != 0 {
				t.Fatalf("next action at %v", n)
			}
		}
		a, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction)
		if !ok || a.TaskQueue != taskQueue || a.Workflow != capexwf.WorkflowName {
			t.Fatalf("action %+v", d.Schedule.Action)
		}
		// The list is read from visibility, which may lag a moment.
		n := waitFor(t, func() (int, bool) {
			iter, err := c.ScheduleClient().List(ctx, client.ScheduleListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for iter.HasNext() {
				s, err := iter.Next()
				if err != nil {
					t.Fatal(err)
				}
				if s.ID == capexwf.ScheduleID {
					n++
				}
			}
			return n, n > 0
		})
		if n != 1 {
			t.Fatalf("%d schedules named %s", n, capexwf.ScheduleID)
		}
	})

	t.Run("on-demand run over HTTP, then download", func(t *testing.T) {
		var e capex.Export
		env.Do("POST", "/api/v1/reports/capitalization/exports", owner.Token, map[string]any{"period": "2026-03"}).Expect(t, 202).Decode(t, &e)
		done := waitFor(t, func() (capex.Export, bool) {
			var got capex.Export
			env.Do("GET", "/api/v1/reports/capitalization/exports/"+e.ID.String(), owner.Token, nil).Expect(t, 200).Decode(t, &got)
			return got, got.Status == capex.ExportCompleted || got.Status == capex.ExportFailed
		})
		if done.Status != capex.ExportCompleted {
			t.Fatalf("run ended %+v", done)
		}
		file := env.Do("GET", "/api/v1/reports/capitalization/exports/"+e.ID.String()+"/download", owner.Token, nil).Expect(t, 200)
		live := env.Do("GET", "/api/v1/reports/capitalization/export?period=2026-03", owner.Token, nil).Expect(t, 200)
		if !bytes.Equal(file.Body, live.Body) || !bytes.Contains(file.Body, []byte(",3.33,Coding,ApplicationDevelopment,CapEx,90.00,300.00,")) {
			t.Fatalf("downloaded %q\nlive %q", file.Body, live.Body)
		}
		if cd := file.Header.Get("Content-Disposition"); cd == "" || cd[:10] != "attachment" {
			t.Fatalf("content disposition %q", cd)
		}
	})

	t.Run("a scheduled run exports the previous month for every org", func(t *testing.T) {
		if err := capexwf.EnsureSchedule(ctx, c, taskQueue); err != nil {
			t.Fatal(err)
		}
		if err := c.ScheduleClient().GetHandle(ctx, capexwf.ScheduleID).Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
			t.Fatal(err)
		}
		want := capex.PeriodOf(time.Now()).Previous().String()
		for _, u := range []apitest.User{owner, other} {
			got := waitFor(t, func() (capex.Export, bool) {
				var p api.Paginated[capex.Export]
				env.Do("GET", "/api/v1/reports/capitalization/exports?period="+want, u.Token, nil).Expect(t, 200).Decode(t, &p)
				for _, e := range p.Items {
					if e.Trigger == capex.TriggerSchedule && e.Status == capex.ExportCompleted {
						return e, true
					}
				}
				return capex.Export{}, false
			})
			if got.OrgID != u.OrgID || got.RequestedBy != nil || got.SizeBytes == nil || got.XLSXSizeBytes == nil {
				t.Fatalf("scheduled run %+v", got)
			}
			// Both files exist: the CSV and the XLSX beside it.
			path := "/api/v1/reports/capitalization/exports/" + got.ID.String() + "/download"
			if csvFile := env.Do("GET", path, u.Token, nil).Expect(t, 200); int64(len(csvFile.Body)) != *got.SizeBytes ||
				!bytes.HasPrefix(csvFile.Body, []byte("Period,Project,")) {
				t.Fatalf("scheduled CSV %q", csvFile.Body)
			}
			book := env.Do("GET", path+"?format=xlsx", u.Token, nil).Expect(t, 200)
			if int64(len(book.Body)) != *got.XLSXSizeBytes || book.Header.Get("Content-Type") != capex.XLSXContentType {
				t.Fatalf("scheduled XLSX: %d bytes, %v", len(book.Body), book.Header)
			}
			x, err := excelize.OpenReader(bytes.NewReader(book.Body))
			if err != nil {
				t.Fatal(err)
			}
			rows, err := x.GetRows("Capitalization")
			_ = x.Close()
			if err != nil || len(rows) < 2 || rows[0][0] != "Period" || rows[len(rows)-1][0] != "Total" {
				t.Fatalf("scheduled XLSX rows %q (%v)", rows, err)
			}
		}
	})
}

func waitFor[T any](t *testing.T, f func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		v, ok := f()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out; last %+v", v)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
