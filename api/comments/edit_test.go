package comments_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/store/sprintdb/worktest"
)

func TestUpdateComment(t *testing.T) {
	t.Parallel()
	w := setup(t)
	c := w.comment(t, w.member, w.ticket, "original", nil)
	path := "/api/v1/comments/" + c["id"].(string)

	t.Run("200 author", func(t *testing.T) {
		got := w.env.Do("PATCH", path, w.member.Token, map[string]any{"body": "edited"}).Expect(t, 200).Map(t)
		if got["body"] != "edited" || got["author_id"] != w.member.ID.String() || got["created_at"] != c["created_at"] {
			t.Fatalf("patched %v", got)
		}
		audit := worktest.Audit(t, w.env.DB, "ticket", w.ticket)
		last := audit[len(audit)-1]
		if last.Action != "comment_updated" || last.Changes[1].Old != nil || last.Changes[1].New != "edited" {
			t.Fatalf("audit %+v", last)
		}
		// The activity feed renders these rows: the old text is in none.
		var n int
		if err := w.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM audit_log WHERE org_id = $1
			AND changes::text LIKE '%original%'`, w.owner.OrgID).Scan(&n); err != nil || n != 0 {
			t.Fatalf("old body in %d audit rows (%v)", n, err)
		}
	})

	t.Run("200 admin edits another's comment", func(t *testing.T) {
		got := w.env.Do("PATCH", path, w.admin.Token, map[string]any{"body": "moderated"}).Expect(t, 200).Map(t)
		if got["body"] != "moderated" || got["author_id"] != w.member.ID.String() {
			t.Fatalf("patched %v", got)
		}
		w.env.Do("PATCH", path, w.owner.Token, map[string]any{"body": "by owner"}).Expect(t, 200)
	})

	t.Run("403 another member, viewer", func(t *testing.T) {
		other := w.env.Member(w.owner, "member")
		for _, u := range []string{other.Token, w.viewer.Token, w.reporter.Token} {
			r := w.env.Do("PATCH", path, u, map[string]any{"body": "hijack"}).Expect(t, 403)
			if r.ErrorCode() != "FORBIDDEN" || !strings.Contains(r.Error().Message, "Admin") {
				t.Fatalf("error %s", r.Body)
			}
		}
	})

	t.Run("422", func(t *testing.T) {
		w.env.Do("PATCH", path, w.member.Token, map[string]any{}).Expect(t, 422)
		w.env.Do("PATCH", path, w.member.Token, map[string]any{"body": ""}).Expect(t, 422)
	})

	t.Run("400 malformed", func(t *testing.T) {
		w.env.Do("PATCH", path, w.member.Token, "{").Expect(t, 400)
	})

	t.Run("404", func(t *testing.T) {
		w.env.Do("PATCH", path, w.outside.Token, map[string]any{"body": "x"}).Expect(t, 404)
		w.env.Do("PATCH", "/api/v1/comments/"+uuid.NewString(), w.member.Token, map[string]any{"body": "x"}).Expect(t, 404)
	})
}

func TestDeleteComment(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("403 another member, viewer", func(t *testing.T) {
		c := w.comment(t, w.member, w.ticket, "mine", nil)
		other := w.env.Member(w.owner, "member")
		for _, u := range []string{other.Token, w.viewer.Token} {
			w.env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), u, nil).Expect(t, 403)
		}
	})

	t.Run("204 author of a thread of their own", func(t *testing.T) {
		root := w.comment(t, w.member, w.ticket, "own root", nil)
		rootID := root["id"].(string)
		reply := w.comment(t, w.member, w.ticket, "own reply", &rootID)
		w.env.Do("DELETE", "/api/v1/comments/"+rootID, w.member.Token, nil).Expect(t, 204)
		w.env.Do("GET", "/api/v1/comments/"+reply["id"].(string), w.member.Token, nil).Expect(t, 404)
	})

	t.Run("403 author of a thread with others' replies; 204 Admin, the thread goes", func(t *testing.T) {
		root := w.comment(t, w.member, w.ticket, "root", nil)
		rootID := root["id"].(string)
		reply := w.comment(t, w.member, w.ticket, "reply", &rootID)
		replyID := reply["id"].(string)
		nested := w.comment(t, w.reporter, w.ticket, "nested", &replyID)
		sibling := w.comment(t, w.member, w.ticket, "sibling", nil)
		r := w.env.Do("DELETE", "/api/v1/comments/"+rootID, w.member.Token, nil).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Admin") {
			t.Fatalf("message %s", r.Body)
		}
		w.env.Do("GET", "/api/v1/comments/"+nested["id"].(string), w.member.Token, nil).Expect(t, 200)
		w.env.Do("DELETE", "/api/v1/comments/"+rootID, w.admin.Token, nil).Expect(t, 204)
		for _, id := range []any{rootID, replyID, nested["id"]} {
			w.env.Do("GET", "/api/v1/comments/"+id.(string), w.member.Token, nil).Expect(t, 404)
		}
		w.env.Do("GET", "/api/v1/comments/"+sibling["id"].(string), w.member.Token, nil).Expect(t, 200)
		audit := worktest.Audit(t, w.env.DB, "ticket", w.ticket)
		last := audit[len(audit)-1]
		if last.Action != "comment_deleted" || len(last.Changes) != 3 || last.Changes[0].Old != rootID || last.Changes[0].New != nil {
			t.Fatalf("audit %+v", last)
		}
	})

	t.Run("204 admin deletes another's comment", func(t *testing.T) {
		c := w.comment(t, w.member, w.ticket, "spam", nil)
		w.env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), w.admin.Token, nil).Expect(t, 204)
		w.env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), w.admin.Token, nil).Expect(t, 404)
	})

	t.Run("404", func(t *testing.T) {
		c := w.comment(t, w.member, w.ticket, "x", nil)
		w.env.Do("DELETE", "/api/v1/comments/"+c["id"].(string), w.outside.Token, nil).Expect(t, 404)
		w.env.Do("DELETE", "/api/v1/comments/"+uuid.NewString(), w.admin.Token, nil).Expect(t, 404)
	})
}

// TestNonMemberAndViewer walks every comment route: a non-member learns
// nothing (404) and a Viewer may read but never write (403).
func TestNonMemberAndViewer(t *testing.T) {
	t.Parallel()
	w := setup(t)
	c := w.comment(t, w.member, w.ticket, "x", nil)
	tp := "/api/v1/tickets/" + w.ticket.String() + "/comments"
	cp := "/api/v1/comments/" + c["id"].(string)
	body := map[string]any{"body": "y"}
	routes := []struct {
		method, path string
		write        bool
	}{
		{"POST", tp, true}, {"GET", tp, false}, {"GET", cp, false}, {"PATCH", cp, true}, {"DELETE", cp, true},
	}
	for _, r := range routes {
		w.env.Do(r.method, r.path, w.outside.Token, body).Expect(t, 404)
		if r.write {
			w.env.Do(r.method, r.path, w.viewer.Token, body).Expect(t, 403)
		} else {
			w.env.Do(r.method, r.path, w.viewer.Token, nil).Expect(t, 200)
		}
	}
}
