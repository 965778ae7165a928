package tickets_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

func ids(ts ...ticket.Ticket) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID.String()
	}
	return out
}

func (f *fixture) get(t *testing.T, id uuid.UUID) ticket.Ticket {
	t.Helper()
	var tk ticket.Ticket
	f.env.Do("GET", path("/tickets/%s", id), f.owner.Token, nil).Expect(t, 200).Decode(t, &tk)
	return tk
}

func TestBatchUpdate(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env
	url := path("/tickets/batch-update")

	t.Run("200 all fields in one transaction, events per ticket", func(t *testing.T) {
		a, b := f.ticket(t, "a"), f.ticket(t, "b")
		sp := f.sprint(t, f.project)
		m := env.Do("POST", url, f.member.Token, map[string]any{"ticket_ids": append(ids(a, b), a.ID.String()),
			"priority": "Critical", "status": "Todo", "sprint_id": sp, "assignee_id": f.member.ID, "description": nil, "title": "same"}).Expect(t, 200).Map(t)
		if m["updated"] != float64(2) {
			t.Fatalf("%v", m)
		}
		for _, tk := range []ticket.Ticket{a, b} {
			got := f.get(t, tk.ID)
			if got.Priority != "Critical" || got.Status != "Todo" || *got.SprintID != sp || *got.AssigneeID != f.member.ID || got.Title != "same" {
				t.Fatalf("%+v", got)
			}
			if f.outbox(t, "ticket.updated", tk.ID) != 1 || f.outbox(t, "ticket.status_changed", tk.ID) != 1 {
				t.Fatal("events")
			}
		}
		env.Do("POST", url, f.member.Token, map[string]any{"ticket_ids": ids(a), "sprint_id": nil}).Expect(t, 200)
		if f.get(t, a.ID).SprintID != nil {
			t.Fatal("sprint not cleared")
		}
	})

	t.Run("422 whole call, nothing changes", func(t *testing.T) {
		a := f.ticket(t, "a")
		hidden := f.create(t, f.outsider.Token, f.projectIn(t, f.outsider.OrgID, "OUT"), map[string]any{"title": "x"})
		otherSprint := f.sprint(t, f.newProject(t, "SPR"))
		deadSprint := f.sprint(t, f.project)
		f.env.Exec(t, `UPDATE sprints SET deleted_at = now() WHERE id = $1`, deadSprint)
		for name, body := range map[string]map[string]any{
			"no ids":            {"priority": "Low"},
			"empty ids":         {"ticket_ids": []string{}, "priority": "Low"},
			"no fields":         {"ticket_ids": ids(a)},
			"unknown id":        {"ticket_ids": []string{a.ID.String(), uuid.NewString()}, "priority": "Low"},
			"not a uuid":        {"ticket_ids": []string{a.ID.String(), "x"}, "priority": "Low"},
			"invisible ticket":  {"ticket_ids": []string{a.ID.String(), hidden.ID.String()}, "priority": "Low"},
			"other project sp":  {"ticket_ids": ids(a), "sprint_id": otherSprint},
			"deleted sprint":    {"ticket_ids": ids(a), "sprint_id": deadSprint},
			"unknown status":    {"ticket_ids": ids(a), "status": "Nope"},
			"bad priority":      {"ticket_ids": ids(a), "priority": "P0"},
			"assignee outsider": {"ticket_ids": ids(a), "assignee_id": f.outsider.ID},
			"too many":          {"ticket_ids": make([]string, ticket.MaxBatch+1), "priority": "Low"},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("POST", url, f.member.Token, body).Expect(t, 422)
				if name == "invisible ticket" && !strings.Contains(strings.Join(r.Error().Details, " "), hidden.ID.String()) {
					t.Fatalf("details %v", r.Error().Details)
				}
			})
		}
		if got := f.get(t, a.ID); got.Priority != "None" || got.Status != "Backlog" {
			t.Fatalf("changed: %+v", got)
		}
	})

	t.Run("422 strict workflow rejects an unlisted move for the whole batch", func(t *testing.T) {
		p := f.newProject(t, "BST")
		f.workflow(t, p, "Batch strict", "strict", []string{"Open", "Doing", "Done"}, [][2]string{{"Open", "Doing"}})
		s1 := f.create(t, f.owner.Token, p, map[string]any{"title": "s"})
		d := f.ticket(t, "default")
		r := env.Do("POST", url, f.member.Token, map[string]any{"ticket_ids": ids(d, s1), "status": "Done"}).Expect(t, 422)
		if !strings.Contains(strings.Join(r.Error().Details, " "), "Batch strict") {
			t.Fatalf("%s", r.Body)
		}
		if f.get(t, d.ID).Status != "Backlog" {
			t.Fatal("partial update")
		}
	})

	t.Run("403 viewer", func(t *testing.T) {
		a := f.ticket(t, "a")
		env.Do("POST", url, f.viewer.Token, map[string]any{"ticket_ids": ids(a), "priority": "Low"}).Expect(t, 403)
	})
}

func TestBatchDelete(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env
	url := path("/tickets/batch-delete")

	t.Run("200 deleted and blocked, dry run, cascade", func(t *testing.T) {
		a, b, c := f.ticket(t, "a"), f.ticket(t, "b"), f.ticket(t, "c")
		f.comment(t, b.ID)
		var dry ticket.BatchDeleteResult
		env.Do("POST", url, f.admin.Token, map[string]any{"ticket_ids": ids(a, b), "dry_run": true}).Expect(t, 200).Decode(t, &dry)
		if len(dry.Deleted) != 1 || dry.Deleted[0] != a.ID || len(dry.Blocked) != 1 || dry.Blocked[0].ID != b.ID || dry.Blocked[0].Dependents.Comments != 1 {
			t.Fatalf("%+v", dry)
		}
		f.get(t, a.ID)
		var res ticket.BatchDeleteResult
		env.Do("POST", url, f.admin.Token, map[string]any{"ticket_ids": ids(a, b)}).Expect(t, 200).Decode(t, &res)
		if len(res.Deleted) != 1 || len(res.Blocked) != 1 {
			t.Fatalf("%+v", res)
		}
		env.Do("GET", path("/tickets/%s", a.ID), f.owner.Token, nil).Expect(t, 404)
		f.get(t, b.ID)
		env.Do("POST", url, f.admin.Token, map[string]any{"ticket_ids": ids(b, c), "cascade": true}).Expect(t, 200).Decode(t, &res)
		if len(res.Deleted) != 2 || len(res.Blocked) != 0 {
			t.Fatalf("%+v", res)
		}
		env.Do("GET", path("/tickets/%s", b.ID), f.owner.Token, nil).Expect(t, 404)
	})

	t.Run("422 unknown ids", func(t *testing.T) {
		a := f.ticket(t, "a")
		env.Do("POST", url, f.admin.Token, map[string]any{"ticket_ids": []string{a.ID.String(), uuid.NewString()}}).Expect(t, 422)
		env.Do("POST", url, f.admin.Token, map[string]any{}).Expect(t, 422)
		f.get(t, a.ID)
	})

	t.Run("403 below Admin", func(t *testing.T) {
		a := f.ticket(t, "a")
		env.Do("POST", url, f.member.Token, map[string]any{"ticket_ids": ids(a)}).Expect(t, 403)
	})
}

func TestBatchTransition(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env
	url := path("/tickets/batch-transition")
	strictP := f.newProject(t, "STR")
	f.workflow(t, strictP, "Strict flow", "strict", []string{"Backlog", "Todo", "Done"}, [][2]string{{"Backlog", "Todo"}})
	f.assign(t, f.project, f.viewer)

	t.Run("200 each ticket on its own", func(t *testing.T) {
		ok := f.ticket(t, "ok")
		already := f.create(t, f.owner.Token, f.project, map[string]any{"title": "already", "status": "Done"})
		strictTodo := f.create(t, f.owner.Token, strictP, map[string]any{"title": "s1"})
		strictDone := f.create(t, f.owner.Token, strictP, map[string]any{"title": "s2"})
		hidden := f.create(t, f.outsider.Token, f.projectIn(t, f.outsider.OrgID, "HID"), map[string]any{"title": "x"})

		var res ticket.BatchTransitionResult
		env.Do("POST", url, f.member.Token, map[string]any{"to_status": "Done",
			"ticket_ids": []string{ok.ID.String(), already.ID.String(), strictDone.ID.String(), hidden.ID.String(), "junk"}}).
			Expect(t, 200).Decode(t, &res)
		if len(res.Succeeded) != 2 || len(res.Failed) != 3 {
			t.Fatalf("%+v", res)
		}
		reasons := map[string]string{}
		for _, fl := range res.Failed {
			reasons[fl.ID] = fl.Reason
		}
		if !strings.Contains(reasons[strictDone.ID.String()], "Strict flow") || reasons[hidden.ID.String()] != "not found" || reasons["junk"] != "not found" {
			t.Fatalf("%v", reasons)
		}
		if f.get(t, ok.ID).Status != "Done" || f.outbox(t, "ticket.status_changed", ok.ID) != 1 || f.outbox(t, "ticket.status_changed", already.ID) != 0 {
			t.Fatal("move not applied once")
		}

		env.Do("POST", url, f.member.Token, map[string]any{"to_status": "todo", "ticket_ids": ids(strictTodo)}).Expect(t, 200).Decode(t, &res)
		if len(res.Succeeded) != 1 || res.Succeeded[0].Status != "Todo" {
			t.Fatalf("%+v", res)
		}
	})

	t.Run("200 a viewer fails with the role reason", func(t *testing.T) {
		a := f.ticket(t, "a")
		var res ticket.BatchTransitionResult
		env.Do("POST", url, f.viewer.Token, map[string]any{"to_status": "Todo", "ticket_ids": ids(a)}).Expect(t, 200).Decode(t, &res)
		if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Reason, "Member") || len(res.Succeeded) != 0 {
			t.Fatalf("%+v", res)
		}
	})

	t.Run("422", func(t *testing.T) {
		a := f.ticket(t, "a")
		env.Do("POST", url, f.member.Token, map[string]any{"ticket_ids": ids(a)}).Expect(t, 422)
		env.Do("POST", url, f.member.Token, map[string]any{"to_status": "Todo"}).Expect(t, 422)
		env.Do("POST", url, f.member.Token, map[string]any{"to_status": "Todo", "ticket_ids": make([]string, ticket.MaxBatch+1)}).Expect(t, 422)
	})

	t.Run("401", func(t *testing.T) {
		env.Do("POST", url, "", map[string]any{"to_status": "Todo", "ticket_ids": []string{uuid.NewString()}}).Expect(t, 401)
	})
}
