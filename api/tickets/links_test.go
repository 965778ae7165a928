package tickets_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

type linkList struct {
	Items []ticket.Link `json:"items"`
}

func (f *fixture) links(t *testing.T, token string, id uuid.UUID) map[uuid.UUID]string {
	t.Helper()
	var l linkList
	f.env.Do("GET", path("/tickets/%s/links", id), token, nil).Expect(t, 200).Decode(t, &l)
	out := map[uuid.UUID]string{}
	for _, it := range l.Items {
		out[it.TicketID] = it.Type
	}
	return out
}

func (f *fixture) link(t *testing.T, from, to uuid.UUID, typ string, want int) ticket.Link {
	t.Helper()
	var l ticket.Link
	res := f.env.Do("POST", path("/tickets/%s/links", from), f.member.Token, map[string]any{"type": typ, "ticket_id": to}).Expect(t, want)
	if want == 201 {
		res.Decode(t, &l)
	}
	return l
}

func TestTicketLinks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	a, b, c := f.ticket(t, "A"), f.ticket(t, "B"), f.ticket(t, "C")
	xyz := f.newProject(t, "XYZ")
	x := f.create(t, f.owner.Token, xyz, map[string]any{"title": "X in another project"})

	l := f.link(t, a.ID, b.ID, "blocks", 201)
	if l.Type != "blocks" || l.TicketID != b.ID || l.Ticket.Key != "ABC-2" || l.Ticket.Title != "B" {
		t.Fatalf("%+v", l)
	}
	f.link(t, c.ID, b.ID, "blocked_by", 201) // stored as b blocks c
	f.link(t, a.ID, x.ID, "relates_to", 201) // across projects
	f.link(t, x.ID, a.ID, "duplicated_by", 201)
	if got := f.links(t, f.viewer.Token, a.ID); got[b.ID] != "blocks" || got[x.ID] != "duplicates" {
		t.Errorf("a's links: %v", got) // x: relates_to, then duplicates (the map keeps the last)
	}
	if got := f.links(t, f.viewer.Token, b.ID); got[a.ID] != "blocked_by" || got[c.ID] != "blocks" {
		t.Errorf("b's links: %v", got)
	}
	var all linkList
	f.env.Do("GET", path("/tickets/%s/links", x.ID), f.owner.Token, nil).Expect(t, 200).Decode(t, &all)
	types := []string{}
	for _, it := range all.Items {
		types = append(types, it.Type)
	}
	if strings.Join(types, ",") != "relates_to,duplicated_by" {
		t.Errorf("x's links: %v", types)
	}

	// Refusals.
	f.link(t, a.ID, b.ID, "blocks", 409)
	f.link(t, x.ID, a.ID, "relates_to", 409) // the same relation from the other end
	f.link(t, c.ID, a.ID, "blocks", 422)     // a→b→c: c blocks a closes a cycle
	f.link(t, b.ID, a.ID, "blocks", 422)
	f.link(t, a.ID, a.ID, "relates_to", 422)
	f.link(t, a.ID, b.ID, "parent_of", 422)
	f.link(t, a.ID, uuid.New(), "blocks", 422)
	other := f.create(t, f.outsider.Token, f.projectIn(t, f.outsider.OrgID, "OUT"), map[string]any{"title": "elsewhere"})
	if res := f.link(t, a.ID, other.ID, "blocks", 422); res.ID != uuid.Nil {
		t.Fatal("linked across orgs")
	}
	f.env.Do("POST", path("/tickets/%s/links", a.ID), f.viewer.Token, map[string]any{"type": "blocks", "ticket_id": c.ID}).Expect(t, 403)
	f.env.Do("GET", path("/tickets/%s/links", a.ID), f.outsider.Token, nil).Expect(t, 404)
	// A Reporter (assigned to ABC only) does not see the link to XYZ.
	if got := f.links(t, f.reporter.Token, a.ID); got[x.ID] != "" || got[b.ID] != "blocks" {
		t.Errorf("reporter sees %v", got)
	}

	// is:blocked: b (blocked by open a) and c (blocked by b); not once a is done.
	list := path("/projects/%s/tickets", f.project)
	if got := strings.Join(f.search(t, f.owner.Token, list, "is:blocked", 200).titles(), ","); got != "B,C" {
		t.Errorf("is:blocked: %s", got)
	}
	f.env.Do("PATCH", path("/tickets/%s", a.ID), f.owner.Token, map[string]any{"status": "Done"}).Expect(t, 200)
	if got := strings.Join(f.search(t, f.owner.Token, list, "is:blocked", 200).titles(), ","); got != "C" {
		t.Errorf("is:blocked after a is done: %s", got)
	}

	// Activity and events on both ends.
	var act struct {
		Items []struct{ Type string } `json:"items"`
	}
	f.env.Do("GET", path("/tickets/%s/activity", b.ID), f.owner.Token, nil).Expect(t, 200).Decode(t, &act)
	linked := 0
	for _, it := range act.Items {
		if it.Type == ticket.ActionLinked {
			linked++
		}
	}
	if linked != 2 {
		t.Errorf("b's activity has %d linked entries: %+v", linked, act.Items)
	}
	var events int
	f.env.ScanRow(t, &events, `SELECT count(*) FROM outbox WHERE topic = 'ticket.updated' AND payload->'data'->>'id' = $1
		AND payload->'changes'->0->>'field' = 'links'`, b.ID.String())
	if events != 2 {
		t.Errorf("b has %d link events", events)
	}

	// Delete a link: gone from both ends, recorded.
	f.env.Do("DELETE", path("/tickets/%s/links/%s", b.ID, l.ID), f.viewer.Token, nil).Expect(t, 403)
	f.env.Do("DELETE", path("/tickets/%s/links/%s", c.ID, l.ID), f.member.Token, nil).Expect(t, 404) // not c's link
	f.env.Do("DELETE", path("/tickets/%s/links/%s", b.ID, l.ID), f.member.Token, nil).Expect(t, 204)
	if got := f.links(t, f.owner.Token, a.ID); got[b.ID] != "" {
		t.Errorf("link still listed: %v", got)
	}
	f.env.Do("DELETE", path("/tickets/%s/links/%s", b.ID, l.ID), f.member.Token, nil).Expect(t, 404)
	f.env.ScanRow(t, &events, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND action = 'unlinked'`, a.ID)
	if events != 1 {
		t.Errorf("a has %d unlinked rows", events)
	}

	// Deleting a ticket: the dry run counts its links, the delete removes them.
	m := f.env.Do("DELETE", path("/tickets/%s?cascade=true&dry_run=true", x.ID), f.owner.Token, nil).Expect(t, 200).Map(t)
	if m["dependents"].(map[string]any)["links"] != float64(2) {
		t.Errorf("dry run: %v", m)
	}
	f.env.Do("DELETE", path("/tickets/%s", x.ID), f.owner.Token, nil).Expect(t, 204)
	var left int
	f.env.ScanRow(t, &left, `SELECT count(*) FROM ticket_links WHERE source_id = $1 OR target_id = $1`, x.ID)
	if left != 0 {
		t.Errorf("%d links left", left)
	}
	if got := f.links(t, f.owner.Token, a.ID); len(got) != 0 {
		t.Errorf("a still lists %v", got)
	}
}
