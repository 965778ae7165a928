package statusflow_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/storetest"
)

type st = statusflow.Status
type tr = statusflow.Transition

// flowOrg is an org with an Owner, an Admin and a Member, and the service
// on a clock fixed at now.
type flowOrg struct {
	svc                  *statusflow.Service
	db                   *store.DB
	id                   uuid.UUID
	owner, admin, member domain.Principal
	now                  time.Time
}

func newFlowOrg(t *testing.T) flowOrg {
	t.Helper()
	db := storetest.New(t)
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	o := flowOrg{svc: statusflow.New(db, domain.ClockFunc(func() time.Time { return now })), db: db, now: now}
	owner := testfactory.User(t, db, testfactory.UserOpts{}).ID
	o.id = testfactory.Org(t, db, owner, testfactory.OrgOpts{}).ID
	who := func(role string) domain.Principal {
		u := testfactory.User(t, db, testfactory.UserOpts{}).ID
		testfactory.Member(t, db, o.id, u, testfactory.MemberOpts{Role: role})
		return domain.Principal{UserID: u, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	}
	o.owner = domain.Principal{UserID: owner, OrgID: o.id, Scopes: []string{domain.ScopeAll}}
	o.admin, o.member = who("admin"), who("member")
	return o
}

func threeStatuses() []st {
	return []st{{"Open", "todo"}, {"Doing", "in_progress"}, {"Done", "done"}}
}

// details is the exact list of problems of a 422.
func details(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		t.Fatal("err = nil, want a 422")
	}
	de := domain.AsError(err)
	if de.Kind != domain.KindValidation {
		t.Fatalf("err = %v, want a 422", err)
	}
	return de.Details
}

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	o := newFlowOrg(t)
	ctx := context.Background()
	many := func(n int) []st {
		out := make([]st, n)
		for i := range out {
			out[i] = st{fmt.Sprintf("S%d", i), "todo"}
		}
		return out
	}
	// n distinct transitions among the statuses of many(40).
	moves := func(n int) []tr {
		out := make([]tr, 0, n)
		for i := 0; len(out) < n; i++ {
			out = append(out, tr{fmt.Sprintf("S%d", i/40), fmt.Sprintf("S%d", i%40)})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   statusflow.CreateInput
		want []string // nil: accepted
	}{
		{"name of 255 characters (multi-byte)", statusflow.CreateInput{Name: strings.Repeat("é", 255), Statuses: threeStatuses()}, nil},
		{"name of 256 characters", statusflow.CreateInput{Name: strings.Repeat("é", 256), Statuses: threeStatuses()},
			[]string{"name: must be 1-255 characters"}},
		{"blank name", statusflow.CreateInput{Name: "  ", Statuses: threeStatuses()}, []string{"name: must be 1-255 characters"}},
		{"no statuses", statusflow.CreateInput{Name: "W"}, []string{"statuses: must have at least 1 item"}},
		{"100 statuses", statusflow.CreateInput{Name: "Hundred", Statuses: many(100)}, nil},
		{"101 statuses", statusflow.CreateInput{Name: "W", Statuses: many(101)}, []string{"statuses: must have at most 100 items"}},
		{"1000 transitions", statusflow.CreateInput{Name: "Thousand", Statuses: many(40), Transitions: moves(1000)}, nil},
		{"1001 transitions", statusflow.CreateInput{Name: "W", Statuses: many(40), Transitions: moves(1001)},
			[]string{"transitions: must have at most 1000 items"}},
		{"status name of 100 characters", statusflow.CreateInput{Name: "Long status", Statuses: []st{{strings.Repeat("ß", 100), "todo"}}}, nil},
		{"bad statuses", statusflow.CreateInput{Name: "W", Statuses: []st{
			{"", "todo"}, {strings.Repeat("ß", 101), "todo"}, {" Padded", "done"}, {"Open", ""}, {"open", "started"}, {"OPEN", "done"}}},
			[]string{
				"statuses[0].name: required",
				"statuses[1].name: must be 1-100 characters without surrounding spaces",
				"statuses[2].name: must be 1-100 characters without surrounding spaces",
				"statuses[3].category: required",
				"statuses[4].name: duplicate status open",
				"statuses[4].category: must be one of todo, in_progress, done, cancelled",
				"statuses[5].name: duplicate status OPEN",
			}},
		{"every category", statusflow.CreateInput{Name: "Categories", Statuses: []st{
			{"A", "todo"}, {"B", "in_progress"}, {"C", "done"}, {"D", "cancelled"}}}, nil},
		{"bad transitions", statusflow.CreateInput{Name: "W", Statuses: threeStatuses(), Transitions: []tr{
			{"Open", "Doing"}, {"", "Done"}, {"Open", ""}, {"open", "Gone"}, {"Open", "Doing"}, {"Doing", "Open"}}},
			[]string{
				"transitions[1].from: required",
				"transitions[2].to: required",
				"transitions[3].from: unknown status open",
				"transitions[3].to: unknown status Gone",
				"transitions[4]: duplicate transition Open -> Doing",
			}},
		{"unknown enforcement", statusflow.CreateInput{Name: "W", Statuses: threeStatuses(), Enforcement: "loose"},
			[]string{"enforcement: must be one of none, warn, strict"}},
		{"every problem at once", statusflow.CreateInput{Name: "", Enforcement: "loose"},
			[]string{"name: must be 1-255 characters", "statuses: must have at least 1 item", "enforcement: must be one of none, warn, strict"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := o.svc.Create(ctx, o.admin, o.id, tc.in)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Create = %v, want it accepted", err)
				}
				if w.Name != tc.in.Name || len(w.Statuses) != len(tc.in.Statuses) || len(w.Transitions) != len(tc.in.Transitions) {
					t.Fatalf("Create = %+v", w)
				}
				return
			}
			if got := details(t, err); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("problems = %q, want %q", got, tc.want)
			}
		})
	}
	for _, e := range []string{"none", "warn", "strict"} {
		if _, err := o.svc.Create(ctx, o.admin, o.id, statusflow.CreateInput{Name: "Enforced " + e, Statuses: threeStatuses(), Enforcement: e}); err != nil {
			t.Fatalf("enforcement %s: %v", e, err)
		}
	}
}

func TestCreateGetList(t *testing.T) {
	t.Parallel()
	o := newFlowOrg(t)
	ctx := context.Background()
	in := statusflow.CreateInput{Name: "Support", Statuses: threeStatuses(), Transitions: []tr{{"Open", "Done"}}, Enforcement: "warn"}
	w, err := o.svc.Create(ctx, o.admin, o.id, in)
	if err != nil {
		t.Fatal(err)
	}
	want := statusflow.Workflow{ID: w.ID, OrgID: o.id, Name: "Support", Statuses: threeStatuses(), Transitions: []tr{{"Open", "Done"}},
		Enforcement: "warn", CreatedAt: o.now, UpdatedAt: o.now, Version: 1}
	if !reflect.DeepEqual(w, want) {
		t.Fatalf("Create = %+v, want %+v", w, want)
	}
	got, err := o.svc.Get(ctx, o.member, w.ID)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, want)
	}
	if got.IsDefault() {
		t.Fatal("Support is not the Default workflow")
	}

	// No transitions and no enforcement: an empty list and none.
	bare, err := o.svc.Create(ctx, o.admin, o.id, statusflow.CreateInput{Name: "Bare", Statuses: threeStatuses()})
	if err != nil || bare.Enforcement != "none" || bare.Transitions == nil || len(bare.Transitions) != 0 {
		t.Fatalf("Create bare = %+v, %v", bare, err)
	}
	if got, err := o.svc.Get(ctx, o.member, bare.ID); err != nil || got.Transitions == nil || len(got.Transitions) != 0 || got.Enforcement != "none" {
		t.Fatalf("Get bare = %+v, %v", got, err)
	}

	testfactory.WantKind(t, testfactory.Err(o.svc.Create(ctx, o.admin, o.id, statusflow.CreateInput{Name: "SUPPORT", Statuses: threeStatuses()})),
		domain.KindConflict, "a workflow with this name already exists", "name: SUPPORT")
	testfactory.WantKind(t, testfactory.Err(o.svc.Create(ctx, o.member, o.id, in)), domain.KindForbidden, "requires the Admin role")

	page, err := o.svc.List(ctx, o.member, o.id, domain.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range page.Items {
		names = append(names, w.Name)
		if w.Name == "Support" && !reflect.DeepEqual(w, want) {
			t.Fatalf("List item = %+v, want %+v", w, want)
		}
	}
	if len(names) != 2 || !strings.Contains(strings.Join(names, ","), "Support") || !strings.Contains(strings.Join(names, ","), "Bare") {
		t.Fatalf("List = %q", names)
	}

	// Not a member: the org and its workflows do not exist.
	stranger := testfactory.User(t, o.db, testfactory.UserOpts{}).ID
	out := domain.Principal{UserID: stranger, Scopes: []string{domain.ScopeAll}}
	testfactory.WantKind(t, testfactory.Err(o.svc.Get(ctx, out, w.ID)), domain.KindNotFound, "workflow not found")
	testfactory.WantKind(t, testfactory.Err(o.svc.List(ctx, out, o.id, domain.Page{Limit: 10})), domain.KindNotFound)
	testfactory.WantKind(t, testfactory.Err(o.svc.Create(ctx, out, o.id, in)), domain.KindNotFound)
	testfactory.WantKind(t, testfactory.Err(o.svc.Get(ctx, o.member, domain.NewID())), domain.KindNotFound, "workflow not found")
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	o := newFlowOrg(t)
	ctx := context.Background()
	w, err := o.svc.Create(ctx, o.admin, o.id, statusflow.CreateInput{Name: "Support", Statuses: threeStatuses(),
		Transitions: []tr{{"Open", "Doing"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.svc.Create(ctx, o.admin, o.id, statusflow.CreateInput{Name: "Sales", Statuses: threeStatuses()}); err != nil {
		t.Fatal(err)
	}

	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{Name: domain.Opt[string]{Set: true, Null: true},
		Transitions: domain.Opt[[]tr]{Set: true, Null: true}})), domain.KindValidation, "name: cannot be null", "transitions: cannot be null")
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{Statuses: domain.Opt[[]st]{Set: true, Null: true},
		Enforcement: domain.Opt[string]{Set: true, Null: true}})), domain.KindValidation, "statuses: cannot be null", "enforcement: cannot be null")
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.member, w.ID, statusflow.PatchInput{Enforcement: domain.Opt[string]{Set: true, Value: "strict"}})),
		domain.KindForbidden, "requires the Admin role")
	// New statuses must still cover the transitions kept from before.
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{Statuses: domain.Opt[[]st]{Set: true, Value: []st{{"Open", "todo"}}}})),
		domain.KindValidation, "transitions[0].to: unknown status Doing")
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{Name: domain.Opt[string]{Set: true, Value: "sales"}})),
		domain.KindConflict, "name: sales")
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{Enforcement: domain.Opt[string]{Set: true, Value: "loose"}})),
		domain.KindValidation, "enforcement: must be one of")

	// Nothing changes: the version read decides a conditional write.
	same, err := o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{Name: domain.Opt[string]{Set: true, Value: "Support"}})
	if err != nil || !reflect.DeepEqual(same, w) {
		t.Fatalf("no-op Update = %+v, %v; want %+v", same, err, w)
	}
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(domain.WithIfMatch(ctx, []int64{7}), o.admin, w.ID, statusflow.PatchInput{})),
		domain.KindPreconditionFailed)
	if _, err := o.svc.Update(domain.WithIfMatch(ctx, []int64{1}), o.admin, w.ID, statusflow.PatchInput{}); err != nil {
		t.Fatalf("no-op Update at the current version: %v", err)
	}

	o.now = o.now.Add(time.Hour)
	later := o.now
	o.svc = statusflow.New(o.db, domain.ClockFunc(func() time.Time { return later }))
	four := append(threeStatuses(), st{"Parked", "cancelled"})
	up, err := o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{
		Name:        domain.Opt[string]{Set: true, Value: "Helpdesk"},
		Statuses:    domain.Opt[[]st]{Set: true, Value: four},
		Transitions: domain.Opt[[]tr]{Set: true, Value: []tr{{"Open", "Parked"}}},
		Enforcement: domain.Opt[string]{Set: true, Value: "strict"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := statusflow.Workflow{ID: w.ID, OrgID: o.id, Name: "Helpdesk", Statuses: four, Transitions: []tr{{"Open", "Parked"}},
		Enforcement: "strict", CreatedAt: w.CreatedAt, UpdatedAt: later, Version: 2}
	if !reflect.DeepEqual(up, want) {
		t.Fatalf("Update = %+v, want %+v", up, want)
	}
	if got, err := o.svc.Get(ctx, o.member, w.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get after Update = %+v, %v", got, err)
	}
	var changes string
	if err := o.db.Q().QueryRow(ctx, `SELECT changes::text FROM audit_log WHERE entity_id = $1 AND action = 'updated'`, w.ID).Scan(&changes); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{`"name"`, `"statuses"`, `"transitions"`, `"enforcement"`, `"Helpdesk"`, `"Support"`} {
		if !strings.Contains(changes, f) {
			t.Fatalf("audited changes %s lack %s", changes, f)
		}
	}

	// Transitions cleared alone: the others stay.
	up, err = o.svc.Update(ctx, o.admin, w.ID, statusflow.PatchInput{Transitions: domain.Opt[[]tr]{Set: true}})
	if err != nil || up.Transitions == nil || len(up.Transitions) != 0 || up.Name != "Helpdesk" || up.Enforcement != "strict" ||
		len(up.Statuses) != 4 || up.Version != 3 {
		t.Fatalf("Update clearing transitions = %+v, %v", up, err)
	}
	// A stale If-Match on a real change is a 412 and changes nothing.
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(domain.WithIfMatch(ctx, []int64{2}), o.admin, w.ID,
		statusflow.PatchInput{Enforcement: domain.Opt[string]{Set: true, Value: "warn"}})), domain.KindPreconditionFailed)
	if got, _ := o.svc.Get(ctx, o.member, w.ID); got.Enforcement != "strict" || got.Version != 3 {
		t.Fatalf("after the stale write: %+v", got)
	}
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.admin, domain.NewID(), statusflow.PatchInput{})), domain.KindNotFound, "workflow not found")
}

func TestDefaultWorkflow(t *testing.T) {
	t.Parallel()
	o := newFlowOrg(t)
	ctx := context.Background()
	if err := o.db.InTx(ctx, func(q store.Querier) error { return statusflow.CreateDefault(ctx, q, o.id, o.now) }); err != nil {
		t.Fatal(err)
	}
	page, err := o.svc.List(ctx, o.member, o.id, domain.Page{Limit: 10})
	if err != nil || len(page.Items) != 1 {
		t.Fatalf("List = %+v, %v", page, err)
	}
	def := page.Items[0]
	if !def.IsDefault() || def.Enforcement != "none" || !reflect.DeepEqual(def.Statuses, statusflow.DefaultStatuses()) ||
		!reflect.DeepEqual(def.Transitions, statusflow.DefaultTransitions()) {
		t.Fatalf("Default = %+v", def)
	}
	if r := statusflow.DefaultRules(); r.Name != "Default" || r.Enforcement != "none" ||
		!reflect.DeepEqual(r.Statuses, def.Statuses) || !reflect.DeepEqual(r.Transitions, def.Transitions) {
		t.Fatalf("DefaultRules = %+v", r)
	}
	testfactory.WantKind(t, testfactory.Err(o.svc.Update(ctx, o.admin, def.ID, statusflow.PatchInput{Name: domain.Opt[string]{Set: true, Value: "Main"}})),
		domain.KindValidation, "name: the Default workflow cannot be renamed")
	// Its other fields may change.
	if up, err := o.svc.Update(ctx, o.admin, def.ID, statusflow.PatchInput{Name: domain.Opt[string]{Set: true, Value: "Default"},
		Enforcement: domain.Opt[string]{Set: true, Value: "warn"}}); err != nil || up.Enforcement != "warn" || up.Name != "Default" {
		t.Fatalf("Update Default = %+v, %v", up, err)
	}
	testfactory.WantKind(t, o.svc.Delete(ctx, o.admin, def.ID), domain.KindConflict, "the Default workflow of an organization cannot be deleted", "name: Default")
}

func TestDelete(t *testing.T) {
	t.Parallel()
	o := newFlowOrg(t)
	ctx := context.Background()
	used, err := o.svc.Create(ctx, o.admin, o.id, statusflow.CreateInput{Name: "Used", Statuses: threeStatuses()})
	if err != nil {
		t.Fatal(err)
	}
	p := testfactory.Project(t, o.db, o.id, testfactory.ProjectOpts{})
	testfactory.UseWorkflow(t, o.db, p, used.ID)
	testfactory.WantKind(t, o.svc.Delete(ctx, o.admin, used.ID), domain.KindConflict, "workflow Used is used by projects", "projects: 1")
	q := testfactory.Project(t, o.db, o.id, testfactory.ProjectOpts{})
	testfactory.UseWorkflow(t, o.db, q, used.ID)
	testfactory.WantKind(t, o.svc.Delete(ctx, o.admin, used.ID), domain.KindConflict, "projects: 2")

	free, err := o.svc.Create(ctx, o.admin, o.id, statusflow.CreateInput{Name: "Free", Statuses: threeStatuses()})
	if err != nil {
		t.Fatal(err)
	}
	testfactory.WantKind(t, o.svc.Delete(ctx, o.member, free.ID), domain.KindForbidden, "requires the Admin role")
	testfactory.WantKind(t, o.svc.Delete(domain.WithIfMatch(ctx, []int64{5}), o.admin, free.ID), domain.KindPreconditionFailed)
	if err := o.svc.Delete(domain.WithIfMatch(ctx, []int64{1}), o.admin, free.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	testfactory.WantKind(t, testfactory.Err(o.svc.Get(ctx, o.member, free.ID)), domain.KindNotFound)
	var audited int
	if err := o.db.Q().QueryRow(ctx, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'deleted'`, free.ID).Scan(&audited); err != nil || audited != 1 {
		t.Fatalf("deletion audited %d times, %v", audited, err)
	}
	testfactory.WantKind(t, o.svc.Delete(ctx, o.admin, free.ID), domain.KindNotFound, "workflow not found")
}
