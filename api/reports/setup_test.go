package reports_test

import (
	"context"
	"encoding/json"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/laborrates"
	"tracker/api/reports"
	"tracker/api/timeentries"
	"tracker/domain/capex"
	"tracker/domain/capex/capextest"
	"tracker/domain/laborrate"
	"tracker/domain/timeentry"
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
	f                            capextest.F
	run                          *runner
	owner, admin, member, viewer apitest.User
	outsider                     apitest.User
	ann, bob                     apitest.User
	core, infra, legacy          uuid.UUID
	platform, infraTeam          uuid.UUID
	coreT, legacyT               uuid.UUID
}

func setup(t *testing.T) *world {
	t.Helper()
	w := &world{}
	w.env = apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		svc := capex.New(e.DB, e.Clock)
		w.run = &runner{svc: svc}
		return []api.Module{reports.New(svc), timeentries.New(timeentry.New(e.DB, e.Clock)),
			laborrates.New(laborrate.New(e.DB, e.Clock))}
	}})
	w.f = capextest.F{T: t, DB: w.env.DB}
	w.owner = w.env.Register("Owner")
	w.admin = w.env.Member(w.owner, "admin")
	w.member = w.env.Member(w.owner, "member")
	w.viewer = w.env.Member(w.owner, "viewer")
	w.outsider = w.env.Register("Outsider")
	w.ann = w.env.Member(w.owner, "member")
	w.bob = w.env.Member(w.owner, "member")
	org := w.owner.OrgID
	f := w.f
	w.platform = f.Team(org, "Platform")
	w.infraTeam = f.Team(org, "Infra")
	p := capextest.Ptr[string]
	w.core = f.Project(org, capextest.Project{Key: "CORE", Name: "Core", TeamID: &w.platform, DevelopmentPhase: p("ApplicationDevelopment"),
		CostCenterID: p("CC-1"), BudgetCents: capextest.Ptr[int64](100000), BudgetPeriod: p("Monthly")})
	w.infra = f.Project(org, capextest.Project{Key: "INFRA", Name: "Infra", TeamID: &w.infraTeam, DevelopmentPhase: p("Preliminary"),
		CostCenterID: p("CC-2"), BudgetCents: capextest.Ptr[int64](300000), BudgetPeriod: p("Quarterly")})
	w.legacy = f.Project(org, capextest.Project{Key: "LEGACY", Name: "Legacy", DevelopmentPhase: p("PostImplementation"),
		BudgetCents: capextest.Ptr[int64](50000), BudgetPeriod: p("Fixed")})
	coreT, infraT, legacyT := f.Ticket(w.core, w.owner.ID), f.Ticket(w.infra, w.owner.ID), f.Ticket(w.legacy, w.owner.ID)
	w.coreT, w.legacyT = coreT, legacyT
	f.Rate(org, w.ann.ID, 10000, "2026-01-01")
	f.Rate(org, w.bob.ID, 6000, "2026-01-01")
	entry := func(u apitest.User, project, ticket uuid.UUID, date string, minutes int, activity string) uuid.UUID {
		return f.Entry(capextest.Entry{OrgID: org, UserID: u.ID, ProjectID: project, TicketID: ticket, Date: date, Minutes: minutes, Activity: activity})
	}
	entry(w.ann, w.core, coreT, "2026-03-02", 120, "Coding")
	review := entry(w.ann, w.core, coreT, "2026-03-03", 60, "CodeReview")
	entry(w.bob, w.core, coreT, "2026-03-04", 60, "Coding")
	entry(w.bob, w.infra, infraT, "2026-03-05", 90, "Testing")
	entry(w.ann, w.legacy, legacyT, "2026-03-06", 30, "BugFixing")
	entry(w.ann, w.legacy, legacyT, "2026-02-10", 600, "BugFixing")
	f.Tag(org, "project", w.core, "env", "prod")
	f.Tag(org, "project", w.infra, "env", "prod")
	f.Tag(org, "project", w.legacy, "env", "legacy")
	f.Tag(org, "ticket", legacyT, "kind", "bug")
	f.Tag(org, "user", w.bob.ID, "dept", "rnd")
	f.Tag(org, "user", w.ann.ID, "department", "Research, Dev")
	f.Tag(org, "time_entry", review, "billable", "yes")
	return w
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
