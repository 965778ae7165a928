package tickets_test

import (
	"fmt"
	"strings"
	"testing"

	"tracker/domain/ticket"
)

// TestRelationsAcceptRefs: a link's ticket_id and a parent_id (create and
// PATCH) take KEY-NUMBER (any case, any project of the org) or a bare number
// (the ticket's own project) as well as a UUID; an unknown reference is a
// 422 naming it, and so is a reference into another org.
func TestRelationsAcceptRefs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a, b, c := f.ticket(t, "A"), f.ticket(t, "B"), f.ticket(t, "C")
	xyz := f.newProject(t, "XYZ")
	x := f.create(t, f.owner.Token, xyz, map[string]any{"title": "X elsewhere"})
	ref := func(tk ticket.Ticket, key string) string { return fmt.Sprintf("%s-%d", key, tk.TicketNumber) }
	addLink := func(typ, target string, want int) (ticket.Link, string) {
		t.Helper()
		var l ticket.Link
		r := f.env.Do("POST", path("/tickets/%s/links", a.ID), f.member.Token, map[string]any{"type": typ, "ticket_id": target}).Expect(t, want)
		if want == 201 {
			r.Decode(t, &l)
			return l, ""
		}
		e := r.Error()
		return l, e.Message + " " + strings.Join(e.Details, "; ")
	}

	if l, _ := addLink("blocks", ref(b, "ABC"), 201); l.TicketID != b.ID || l.Ticket.Key != ref(b, "ABC") {
		t.Fatalf("link by KEY-NUMBER: %+v", l)
	}
	if l, _ := addLink("relates_to", strings.ToLower(ref(x, "XYZ")), 201); l.TicketID != x.ID {
		t.Fatalf("link by lower-case reference into another project: %+v", l)
	}
	if l, _ := addLink("duplicates", fmt.Sprintf("#%d", c.TicketNumber), 201); l.TicketID != c.ID {
		t.Fatalf("link by bare number (own project): %+v", l)
	}
	if _, msg := addLink("blocks", "ABC-999", 422); !strings.Contains(msg, "ticket_id: ABC-999 not found") {
		t.Errorf("unknown reference: %q", msg)
	}
	other := f.create(t, f.outsider.Token, f.projectIn(t, f.outsider.OrgID, "OUT"), map[string]any{"title": "elsewhere"})
	if _, msg := addLink("blocks", ref(other, "OUT"), 422); !strings.Contains(msg, "not found") || strings.Contains(msg, other.ID.String()) {
		t.Errorf("reference into another org: %q", msg)
	}
	if _, msg := addLink("blocks", "no such thing", 422); !strings.Contains(msg, "must be a UUID or a ticket reference") {
		t.Errorf("neither UUID nor reference: %q", msg)
	}
	if _, msg := addLink("blocked_by", ref(b, "ABC"), 422); !strings.Contains(msg, "cycle of blocks") {
		t.Errorf("cycle through a reference: %q", msg)
	}

	// parent_id on create and PATCH.
	child := f.create(t, f.member.Token, f.project, map[string]any{"title": "Child", "parent_id": ref(a, "abc")})
	if child.ParentID == nil || *child.ParentID != a.ID {
		t.Fatalf("create with parent reference: %v", child.ParentID)
	}
	var patched ticket.Ticket
	f.env.Do("PATCH", path("/tickets/%s", b.ID), f.member.Token, map[string]any{"parent_id": ref(x, "XYZ")}).Expect(t, 200).Decode(t, &patched)
	if patched.ParentID == nil || *patched.ParentID != x.ID {
		t.Fatalf("PATCH parent by reference: %v", patched.ParentID)
	}
	f.env.Do("PATCH", path("/tickets/%s", c.ID), f.member.Token, map[string]any{"parent_id": fmt.Sprint(a.TicketNumber)}).Expect(t, 200).Decode(t, &patched)
	if patched.ParentID == nil || *patched.ParentID != a.ID {
		t.Fatalf("PATCH parent by bare number: %v", patched.ParentID)
	}
	r := f.env.Do("PATCH", path("/tickets/%s", c.ID), f.member.Token, map[string]any{"parent_id": "ABC-404"}).Expect(t, 422)
	if e := r.Error(); !strings.Contains(e.Message+strings.Join(e.Details, ";"), "parent_id: ABC-404 not found") {
		t.Errorf("unknown parent reference: %+v", e)
	}
	r = f.env.Do("PATCH", path("/tickets/%s", a.ID), f.member.Token, map[string]any{"parent_id": ref(child, "ABC")}).Expect(t, 422)
	if e := r.Error(); !strings.Contains(e.Message+strings.Join(e.Details, ";"), "a cycle") {
		t.Errorf("cycle through a parent reference: %+v", e)
	}
	f.env.Do("POST", path("/projects/%s/tickets", f.project), f.member.Token, map[string]any{"title": "x", "parent_id": "ABC-0"}).Expect(t, 422)
	f.env.Do("POST", path("/tickets/batch-update"), f.member.Token, map[string]any{"ticket_ids": []string{b.ID.String()}, "parent_id": ref(a, "ABC")}).Expect(t, 422)
}
