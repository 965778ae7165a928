package customfield_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	cf "tracker/domain/customfield"
	"tracker/domain/testfactory"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/cascadedb"
	"tracker/store/customfielddb"
	"tracker/store/storetest"
)

// TestRenderedCopy checks that every ticket's rendered copy of its custom
// values (tickets.custom_fields, which every read hands through) is byte
// for byte what rendering its ticket_custom_values gives, after each kind
// of write: create, PATCH, clear, batch update, an import's write of
// values, an option's rename, and a field's delete, inline and
// marked for the durable purge. Get answers the same object.
func TestRenderedCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	owner := testfactory.User(t, db, testfactory.UserOpts{})
	org := testfactory.Org(t, db, owner.ID, testfactory.OrgOpts{})
	proj := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{Key: "CP"})
	p := domain.Principal{UserID: owner.ID}
	fields := cf.New(db, domain.SystemClock{})
	tickets := ticket.New(db, domain.SystemClock{})
	def := func(in cf.Input) cf.Field {
		f, err := fields.Create(ctx, p, org.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	sev := def(cf.Input{Name: domain.Some("Severity"), Type: domain.Some("select"),
		Options: domain.Some([]cf.OptionIn{{Name: ptr("Low")}, {Name: ptr("High <1> & \"2\"")}})})
	tags := def(cf.Input{Name: domain.Some("Tags x"), Type: domain.Some("multi_select"),
		Options: domain.Some([]cf.OptionIn{{Name: ptr("a")}, {Name: ptr("b")}, {Name: ptr("c")}})})
	def(cf.Input{Name: domain.Some("Story points"), Type: domain.Some("number")})
	def(cf.Input{Name: domain.Some("Owner"), Type: domain.Some("user")})
	def(cf.Input{Name: domain.Some("Shipped on"), Type: domain.Some("date")})
	def(cf.Input{Name: domain.Some("Flag"), Type: domain.Some("checkbox")})
	def(cf.Input{Name: domain.Some("Link"), Type: domain.Some("url")})
	small := def(cf.Input{Name: domain.Some("Customer"), Type: domain.Some("text")})
	big := def(cf.Input{Name: domain.Some("Zone"), Type: domain.Some("text")})

	same := func(step string) {
		t.Helper()
		rows, err := db.Q().Query(ctx, `SELECT id, custom_fields::text FROM tickets WHERE org_id = $1`, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		copies := map[uuid.UUID]string{}
		var ids []uuid.UUID
		for rows.Next() {
			var id uuid.UUID
			var c string
			if err := rows.Scan(&id, &c); err != nil {
				t.Fatal(err)
			}
			copies[id] = c
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		objs, err := cf.Objects(ctx, db.Q(), org.ID, ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			if want := string(objs[id].AppendJSON(nil)); copies[id] != want {
				t.Errorf("%s: ticket %s copy %s, rendered %s", step, id, copies[id], want)
			}
			got, err := tickets.Get(ctx, p, id)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.CustomFields.AppendJSON(nil)) != copies[id] {
				t.Errorf("%s: Get answers %s, copy %s", step, got.CustomFields, copies[id])
			}
		}
	}

	all := cf.Values{"severity": raw("High <1> & \"2\""), "tags_x": raw([]string{"c", "a"}), "story_points": raw(2.5),
		"owner": raw(owner.ID.String()), "shipped_on": raw("2026-12-01"), "flag": raw(false), "link": raw("https://x.example/?a=1&b=2"),
		"customer": raw("ACME\n\u2028<x>"), "zone": raw("EU")}
	var ids []uuid.UUID
	for i := 0; i < 3; i++ {
		tk, err := tickets.Create(ctx, p, proj.ID, ticket.NewTicket{Content: ticket.Content{Title: "copy"}, CustomFields: all})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tk.ID)
	}
	if _, err := tickets.Create(ctx, p, proj.ID, ticket.NewTicket{Content: ticket.Content{Title: "bare"}}); err != nil {
		t.Fatal(err)
	}
	same("create")

	if _, err := tickets.Update(ctx, p, ids[0], ticket.Patch{CustomFields: cf.Values{"severity": raw("Low"), "story_points": raw(7),
		"tags_x": raw([]string{"b"})}}); err != nil {
		t.Fatal(err)
	}
	same("patch")
	if _, err := tickets.Update(ctx, p, ids[1], ticket.Patch{CustomFields: cf.Values{"severity": json.RawMessage(`null`),
		"customer": json.RawMessage(`null`), "tags_x": raw([]string{})}}); err != nil {
		t.Fatal(err)
	}
	same("clear")
	if _, err := tickets.BatchUpdate(ctx, p, []string{ids[1].String(), ids[2].String()},
		ticket.Patch{CustomFields: cf.Values{"flag": raw(true), "severity": raw("High <1> & \"2\"")}}); err != nil {
		t.Fatal(err)
	}
	same("batch")
	// The import writes values with their own statement, tickets first.
	if err := customfielddb.Put(ctx, db.Q(), []customfielddb.Value{{TicketID: ids[2], FieldID: tags.ID, OrgID: org.ID,
		OptionIDs: []uuid.UUID{tags.Options[1].ID, tags.Options[0].ID}}}); err != nil {
		t.Fatal(err)
	}
	same("import's write")

	rename := func(f cf.Field, i int, name string) {
		in := make([]cf.OptionIn, len(f.Options))
		for j, o := range f.Options {
			id, n := o.ID, o.Name
			if j == i {
				n = name
			}
			in[j] = cf.OptionIn{ID: &id, Name: &n}
		}
		if _, err := fields.Update(ctx, p, f.ID, cf.Input{Options: domain.Some(in)}); err != nil {
			t.Fatal(err)
		}
	}
	rename(sev, 1, "Urgent")
	rename(tags, 0, "A & Z")
	same("rename")

	if err := fields.Delete(ctx, p, small.ID); err != nil {
		t.Fatal(err)
	}
	same("inline delete")
	if err := fields.WithInlineValues(1).Delete(ctx, p, big.ID); err != nil {
		t.Fatal(err)
	}
	var waiting int
	if err := db.Q().QueryRow(ctx, `SELECT count(*) FROM ticket_custom_values WHERE field_id = $1`, big.ID).Scan(&waiting); err != nil || waiting != 3 {
		t.Fatalf("the marked field's values: %d waiting (want 3, the purge's), %v", waiting, err)
	}
	// Marked: the holders' copies keep the value until the purge's batch
	// that removes it rewrites them (so a delete never rewrites many
	// tickets in one request).
	var stale int
	if err := db.Q().QueryRow(ctx, `SELECT count(*) FROM tickets WHERE org_id = $1 AND custom_fields::text LIKE '%"zone":%'`, org.ID).Scan(&stale); err != nil || stale != 3 {
		t.Fatalf("copies holding the marked field: %d (want 3 until the purge), %v", stale, err)
	}
	root := cascadedb.Root{OrgID: org.ID, Type: "custom_field", ID: big.ID}
	for batch := 0; ; batch++ {
		var n int64
		err := db.InTx(ctx, func(q store.Querier) (err error) {
			n, err = cascadedb.Run(ctx, q, root, cascadedb.StepFieldValues, 2)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if batch == 0 {
			var left int
			_ = db.Q().QueryRow(ctx, `SELECT count(*) FROM tickets WHERE org_id = $1 AND custom_fields::text LIKE '%"zone":%'`, org.ID).Scan(&left)
			if n != 2 || left != 1 {
				t.Fatalf("first batch of 2: purged %d, %d copies still hold the field (want 1)", n, left)
			}
		}
		if n == 0 {
			break
		}
	}
	same("purge")
}
