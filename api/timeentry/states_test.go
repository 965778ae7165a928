package timeentry_test

import (
	"strings"
	"testing"
	"time"

	"tracker/api/apitest"
	"tracker/domain/timeentry"
)

func (w *world) move(t *testing.T, e timeentry.Entry, action string, u apitest.User, want int) timeentry.Entry {
	t.Helper()
	var out timeentry.Entry
	r := w.do("POST", entryPath(e, "/"+action), u, nil).Expect(t, want)
	if want == 200 {
		r.Decode(t, &out)
	}
	return out
}

// approved makes an entry of u and takes it to Approved.
func (w *world) approved(t *testing.T, u apitest.User) timeentry.Entry {
	t.Helper()
	e := w.create(t, u, nil)
	w.move(t, e, "submit", u, 200)
	return w.move(t, e, "approve", w.admin, 200)
}

func conflictNaming(t *testing.T, r apitest.Resp, state string) {
	t.Helper()
	if r.Status != 409 || r.ErrorCode() != "CONFLICT" || !strings.Contains(r.Error().Message, "time entry is "+state) {
		t.Fatalf("want 409 naming %s, got %d %s", state, r.Status, r.Body)
	}
}

func TestStates(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("Draft → Submitted → Approved", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		s := w.move(t, e, "submit", w.member, 200)
		if s.Status != "Submitted" || s.ApprovedBy != nil {
			t.Fatalf("submitted: %+v", s)
		}
		before := time.Now().UTC().Add(-time.Minute)
		a := w.move(t, e, "approve", w.admin, 200)
		if a.Status != "Approved" || a.ApprovedBy == nil || *a.ApprovedBy != w.admin.ID || a.ApprovedAt == nil || a.ApprovedAt.Before(before) {
			t.Fatalf("approved: %+v", a)
		}
	})
	t.Run("an Owner approves; an Admin submits another's entry", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		w.move(t, e, "submit", w.admin, 200)
		w.move(t, e, "approve", w.owner, 200)
	})

	t.Run("409 moves from the wrong state name the current state", func(t *testing.T) {
		draft := w.create(t, w.member, nil)
		conflictNaming(t, w.do("POST", entryPath(draft, "/approve"), w.admin, nil), "Draft")
		sub := w.create(t, w.member, nil)
		w.move(t, sub, "submit", w.member, 200)
		conflictNaming(t, w.do("POST", entryPath(sub, "/submit"), w.member, nil), "Submitted")
		app := w.approved(t, w.member)
		conflictNaming(t, w.do("POST", entryPath(app, "/submit"), w.member, nil), "Approved")
		conflictNaming(t, w.do("POST", entryPath(app, "/approve"), w.admin, nil), "Approved")
	})

	t.Run("approved entries are immutable", func(t *testing.T) {
		app := w.approved(t, w.member)
		conflictNaming(t, w.do("PATCH", entryPath(app, ""), w.member, map[string]any{"duration_minutes": 5}), "Approved")
		conflictNaming(t, w.do("PATCH", entryPath(app, ""), w.admin, map[string]any{"description": nil}), "Approved")
		conflictNaming(t, w.do("DELETE", entryPath(app, ""), w.member, nil), "Approved")
		conflictNaming(t, w.do("DELETE", entryPath(app, ""), w.owner, nil), "Approved")
		var got timeentry.Entry
		w.do("GET", entryPath(app, ""), w.member, nil).Expect(t, 200).Decode(t, &got)
		if got.DurationMinutes != 90 || got.Status != "Approved" {
			t.Fatalf("approved entry changed: %+v", got)
		}
	})

	t.Run("403 approval needs Admin", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		w.move(t, e, "submit", w.member, 200)
		for _, u := range []apitest.User{w.member, w.member2, w.viewer, w.reporter} {
			r := w.do("POST", entryPath(e, "/approve"), u, nil).Expect(t, 403)
			if !strings.Contains(r.Error().Message, "Admin") && !strings.Contains(r.Error().Message, "Reporter") {
				t.Fatalf("message %q", r.Error().Message)
			}
		}
		// An Admin's write-scoped key acts as a Member.
		key := w.env.APIKey(w.admin, []string{"read", "write"})
		w.env.Do("POST", entryPath(e, "/approve"), key, nil).Expect(t, 403)
		adminKey := w.env.APIKey(w.admin, []string{"admin"})
		w.env.Do("POST", entryPath(e, "/approve"), adminKey, nil).Expect(t, 200)
	})

	t.Run("403 only the entry's user or an Admin changes it", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		for _, op := range []struct{ method, suffix string }{{"PATCH", ""}, {"DELETE", ""}, {"POST", "/submit"}} {
			r := w.do(op.method, entryPath(e, op.suffix), w.member2, map[string]any{"duration_minutes": 5}).Expect(t, 403)
			if !strings.Contains(r.Error().Message, "entry's user or an Admin") {
				t.Fatalf("%s %s: %q", op.method, op.suffix, r.Error().Message)
			}
			w.do(op.method, entryPath(e, op.suffix), w.viewer, map[string]any{"duration_minutes": 5}).Expect(t, 403)
		}
	})

	t.Run("404 for a non-member on every route", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		for _, op := range []struct{ method, suffix string }{
			{"GET", ""}, {"PATCH", ""}, {"DELETE", ""}, {"POST", "/submit"}, {"POST", "/approve"},
		} {
			r := w.do(op.method, entryPath(e, op.suffix), w.outsider, map[string]any{}).Expect(t, 404)
			if r.ErrorCode() != "not_found" {
				t.Fatalf("%s: %s", op.method, r.Body)
			}
		}
		w.do("GET", "/api/v1/time-entries/not-a-uuid", w.member, nil).Expect(t, 404)
		w.do("GET", "/api/v1/tickets/"+w.ticket.String()+"/time-entries", w.outsider, nil).Expect(t, 404)
		w.do("GET", "/api/v1/users/"+w.member.ID.String()+"/time-entries?org_id="+w.owner.OrgID.String(), w.outsider, nil).Expect(t, 404)
		w.do("GET", "/api/v1/time-entries/submitted?org_id="+w.owner.OrgID.String(), w.outsider, nil).Expect(t, 404)
	})

	t.Run("an entry of a soft-deleted ticket is not visible", func(t *testing.T) {
		tk := w.newTicket(t, w.project, w.owner)
		e := w.create(t, w.member, map[string]any{"ticket_id": tk})
		w.env.Exec(t, "UPDATE tickets SET deleted_at = now() WHERE id = $1", tk)
		w.do("GET", entryPath(e, ""), w.member, nil).Expect(t, 404)
	})
}

func TestPatchAndDelete(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("200 a Draft edit stays Draft", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		var got timeentry.Entry
		w.do("PATCH", entryPath(e, ""), w.member, map[string]any{"duration_minutes": 45, "description": nil,
			"activity_type": "Testing", "date": today(-1)}).Expect(t, 200).Decode(t, &got)
		if got.Status != "Draft" || got.DurationMinutes != 45 || got.Description != nil || got.ActivityType != "Testing" || got.Date.String() != today(-1) {
			t.Fatalf("patched: %+v", got)
		}
		if !got.UpdatedAt.After(e.UpdatedAt) && !got.UpdatedAt.Equal(e.UpdatedAt) {
			t.Fatalf("updated_at went back")
		}
	})
	t.Run("200 an edit of a Submitted entry returns it to Draft", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		w.move(t, e, "submit", w.member, 200)
		var got timeentry.Entry
		w.do("PATCH", entryPath(e, ""), w.member, map[string]any{"description": "more"}).Expect(t, 200).Decode(t, &got)
		if got.Status != "Draft" || *got.Description != "more" {
			t.Fatalf("patched: %+v", got)
		}
		w.move(t, e, "submit", w.member, 200)
		// A PATCH that changes nothing leaves it Submitted.
		w.do("PATCH", entryPath(e, ""), w.member, map[string]any{"description": "more"}).Expect(t, 200).Decode(t, &got)
		if got.Status != "Submitted" {
			t.Fatalf("no-op patch moved it to %s", got.Status)
		}
	})
	t.Run("200 an Admin edits another's entry", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		w.do("PATCH", entryPath(e, ""), w.admin, map[string]any{"duration_minutes": 10}).Expect(t, 200)
	})
	t.Run("422", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		for _, b := range []map[string]any{
			{"duration_minutes": 0}, {"duration_minutes": 2000}, {"duration_minutes": nil}, {"date": today(3)},
			{"date": nil}, {"date": "yesterday"}, {"activity_type": "Nap"}, {"activity_type": nil},
		} {
			w.do("PATCH", entryPath(e, ""), w.member, b).Expect(t, 422)
		}
	})
	t.Run("204 delete of a Draft and of a Submitted entry", func(t *testing.T) {
		d := w.create(t, w.member, nil)
		w.do("DELETE", entryPath(d, ""), w.member, nil).Expect(t, 204)
		w.do("GET", entryPath(d, ""), w.member, nil).Expect(t, 404)
		s := w.create(t, w.member, nil)
		w.move(t, s, "submit", w.member, 200)
		w.do("DELETE", entryPath(s, ""), w.admin, nil).Expect(t, 204)
		w.do("DELETE", entryPath(s, ""), w.admin, nil).Expect(t, 404)
	})
}
