package exchange_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/exchange/export"
	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
	"tracker/store/exchangedb/exportdb"
)

// TestRoundTrip exports org A, imports it into org B (empty of data; its
// people already members, since an import never enrolls anyone), exports B
// and finds the same document (apart from source and exported_at); a
// second import of the same document creates nothing, and neither does an
// import of A's document back into A.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 3, TicketsPerProject: 12, CommentsPerTicket: 3, EntriesPerTicket: 2})
	rawA, docA := f.exportJSON(t, f.a, f.owner.Token)

	t.Run("document of A", func(t *testing.T) {
		if *docA.Version != 1 || !strings.HasPrefix(docA.Source, "tracker/") || docA.ExportedAt.IsZero() {
			t.Fatalf("header %v %q %v", docA.Version, docA.Source, docA.ExportedAt)
		}
		if len(docA.Projects) != 3 || len(docA.Users) != 5 || len(docA.Workflows) != 2 || len(docA.Labels) != 2 {
			t.Fatalf("sizes: %d projects, %d users, %d workflows, %d labels", len(docA.Projects), len(docA.Users), len(docA.Workflows), len(docA.Labels))
		}
		var tickets, comments, entries, approved int
		for _, p := range docA.Projects {
			tickets += len(p.Tickets)
			if names := []string{p.Sprints[0].Name, p.Sprints[1].Name, p.Sprints[2].Name}; !slices.Equal(names, []string{"Sprint 1", "Sprint 1 (2)", "Sprint 2"}) {
				t.Fatalf("sprint names %v", names)
			}
			for _, tk := range p.Tickets {
				comments += len(tk.Comments)
				entries += len(tk.TimeEntries)
				if slices.Contains(tk.Labels, "gone") {
					t.Fatal("a deleted label was exported")
				}
				if len(tk.Comments) > 1 && (tk.Comments[1].Parent == nil || *tk.Comments[1].Parent != 0) {
					t.Fatalf("comment parent %+v", tk.Comments[1])
				}
				for _, e := range tk.TimeEntries {
					if e.Status == "Approved" {
						approved++
						if e.ApprovedBy == nil || *e.ApprovedBy != f.owner.Email || e.ApprovedAt == nil {
							t.Fatalf("approved entry %+v", e)
						}
					}
				}
			}
		}
		if tickets != f.seeded.Tickets || comments != f.seeded.Comments || entries != f.seeded.Entries || approved == 0 {
			t.Fatalf("counts %d/%d tickets, %d/%d comments, %d/%d entries, %d approved", tickets, f.seeded.Tickets,
				comments, f.seeded.Comments, entries, f.seeded.Entries, approved)
		}
		if len(docA.Teams) != 1 || docA.Teams[0].Name != "Platform" || len(docA.Teams[0].Members) != 2 ||
			docA.Projects[0].Team == nil || *docA.Projects[0].Team != "Platform" || docA.Projects[1].Team != nil {
			t.Fatalf("teams %+v, project teams %v %v", docA.Teams, docA.Projects[0].Team, docA.Projects[1].Team)
		}
		if pis := docA.Projects[0].PlacedInService; pis == nil || *pis != "2026-02-20" || docA.Projects[1].PlacedInService != nil {
			t.Fatalf("placed_in_service %v %v", pis, docA.Projects[1].PlacedInService)
		}
		p0, p1 := docA.Projects[0].Tickets, docA.Projects[1].Tickets
		if !slices.Equal(p0[0].Links, []export.Link{{Type: "blocks", Ticket: "P1-2"}}) ||
			!slices.Equal(p1[2].Links, []export.Link{{Type: "relates_to", Ticket: "P0-2"}}) ||
			!slices.Equal(p0[2].Links, []export.Link{{Type: "duplicates", Ticket: "P0-1"}}) {
			t.Fatalf("links %+v %+v %+v (the one to a deleted ticket must be left out)", p0[0].Links, p1[2].Links, p0[2].Links)
		}
		if p0[1].Parent == nil || *p0[1].Parent != "P0-1" || p0[2].Parent == nil || *p0[2].Parent != "P1-1" || p0[0].Parent != nil {
			t.Fatalf("parents %v %v %v", p0[0].Parent, p0[1].Parent, p0[2].Parent)
		}
		former := docA.Users[slices.IndexFunc(docA.Users, func(u export.User) bool { return u.Email == f.seeded.Emails[3] })]
		if former.Role != nil {
			t.Fatalf("a former member is listed with role %v", *former.Role)
		}
	})

	t.Run("into empty org B and back out", func(t *testing.T) {
		// An import only invites; the people of A join B the way an Admin
		// adds existing users, with the roles they hold in A.
		f.joinPeople(t, f.b, docA)
		st := f.importInto(t, f.b, rawA)
		want := importer.Summary{UsersCreated: 0, WorkflowsCreated: 1, LabelsCreated: 2, ProjectsCreated: 3, SprintsCreated: 9,
			TicketsCreated: f.seeded.Tickets, CommentsCreated: f.seeded.Comments, TimeEntriesCreated: f.seeded.Entries, TeamsCreated: 1,
			LinksCreated: f.seeded.Links, ParentsSet: f.seeded.Parents}
		if st.Summary != want {
			t.Fatalf("summary %+v, want %+v", st.Summary, want)
		}
		_, docB := f.exportJSON(t, f.b, f.owner.Token)
		if a, b := normalized(t, docA), normalized(t, docB); a != b {
			t.Fatalf("round trip differs:\n%s", firstDiff(a, b))
		}
	})

	t.Run("again into B creates nothing", func(t *testing.T) {
		st := f.importInto(t, f.b, rawA)
		if st.Summary != (importer.Summary{}) || st.Progress.TicketsSkipped != f.seeded.Tickets {
			t.Fatalf("re-import %+v", st)
		}
		_, docB := f.exportJSON(t, f.b, f.owner.Token)
		if a, b := normalized(t, docA), normalized(t, docB); a != b {
			t.Fatalf("re-import changed B:\n%s", firstDiff(a, b))
		}
		if links, parents := f.relations(t, f.b); links != f.seeded.Links || parents != f.seeded.Parents {
			t.Fatalf("B holds %d links and %d parents after two imports, want %d and %d", links, parents, f.seeded.Links, f.seeded.Parents)
		}
	})

	t.Run("a document without links and parents still imports", func(t *testing.T) {
		var doc map[string]any
		if err := json.Unmarshal(rawA, &doc); err != nil {
			t.Fatal(err)
		}
		for _, p := range doc["projects"].([]any) {
			for _, tk := range p.(map[string]any)["tickets"].([]any) {
				delete(tk.(map[string]any), "links")
				delete(tk.(map[string]any), "parent")
			}
		}
		old, _ := json.Marshal(doc)
		if strings.Contains(string(old), `"links"`) || strings.Contains(string(old), `"parent":"`) {
			t.Fatal("relations left in the old-style document")
		}
		org := f.env.Do("POST", "/api/v1/orgs", f.owner.Token, map[string]any{"name": "Old", "slug": "old-" + uuid.NewString()[:8]}).Expect(t, 201).Map(t)
		c := uuid.MustParse(org["id"].(string))
		f.joinPeople(t, c, docA)
		st := f.importInto(t, c, old)
		if st.Summary.TicketsCreated != f.seeded.Tickets || st.Summary.LinksCreated != 0 || st.Summary.ParentsSet != 0 {
			t.Fatalf("old document summary %+v", st.Summary)
		}
		if links, parents := f.relations(t, c); links != 0 || parents != 0 {
			t.Fatalf("old document made %d links and %d parents", links, parents)
		}
	})

	t.Run("into A itself creates nothing", func(t *testing.T) {
		st := f.importInto(t, f.a, rawA)
		if st.Summary != (importer.Summary{}) || st.Progress.TicketsSkipped != f.seeded.Tickets {
			t.Fatalf("self import %+v", st)
		}
	})

	t.Run("sqlite holds the same document", func(t *testing.T) {
		path := f.exportSQLite(t, f.a)
		tables, err := exportdb.TableNames(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"attachments", "comments", "custom_fields", "export_meta", "labels", "project_members", "projects", "sprints", "team_members",
			"teams", "ticket_custom_values", "ticket_labels", "ticket_links", "ticket_parents", "tickets", "time_entries", "users", "workflows"}
		if !slices.Equal(tables, want) {
			t.Fatalf("tables %v", tables)
		}
		docS, err := export.ReadSQLite(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		if docS.Source != docA.Source || *docS.Version != 1 {
			t.Fatalf("meta %q %v", docS.Source, docS.Version)
		}
		if a, s := normalized(t, docA), normalized(t, docS); a != s {
			t.Fatalf("sqlite differs from json:\n%s", firstDiff(a, s))
		}
	})
}

// firstDiff shows the first differing line with some context.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			lo := max(i-6, 0)
			return "want:\n" + strings.Join(al[lo:min(i+3, len(al))], "\n") + "\ngot:\n" + strings.Join(bl[lo:min(i+3, len(bl))], "\n")
		}
	}
	return "lengths differ"
}

// joinPeople makes the members of the document's org members of org with
// the same roles (an import only invites).
func (f *fixture) joinPeople(t *testing.T, org uuid.UUID, doc export.Document) {
	t.Helper()
	for _, u := range doc.Users {
		if u.Role == nil || u.Email == f.owner.Email {
			continue
		}
		var id string
		if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT id FROM users WHERE email = $1`, u.Email).Scan(&id); err != nil {
			t.Fatal(err)
		}
		f.env.Do("POST", "/api/v1/orgs/"+org.String()+"/members", f.owner.Token,
			map[string]any{"user_id": id, "role": strings.ToLower(*u.Role)}).Expect(t, 201)
	}
}

// relations counts the links and the tickets with a parent in org.
func (f *fixture) relations(t *testing.T, org uuid.UUID) (links, parents int) {
	t.Helper()
	err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM ticket_links WHERE org_id = $1),
	    (SELECT count(*) FROM tickets WHERE org_id = $1 AND parent_id IS NOT NULL)`, org).Scan(&links, &parents)
	if err != nil {
		t.Fatal(err)
	}
	return links, parents
}
