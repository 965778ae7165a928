package comments_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/testfactory"
)

func TestCreateComment(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/tickets/" + w.Ticket.ID.String() + "/comments"

	t.Run("201 author is the caller, event and ticket audit", func(t *testing.T) {
		c := w.Env.Do("POST", path, w.Member.Token, map[string]any{"body": "first", "author_id": w.Owner.ID}).Expect(t, 201).Map(t)
		if c["author_id"] != w.Member.ID.String() || c["ticket_id"] != w.Ticket.ID.String() || c["body"] != "first" ||
			c["parent_comment_id"] != nil || c["id"] == nil || c["created_at"] == nil || c["updated_at"] == nil {
			t.Fatalf("comment %v", c)
		}
		events := w.Env.Outbox(t, w.Owner.OrgID, domain.EventCommentCreated)
		last := events[len(events)-1]
		if data := last["data"].(map[string]any); data["id"] != c["id"] || data["body"] != "first" || last["type"] != "comment.created" {
			t.Fatalf("event %v", last)
		}
		audit := w.Env.Audit(t, "ticket", w.Ticket.ID)
		a := audit[len(audit)-1]
		if a.Action != "comment_created" || len(a.Changes) != 1 || a.Changes[0].Field != "comment" ||
			a.Changes[0].Old != nil || a.Changes[0].New != c["id"] {
			t.Fatalf("audit %+v", a)
		}
	})

	t.Run("201 reply and assigned reporter", func(t *testing.T) {
		parent := w.comment(t, w.Member, w.Ticket.ID, "parent", nil)
		id := parent["id"].(string)
		reply := w.comment(t, w.Reporter, w.Ticket.ID, "reply", &id)
		if reply["parent_comment_id"] != id || reply["author_id"] != w.Reporter.ID.String() {
			t.Fatalf("reply %v", reply)
		}
	})

	t.Run("422", func(t *testing.T) {
		other := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
		foreign := w.comment(t, w.Member, other, "elsewhere", nil)["id"]
		for name, body := range map[string]map[string]any{
			"missing body":      {},
			"empty body":        {"body": ""},
			"blank body":        {"body": "   "},
			"parent elsewhere":  {"body": "x", "parent_comment_id": foreign},
			"parent unknown":    {"body": "x", "parent_comment_id": uuid.NewString()},
			"parent not a uuid": {"body": "x", "parent_comment_id": "nope"},
		} {
			t.Run(name, func(t *testing.T) {
				r := w.Env.Do("POST", path, w.Member.Token, body).Expect(t, 422)
				if r.ErrorCode() != "VALIDATION_ERROR" {
					t.Fatal(r.ErrorCode())
				}
			})
		}
	})

	t.Run("403", func(t *testing.T) {
		w.Env.Do("POST", path, w.Viewer.Token, map[string]any{"body": "x"}).Expect(t, 403)
		w.Env.Do("POST", path, w.UnassignedReporter.Token, map[string]any{"body": "x"}).Expect(t, 403)
		readKey := w.Env.APIKey(w.Member, []string{"read"})
		w.Env.Do("POST", path, readKey, map[string]any{"body": "x"}).Expect(t, 403)
		otherProject := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{Key: "OTH"})
		scoped := w.Env.APIKey(w.Owner, []string{"write"}, otherProject.ID)
		w.Env.Do("POST", path, scoped, map[string]any{"body": "x"}).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("POST", path, w.Outsider.Token, map[string]any{"body": "x"}).Expect(t, 404)
		w.Env.Do("POST", "/api/v1/tickets/"+uuid.NewString()+"/comments", w.Member.Token, map[string]any{"body": "x"}).Expect(t, 404)
		w.Env.Do("POST", "/api/v1/tickets/not-a-uuid/comments", w.Member.Token, map[string]any{"body": "x"}).Expect(t, 404)
		gone := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
		w.Env.Exec(t, `UPDATE tickets SET deleted_at = now() WHERE id = $1`, gone)
		w.Env.Do("POST", "/api/v1/tickets/"+gone.String()+"/comments", w.Member.Token, map[string]any{"body": "x"}).Expect(t, 404)
	})

	t.Run("401", func(t *testing.T) {
		w.Env.Do("POST", path, "", map[string]any{"body": "x"}).Expect(t, 401)
	})
}

func TestListAndGetComments(t *testing.T) {
	t.Parallel()
	w := setup(t)
	ticket := testfactory.Ticket(t, w.Env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{}).ID
	path := "/api/v1/tickets/" + ticket.String() + "/comments"
	a := w.comment(t, w.Member, ticket, "a", nil)
	aID := a["id"].(string)
	b := w.comment(t, w.Admin, ticket, "b", &aID)
	c := w.comment(t, w.Member, ticket, "c", nil)
	w.comment(t, w.Member, w.Ticket.ID, "on another ticket", nil)

	t.Run("200 paginated in creation order with threading field", func(t *testing.T) {
		var ids []any
		cursor := ""
		for range 5 {
			url := path + "?limit=2"
			if cursor != "" {
				url += "&cursor=" + cursor
			}
			page := w.Env.Do("GET", url, w.Viewer.Token, nil).Expect(t, 200).Map(t)
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
		got := w.Env.Do("GET", "/api/v1/comments/"+aID, w.Viewer.Token, nil).Expect(t, 200).Map(t)
		if got["body"] != "a" || got["created_at"] != a["created_at"] || got["updated_at"] != a["updated_at"] {
			t.Fatalf("get %v vs %v", got, a)
		}
		w.Env.Do("GET", "/api/v1/comments/"+aID, w.Reporter.Token, nil).Expect(t, 200)
	})

	t.Run("422 bad cursor or limit", func(t *testing.T) {
		w.Env.Do("GET", path+"?cursor=zzz", w.Member.Token, nil).Expect(t, 422)
		w.Env.Do("GET", path+"?limit=0", w.Member.Token, nil).Expect(t, 422)
	})

	t.Run("403 unassigned reporter", func(t *testing.T) {
		w.Env.Do("GET", path, w.UnassignedReporter.Token, nil).Expect(t, 403)
		w.Env.Do("GET", "/api/v1/comments/"+aID, w.UnassignedReporter.Token, nil).Expect(t, 403)
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("GET", path, w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/comments/"+aID, w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/comments/"+uuid.NewString(), w.Member.Token, nil).Expect(t, 404)
		// Comments vanish with their ticket's project.
		w.Env.Exec(t, `UPDATE projects SET deleted_at = now() WHERE id = $1`, w.Project.ID)
		defer w.Env.Exec(t, `UPDATE projects SET deleted_at = NULL WHERE id = $1`, w.Project.ID)
		w.Env.Do("GET", path, w.Member.Token, nil).Expect(t, 404)
		w.Env.Do("GET", "/api/v1/comments/"+aID, w.Member.Token, nil).Expect(t, 404)
	})
}
