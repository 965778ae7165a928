package tickets_test

import (
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

func TestGet(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, "Readable")

	t.Run("200 every role", func(t *testing.T) {
		for _, u := range []string{f.owner.Token, f.admin.Token, f.member.Token, f.reporter.Token, f.viewer.Token} {
			var got ticket.Ticket
			f.env.Do("GET", path("/tickets/%s", tk.ID), u, nil).Expect(t, 200).Decode(t, &got)
			if got.ID != tk.ID || got.Title != "Readable" || got.TicketNumber != tk.TicketNumber {
				t.Fatalf("%+v", got)
			}
		}
		r := f.env.Do("GET", path("/tickets/%s", tk.ID), f.owner.Token, nil)
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("content type %q", ct)
		}
		m := r.Map(t)
		for _, k := range []string{"id", "project_id", "ticket_number", "title", "description", "status", "priority",
			"assignee_id", "reporter_id", "sprint_id", "created_at", "updated_at"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("field %s missing in %v", k, m)
			}
		}
	})

	t.Run("403 reporter not assigned, key of another project", func(t *testing.T) {
		p := f.newProject(t, "HID")
		hidden := f.create(t, f.owner.Token, p, map[string]any{"title": "h"})
		f.env.Do("GET", path("/tickets/%s", hidden.ID), f.reporter.Token, nil).Expect(t, 403)
		key := f.env.APIKey(f.owner, []string{"read"}, f.project)
		f.env.Do("GET", path("/tickets/%s", hidden.ID), key, nil).Expect(t, 403)
		f.env.Do("GET", path("/tickets/%s", tk.ID), key, nil).Expect(t, 200)
	})

	t.Run("404", func(t *testing.T) {
		f.env.Do("GET", path("/tickets/%s", tk.ID), f.outsider.Token, nil).Expect(t, 404)
		f.env.Do("GET", path("/tickets/%s", uuid.New()), f.owner.Token, nil).Expect(t, 404)
		f.env.Do("GET", path("/tickets/not-a-uuid"), f.owner.Token, nil).Expect(t, 404)
		gone := f.ticket(t, "gone")
		f.env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone.ID)
		f.env.Do("GET", path("/tickets/%s", gone.ID), f.owner.Token, nil).Expect(t, 404)
		p := f.newProject(t, "DEL")
		inDeleted := f.create(t, f.owner.Token, p, map[string]any{"title": "x"})
		f.env.Exec(t, `UPDATE projects SET deleted_at = now() WHERE id = $1`, p)
		f.env.Do("GET", path("/tickets/%s", inDeleted.ID), f.owner.Token, nil).Expect(t, 404)
	})
}

type page struct {
	Items      []ticket.Ticket `json:"items"`
	NextCursor *string         `json:"next_cursor"`
	HasMore    bool            `json:"has_more"`
}

func TestList(t *testing.T) {
	t.Parallel()
	f := setup(t)
	p := f.newProject(t, "LST")
	f.assign(t, p, f.reporter)
	var all []ticket.Ticket
	for i := range 7 {
		body := map[string]any{"title": "t"}
		if i%2 == 0 {
			body["priority"] = "High"
			body["status"] = "Todo"
			body["assignee_id"] = f.member.ID
		}
		all = append(all, f.create(t, f.owner.Token, p, body))
	}
	base := path("/projects/%s/tickets", p)

	t.Run("200 pages in creation order", func(t *testing.T) {
		var got []ticket.Ticket
		next := ""
		for range 10 {
			u := base + "?limit=3"
			if next != "" {
				u += "&cursor=" + url.QueryEscape(next)
			}
			var pg page
			f.env.Do("GET", u, f.viewer.Token, nil).Expect(t, 200).Decode(t, &pg)
			got = append(got, pg.Items...)
			if !pg.HasMore {
				if pg.NextCursor != nil {
					t.Fatal("cursor without more")
				}
				break
			}
			next = *pg.NextCursor
		}
		if len(got) != len(all) {
			t.Fatalf("%d of %d", len(got), len(all))
		}
		for i := range got {
			if got[i].ID != all[i].ID {
				t.Fatalf("order at %d", i)
			}
		}
	})

	t.Run("200 filters", func(t *testing.T) {
		for q, want := range map[string]int{
			"?status=Todo": 4, "?status=Backlog": 3, "?priority=High": 4, "?priority=high": 4, "?priority=None": 3,
			"?assignee_id=" + f.member.ID.String(): 4, "?status=Todo&priority=None": 0, "?status=Nope": 0,
		} {
			var pg page
			f.env.Do("GET", base+q, f.reporter.Token, nil).Expect(t, 200).Decode(t, &pg)
			if len(pg.Items) != want {
				t.Errorf("%s: %d items, want %d", q, len(pg.Items), want)
			}
		}
		var pg page
		f.env.Do("GET", path("/projects/%s/tickets", f.newProject(t, "EMP")), f.owner.Token, nil).Expect(t, 200).Decode(t, &pg)
		if pg.Items == nil || len(pg.Items) != 0 || pg.HasMore {
			t.Fatalf("%+v", pg)
		}
	})

	t.Run("200 every row its own values", func(t *testing.T) {
		q := f.newProject(t, "VAL")
		a := f.create(t, f.owner.Token, q, map[string]any{"title": "a", "description": "first", "assignee_id": f.member.ID})
		b := f.create(t, f.owner.Token, q, map[string]any{"title": "b <&>", "description": "second"})
		c := f.create(t, f.owner.Token, q, map[string]any{"title": "c"})
		var pg page
		f.env.Do("GET", path("/projects/%s/tickets", q), f.owner.Token, nil).Expect(t, 200).Decode(t, &pg)
		if len(pg.Items) != 3 || *pg.Items[0].Description != "first" || *pg.Items[1].Description != "second" ||
			pg.Items[2].Description != nil || *pg.Items[0].AssigneeID != f.member.ID || pg.Items[1].AssigneeID != nil ||
			pg.Items[1].Title != "b <&>" || pg.Items[0].ID != a.ID || pg.Items[1].ID != b.ID || pg.Items[2].ID != c.ID ||
			!pg.Items[0].CreatedAt.Equal(a.CreatedAt) {
			t.Fatalf("%+v", pg.Items)
		}
	})

	t.Run("422 bad filters and paging", func(t *testing.T) {
		for _, q := range []string{"?priority=Urgent", "?assignee_id=nope", "?limit=0", "?limit=x", "?cursor=%%%"} {
			if r := f.env.Do("GET", base+q, f.owner.Token, nil); r.Status != 422 {
				t.Errorf("%s: %d", q, r.Status)
			}
		}
	})

	t.Run("403 reporter not assigned", func(t *testing.T) {
		f.env.Do("GET", path("/projects/%s/tickets", f.newProject(t, "NA")), f.reporter.Token, nil).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		f.env.Do("GET", base, f.outsider.Token, nil).Expect(t, 404)
		f.env.Do("GET", path("/projects/%s/tickets", uuid.New()), f.owner.Token, nil).Expect(t, 404)
	})
}

// TestListWalkDuringInserts: a pagination walk while another goroutine
// inserts returns every pre-existing ticket exactly once, in order.
func TestListWalkDuringInserts(t *testing.T) {
	t.Parallel()
	f := setup(t)
	p := f.newProject(t, "WLK")
	existing := map[uuid.UUID]bool{}
	for range 45 {
		existing[f.create(t, f.owner.Token, p, map[string]any{"title": "old"}).ID] = false
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	inserted := 0
	go func() {
		defer wg.Done()
		for !stop.Load() {
			r := f.env.Do("POST", path("/projects/%s/tickets", p), f.member.Token, map[string]any{"title": "new"})
			if r.Status != 201 {
				t.Errorf("insert: %d %s", r.Status, r.Body)
				return
			}
			inserted++
		}
	}()
	seen := map[uuid.UUID]int{}
	cursor := ""
	var last uuid.UUID
	for pages := 0; pages < 1000; pages++ {
		u := path("/projects/%s/tickets?limit=4", p)
		if cursor != "" {
			u += "&cursor=" + cursor
		}
		var pg page
		f.env.Do("GET", u, f.viewer.Token, nil).Expect(t, 200).Decode(t, &pg)
		for _, it := range pg.Items {
			seen[it.ID]++
			if last != uuid.Nil && it.ID.String() <= last.String() { // UUIDv7: text order is id order
				t.Fatalf("out of order: %s after %s", it.ID, last)
			}
			last = it.ID
		}
		if pages == 30 { // the walk must end: stop the writer once it raced long enough
			stop.Store(true)
		}
		if !pg.HasMore {
			break
		}
		cursor = *pg.NextCursor
	}
	stop.Store(true)
	wg.Wait()
	for id := range existing {
		if seen[id] != 1 {
			t.Errorf("pre-existing %s seen %d times", id, seen[id])
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s seen %d times", id, n)
		}
	}
	if inserted == 0 {
		t.Log("no insert raced the walk")
	}
}
