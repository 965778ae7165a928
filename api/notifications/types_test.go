package notifications_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api/apitest"
)

// TestMentions: both spellings, any case, resolved only among the org's
// members who can read the ticket; an edit tells only the newly mentioned.
func TestMentions(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.createTicket(t, w.Member, nil)
	body := "cc @" + strings.ToUpper(w.Viewer.Email) + " and <@" + w.Admin.ID.String() + ">, also @" + w.Outsider.Email +
		" <@" + w.UnassignedReporter.ID.String() + "> <@" + uuid.NewString() + ">"
	c := w.comment(t, w.Member, id, body, nil)
	w.expectTypes(t, w.Viewer, id, "mentioned")
	w.expectTypes(t, w.Admin, id, "mentioned")
	w.expectTypes(t, w.Member, id) // never the actor
	if n := len(w.inbox(t, w.Outsider, "")); n != 0 {
		t.Errorf("the outsider was told %d things", n)
	}
	if n := len(w.inbox(t, w.UnassignedReporter, "")); n != 0 {
		t.Errorf("a Reporter outside the project was told %d things", n)
	}
	// Mentioned people watch the ticket: a later comment tells them.
	w.comment(t, w.Owner, id, "fixed", nil)
	w.expectTypes(t, w.Viewer, id, "commented", "mentioned")

	// An edit tells only whom it adds.
	w.Env.Do("PATCH", "/api/v1/comments/"+c.String(), w.Member.Token, map[string]any{"body": body + " and @" + w.Reporter.Email}).Expect(t, 200)
	w.expectTypes(t, w.Reporter, id, "mentioned")
	w.expectTypes(t, w.Viewer, id, "commented", "mentioned")

	// Descriptions: on create, and only the newly mentioned on an update.
	t2 := w.createTicket(t, w.Member, map[string]any{"description": "for <@" + w.Viewer.ID.String() + ">"})
	w.expectTypes(t, w.Viewer, t2, "mentioned")
	w.Env.Do("PATCH", w.ticketURL(t2), w.Member.Token, map[string]any{"description": "for <@" + w.Viewer.ID.String() + "> and @" + w.Admin.Email}).Expect(t, 200)
	w.expectTypes(t, w.Viewer, t2, "mentioned")
	w.expectTypes(t, w.Admin, t2, "mentioned")
	// An address written out is not a mention.
	w.Env.Do("PATCH", w.ticketURL(t2), w.Member.Token, map[string]any{"description": "write to x" + w.Owner.Email}).Expect(t, 200)
	w.expectTypes(t, w.Owner, t2)
}

// TestEachTypeReachesOnlyReaders: each type reaches whom it concerns, once,
// with the most specific type, never the actor and never anyone who cannot
// read the ticket.
func TestEachTypeReachesOnlyReaders(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("assigned", func(t *testing.T) {
		id := w.createTicket(t, w.Member, map[string]any{"assignee_id": w.Admin.ID})
		w.expectTypes(t, w.Admin, id, "assigned")
		w.Env.Do("PATCH", w.ticketURL(id), w.Member.Token, map[string]any{"assignee_id": w.Reporter.ID}).Expect(t, 200)
		w.expectTypes(t, w.Reporter, id, "assigned")
		// Assigning yourself tells nobody.
		w.Env.Do("PATCH", w.ticketURL(id), w.Member.Token, map[string]any{"assignee_id": w.Member.ID}).Expect(t, 200)
		w.expectTypes(t, w.Member, id)
		// A Reporter outside the project cannot read it: not told, not watching.
		w.Env.Do("PATCH", w.ticketURL(id), w.Member.Token, map[string]any{"assignee_id": w.UnassignedReporter.ID}).Expect(t, 200)
		if n := len(w.inbox(t, w.UnassignedReporter, "")); n != 0 {
			t.Errorf("unassigned Reporter told %d things", n)
		}
		// The previous assignee watches and hears of the status change; the new one has no access.
		w.Env.Do("PATCH", w.ticketURL(id), w.Owner.Token, map[string]any{"status": "Done"}).Expect(t, 200)
		w.expectTypes(t, w.Reporter, id, "status_changed", "assigned")
		w.expectTypes(t, w.Admin, id, "status_changed", "assigned")
		if n := len(w.inbox(t, w.UnassignedReporter, "")); n != 0 {
			t.Errorf("unassigned Reporter told %d things", n)
		}
	})

	t.Run("commented and replied", func(t *testing.T) {
		id := w.createTicket(t, w.Member, nil)
		w.Env.Do("PUT", w.ticketURL(id)+"/watchers/me", w.Viewer.Token, nil).Expect(t, 204)
		first := w.comment(t, w.Admin, id, "can you reproduce?", nil)
		w.expectTypes(t, w.Member, id, "commented")
		w.expectTypes(t, w.Viewer, id, "commented")
		w.expectTypes(t, w.Admin, id)
		// The Admin watches as a commenter, and is told of the reply as such.
		w.comment(t, w.Member, id, "yes", &first)
		w.expectTypes(t, w.Admin, id, "replied")
		w.expectTypes(t, w.Viewer, id, "commented", "commented")
		// A reply that mentions the parent's author: mentioned wins.
		w.comment(t, w.Owner, id, "@"+w.Admin.Email+" see above", &first)
		w.expectTypes(t, w.Admin, id, "mentioned", "replied")
		w.expectTypes(t, w.Member, id, "commented", "commented")
	})

	t.Run("status_changed", func(t *testing.T) {
		id := w.createTicket(t, w.Member, nil)
		w.Env.Do("PUT", w.ticketURL(id)+"/watchers/me", w.Reporter.Token, nil).Expect(t, 204)
		w.Env.Do("PATCH", w.ticketURL(id), w.Owner.Token, map[string]any{"status": "Done"}).Expect(t, 200)
		w.expectTypes(t, w.Member, id, "status_changed")
		w.expectTypes(t, w.Reporter, id, "status_changed")
		w.expectTypes(t, w.Owner, id)
		if n := w.inbox(t, w.Member, ""); n[0].Excerpt != "Backlog → Done" || n[0].Actor == nil || n[0].Actor.ID != w.Owner.ID ||
			n[0].Ticket.Title != "Checkout fails" || !strings.HasPrefix(n[0].Ticket.Key, w.Project.Key+"-") {
			t.Errorf("notification %+v", n[0])
		}
		// A watcher removed from the project is told nothing more, and
		// what they were told disappears.
		w.Env.Exec(t, `DELETE FROM project_members WHERE user_id = $1`, w.Reporter.ID)
		w.Env.Do("PATCH", w.ticketURL(id), w.Owner.Token, map[string]any{"status": "Backlog"}).Expect(t, 200)
		w.expectTypes(t, w.Member, id, "status_changed", "status_changed")
		if n := apitest.Scalar[int64](t, w.Env, `SELECT count(*) FROM notifications WHERE user_id = $1 AND ticket_id = $2`, w.Reporter.ID, id); n != 1 {
			t.Errorf("Reporter has %d notifications, want the one from before", n)
		}
		w.expectTypes(t, w.Reporter, id)
		w.Env.Exec(t, `INSERT INTO project_members (org_id, project_id, user_id) VALUES ($1, $2, $3)`, w.Project.OrgID, w.Project.ID, w.Reporter.ID)
	})

	t.Run("time entries", func(t *testing.T) {
		id := w.createTicket(t, w.Member, nil)
		var e struct {
			ID              uuid.UUID
			Status          string
			RejectionReason *string `json:"rejection_reason"`
		}
		w.Env.Do("POST", "/api/v1/time-entries", w.Member.Token, map[string]any{"user_id": w.Member.ID, "ticket_id": id,
			"project_id": w.Project.ID, "date": time.Now().UTC().Format("2006-01-02"), "duration_minutes": 30, "activity_type": "Coding"}).
			Expect(t, 201).Decode(t, &e)
		entry := "/api/v1/time-entries/" + e.ID.String()
		apitest.ExpectCode(t, w.Env.Do("POST", entry+"/reject", w.Admin.Token, map[string]any{"reason": "x"}), 409, "CONFLICT")
		w.Env.Do("POST", entry+"/submit", w.Member.Token, nil).Expect(t, 200)
		apitest.ExpectCode(t, w.Env.Do("POST", entry+"/reject", w.Member.Token, map[string]any{"reason": "x"}), 403, "FORBIDDEN")
		apitest.ExpectCode(t, w.Env.Do("POST", entry+"/reject", w.Admin.Token, map[string]any{"reason": " "}), 422, "VALIDATION_ERROR")
		w.Env.Do("POST", entry+"/reject", w.Admin.Token, map[string]any{"reason": "wrong ticket"}).Expect(t, 200).Decode(t, &e)
		if e.Status != "Draft" || e.RejectionReason == nil || *e.RejectionReason != "wrong ticket" {
			t.Errorf("rejected entry %+v", e)
		}
		if n := w.inbox(t, w.Member, ""); n[0].Type != "time_entry_rejected" || n[0].Excerpt != "wrong ticket" {
			t.Errorf("newest notification %+v", n[0])
		}
		w.Env.Do("POST", entry+"/submit", w.Member.Token, nil).Expect(t, 200).Decode(t, &e)
		if e.RejectionReason != nil {
			t.Errorf("resubmitted entry keeps its rejection reason %q", *e.RejectionReason)
		}
		w.Env.Do("POST", entry+"/approve", w.Admin.Token, nil).Expect(t, 200)
		w.expectTypes(t, w.Member, id, "time_entry_approved", "time_entry_rejected")
		// An Admin approving their own entry is told nothing.
		w.Env.Do("POST", "/api/v1/time-entries", w.Admin.Token, map[string]any{"user_id": w.Admin.ID, "ticket_id": id,
			"project_id": w.Project.ID, "date": time.Now().UTC().Format("2006-01-02"), "duration_minutes": 30, "activity_type": "Coding"}).
			Expect(t, 201).Decode(t, &e)
		w.Env.Do("POST", "/api/v1/time-entries/"+e.ID.String()+"/submit", w.Admin.Token, nil).Expect(t, 200)
		w.Env.Do("POST", "/api/v1/time-entries/"+e.ID.String()+"/approve", w.Admin.Token, nil).Expect(t, 200)
		w.expectTypes(t, w.Admin, id)
	})

	t.Run("removed from the org", func(t *testing.T) {
		id := w.createTicket(t, w.Member, nil)
		gone := w.Env.Member(w.Owner, "member")
		w.Env.Do("PUT", w.ticketURL(id)+"/watchers/me", gone.Token, nil).Expect(t, 204)
		w.comment(t, w.Admin, id, "one", nil)
		w.expectTypes(t, gone, id, "commented")
		w.Env.Exec(t, `DELETE FROM memberships WHERE user_id = $1 AND org_id = $2`, gone.ID, w.Owner.OrgID)
		w.comment(t, w.Admin, id, "two", nil)
		if n := len(w.inbox(t, gone, "")); n != 0 {
			t.Errorf("a removed member still sees %d notifications", n)
		}
	})
}
