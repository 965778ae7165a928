package comments_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestUpdateComment(t *testing.T) {
	t.Parallel()
	w := setup(t)
	c := w.comment(t, w.Member, w.Ticket.ID, "original", nil)
	path := "/api/v1/comments/" + c["id"].(string)

	t.Run("200 author", func(t *testing.T) {
		got := w.Env.Do("PATCH", path, w.Member.Token, map[string]any{"body": "edited"}).Expect(t, 200).Map(t)
		if got["body"] != "edited" || got["author_id"] != w.Member.ID.String() || got["created_at"] != c["created_at"] {
			t.Fatalf("patched %v", got)
		}
		audit := w.Env.Audit(t, "ticket", w.Ticket.ID)
		last := audit[len(audit)-1]
		if last.Action != "comment_updated" || last.Changes[1].Old != nil || last.Changes[1].New != "edited" {
			t.Fatalf("audit %+v", last)
		}
		// The activity feed renders these rows: the old text is in none.
		var n int
		if err := w.Env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1
			AND changes::text LIKE '%original%'`, w.Owner.OrgID).Scan(&n); err != nil || n != 0 {
			t.Fatalf("old body in %d audit rows (%v)", n, err)
		}
	})

	t.Run("200 admin edits another's comment", func(t *testing.T) {
		got := w.Env.Do("PATCH", path, w.Admin.Token, map[string]any{"body": "moderated"}).Expect(t, 200).Map(t)
		if got["body"] != "moderated" || got["author_id"] != w.Member.ID.String() {
			t.Fatalf("patched %v", got)
		}
		w.Env.Do("PATCH", path, w.Owner.Token, map[string]any{"body": "by owner"}).Expect(t, 200)
	})

	t.Run("403 another member, viewer", func(t *testing.T) {
		other := w.Env.Member(w.Owner, "member")
		for _, u := range []string{other.Token, w.Viewer.Token, w.Reporter.Token} {
			r := w.Env.Do("PATCH", path, u, map[string]any{"body": "hijack"}).Expect(t, 403)
			if r.ErrorCode() != "FORBIDDEN" || !strings.Contains(r.Error().Message, "Admin") {
				t.Fatalf("error %s", r.Body)
			}
		}
	})

	t.Run("422", func(t *testing.T) {
		w.Env.Do("PATCH", path, w.Member.Token, map[string]any{}).Expect(t, 422)
		w.Env.Do("PATCH", path, w.Member.Token, map[string]any{"body": ""}).Expect(t, 422)
	})

	t.Run("400 malformed", func(t *testing.T) {
		w.Env.Do("PATCH", path, w.Member.Token, "{").Expect(t, 400)
	})

	t.Run("404", func(t *testing.T) {
		w.Env.Do("PATCH", path, w.Outsider.Token, map[string]any{"body": "x"}).Expect(t, 404)
		w.Env.Do("PATCH", "/api/v1/comments/"+uuid.NewString(), w.Member.Token, map[string]any{"body": "x"}).Expect(t, 404)
	})
}

func TestDeleteComment(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("403 another member, viewer", func(t *testing.T) {
		c := w.comment(t, w.Member, w.Ticket.ID, "mine", nil)
		other := w.Env.Member(w.Owner, "member")
		for _, u := range []string{other.Token, w.Viewer.Token} {
			w.Env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), u, nil).Expect(t, 403)
		}
	})

	t.Run("204 author of a thread of their own", func(t *testing.T) {
		root := w.comment(t, w.Member, w.Ticket.ID, "own root", nil)
		rootID := root["id"].(string)
		reply := w.comment(t, w.Member, w.Ticket.ID, "own reply", &rootID)
		w.Env.Do("DELETE", "/api/v1/comments/"+rootID, w.Member.Token, nil).Expect(t, 204)
		w.Env.Do("GET", "/api/v1/comments/"+reply["id"].(string), w.Member.Token, nil).Expect(t, 404)
	})

	t.Run("403 author of a thread with others' replies; 204 Admin, the thread goes", func(t *testing.T) {
		root := w.comment(t, w.Member, w.Ticket.ID, "root", nil)
		rootID := root["id"].(string)
		reply := w.comment(t, w.Member, w.Ticket.ID, "reply", &rootID)
		replyID := reply["id"].(string)
		nested := w.comment(t, w.Reporter, w.Ticket.ID, "nested", &replyID)
		sibling := w.comment(t, w.Member, w.Ticket.ID, "sibling", nil)
		r := w.Env.Do("DELETE", "/api/v1/comments/"+rootID, w.Member.Token, nil).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Admin") {
			t.Fatalf("message %s", r.Body)
		}
		w.Env.Do("GET", "/api/v1/comments/"+nested["id"].(string), w.Member.Token, nil).Expect(t, 200)
		w.Env.Do("DELETE", "/api/v1/comments/"+rootID, w.Admin.Token, nil).Expect(t, 204)
		for _, id := range []any{rootID, replyID, nested["id"]} {
			w.Env.Do("GET", "/api/v1/comments/"+id.(string), w.Member.Token, nil).Expect(t, 404)
		}
		w.Env.Do("GET", "/api/v1/comments/"+sibling["id"].(string), w.Member.Token, nil).Expect(t, 200)
		audit := w.Env.Audit(t, "ticket", w.Ticket.ID)
		last := audit[len(audit)-1]
		if last.Action != "comment_deleted" || len(last.Changes) != 3 || last.Changes[0].Old != rootID || last.Changes[0].New != nil {
			t.Fatalf("audit %+v", last)
		}
	})

	t.Run("204 admin deletes another's comment", func(t *testing.T) {
		c := w.comment(t, w.Member, w.Ticket.ID, "spam", nil)
		w.Env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), w.Admin.Token, nil).Expect(t, 204)
		w.Env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), w.Admin.Token, nil).Expect(t, 404)
	})

	t.Run("404", func(t *testing.T) {
		c := w.comment(t, w.Member, w.Ticket.ID, "x", nil)
		w.Env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), w.Outsider.Token, nil).Expect(t, 404)
		w.Env.Do("DELETE", "/api/v1/comments/"+uuid.NewString(), w.Admin.Token, nil).Expect(t, 404)
	})
}

// TestNonMemberAndViewer walks every comment route: a non-member learns
// nothing (404) and a Viewer may read but never write (403).
func TestNonMemberAndViewer(t *testing.T) {
	t.Parallel()
	w := setup(t)
	c := w.comment(t, w.Member, w.Ticket.ID, "x", nil)
	tp := "/api/v1/tickets/" + w.Ticket.ID.String() + "/comments"
	cp := "/api/v1/comments/" + c["id"].(string)
	body := map[string]any{"body": "y"}
	routes := []struct {
		method, path string
		write        bool
	}{
		{"POST", tp, true}, {"GET", tp, false}, {"GET", cp, false}, {"PATCH", cp, true}, {"DELETE", cp, true},
	}
	for _, r := range routes {
		w.Env.Do(r.method, r.path, w.Outsider.Token, body).Expect(t, 404)
		if r.write {
			w.Env.Do(r.method, r.path, w.Viewer.Token, body).Expect(t, 403)
		} else {
			w.Env.Do(r.method, r.path, w.Viewer.Token, nil).Expect(t, 200)
		}
	}
}
