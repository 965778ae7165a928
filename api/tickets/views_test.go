package tickets_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

func TestTransitionViews(t *testing.T) {
	t.Parallel()
	f := setup(t)
	strictP := f.newProject(t, "STV")
	f.workflow(t, strictP, "Strict view", "strict", []string{"Open", "Doing", "Done"}, [][2]string{{"Open", "Doing"}})
	warnP := f.newProject(t, "WRV")
	f.workflow(t, warnP, "Warn view", "warn", []string{"Open", "Doing", "Done"}, [][2]string{{"Open", "Doing"}})

	t.Run("200 transitions", func(t *testing.T) {
		none := f.ticket(t, "n")
		var tr ticket.Transitions
		f.env.Do("GET", path("/tickets/%s/transitions", none.ID), f.viewer.Token, nil).Expect(t, 200).Decode(t, &tr)
		if tr.CurrentStatus != "Backlog" || len(tr.Available) != 5 || tr.Available[0].Name != "Todo" || tr.Available[0].Category != "todo" {
			t.Fatalf("%+v", tr)
		}
		s := f.create(t, f.owner.Token, strictP, map[string]any{"title": "s"})
		f.env.Do("GET", path("/tickets/%s/transitions", s.ID), f.viewer.Token, nil).Expect(t, 200).Decode(t, &tr)
		if tr.CurrentStatus != "Open" || len(tr.Available) != 1 || tr.Available[0].Name != "Doing" {
			t.Fatalf("%+v", tr)
		}
	})

	t.Run("200 available-transitions", func(t *testing.T) {
		for _, tc := range []struct {
			project     uuid.UUID
			enforcement string
			want        string
		}{
			{strictP, "strict", "[Doing:true]"},
			{warnP, "warn", "[Doing:true Done:false]"},
		} {
			tk := f.create(t, f.owner.Token, tc.project, map[string]any{"title": "a"})
			var av ticket.AvailableTransitions
			f.env.Do("GET", path("/tickets/%s/available-transitions", tk.ID), f.viewer.Token, nil).Expect(t, 200).Decode(t, &av)
			var got []string
			for _, o := range av.Transitions {
				got = append(got, fmt.Sprintf("%s:%v", o.To, o.Listed))
			}
			if av.Enforcement != tc.enforcement || av.CurrentStatus != "Open" || fmt.Sprint(got) != tc.want {
				t.Fatalf("%+v %v", av, got)
			}
		}
	})

	t.Run("404", func(t *testing.T) {
		tk := f.ticket(t, "x")
		for _, p := range []string{"/tickets/%s/transitions", "/tickets/%s/available-transitions"} {
			f.env.Do("GET", path(p, tk.ID), f.outsider.Token, nil).Expect(t, 404)
			f.env.Do("GET", path(p, uuid.New()), f.owner.Token, nil).Expect(t, 404)
		}
	})
}

func TestActivity(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, "a")
	for i := range 4 {
		f.env.Do("PATCH", path("/tickets/%s", tk.ID), f.member.Token, map[string]any{"title": fmt.Sprint("t", i)}).Expect(t, 200)
	}
	// a row recorded on one of the ticket's comments joins the feed too
	cid := uuid.Must(uuid.NewV7())
	f.env.Exec(t, `INSERT INTO comments (id, org_id, ticket_id, author_id, body) VALUES ($1, $2, $3, $4, 'x')`, cid, f.owner.OrgID, tk.ID, f.owner.ID)
	f.env.Exec(t, `INSERT INTO audit_log (id, org_id, actor_id, entity_type, entity_id, action) VALUES ($1, $2, $3, 'comment', $4, 'created')`,
		uuid.Must(uuid.NewV7()), f.owner.OrgID, f.owner.ID, cid)

	t.Run("200 paged", func(t *testing.T) {
		var all []activityItem
		cursor := ""
		for range 10 {
			var pg struct {
				Items      []activityItem `json:"items"`
				NextCursor *string        `json:"next_cursor"`
				HasMore    bool           `json:"has_more"`
			}
			u := path("/tickets/%s/activity?limit=2", tk.ID)
			if cursor != "" {
				u += "&cursor=" + cursor
			}
			f.env.Do("GET", u, f.viewer.Token, nil).Expect(t, 200).Decode(t, &pg)
			all = append(all, pg.Items...)
			if !pg.HasMore {
				break
			}
			cursor = *pg.NextCursor
		}
		if len(all) != 6 || all[0].Type != "created" || all[4].Payload.Changes[0].New != "t3" || all[5].Payload.EntityType != "comment" {
			t.Fatalf("%+v", all)
		}
	})

	t.Run("404", func(t *testing.T) {
		f.env.Do("GET", path("/tickets/%s/activity", tk.ID), f.outsider.Token, nil).Expect(t, 404)
		f.env.Do("GET", path("/tickets/%s/activity", uuid.New()), f.owner.Token, nil).Expect(t, 404)
	})

	t.Run("422 paging", func(t *testing.T) {
		f.env.Do("GET", path("/tickets/%s/activity?limit=-1", tk.ID), f.owner.Token, nil).Expect(t, 422)
	})
}
