package timeentry_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/domain/timeentry"
	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/capexdb"
	"tracker/store/projectdb"
	"tracker/store/storetest"
	"tracker/store/ticketdb"
)

// now is the service's clock: entries may be dated up to 2026-03-11.
var now = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

// world is one org with an Owner, an Admin, two Members (Ann, Bob), a
// Reporter assigned to p1 and a Viewer; projects p1 and p2 with a ticket
// each; and a second org, shared by the Owner and Ann, with a ticket.
type world struct {
	t                                          *testing.T
	db                                         *store.DB
	svc                                        *timeentry.Service
	org, org2                                  uuid.UUID
	owner, admin, ann, bob, reporter, viewer   domain.Principal
	p1, p2, q1                                 projectdb.Row
	t1, t2, u1                                 ticketdb.Row
	ownerID, adminID, annID, bobID, reporterID uuid.UUID
}

func session(u uuid.UUID) domain.Principal {
	return domain.Principal{UserID: u, Scopes: []string{domain.ScopeAll}}
}

func newWorld(t *testing.T) *world {
	t.Helper()
	db := storetest.New(t)
	w := &world{t: t, db: db, svc: timeentry.New(db, domain.ClockFunc(func() time.Time { return now }))}
	user := func() uuid.UUID { return testfactory.User(t, db, testfactory.UserOpts{}).ID }
	w.ownerID = user()
	w.org = testfactory.Org(t, db, w.ownerID, testfactory.OrgOpts{}).ID
	member := func(role string) uuid.UUID {
		u := user()
		testfactory.Member(t, db, w.org, u, testfactory.MemberOpts{Role: role})
		return u
	}
	w.adminID, w.annID, w.bobID, w.reporterID = member("admin"), member("member"), member("member"), member("reporter")
	viewerID := member("viewer")
	w.owner, w.admin, w.ann, w.bob, w.reporter, w.viewer = session(w.ownerID), session(w.adminID), session(w.annID),
		session(w.bobID), session(w.reporterID), session(viewerID)
	w.p1 = testfactory.Project(t, db, w.org, testfactory.ProjectOpts{})
	w.p2 = testfactory.Project(t, db, w.org, testfactory.ProjectOpts{})
	testfactory.Assign(t, db, w.p1, w.reporterID)
	w.t1 = testfactory.Ticket(t, db, w.p1, w.ownerID, testfactory.TicketOpts{})
	w.t2 = testfactory.Ticket(t, db, w.p2, w.ownerID, testfactory.TicketOpts{})
	w.org2 = testfactory.Org(t, db, w.ownerID, testfactory.OrgOpts{}).ID
	testfactory.Member(t, db, w.org2, w.annID, testfactory.MemberOpts{Role: "member"})
	w.q1 = testfactory.Project(t, db, w.org2, testfactory.ProjectOpts{})
	w.u1 = testfactory.Ticket(t, db, w.q1, w.ownerID, testfactory.TicketOpts{})
	return w
}

func (w *world) input(user uuid.UUID, tk ticketdb.Row, date string, minutes int) timeentry.CreateInput {
	return timeentry.CreateInput{UserID: user, TicketID: tk.ID, ProjectID: tk.ProjectID, Date: date,
		Content: timeentry.Content{DurationMinutes: minutes, ActivityType: "Coding"}}
}

func (w *world) create(p domain.Principal, in timeentry.CreateInput) timeentry.Entry {
	w.t.Helper()
	e, err := w.svc.Create(context.Background(), p, in)
	if err != nil {
		w.t.Fatalf("Create %+v: %v", in, err)
	}
	return e
}

// closeMonth closes p in org.
func (w *world) closeMonth(org uuid.UUID, p string) {
	w.t.Helper()
	c := capexdb.NewClose(domain.NewID(), org, p, nil, now, capexdb.StatusClosed)
	c.SHA256 = strings.Repeat("0", 64)
	if err := capexdb.Insert(context.Background(), w.db.Q(), c, []byte("{}"), []byte{}); err != nil {
		w.t.Fatal(err)
	}
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	for _, tc := range []struct {
		date     string
		minutes  int
		activity string
		want     []string // nil: accepted
	}{
		{"2026-03-11", 60, "Coding", nil}, // tomorrow
		{" 2026-03-10 ", 1, "Meeting", nil},
		{"2026-03-09", 1440, "Planning", nil},
		{"2026-03-12", 60, "Coding", []string{"date: must not be more than 1 day in the future"}},
		{"2026/03/01", 60, "Coding", []string{"date: must be a date in the form YYYY-MM-DD"}},
		{"2026-03-10", 0, "Coding", []string{"duration_minutes: must be between 1 and 1440"}},
		{"2026-03-10", 1441, "Coding", []string{"duration_minutes: must be between 1 and 1440"}},
		{"2026-03-10", -5, "coding", []string{"duration_minutes: must be between 1 and 1440",
			"activity_type: must be one of Coding, CodeReview, BugFixing, Testing, Documentation, Design, Meeting, Planning"}},
	} {
		in := w.input(w.annID, w.t1, tc.date, tc.minutes)
		in.ActivityType = tc.activity
		e, err := w.svc.Create(ctx, w.ann, in)
		if tc.want == nil {
			if err != nil || e.DurationMinutes != tc.minutes || e.Date.String() != strings.TrimSpace(tc.date) {
				t.Fatalf("Create %+v = %+v, %v", tc, e, err)
			}
			continue
		}
		if err == nil {
			t.Fatalf("Create %+v accepted", tc)
		}
		if got := domain.AsError(err).Details; !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("Create %+v: problems %q, want %q", tc, got, tc.want)
		}
	}
	for _, a := range timeentry.ActivityTypes {
		if !timeentry.ValidActivity(a) {
			t.Fatalf("%s is not valid", a)
		}
	}
	if timeentry.ValidActivity("Sleeping") {
		t.Fatal("Sleeping is valid")
	}
}

func TestCreate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	desc := "pairing"
	in := w.input(w.annID, w.t1, "2026-03-02", 90)
	in.Description, in.ActivityType = &desc, "Design"
	e := w.create(w.ann, in)
	want := timeentry.Entry{ID: e.ID, UserID: w.annID, TicketID: w.t1.ID, ProjectID: w.p1.ID,
		Content: timeentry.Content{Date: civil.DateOf(testfactory.Day("2026-03-02")), DurationMinutes: 90, Description: &desc, ActivityType: "Design"}, Status: "Draft", CreatedAt: now, UpdatedAt: now, Version: 1}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("Create = %+v, want %+v", e, want)
	}
	if got, err := w.svc.Get(ctx, w.viewer, e.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	var action string
	if err := w.db.Q().QueryRow(ctx, `SELECT action FROM audit_log WHERE entity_id = $1`, e.ID).Scan(&action); err != nil || action != "created" {
		t.Fatalf("audit %q, %v", action, err)
	}

	// Another user's time: an Admin may, for a member of the org only.
	if got := w.create(w.admin, w.input(w.bobID, w.t2, "2026-03-03", 30)); got.UserID != w.bobID || got.ProjectID != w.p2.ID {
		t.Fatalf("Admin's entry for Bob = %+v", got)
	}
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, w.ann, w.input(w.bobID, w.t1, "2026-03-03", 30))), domain.KindForbidden,
		"logging time for another user requires the Admin role")
	stranger := testfactory.User(t, w.db, testfactory.UserOpts{}).ID
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, w.admin, w.input(stranger, w.t1, "2026-03-03", 30))), domain.KindValidation,
		"user_id: not a member of the project's organization")

	// The ticket must be the project's, in the project's org.
	other := w.input(w.annID, w.t1, "2026-03-03", 30)
	other.ProjectID = w.p2.ID
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, w.ann, other)), domain.KindValidation, "ticket_id: the ticket does not belong to project_id")
	other = w.input(w.annID, w.u1, "2026-03-03", 30)
	other.ProjectID = w.p1.ID
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, w.ann, other)), domain.KindValidation, "ticket_id: no such ticket in the project's organization")
	other.TicketID = domain.NewID()
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, w.ann, other)), domain.KindValidation, "ticket_id: no such ticket in the project's organization")

	// Roles: a Viewer may not log time, a non-member does not see the project.
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, w.viewer, w.input(w.viewer.UserID, w.t1, "2026-03-03", 30))), domain.KindForbidden)
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, session(stranger), w.input(stranger, w.t1, "2026-03-03", 30))), domain.KindNotFound)
	testfactory.WantKind(t, testfactory.Err(w.svc.Get(ctx, session(stranger), e.ID)), domain.KindNotFound, "time entry not found")
	testfactory.WantKind(t, testfactory.Err(w.svc.Get(ctx, w.ann, domain.NewID())), domain.KindNotFound, "time entry not found")

	// A closed month takes no new entry.
	w.closeMonth(w.org, "2026-02")
	testfactory.WantKind(t, testfactory.Err(w.svc.Create(ctx, w.ann, w.input(w.annID, w.t1, "2026-02-27", 30))), domain.KindConflict, "period 2026-02 is closed")
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	e := w.create(w.ann, w.input(w.annID, w.t1, "2026-03-02", 60))
	upd := func(p domain.Principal, in timeentry.Patch) (timeentry.Entry, error) {
		return w.svc.Update(ctx, p, e.ID, in)
	}
	// set is the patch that sets keys to their values in c, the date to date;
	// null the one that sets keys to null.
	set := func(c timeentry.Content, date string, keys ...string) timeentry.Patch {
		return timeentry.Patch{Content: domain.PatchWith(c, keys...), Date: date}
	}
	null := func(keys ...string) timeentry.Patch {
		return timeentry.Patch{Content: domain.PatchOf([]byte(`{"`+strings.Join(keys, `":null,"`)+`":null}`), timeentry.Content{})}
	}
	date := func(d string) timeentry.Patch { return set(timeentry.Content{}, d, "date") }
	minutes := func(m int) timeentry.Patch { return set(timeentry.Content{DurationMinutes: m}, "", "duration_minutes") }
	activity := func(a string) timeentry.Patch { return set(timeentry.Content{ActivityType: a}, "", "activity_type") }
	description := func(d string) timeentry.Patch { return set(timeentry.Content{Description: &d}, "", "description") }

	testfactory.WantKind(t, testfactory.Err(upd(w.ann, null("date", "duration_minutes", "activity_type"))),
		domain.KindValidation, "date: must not be null", "duration_minutes: must not be null", "activity_type: must not be null")
	testfactory.WantKind(t, testfactory.Err(upd(w.ann, date("2026-03-12"))), domain.KindValidation, "date: must not be more than 1 day")
	testfactory.WantKind(t, testfactory.Err(upd(w.ann, minutes(1441))), domain.KindValidation,
		"duration_minutes: must be between 1 and 1440")
	testfactory.WantKind(t, testfactory.Err(upd(w.ann, activity("Napping"))), domain.KindValidation, "activity_type: must be one of")
	testfactory.WantKind(t, testfactory.Err(upd(w.bob, minutes(5))), domain.KindForbidden,
		"only the entry's user or an Admin may change this time entry")
	testfactory.WantKind(t, testfactory.Err(upd(w.viewer, timeentry.Patch{})), domain.KindForbidden)
	testfactory.WantKind(t, testfactory.Err(w.svc.Update(ctx, w.ann, domain.NewID(), timeentry.Patch{})), domain.KindNotFound, "time entry not found")

	// Nothing changes: no write, and the version read decides If-Match.
	same, err := upd(w.ann, set(timeentry.Content{DurationMinutes: 60, ActivityType: "Coding"}, "2026-03-02",
		"date", "duration_minutes", "activity_type", "description"))
	if err != nil || !reflect.DeepEqual(same, e) {
		t.Fatalf("no-op Update = %+v, %v; want %+v", same, err, e)
	}
	testfactory.WantKind(t, testfactory.Err(w.svc.Update(domain.WithIfMatch(ctx, []int64{4}), w.ann, e.ID, timeentry.Patch{})), domain.KindPreconditionFailed)

	// Every field, by an Admin: changed, audited, the version moves.
	up, err := upd(w.admin, set(timeentry.Content{DurationMinutes: 1440, ActivityType: "Testing", Description: testfactory.Ptr("first")},
		"2026-03-11", "date", "duration_minutes", "activity_type", "description"))
	if err != nil || up.Date.String() != "2026-03-11" || up.DurationMinutes != 1440 || up.ActivityType != "Testing" || up.Description == nil ||
		*up.Description != "first" || up.Version != 2 || up.Status != "Draft" {
		t.Fatalf("Update = %+v, %v", up, err)
	}
	if got, _ := w.svc.Get(ctx, w.ann, e.ID); !reflect.DeepEqual(got, up) {
		t.Fatalf("Get after Update = %+v, want %+v", got, up)
	}
	fields := func() []string {
		var raw []byte
		if err := w.db.Q().QueryRow(ctx, `SELECT changes FROM audit_log WHERE entity_id = $1 AND action = 'updated'
			ORDER BY created_at DESC, id DESC LIMIT 1`, e.ID).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var ch []domain.FieldChange
		if err := json.Unmarshal(raw, &ch); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range ch {
			out = append(out, c.Field)
		}
		return out
	}
	if got := fields(); !reflect.DeepEqual(got, []string{"date", "duration_minutes", "description", "activity_type"}) {
		t.Fatalf("audited fields %q", got)
	}
	// The description alone: same text is no change, other text and none are.
	for i, tc := range []struct {
		patch   timeentry.Patch
		want    *string
		changed bool
	}{
		{description("first"), testfactory.Ptr("first"), false},
		{description("second"), testfactory.Ptr("second"), true},
		{null("description"), nil, true},
		{null("description"), nil, false},
		{description("third"), testfactory.Ptr("third"), true},
	} {
		before, _ := w.svc.Get(ctx, w.ann, e.ID)
		got, err := upd(w.ann, tc.patch)
		if err != nil || !reflect.DeepEqual(got.Description, tc.want) || (got.Version != before.Version) != tc.changed {
			t.Fatalf("description step %d: %+v, %v (version %d before)", i, got, err, before.Version)
		}
	}

	// A Submitted entry edited returns to Draft; one left alone stays Submitted.
	if _, err := w.svc.Submit(ctx, w.ann, e.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := upd(w.ann, activity("Testing")); err != nil || got.Status != "Submitted" {
		t.Fatalf("unchanged Submitted entry = %+v, %v", got, err)
	}
	got, err := upd(w.ann, minutes(1))
	if err != nil || got.Status != "Draft" || got.DurationMinutes != 1 {
		t.Fatalf("edited Submitted entry = %+v, %v", got, err)
	}
	if f := fields(); !reflect.DeepEqual(f, []string{"duration_minutes", "status"}) {
		t.Fatalf("audited fields %q", f)
	}
	testfactory.WantKind(t, testfactory.Err(w.svc.Update(domain.WithIfMatch(ctx, []int64{1}), w.ann, e.ID, activity("Design"))),
		domain.KindPreconditionFailed)

	// Closed months: neither the old date nor the new one may be closed.
	w.closeMonth(w.org, "2026-02")
	testfactory.WantKind(t, testfactory.Err(upd(w.ann, date("2026-02-20"))), domain.KindConflict, "period 2026-02 is closed")
	old := w.create(w.ann, w.input(w.annID, w.t1, "2026-01-30", 60))
	w.closeMonth(w.org, "2026-01")
	testfactory.WantKind(t, testfactory.Err(w.svc.Update(ctx, w.ann, old.ID, minutes(5))),
		domain.KindConflict, "period 2026-01 is closed")

	// Approved entries are immutable.
	a := testfactory.TimeEntry(t, w.db, w.t1, w.annID, testfactory.TimeEntryOpts{Date: testfactory.Day("2026-03-03"), Status: "Approved"})
	testfactory.WantKind(t, testfactory.Err(w.svc.Update(ctx, w.admin, a.ID, minutes(5))),
		domain.KindConflict, "time entry is Approved: approved entries cannot be changed", "status: Approved")
}

func TestDelete(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	e := w.create(w.ann, w.input(w.annID, w.t1, "2026-03-02", 60))
	testfactory.WantKind(t, w.svc.Delete(ctx, w.bob, e.ID), domain.KindForbidden, "only the entry's user or an Admin")
	testfactory.WantKind(t, w.svc.Delete(domain.WithIfMatch(ctx, []int64{3}), w.ann, e.ID), domain.KindPreconditionFailed)
	if err := w.svc.Delete(ctx, w.admin, e.ID); err != nil {
		t.Fatal(err)
	}
	testfactory.WantKind(t, testfactory.Err(w.svc.Get(ctx, w.ann, e.ID)), domain.KindNotFound)
	var n int
	if err := w.db.Q().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'deleted'`, e.ID).Scan(&n); err != nil || n != 1 {
		t.Fatalf("deletion audited %d times, %v", n, err)
	}
	testfactory.WantKind(t, w.svc.Delete(ctx, w.ann, e.ID), domain.KindNotFound)

	a := testfactory.TimeEntry(t, w.db, w.t1, w.annID, testfactory.TimeEntryOpts{Date: testfactory.Day("2026-03-03"), Status: "Approved"})
	testfactory.WantKind(t, w.svc.Delete(ctx, w.admin, a.ID), domain.KindConflict, "approved entries cannot be deleted")
	feb := w.create(w.ann, w.input(w.annID, w.t1, "2026-02-27", 60))
	w.closeMonth(w.org, "2026-02")
	testfactory.WantKind(t, w.svc.Delete(ctx, w.ann, feb.ID), domain.KindConflict, "period 2026-02 is closed")
	if _, err := w.svc.Get(ctx, w.ann, feb.ID); err != nil {
		t.Fatalf("refused delete removed the entry: %v", err)
	}
}

func TestSubmitApprove(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	e := w.create(w.ann, w.input(w.annID, w.t1, "2026-03-02", 60))
	testfactory.WantKind(t, testfactory.Err(w.svc.Approve(ctx, w.admin, e.ID)), domain.KindConflict,
		"time entry is Draft: only a Submitted entry can be approved", "status: Draft")
	testfactory.WantKind(t, testfactory.Err(w.svc.Submit(ctx, w.bob, e.ID)), domain.KindForbidden, "only the entry's user or an Admin")
	s, err := w.svc.Submit(ctx, w.ann, e.ID)
	if err != nil || s.Status != "Submitted" || s.Version != 2 || s.ApprovedBy != nil || s.ApprovedAt != nil {
		t.Fatalf("Submit = %+v, %v", s, err)
	}
	testfactory.WantKind(t, testfactory.Err(w.svc.Submit(ctx, w.ann, e.ID)), domain.KindConflict, "time entry is Submitted: only a Draft entry can be submitted")
	testfactory.WantKind(t, testfactory.Err(w.svc.Approve(ctx, w.ann, e.ID)), domain.KindForbidden, "requires the Admin role")
	testfactory.WantKind(t, testfactory.Err(w.svc.Approve(domain.WithIfMatch(ctx, []int64{1}), w.admin, e.ID)), domain.KindPreconditionFailed)
	a, err := w.svc.Approve(ctx, w.admin, e.ID)
	if err != nil || a.Status != "Approved" || a.ApprovedBy == nil || *a.ApprovedBy != w.adminID || a.ApprovedAt == nil ||
		!a.ApprovedAt.Equal(now) || a.Version != 3 {
		t.Fatalf("Approve = %+v, %v", a, err)
	}
	if got, _ := w.svc.Get(ctx, w.ann, e.ID); !reflect.DeepEqual(got, a) {
		t.Fatalf("Get after Approve = %+v, want %+v", got, a)
	}
	var actions []string
	rows, err := w.db.Q().Query(ctx, `SELECT action FROM audit_log WHERE entity_id = $1 ORDER BY created_at, action`, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		actions = append(actions, s)
	}
	slices.Sort(actions)
	if !reflect.DeepEqual(actions, []string{"approved", "created", "submitted"}) {
		t.Fatalf("audited %q", actions)
	}

	feb := w.create(w.ann, w.input(w.annID, w.t1, "2026-02-27", 60))
	w.closeMonth(w.org, "2026-02")
	testfactory.WantKind(t, testfactory.Err(w.svc.Submit(ctx, w.ann, feb.ID)), domain.KindConflict, "period 2026-02 is closed")
}

func ids(es []timeentry.Entry) []uuid.UUID {
	out := []uuid.UUID{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	slices.SortFunc(out, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func sorted(xs ...uuid.UUID) []uuid.UUID {
	out := append([]uuid.UUID{}, xs...)
	slices.SortFunc(out, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func TestLists(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := context.Background()
	page := domain.Page{Limit: 50}
	a1 := w.create(w.ann, w.input(w.annID, w.t1, "2026-03-02", 60))
	a2 := w.create(w.ann, w.input(w.annID, w.t2, "2026-03-03", 60))
	a3 := w.create(w.ann, w.input(w.annID, w.u1, "2026-03-02", 60)) // the second org
	b1 := w.create(w.bob, w.input(w.bobID, w.t1, "2026-03-02", 60))
	for _, id := range []uuid.UUID{a2.ID, a3.ID, b1.ID} {
		if _, err := w.svc.Submit(ctx, w.owner, id); err != nil {
			t.Fatal(err)
		}
	}

	byTicket := func(p domain.Principal, tk uuid.UUID, f timeentry.ListFilter) ([]uuid.UUID, error) {
		got, err := w.svc.ListByTicket(ctx, p, tk, f, page)
		return ids(got.Items), err
	}
	if got, err := byTicket(w.viewer, w.t1.ID, timeentry.ListFilter{}); err != nil || !reflect.DeepEqual(got, sorted(a1.ID, b1.ID)) {
		t.Fatalf("ListByTicket = %v, %v", got, err)
	}
	if got, err := byTicket(w.viewer, w.t1.ID, timeentry.ListFilter{UserID: w.bobID}); err != nil || !reflect.DeepEqual(got, sorted(b1.ID)) {
		t.Fatalf("ListByTicket of Bob = %v, %v", got, err)
	}
	if got, err := byTicket(w.viewer, w.t2.ID, timeentry.ListFilter{Date: "2026-03-02"}); err != nil || len(got) != 0 {
		t.Fatalf("ListByTicket on another date = %v, %v", got, err)
	}
	if got, err := byTicket(w.viewer, w.t2.ID, timeentry.ListFilter{Date: "2026-03-03"}); err != nil || !reflect.DeepEqual(got, sorted(a2.ID)) {
		t.Fatalf("ListByTicket on its date = %v, %v", got, err)
	}
	testfactory.WantKind(t, testfactory.Err(byTicket(w.viewer, w.t1.ID, timeentry.ListFilter{Date: "March"})), domain.KindValidation, "date: must be a date")
	testfactory.WantKind(t, testfactory.Err(byTicket(w.viewer, domain.NewID(), timeentry.ListFilter{})), domain.KindNotFound, "ticket not found")
	testfactory.WantKind(t, testfactory.Err(byTicket(w.reporter, w.t2.ID, timeentry.ListFilter{})), domain.KindForbidden)
	testfactory.WantKind(t, testfactory.Err(byTicket(w.bob, w.u1.ID, timeentry.ListFilter{})), domain.KindNotFound)

	byUser := func(p domain.Principal, user, org uuid.UUID, f timeentry.ListFilter) ([]uuid.UUID, error) {
		got, err := w.svc.ListByUser(ctx, p, user, org, f, page)
		return ids(got.Items), err
	}
	for _, tc := range []struct {
		name string
		p    domain.Principal
		org  uuid.UUID
		f    timeentry.ListFilter
		want []uuid.UUID
	}{
		{"the Owner, every shared org", w.owner, uuid.Nil, timeentry.ListFilter{}, sorted(a1.ID, a2.ID, a3.ID)},
		{"the Owner, one org", w.owner, w.org, timeentry.ListFilter{}, sorted(a1.ID, a2.ID)},
		{"the Owner, one project", w.owner, uuid.Nil, timeentry.ListFilter{ProjectID: w.q1.ID}, sorted(a3.ID)},
		{"the Owner, one date", w.owner, uuid.Nil, timeentry.ListFilter{Date: "2026-03-02"}, sorted(a1.ID, a3.ID)},
		{"Ann herself", w.ann, uuid.Nil, timeentry.ListFilter{}, sorted(a1.ID, a2.ID, a3.ID)},
		{"Bob, who shares one org with Ann", w.bob, uuid.Nil, timeentry.ListFilter{}, sorted(a1.ID, a2.ID)},
		{"the Reporter, assigned to p1", w.reporter, uuid.Nil, timeentry.ListFilter{}, sorted(a1.ID)},
		{"the Reporter in the org", w.reporter, w.org, timeentry.ListFilter{}, sorted(a1.ID)},
		{"the Owner's key, bound to its org", domain.Principal{UserID: w.ownerID, OrgID: w.org2, KeyID: testfactory.Ptr(domain.NewID()),
			Scopes: []string{domain.ScopeRead}}, uuid.Nil, timeentry.ListFilter{}, sorted(a3.ID)},
		{"the Owner's key restricted to p2", domain.Principal{UserID: w.ownerID, OrgID: w.org, KeyID: testfactory.Ptr(domain.NewID()),
			Scopes: []string{domain.ScopeRead}, ProjectIDs: []uuid.UUID{w.p2.ID}}, uuid.Nil, timeentry.ListFilter{}, sorted(a2.ID)},
		{"the Reporter's key restricted to p2", domain.Principal{UserID: w.reporterID, OrgID: w.org, KeyID: testfactory.Ptr(domain.NewID()),
			Scopes: []string{domain.ScopeRead}, ProjectIDs: []uuid.UUID{w.p2.ID}}, uuid.Nil, timeentry.ListFilter{}, []uuid.UUID{}},
		{"the Reporter's key restricted to p1", domain.Principal{UserID: w.reporterID, OrgID: w.org, KeyID: testfactory.Ptr(domain.NewID()),
			Scopes: []string{domain.ScopeRead}, ProjectIDs: []uuid.UUID{w.p1.ID}}, uuid.Nil, timeentry.ListFilter{}, sorted(a1.ID)},
		{"a password session of the Owner, the second org single sign-on only", domain.Principal{UserID: w.ownerID,
			Scopes: []string{domain.ScopeAll}, SSOOnlyOrgs: []uuid.UUID{w.org2}}, uuid.Nil, timeentry.ListFilter{}, sorted(a1.ID, a2.ID)},
	} {
		if got, err := byUser(tc.p, w.annID, tc.org, tc.f); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Fatalf("%s: ListByUser = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	testfactory.WantKind(t, testfactory.Err(byUser(w.owner, w.annID, uuid.Nil, timeentry.ListFilter{Date: "2026-3-2"})), domain.KindValidation, "date: must be a date")
	// A key bound to the second org asking for the first by name reads
	// nothing there: the named org is kept, not swapped for the key's own.
	key2 := domain.Principal{UserID: w.ownerID, OrgID: w.org2, KeyID: testfactory.Ptr(domain.NewID()), Scopes: []string{domain.ScopeRead}}
	testfactory.WantKind(t, testfactory.Err(byUser(key2, w.annID, w.org, timeentry.ListFilter{})), domain.KindNotFound)
	stranger := session(testfactory.User(t, w.db, testfactory.UserOpts{}).ID)
	testfactory.WantKind(t, testfactory.Err(byUser(stranger, w.annID, w.org, timeentry.ListFilter{})), domain.KindNotFound)
	if got, err := byUser(stranger, w.annID, uuid.Nil, timeentry.ListFilter{}); err != nil || len(got) != 0 {
		t.Fatalf("a stranger's ListByUser = %v, %v", got, err)
	}

	queue := func(p domain.Principal, org uuid.UUID) []uuid.UUID {
		t.Helper()
		got, err := w.svc.ListSubmitted(ctx, p, org)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range got {
			if e.Status != "Submitted" {
				t.Fatalf("queue holds %+v", e)
			}
		}
		return ids(got)
	}
	if got := queue(w.owner, uuid.Nil); !reflect.DeepEqual(got, sorted(a2.ID, a3.ID, b1.ID)) {
		t.Fatalf("the Owner's queue = %v", got)
	}
	if got := queue(w.owner, w.org2); !reflect.DeepEqual(got, sorted(a3.ID)) {
		t.Fatalf("the Owner's queue of the second org = %v", got)
	}
	if got := queue(w.reporter, uuid.Nil); !reflect.DeepEqual(got, sorted(b1.ID)) {
		t.Fatalf("the Reporter's queue = %v", got)
	}
	testfactory.WantKind(t, testfactory.Err(w.svc.ListSubmitted(ctx, stranger, w.org)), domain.KindNotFound)
}
