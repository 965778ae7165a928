package capex_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"
	"tracker/store/storetest"
)

// TestAmortizationFollowsPolicy: the schedule amortizes what the policy in
// force capitalized, and a closed month what its snapshot froze. One
// project in the application development stage, in service since
// 2026-02-20, amortized over 3 months; Ann at 60.00 an hour (m minutes cost
// m × 100 cents); March:
//
//	A             2026-03-05  60 min   6000
//	B label:bug   2026-03-25 120 min  12000
//	C             2026-03-26  30 min   3000
//
// Without a policy (the phase decides) March capitalizes 21000: 7000 in
// each of April, May and June. Under ASU 2025-06 with funding authorized
// and the uncertainty resolved on 2026-03-10 and a rule bug → opex, A is
// OpEx (before the 10th), B is OpEx (the rule), C is CapEx: 3000, so 1000
// a month. Closing March freezes that: relabelling B or marking the
// uncertainty unresolved afterwards changes nothing; April, open, follows
// the facts as they are (unresolved: nothing capitalized).
func TestAmortizationFollowsPolicy(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr(capex.PhaseApplicationDevelopment)})
	addRate(t, db, o.id, o.ann, 6000, "2026-01-01")
	ctx := context.Background()
	project := o.ticket.ProjectID
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE projects SET amortization_months = 3, placed_in_service = '2026-02-20',
		funding_authorized_on = '2026-03-10', significant_uncertainty_resolved_on = '2026-03-10',
		completion_probable = true WHERE id = $1`, project)
	a := o.ticket
	b := testfactory.Ticket(t, db, projectdb.Row{ID: project}, o.owner, testfactory.TicketOpts{Title: "bug"})
	c := testfactory.Ticket(t, db, projectdb.Row{ID: project}, o.owner, testfactory.TicketOpts{Title: "other"})
	testfactory.Label(t, db, o.id, testfactory.LabelOpts{Name: "bug", Tickets: []uuid.UUID{b.ID}})
	for _, e := range []struct {
		tk      uuid.UUID
		date    string
		minutes int
	}{{a.ID, "2026-03-05", 60}, {b.ID, "2026-03-25", 120}, {c.ID, "2026-03-26", 30}, {c.ID, "2026-04-02", 60}} {
		tk := a
		tk.ID = e.tk
		testfactory.TimeEntry(t, db, tk, o.ann, testfactory.TimeEntryOpts{Date: testfactory.Day(e.date), Minutes: e.minutes,
			Activity: "Coding", Status: "Approved"})
	}
	now := time.Date(2026, 7, 15, 12, 0, 0, 0, time.UTC)
	svc := capex.New(db, domain.ClockFunc(func() time.Time { return now }))
	// months: capitalized and amortization cents, March to July.
	check := func(name string, capitalized, amortized []int64) {
		t.Helper()
		r, err := svc.Amortization(ctx, o.caller, capex.AmortRequest{From: "2026-03", To: "2026-07"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Projects) != 1 {
			t.Fatalf("%s: projects %+v", name, r.Projects)
		}
		for i, m := range r.Projects[0].Months {
			if m.CapitalizedCents != capitalized[i] || m.AmortizationCents != amortized[i] {
				t.Errorf("%s: %s capitalized %d amortized %d, want %d and %d", name, m.Period, m.CapitalizedCents,
					m.AmortizationCents, capitalized[i], amortized[i])
			}
		}
	}
	// April's 60 minutes on C (6000) are CapEx too while the facts hold.
	check("no policy", []int64{21000, 6000, 0, 0, 0}, []int64{0, 7000, 9000, 9000, 2000})
	if _, err := svc.CreatePolicy(ctx, o.caller, o.id, capex.PolicyInput{Framework: capex.FrameworkASU202506,
		EffectiveFrom: "2026-03", Rules: json.RawMessage(`[{"id":"bug","match":"label:bug","classification":"opex",
		"reason":"maintenance"}]`)}); err != nil {
		t.Fatal(err)
	}
	check("ASU 2025-06 and the bug rule", []int64{3000, 6000, 0, 0, 0}, []int64{0, 1000, 3000, 3000, 2000})
	if _, err := svc.Close(ctx, o.caller, o.id, "2026-03"); err != nil {
		t.Fatal(err)
	}
	exec(`DELETE FROM ticket_labels WHERE ticket_id = $1`, b.ID)
	exec(`UPDATE projects SET significant_uncertainty_resolved_on = NULL WHERE id = $1`, project)
	check("March closed, the facts changed since", []int64{3000, 0, 0, 0, 0}, []int64{0, 1000, 1000, 1000, 0})
}
