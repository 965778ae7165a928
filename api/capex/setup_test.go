package capex_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	capexapi "tracker/api/capex"
	laborrateapi "tracker/api/laborrate"
	timeentryapi "tracker/api/timeentry"
	"tracker/domain/capex"
	"tracker/domain/laborrate"
	"tracker/domain/testfactory"
	"tracker/domain/timeentry"
	"tracker/store/projectdb"
	"tracker/store/ticketdb"
)

// runner stands in for the worker: it runs the on-demand jobs waiting in
// the outbox inline, as the relay and the workflow's activity would.
type runner struct {
	svc *capex.Service
}

// drain runs every pending export job and marks it dispatched.
func (r *runner) drain(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	rows, err := r.svc.DB.Pool.Query(ctx, `UPDATE outbox SET dispatched_at = now()
		WHERE topic = $1 AND dispatched_at IS NULL RETURNING payload`, capex.TopicExport)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []capex.ExportJob
	for rows.Next() {
		var b []byte
		var job capex.ExportJob
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &job); err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, job)
	}
	rows.Close()
	for _, job := range jobs {
		if _, err := r.svc.RunExport(ctx, job); err != nil {
			t.Fatal(err)
		}
	}
}

// world: three projects with budgets of each kind, two workers with rates,
// and tags on a project, a ticket, a user and an entry.
//
//	CORE   (ApplicationDevelopment, team Platform, CC-1, 1000.00 Monthly)
//	       Ann 120 Coding + 60 CodeReview (tagged billable:yes), Bob 60 Coding
//	INFRA  (Preliminary, team Infra, CC-2, 3000.00 Quarterly)  Bob 90 Testing
//	LEGACY (PostImplementation, no team, 500.00 Fixed)          Ann 30 BugFixing
//	       (+ 600 min in February: the Fixed budget counts it)
//
// Ann costs 100.00/h, Bob 60.00/h.
type world struct {
	env                          *apitest.Env
	run                          *runner
	owner, admin, member, viewer apitest.User
	outsider                     apitest.User
	ann, bob                     apitest.User
	core, infra, legacy          uuid.UUID
	platform, infraTeam          uuid.UUID
	coreT, legacyT               ticketdb.Row
}

func setup(t *testing.T) *world {
	t.Helper()
	return setupWith(t, apitest.Options{})
}

// setupWith builds the world on o (its DB, for one); o.Modules is replaced.
func setupWith(t *testing.T, o apitest.Options) *world {
	t.Helper()
	w := &world{}
	o.Modules = func(e *apitest.Env) []api.Module {
		svc := capex.New(e.DB, e.Clock)
		w.run = &runner{svc: svc}
		return []api.Module{capexapi.New(svc), timeentryapi.New(timeentry.New(e.DB, e.Clock)),
			laborrateapi.New(laborrate.New(e.DB, e.Clock))}
	}
	w.env = apitest.New(t, o)
	w.owner = w.env.Register("Owner")
	w.admin = w.env.Member(w.owner, "admin")
	w.member = w.env.Member(w.owner, "member")
	w.viewer = w.env.Member(w.owner, "viewer")
	w.outsider = w.env.Register("Outsider")
	w.ann = w.env.Member(w.owner, "member")
	w.bob = w.env.Member(w.owner, "member")
	org, db := w.owner.OrgID, w.env.DB
	w.platform = testfactory.Team(t, db, org, testfactory.TeamOpts{Name: "Platform"}).ID
	w.infraTeam = testfactory.Team(t, db, org, testfactory.TeamOpts{Name: "Infra"}).ID
	p := testfactory.Ptr[string]
	core := testfactory.Project(t, db, org, testfactory.ProjectOpts{Key: "CORE", Name: "Core", TeamID: &w.platform,
		DevelopmentPhase: p("ApplicationDevelopment"), CostCenterID: p("CC-1"), BudgetCents: testfactory.Ptr[int64](100000), BudgetPeriod: p("Monthly")})
	infra := testfactory.Project(t, db, org, testfactory.ProjectOpts{Key: "INFRA", Name: "Infra", TeamID: &w.infraTeam,
		DevelopmentPhase: p("Preliminary"), CostCenterID: p("CC-2"), BudgetCents: testfactory.Ptr[int64](300000), BudgetPeriod: p("Quarterly")})
	legacy := testfactory.Project(t, db, org, testfactory.ProjectOpts{Key: "LEGACY", Name: "Legacy",
		DevelopmentPhase: p("PostImplementation"), BudgetCents: testfactory.Ptr[int64](50000), BudgetPeriod: p("Fixed")})
	w.core, w.infra, w.legacy = core.ID, infra.ID, legacy.ID
	ticket := func(p projectdb.Row) ticketdb.Row {
		return testfactory.Ticket(t, db, p, w.owner.ID, testfactory.TicketOpts{Title: "Ticket"})
	}
	w.coreT, w.legacyT = ticket(core), ticket(legacy)
	infraT := ticket(infra)
	testfactory.LaborRate(t, db, org, w.ann.ID, testfactory.LaborRateOpts{Cents: 10000, EffectiveDate: testfactory.Day("2026-01-01")})
	testfactory.LaborRate(t, db, org, w.bob.ID, testfactory.LaborRateOpts{Cents: 6000, EffectiveDate: testfactory.Day("2026-01-01")})
	w.entry(t, w.ann, w.coreT, "2026-03-02", 120, "Coding", "Approved")
	review := w.entry(t, w.ann, w.coreT, "2026-03-03", 60, "CodeReview", "Approved")
	w.entry(t, w.bob, w.coreT, "2026-03-04", 60, "Coding", "Approved")
	w.entry(t, w.bob, infraT, "2026-03-05", 90, "Testing", "Approved")
	w.entry(t, w.ann, w.legacyT, "2026-03-06", 30, "BugFixing", "Approved")
	w.entry(t, w.ann, w.legacyT, "2026-02-10", 600, "BugFixing", "Approved")
	for _, tag := range []testfactory.TagOpts{
		{EntityType: "project", EntityID: w.core, Key: "env", Value: "prod"},
		{EntityType: "project", EntityID: w.infra, Key: "env", Value: "prod"},
		{EntityType: "project", EntityID: w.legacy, Key: "env", Value: "legacy"},
		{EntityType: "ticket", EntityID: w.legacyT.ID, Key: "kind", Value: "bug"},
		{EntityType: "user", EntityID: w.bob.ID, Key: "dept", Value: "rnd"},
		{EntityType: "user", EntityID: w.ann.ID, Key: "department", Value: "Research, Dev"},
		{EntityType: "time_entry", EntityID: review, Key: "billable", Value: "yes"},
	} {
		testfactory.Tag(t, db, org, tag)
	}
	return w
}

// entry records u's minutes of activity on tk on date (YYYY-MM-DD) in
// status (an Approved entry approved by u).
func (w *world) entry(t *testing.T, u apitest.User, tk ticketdb.Row, date string, minutes int, activity, status string) uuid.UUID {
	t.Helper()
	return testfactory.TimeEntry(t, w.env.DB, tk, u.ID, testfactory.TimeEntryOpts{Date: testfactory.Day(date), Minutes: minutes,
		Activity: activity, Status: status}).ID
}

func (w *world) report(t *testing.T, u apitest.User, query string, want int) apitest.Resp {
	t.Helper()
	return w.env.Do("GET", "/api/v1/reports/capitalization?"+query, u.Token, nil).Expect(t, want)
}

func q(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v.Encode()
}
