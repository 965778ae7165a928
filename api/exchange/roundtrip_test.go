package exchange_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"tracker/domain/export"
	"tracker/domain/export/exporttest"
	"tracker/domain/importer"
	"tracker/store/exportdb"
)

// TestRoundTrip exports org A, imports it into org B (empty of data; its
// people already members, since an import never enrolls anyone), exports B
// and finds the same document (apart from source and exported_at); a
// second import of the same document creates nothing, and neither does an
// import of A's document back into A.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	f := setup(t, exporttest.Options{Projects: 3, TicketsPerProject: 12, CommentsPerTicket: 3, EntriesPerTicket: 2})
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
		former := docA.Users[slices.IndexFunc(docA.Users, func(u export.User) bool { return u.Email == f.seeded.Emails[3] })]
		if former.Role != nil {
			t.Fatalf("a former member is listed with role %v", *former.Role)
		}
	})

	t.Run("into empty org B and back out", func(t *testing.T) {
		// An import only invites; the people of A join B the way an Admin
		// adds existing users, with the roles they hold in A.
		for _, u := range docA.Users {
			if u.Role == nil || u.Email == f.owner.Email {
				continue
			}
			var id string
			if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT id FROM users WHERE email = $1`, u.Email).Scan(&id); err != nil {
				t.Fatal(err)
			}
			f.env.Do("POST", "/api/v1/orgs/"+f.b.String()+"/members", f.owner.Token,
				map[string]any{"user_id": id, "role": strings.ToLower(*u.Role)}).Expect(t, 201)
		}
		st := f.importInto(t, f.b, rawA)
		want := importer.Summary{UsersCreated: 0, WorkflowsCreated: 1, LabelsCreated: 2, ProjectsCreated: 3, SprintsCreated: 9,
			TicketsCreated: f.seeded.Tickets, CommentsCreated: f.seeded.Comments, TimeEntriesCreated: f.seeded.Entries, TeamsCreated: 1}
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
		want := []string{"attachments", "comments", "export_meta", "labels", "project_members", "projects", "sprints", "team_members",
			"teams", "ticket_labels", "tickets", "time_entries", "users", "workflows"}
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
