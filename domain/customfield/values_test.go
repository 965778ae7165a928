package customfield_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	cf "tracker/domain/customfield"
	"tracker/domain/testfactory"
	"tracker/store/storetest"
)

func raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// TestValues checks, writes and renders a ticket's values against the
// org's definitions: every problem names custom_fields.<key>; a select
// answers its option's current name.
func TestValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	owner := testfactory.User(t, db, testfactory.UserOpts{})
	org := testfactory.Org(t, db, owner.ID, testfactory.OrgOpts{})
	outsider := testfactory.User(t, db, testfactory.UserOpts{})
	proj := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{Key: "CF"})
	other := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{Key: "OT"})
	tk := testfactory.Ticket(t, db, proj, owner.ID, testfactory.TicketOpts{Title: "t"})
	s := cf.New(db, domain.SystemClock{})
	p := domain.Principal{UserID: owner.ID}
	def := func(in cf.Input) cf.Field {
		f, err := s.Create(ctx, p, org.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	sev := def(cf.Input{Name: domain.Some("Severity"), Type: domain.Some("select"),
		Options: domain.Some([]cf.OptionIn{{Name: ptr("Low")}, {Name: ptr("High")}})})
	def(cf.Input{Name: domain.Some("Story points"), Type: domain.Some("number"), Required: domain.Some(true)})
	def(cf.Input{Name: domain.Some("Tags x"), Type: domain.Some("multi_select"), Options: domain.Some([]cf.OptionIn{{Name: ptr("a")}, {Name: ptr("b")}})})
	def(cf.Input{Name: domain.Some("Owner"), Type: domain.Some("user")})
	def(cf.Input{Name: domain.Some("Shipped on"), Type: domain.Some("date")})
	def(cf.Input{Name: domain.Some("Flag"), Type: domain.Some("checkbox")})
	def(cf.Input{Name: domain.Some("Link"), Type: domain.Some("url")})
	def(cf.Input{Name: domain.Some("Customer"), Type: domain.Some("text"), ProjectIDs: domain.Some([]uuid.UUID{other.ID})})

	defs, err := cf.Load(ctx, db.Q(), org.ID)
	if err != nil {
		t.Fatal(err)
	}
	check := func(in cf.Values, create bool) (cf.Write, error) {
		return cf.Check(ctx, db.Q(), defs, org.ID, proj.ID, tk.ID, in, create)
	}
	// Each wrong value is a 422 naming its key.
	for key, v := range map[string]any{"severity": "Medium", "story_points": "5", "tags_x": []string{"a", "z"},
		"owner": outsider.ID, "shipped_on": "2026-13-01", "flag": "yes", "link": "ftp://x", "customer": "ACME", "nope": 1} {
		_, err := check(cf.Values{key: raw(v)}, false)
		if err == nil {
			t.Fatalf("%s: %v accepted", key, v)
		}
		testfactory.WantKind(t, err, domain.KindValidation, "custom_fields."+key)
	}
	// A required field is required on create only.
	_, err = check(cf.Values{"severity": raw("High")}, true)
	testfactory.WantKind(t, err, domain.KindValidation, "custom_fields.story_points")

	w, err := check(cf.Values{"severity": raw("high"), "story_points": raw(5.5), "tags_x": raw([]string{"b", "a", "b"}),
		"owner": raw(owner.ID), "shipped_on": raw("2026-12-01"), "flag": raw(true), "link": raw("https://example.com/x")}, true)
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err := cf.Apply(ctx, db.Q(), defs, org.ID, tk.ID, w)
	if err != nil || len(changes) != 7 {
		t.Fatalf("%v %+v", err, changes)
	}
	got, err := cf.Read(ctx, db.Q(), org.ID, []uuid.UUID{tk.ID})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got[tk.ID])
	want := `{"flag":true,"link":"https://example.com/x","owner":"` + owner.ID.String() +
		`","severity":"High","shipped_on":"2026-12-01","story_points":5.5,"tags_x":["b","a"]}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}

	// A rename shows on the ticket; null clears; keys not sent are kept.
	if _, err := s.Update(ctx, p, sev.ID, cf.Input{Options: domain.Some([]cf.OptionIn{{ID: &sev.Options[0].ID},
		{ID: &sev.Options[1].ID, Name: ptr("Urgent")}})}); err != nil {
		t.Fatal(err)
	}
	defs, _ = cf.Load(ctx, db.Q(), org.ID)
	w, err = check(cf.Values{"flag": raw(nil), "story_points": raw(8)}, false)
	if err != nil {
		t.Fatal(err)
	}
	changes, _, err = cf.Apply(ctx, db.Q(), defs, org.ID, tk.ID, w)
	if err != nil || len(changes) != 2 {
		t.Fatalf("%v %+v", err, changes)
	}
	got, _ = cf.Read(ctx, db.Q(), org.ID, []uuid.UUID{tk.ID})
	if got[tk.ID]["severity"] != "Urgent" || got[tk.ID]["flag"] != nil || got[tk.ID]["story_points"] != json.Number("8") ||
		!strings.HasPrefix(got[tk.ID]["link"].(string), "https://") {
		t.Fatalf("%+v", got[tk.ID])
	}
	// An archived option is refused as a new value.
	if _, err := s.Update(ctx, p, sev.ID, cf.Input{Options: domain.Some([]cf.OptionIn{{ID: &sev.Options[0].ID, Archived: ptr(true)},
		{ID: &sev.Options[1].ID}})}); err != nil {
		t.Fatal(err)
	}
	defs, _ = cf.Load(ctx, db.Q(), org.ID)
	_, err = check(cf.Values{"severity": raw("Low")}, false)
	testfactory.WantKind(t, err, domain.KindValidation, "custom_fields.severity")

	// Deleting a definition removes its values.
	if err := s.Delete(ctx, p, sev.ID); err != nil {
		t.Fatal(err)
	}
	got, _ = cf.Read(ctx, db.Q(), org.ID, []uuid.UUID{tk.ID})
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM ticket_custom_values WHERE field_id = $1`, sev.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%v %d", err, n)
	}
	if _, ok := got[tk.ID]["severity"]; ok {
		t.Fatalf("%+v", got[tk.ID])
	}
}

func ptr[T any](v T) *T { return &v }
