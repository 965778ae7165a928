package timeentry_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain/testfactory"
	"tracker/domain/timeentry"
	"tracker/store/projectdb"
)

type page = api.Paginated[timeentry.Entry]

func ids(es []timeentry.Entry) []uuid.UUID {
	out := make([]uuid.UUID, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func sameIDs(t *testing.T, got []timeentry.Entry, want ...timeentry.Entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", ids(got), ids(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID {
			t.Fatalf("got %v, want %v", ids(got), ids(want))
		}
	}
}

func TestLists(t *testing.T) {
	t.Parallel()
	w := setup(t)
	a1 := w.create(t, w.member, nil)
	a2 := w.create(t, w.member, map[string]any{"date": today(-1)})
	b1 := w.create(t, w.member2, nil)
	c1 := w.create(t, w.member, map[string]any{"ticket_id": w.ticket2})
	o1 := w.create(t, w.member, map[string]any{"project_id": w.other, "ticket_id": w.otherTk})
	ticketPath := "/api/v1/tickets/" + w.ticket.String() + "/time-entries"

	t.Run("by ticket", func(t *testing.T) {
		var p page
		w.do("GET", ticketPath, w.viewer, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1, a2, b1)
		if p.HasMore || p.NextCursor != nil {
			t.Fatalf("one page expected: %+v", p)
		}
	})
	t.Run("by ticket with filters", func(t *testing.T) {
		var p page
		w.do("GET", ticketPath+"?user_id="+w.member2.ID.String(), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, b1)
		w.do("GET", ticketPath+"?date="+today(-1), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a2)
		w.do("GET", ticketPath+"?project_id="+w.other.String(), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items)
		w.do("GET", ticketPath+"?project_id="+w.project.String()+"&user_id="+w.member.ID.String(), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1, a2)
	})
	t.Run("pagination", func(t *testing.T) {
		var p1, p2 page
		w.do("GET", ticketPath+"?limit=2", w.member, nil).Expect(t, 200).Decode(t, &p1)
		sameIDs(t, p1.Items, a1, a2)
		if !p1.HasMore || p1.NextCursor == nil {
			t.Fatalf("has_more expected: %+v", p1)
		}
		w.do("GET", ticketPath+"?limit=2&cursor="+*p1.NextCursor, w.member, nil).Expect(t, 200).Decode(t, &p2)
		sameIDs(t, p2.Items, b1)
		if p2.HasMore {
			t.Fatalf("last page has more")
		}
	})
	t.Run("422 bad parameters", func(t *testing.T) {
		for _, q := range []string{"?limit=0", "?cursor=zzz", "?date=tomorrow", "?user_id=x", "?project_id=1"} {
			w.do("GET", ticketPath+q, w.member, nil).Expect(t, 422)
		}
	})
	t.Run("by user", func(t *testing.T) {
		var p page
		path := "/api/v1/users/" + w.member.ID.String() + "/time-entries"
		w.do("GET", path, w.owner, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1, a2, c1, o1)
		w.do("GET", path+"?project_id="+w.other.String(), w.owner, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, o1)
		w.do("GET", path+"?date="+today(-1)+"&limit=1&org_id="+w.owner.OrgID.String(), w.viewer, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a2)
		// The member's session org is their personal org; the default spans
		// every org they belong to, so their company time is there.
		w.do("GET", path, w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1, a2, c1, o1)
		w.do("GET", path+"?org_id="+w.member.OrgID.String(), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items)
		w.do("GET", path+"?org_id="+w.owner.OrgID.String(), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1, a2, c1, o1)
	})
	t.Run("a Reporter sees only assigned projects", func(t *testing.T) {
		testfactory.Assign(t, w.env.DB, projectdb.Row{ID: w.other, OrgID: w.owner.OrgID}, w.reporter.ID)
		var p page
		w.do("GET", "/api/v1/users/"+w.member.ID.String()+"/time-entries?org_id="+w.owner.OrgID.String(), w.reporter, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, o1)
		w.do("GET", ticketPath, w.reporter, nil).Expect(t, 403)
	})
	t.Run("an API key limited to a project sees only it", func(t *testing.T) {
		key := w.env.APIKey(w.owner, []string{"read"}, w.other)
		var p page
		w.env.Do("GET", "/api/v1/users/"+w.member.ID.String()+"/time-entries", key, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, o1)
		w.env.Do("GET", ticketPath, key, nil).Expect(t, 403)
		w.env.Do("GET", entryPath(a1, ""), key, nil).Expect(t, 403)
	})
	t.Run("submitted queue", func(t *testing.T) {
		var q []timeentry.Entry
		w.do("GET", "/api/v1/time-entries/submitted", w.owner, nil).Expect(t, 200).Decode(t, &q)
		if q == nil || len(q) != 0 {
			t.Fatalf("empty queue must be []: %v", q)
		}
		w.move(t, a1, "submit", w.member, 200)
		w.move(t, o1, "submit", w.member, 200)
		w.move(t, b1, "submit", w.member2, 200)
		w.move(t, b1, "approve", w.admin, 200)
		w.do("GET", "/api/v1/time-entries/submitted", w.owner, nil).Expect(t, 200).Decode(t, &q)
		sameIDs(t, q, a1, o1)
		w.do("GET", "/api/v1/time-entries/submitted?org_id="+w.owner.OrgID.String(), w.viewer, nil).Expect(t, 200).Decode(t, &q)
		sameIDs(t, q, a1, o1)
		w.do("GET", "/api/v1/time-entries/submitted?org_id=nope", w.viewer, nil).Expect(t, 422)
	})
}

// TestListsSpanOrgs: a user registers (personal org), joins a company org
// and logs time there; the default lists span every org the caller shares
// with the user, an explicit org_id narrows.
func TestListsSpanOrgs(t *testing.T) {
	t.Parallel()
	w := setup(t)
	// A second company, with the member and the admin in it too.
	boss := w.env.Register("Boss")
	w.env.AddMember(boss, boss.OrgID, w.member, "member")
	w.env.AddMember(boss, boss.OrgID, w.admin, "admin")
	w.env.AddMember(boss, boss.OrgID, w.viewer, "reporter")
	proj2 := w.newProject(t, boss.OrgID, "TWO")
	tk2 := w.newTicket(t, proj2, boss)
	// Time in the member's personal org as well.
	ownProj := w.newProject(t, w.member.OrgID, "OWN")
	ownTk := w.newTicket(t, ownProj, w.member)

	a1 := w.create(t, w.member, nil)
	b1 := w.create(t, w.member, map[string]any{"project_id": proj2, "ticket_id": tk2})
	p1 := w.create(t, w.member, map[string]any{"project_id": ownProj, "ticket_id": ownTk})
	x1 := w.create(t, w.member2, nil)
	path := "/api/v1/users/" + w.member.ID.String() + "/time-entries"

	var p page
	t.Run("the user sees their time in every org", func(t *testing.T) {
		w.do("GET", path, w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1, b1, p1)
		ids := w.env.Walk(path, w.member.Token)
		if len(ids) != 3 {
			t.Fatalf("walk across orgs: %v", ids)
		}
	})
	t.Run("org_id narrows", func(t *testing.T) {
		w.do("GET", path+"?org_id="+boss.OrgID.String(), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, b1)
		w.do("GET", path+"?org_id="+w.owner.OrgID.String()+"&project_id="+w.project.String(), w.member, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1)
	})
	t.Run("another caller sees only the orgs shared with the user", func(t *testing.T) {
		// The admin shares the first company and the second, not the personal org.
		w.do("GET", path, w.admin, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1, b1)
		// The owner shares only the first company.
		w.do("GET", path, w.owner, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1)
		// An outsider shares nothing: an empty list, not the entries.
		w.do("GET", path, w.outsider, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items)
		// A Reporter (in the second company) without assignments sees nothing there.
		w.do("GET", path, w.viewer, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1)
		// A non-member naming an org explicitly gets 404, as before.
		w.do("GET", path+"?org_id="+boss.OrgID.String(), w.owner, nil).Expect(t, 404)
	})
	t.Run("an API key stays in its org", func(t *testing.T) {
		key := w.env.APIKeyIn(w.member, w.owner.OrgID, []string{"read"})
		w.env.Do("GET", path, key, nil).Expect(t, 200).Decode(t, &p)
		sameIDs(t, p.Items, a1)
		w.env.Do("GET", path+"?org_id="+boss.OrgID.String(), key, nil).Expect(t, 404)
	})
	t.Run("an Admin of several orgs sees every approval queue", func(t *testing.T) {
		w.move(t, a1, "submit", w.member, 200)
		w.move(t, b1, "submit", w.member, 200)
		w.move(t, p1, "submit", w.member, 200)
		w.move(t, x1, "submit", w.member2, 200)
		var q []timeentry.Entry
		w.do("GET", "/api/v1/time-entries/submitted", w.admin, nil).Expect(t, 200).Decode(t, &q)
		sameIDs(t, q, a1, b1, x1)
		w.do("GET", "/api/v1/time-entries/submitted?org_id="+boss.OrgID.String(), w.admin, nil).Expect(t, 200).Decode(t, &q)
		sameIDs(t, q, b1)
		w.do("GET", "/api/v1/time-entries/submitted", boss, nil).Expect(t, 200).Decode(t, &q)
		sameIDs(t, q, b1)
		// Approving from the combined queue works in each org.
		w.move(t, b1, "approve", w.admin, 200)
		w.do("GET", "/api/v1/time-entries/submitted", w.admin, nil).Expect(t, 200).Decode(t, &q)
		sameIDs(t, q, a1, x1)
	})
}
