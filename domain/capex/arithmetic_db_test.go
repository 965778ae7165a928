package capex_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/storetest"
	"tracker/store/ticketdb"
)

// org is one isolated org of a test: its owner (the report's caller), one
// worker and one project with a ticket.
type org struct {
	t              testing.TB
	db             *store.DB
	id, owner, ann uuid.UUID
	ticket         ticketdb.Row
	caller         domain.Principal
}

func newOrg(t testing.TB, db *store.DB, p testfactory.ProjectOpts) org {
	t.Helper()
	o := org{t: t, db: db, owner: testfactory.User(t, db, testfactory.UserOpts{Name: "Owner"}).ID,
		ann: testfactory.User(t, db, testfactory.UserOpts{Name: "Ann"}).ID}
	o.id = testfactory.Org(t, db, o.owner, testfactory.OrgOpts{}).ID
	testfactory.Member(t, db, o.id, o.ann, testfactory.MemberOpts{Role: "member"})
	o.ticket = testfactory.Ticket(t, db, testfactory.Project(t, db, o.id, p), o.owner, testfactory.TicketOpts{})
	o.caller = domain.Principal{UserID: o.owner, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	return o
}

// entry records user's time on the org's ticket; status defaults to
// Approved.
func (o org) entry(user uuid.UUID, date string, minutes int, activity, status string) {
	o.t.Helper()
	if status == "" {
		status = "Approved"
	}
	testfactory.TimeEntry(o.t, o.db, o.ticket, user, testfactory.TimeEntryOpts{Date: testfactory.Day(date), Minutes: minutes,
		Activity: activity, Status: status})
}

// addRate records a labor rate of user in orgID from date.
func addRate(t testing.TB, db *store.DB, orgID, user uuid.UUID, cents int64, date string) {
	t.Helper()
	testfactory.LaborRate(t, db, orgID, user, testfactory.LaborRateOpts{Cents: cents, EffectiveDate: testfactory.Day(date)})
}

type line struct {
	activity string
	hours    string
	cents    int64
}

type rate struct {
	cents int64
	from  string
}

type entry struct {
	date     string
	minutes  int
	activity string
	status   string // default Approved
}

// TestArithmetic prices each case's entries through the real report query.
func TestArithmetic(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	svc := capex.New(db, domain.SystemClock{})
	tests := []struct {
		name      string
		rates     []rate
		entries   []entry
		wantHours string
		wantCents int64
		unpriced  int64
		breakdown []line
	}{
		{
			name:  "rate changes mid-month: each entry at the rate of its own date",
			rates: []rate{{10000, "2026-01-01"}, {12000, "2026-03-16"}},
			entries: []entry{
				{"2026-03-15", 60, "Coding", ""}, // 100.00
				{"2026-03-16", 60, "Coding", ""}, // 120.00, on the effective date
				{"2026-03-31", 30, "Coding", ""}, // 60.00
			},
			wantHours: "2.50", wantCents: 28000,
			breakdown: []line{{"Coding", "2.50", 28000}},
		},
		{
			name:  "an entry on the rate's effective date takes the new rate, the day before the old",
			rates: []rate{{5000, "2026-03-01"}, {7000, "2026-03-10"}},
			entries: []entry{
				{"2026-03-09", 60, "Testing", ""},
				{"2026-03-10", 60, "Testing", ""},
			},
			wantHours: "2.00", wantCents: 12000,
			breakdown: []line{{"Testing", "2.00", 12000}},
		},
		{
			name:  "minutes that do not divide evenly round per entry, half up",
			rates: []rate{{10000, "2026-01-01"}},
			entries: []entry{
				{"2026-03-02", 7, "Coding", ""}, // 11.666.. → 11.67
				{"2026-03-03", 7, "Coding", ""},
				{"2026-03-04", 7, "Coding", ""},
			},
			wantHours: "0.35", wantCents: 3501, // not 35.00 of the summed 21 minutes
			breakdown: []line{{"Coding", "0.35", 3501}},
		},
		{
			name:  "a half cent rounds up",
			rates: []rate{{30, "2026-01-01"}}, // 1 minute = 0.5 cent
			entries: []entry{
				{"2026-03-02", 1, "Coding", ""},
				{"2026-03-02", 3, "Coding", ""}, // 1.5 → 2
			},
			wantHours: "0.07", wantCents: 3,
			breakdown: []line{{"Coding", "0.07", 3}},
		},
		{
			name:  "multiple activity types, in the spec's order",
			rates: []rate{{10000, "2026-01-01"}},
			entries: []entry{
				{"2026-03-05", 20, "Meeting", ""},
				{"2026-03-05", 90, "Testing", ""},
				{"2026-03-05", 60, "Coding", ""},
				{"2026-03-06", 40, "Coding", ""},
			},
			wantHours: "3.50", wantCents: 35000,
			breakdown: []line{{"Coding", "1.67", 16667}, {"Testing", "1.50", 15000}, {"Meeting", "0.33", 3333}},
		},
		{
			name:  "today's rate is not used for a past month",
			rates: []rate{{10000, "2026-03-01"}, {99900, "2026-04-01"}},
			entries: []entry{
				{"2026-03-31", 60, "Design", ""},
			},
			wantHours: "1.00", wantCents: 10000,
			breakdown: []line{{"Design", "1.00", 10000}},
		},
		{
			name:  "an entry before the first rate prices at 0 and is counted as unpriced",
			rates: []rate{{6000, "2026-03-20"}},
			entries: []entry{
				{"2026-03-19", 60, "Planning", ""},
				{"2026-03-20", 60, "Planning", ""},
			},
			wantHours: "2.00", wantCents: 6000, unpriced: 1,
			breakdown: []line{{"Planning", "2.00", 6000}},
		},
		{
			name:  "only approved entries of the period count",
			rates: []rate{{6000, "2026-01-01"}},
			entries: []entry{
				{"2026-03-10", 60, "Coding", ""},
				{"2026-03-11", 60, "Coding", "Draft"},
				{"2026-03-12", 60, "Coding", "Submitted"},
				{"2026-02-28", 60, "Coding", ""},
				{"2026-04-01", 60, "Coding", ""},
			},
			wantHours: "1.00", wantCents: 6000,
			breakdown: []line{{"Coding", "1.00", 6000}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := newOrg(t, db, testfactory.ProjectOpts{DevelopmentPhase: testfactory.Ptr("ApplicationDevelopment")})
			for _, r := range tt.rates {
				addRate(t, db, o.id, o.ann, r.cents, r.from)
			}
			for _, e := range tt.entries {
				o.entry(o.ann, e.date, e.minutes, e.activity, e.status)
			}
			rep, err := svc.Report(context.Background(), o.caller, query(t, "2026-03"))
			if err != nil {
				t.Fatal(err)
			}
			if len(*rep.Projects) != 1 {
				t.Fatalf("projects: %+v", *rep.Projects)
			}
			p := (*rep.Projects)[0]
			if p.TotalHours.String() != tt.wantHours || p.TotalAmountCents != tt.wantCents || p.UnpricedEntries != tt.unpriced {
				t.Fatalf("project totals %s h, %d cents, %d unpriced; want %s h, %d cents, %d unpriced",
					p.TotalHours, p.TotalAmountCents, p.UnpricedEntries, tt.wantHours, tt.wantCents, tt.unpriced)
			}
			var got []line
			for _, b := range p.Breakdown {
				got = append(got, line{b.ActivityType, b.Hours.String(), b.AmountCents})
			}
			if len(got) != len(tt.breakdown) {
				t.Fatalf("breakdown %v, want %v", got, tt.breakdown)
			}
			for i := range got {
				if got[i] != tt.breakdown[i] {
					t.Fatalf("breakdown %v, want %v", got, tt.breakdown)
				}
			}
			if rep.TotalAmountCents != tt.wantCents || rep.CapExAmountCents != tt.wantCents || rep.OpExAmountCents != 0 {
				t.Fatalf("report totals: %+v", rep.Totals)
			}
		})
	}
}

// TestRatesOfAnotherOrg: a user's rate in one org never prices their time in
// another.
func TestRatesOfAnotherOrg(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	a := newOrg(t, db, testfactory.ProjectOpts{})
	other := testfactory.Org(t, db, testfactory.User(t, db, testfactory.UserOpts{Name: "Other owner"}).ID, testfactory.OrgOpts{}).ID
	testfactory.Member(t, db, other, a.ann, testfactory.MemberOpts{Role: "member"})
	addRate(t, db, other, a.ann, 50000, "2026-01-01")
	addRate(t, db, a.id, a.ann, 10000, "2026-01-01")
	a.entry(a.ann, "2026-03-02", 60, "Coding", "")
	rep, err := capex.New(db, domain.SystemClock{}).Report(context.Background(), a.caller, query(t, "2026-03"))
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.TotalAmountCents; got != 10000 {
		t.Fatalf("amount %d, want 10000 (the org's own rate)", got)
	}
	if (*rep.Projects)[0].CapExOpEx != capex.OpEx {
		t.Fatalf("a project without a phase must be OpEx")
	}
}

func query(t *testing.T, period string) capex.Query {
	t.Helper()
	q, err := capex.ParseQuery(capex.RawQuery{Period: period})
	if err != nil {
		t.Fatal(err)
	}
	return q
}
