package comments_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/sprintdb/worktest"
)

func TestCreateComment(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/tickets/" + w.ticket.String() + "/comments"

	t.Run("201 author is the caller, event and ticket audit", func(t *testing.T) {
		c := w.env.Do("POST", path, w.member.Token, map[string]any{"body": "first", "author_id": w.owner.ID}).Expect(t, 201).Map(t)
		if c["author_id"] != w.member.ID.String() || c["ticket_id"] != w.ticket.String() || c["body"] != "first" ||
			c["parent_comment_id"] != nil || c["id"] == nil || c["created_at"] == nil || c["updated_at"] == nil {
			t.Fatalf("comment %v", c)
		}
		events := worktest.Outbox(t, w.env.DB, w.owner.OrgID, domain.EventCommentCreated)
		last := events[len(events)-1]
		if data := last["data"].(map[string]any); data["id"] != c["id"] || data["body"] != "first" || last["type"] != "comment.created" {
			t.Fatalf("event %v", last)
		}
		audit := worktest.Audit(t, w.env.DB, "ticket", w.ticket)
		a := audit[len(audit)-1]
		if a.Action != "comment_created" || len(a.Changes) != 1 || a.Changes[0].Field != "comment" ||
			a.Changes[0].Old != nil || a.Changes[0].New != c["id"] {
			t.Fatalf("audit %+v", a)
		}
	})

	t.Run("201 reply and assigned reporter", func(t *testing.T) {
		parent := w.comment(t, w.member, w.ticket, "parent", nil)
		id := parent["id"].(string)
		reply := w.comment(t, w.reporter, w.ticket, "reply", &id)
		if reply["parent_comment_id"] != id || reply["author_id"] != w.reporter.ID.String() {
			t.Fatalf("reply %v", reply)
		}
	})

	t.Run("422", func(t *testing.T) {
		other := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
		foreign := w.comment(t, w.member, other, "elsewhere", nil)["id"]
		for name, body := range map[string]map[string]any{
			"missing body":      {},
			"empty body":        {"body": ""},
			"blank body":        {"body": "   "},
			"parent elsewhere":  {"body": "x", "parent_comment_id": foreign},
			"parent unknown":    {"body": "x", "parent_comment_id": uuid.NewString()},
			"parent not a uuid": {"body": "x", "parent_comment_id": "nope"},
		} {
			t.Run(name, func(t *testing.T) {
				r := w.env.Do("POST", path, w.member.Token, body).Expect(t, 422)
				if r.ErrorCode() != "VALIDATION_ERROR" {
					t.Fatal(r.ErrorCode())
				}
			})
		}
	})

	t.Run("403", func(t *testing.T) {
		w.env.Do("POST", path, w.viewer.Token, map[string]any{"body": "x"}).Expect(t, 403)
		w.env.Do("POST", path, w.unassignedReporter.Token, map[string]any{"body": "x"}).Expect(t, 403)
		readKey := w.env.APIKey(w.member, []string{"read"})
		w.env.Do("POST", path, readKey, map[string]any{"body": "x"}).Expect(t, 403)
		otherProject := worktest.NewProject(t, w.env.DB, w.owner.OrgID, "OTH")
		scoped := w.env.APIKey(w.owner, []string{"write"}, otherProject.ID)
		w.env.Do("POST", path, scoped, map[string]any{"body": "x"}).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.env.Do("POST", path, w.outside.Token, map[string]any{"body": "x"}).Expect(t, 404)
		w.env.Do("POST", "/api/v1/tickets/"+uuid.NewString()+"/comments", w.member.Token, map[string]any{"body": "x"}).Expect(t, 404)
		w.env.Do("POST", "/api/v1/tickets/not-a-uuid/comments", w.member.Token, map[string]any{"body": "x"}).Expect(t, 404)
		gone := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
		worktest.Exec(t, w.env.DB, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		w.env.Do("POST", "/api/v1/tickets/"+gone.String()+"/comments", w.member.Token, map[string]any{"body": "x"}).Expect(t, 404)
	})

	t.Run("401", func(t *testing.T) {
		w.env.Do("POST", path, "", map[string]any{"body": "x"}).Expect(t, 401)
	})
}

func TestListAndGetComments(t *testing.T) {
	t.Parallel()
	w := setup(t)
	ticket := worktest.NewTicket(t, w.env.DB, w.project, w.owner.ID, worktest.Ticket{})
	path := "/api/v1/tickets/" + ticket.String() + "/comments"
	a := w.comment(t, w.member, ticket, "a", nil)
	aID := a["id"].(string)
	b := w.comment(t, w.admin, ticket, "b", &aID)
	c := w.comment(t, w.member, ticket, "c", nil)
	w.comment(t, w.member, w.ticket, "on another ticket", nil)

	t.Run("200 paginated in creation order with threading field", func(t *testing.T) {
		var ids []any
		cursor := ""
		for range 5 {
			url := path + "?limit=2"
			if cursor != "" {
				url += "&cursor=" + cursor
			}
			page := w.env.Do("GET", url, w.viewer.Token, nil).Expect(t, 200).Map(t)
			for _, it := range page["items"].([]any) {
				ids = append(ids, it.(map[string]any)["id"])
				if it.(map[string]any)["id"] == b["id"] && it.(map[string]any)["parent_comment_id"] != aID {
					t.Fatalf("reply %v", it)
				}
			}
			if page["has_more"] != true {
				if page["next_cursor"] != nil {
					t.Fatalf("page %v", page)
				}
				break
			}
			cursor = page["next_cursor"].(string)
		}
		if len(ids) != 3 || ids[0] != aID || ids[1] != b["id"] || ids[2] != c["id"] {
			t.Fatalf("ids %v", ids)
		}
	})

	t.Run("200 get", func(t *testing.T) {
		got := w.env.Do("GET", "/api/v1/comments/"+aID, w.viewer.Token, nil).Expect(t, 200).Map(t)
		if got["body"] != "a" || got["created_at"] != a["created_at"] || got["updated_at"] != a["updated_at"] {
			t.Fatalf("get %v vs %v", got, a)
		}
		w.env.Do("GET", "/api/v1/comments/"+aID, w.reporter.Token, nil).Expect(t, 200)
	})

	t.Run("422 bad cursor or limit", func(t *testing.T) {
		w.env.Do("GET", path+"?cursor=zzz", w.member.Token, nil).Expect(t, 422)
		w.env.Do("GET", path+"?limit=0", w.member.Token, nil).Expect(t, 422)
	})

	t.Run("403 unassigned reporter", func(t *testing.T) {
		w.env.Do("GET", path, w.unassignedReporter.Token, nil).Expect(t, 403)
		w.env.Do("GET", "/api/v1/comments/"+aID, w.unassignedReporter.Token, nil).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.env.Do("GET", path, w.outside.Token, nil).Expect(t, 404)
		w.env.Do("GET", "/api/v1/comments/"+aID, w.outside.Token, nil).Expect(t, 404)
		w.env.Do("GET", "/api/v1/comments/"+uuid.NewString(), w.member.Token, nil).Expect(t, 404)
		// Comments vanish with their ticket's project.
		worktest.Exec(t, w.env.DB, `UPDATE projects SET deleted_at = now() WHERE id = $1`, w.project.ID)
		defer worktest.Exec(t, w.env.DB, `UPDATE projects SET deleted_at = NULL WHERE id = $1`, w.project.ID)
		w.env.Do("GET", path, w.member.Token, nil).Expect(t, 404)
		w.env.Do("GET", "/api/v1/comments/"+aID, w.member.Token, nil).Expect(t, 404)
	})
}
