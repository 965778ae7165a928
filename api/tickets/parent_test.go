package tickets_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

type childrenPage struct {
	searchPage
	Progress struct {
		Total      int            `json:"total"`
		Done       int            `json:"done"`
		ByCategory map[string]int `json:"by_category"`
	} `json:"progress"`
}

func TestSubTickets(t *testing.T) {
	t.Parallel()
	f := setup(t)
	epic := f.ticket(t, "Epic")
	a := f.create(t, f.member.Token, f.project, map[string]any{"title": "Child A", "parent_id": epic.ID})
	if a.ParentID == nil || *a.ParentID != epic.ID {
		t.Fatalf("parent %v", a.ParentID)
	}
	b := f.ticket(t, "Child B")
	var patched ticket.Ticket
	f.env.Do("PATCH", path("/tickets/%s", b.ID), f.member.Token, map[string]any{"parent_id": epic.ID}).Expect(t, 200).Decode(t, &patched)
	if patched.ParentID == nil || *patched.ParentID != epic.ID {
		t.Fatalf("patched parent %v", patched.ParentID)
	}
	xyz := f.newProject(t, "XYZ") // same org, another project: allowed
	c := f.create(t, f.owner.Token, xyz, map[string]any{"title": "Child C elsewhere", "parent_id": epic.ID, "status": "Done"})
	f.env.Do("PATCH", path("/tickets/%s", a.ID), f.member.Token, map[string]any{"status": "Done"}).Expect(t, 200)

	var p childrenPage
	f.env.Do("GET", path("/tickets/%s/children", epic.ID), f.viewer.Token, nil).Expect(t, 200).Decode(t, &p)
	if got := strings.Join(p.titles(), ","); got != "Child A,Child B,Child C elsewhere" {
		t.Errorf("children: %s", got)
	}
	if p.Progress.Total != 3 || p.Progress.Done != 2 || p.Progress.ByCategory["todo"] != 1 || p.Progress.ByCategory["in_progress"] != 0 {
		t.Errorf("progress %+v", p.Progress)
	}
	// q narrows the page (progress stays over all children).
	f.env.Do("GET", path("/tickets/%s/children?q=category:todo", epic.ID), f.viewer.Token, nil).Expect(t, 200).Decode(t, &p)
	if got := strings.Join(p.titles(), ","); got != "Child B" || p.Progress.Total != 3 {
		t.Errorf("children q: %s %+v", got, p.Progress)
	}
	// The Reporter (assigned to ABC) neither sees nor counts the child in XYZ.
	f.env.Do("GET", path("/tickets/%s/children", epic.ID), f.reporter.Token, nil).Expect(t, 200).Decode(t, &p)
	if len(p.Items) != 2 || p.Progress.Total != 2 {
		t.Errorf("reporter: %v %+v", p.titles(), p.Progress)
	}
	f.env.Do("GET", path("/tickets/%s/children", epic.ID), f.outsider.Token, nil).Expect(t, 404)

	// Refusals: itself, a descendant (cycle), another org, unknown, too deep.
	f.env.Do("PATCH", path("/tickets/%s", epic.ID), f.member.Token, map[string]any{"parent_id": epic.ID}).Expect(t, 422)
	f.env.Do("PATCH", path("/tickets/%s", epic.ID), f.member.Token, map[string]any{"parent_id": a.ID}).Expect(t, 422)
	other := f.create(t, f.outsider.Token, f.projectIn(t, f.outsider.OrgID, "OUT"), map[string]any{"title": "elsewhere"})
	f.env.Do("PATCH", path("/tickets/%s", b.ID), f.member.Token, map[string]any{"parent_id": other.ID}).Expect(t, 422)
	f.env.Do("POST", path("/projects/%s/tickets", f.project), f.member.Token, map[string]any{"title": "x", "parent_id": uuid.New()}).Expect(t, 422)
	_ = c
	chain := a.ID // epic > a: 2 levels; add 3 more to reach 5
	for i := 0; i < ticket.MaxDepth-2; i++ {
		chain = f.create(t, f.member.Token, f.project, map[string]any{"title": "deep", "parent_id": chain}).ID
	}
	f.env.Do("POST", path("/projects/%s/tickets", f.project), f.member.Token, map[string]any{"title": "too deep", "parent_id": chain}).Expect(t, 422)
	// Moving a subtree under another ticket counts its height: b (a leaf)
	// may go under a, but epic's whole tree may not go under b's new chain.
	f.env.Do("PATCH", path("/tickets/%s", b.ID), f.member.Token, map[string]any{"parent_id": a.ID}).Expect(t, 200)
	root := f.ticket(t, "Root")
	f.env.Do("PATCH", path("/tickets/%s", epic.ID), f.member.Token, map[string]any{"parent_id": root.ID}).Expect(t, 422)
	// Detach; batch updates do not set parents.
	f.env.Do("PATCH", path("/tickets/%s", b.ID), f.member.Token, map[string]any{"parent_id": nil}).Expect(t, 200)
	f.env.Do("POST", path("/tickets/batch-update"), f.member.Token, map[string]any{"ticket_ids": []uuid.UUID{b.ID}, "parent_id": epic.ID}).Expect(t, 422)
	// The change is audited and sent as ticket.updated.
	var n int
	f.env.ScanRow(t, &n, `SELECT count(*) FROM outbox WHERE topic = 'ticket.updated' AND payload->'data'->>'id' = $1
		AND payload->'changes'->0->>'field' = 'parent_id'`, b.ID.String())
	if n != 3 {
		t.Errorf("%d parent_id events", n)
	}
}
