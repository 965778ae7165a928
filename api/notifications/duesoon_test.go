package notifications_test

import (
	"testing"
	"time"

	"tracker/domain"
	"tracker/domain/notification"
)

// TestDueSoonSweep: the watchers of a ticket due tomorrow who can read it
// are told once, however often the sweep runs; closed tickets and other
// days are not.
func TestDueSoonSweep(t *testing.T) {
	t.Parallel()
	w := setup(t)
	now := time.Now().UTC()
	tomorrow := now.AddDate(0, 0, 1).Format("2006-01-02")
	due := w.createTicket(t, w.Member, map[string]any{"due_date": tomorrow, "assignee_id": w.Reporter.ID})
	done := w.createTicket(t, w.Member, map[string]any{"due_date": tomorrow, "status": "Done"})
	later := w.createTicket(t, w.Member, map[string]any{"due_date": now.AddDate(0, 0, 2).Format("2006-01-02")})
	w.Env.Do("PUT", w.ticketURL(due)+"/watchers/me", w.Viewer.Token, nil).Expect(t, 204)
	w.Env.Do("PUT", w.ticketURL(due)+"/watchers/me", w.Admin.Token, nil).Expect(t, 204)
	// The Admin turned due_soon off; the Reporter loses the project.
	w.Env.Do("PUT", "/api/v1/me/notification-settings", w.Admin.Token, map[string]any{"email": map[string]any{"enabled": true, "digest_minutes": 10},
		"chat": map[string]any{"enabled": false}, "types": map[string]bool{"due_soon": false}}).Expect(t, 200)
	w.Env.Exec(t, `DELETE FROM project_members WHERE user_id = $1`, w.Reporter.ID)

	svc := notification.New(w.Env.DB, domain.ClockFunc(func() time.Time { return now }))
	for i, want := range []int{2, 0} {
		n, err := svc.SweepDueSoon(t.Context())
		if err != nil || n != want {
			t.Fatalf("sweep %d: told %d (%v), want %d", i, n, err, want)
		}
	}
	w.expectTypes(t, w.Member, due, "due_soon")
	w.expectTypes(t, w.Viewer, due, "due_soon")
	w.expectTypes(t, w.Admin, due)
	w.expectTypes(t, w.Member, done)
	w.expectTypes(t, w.Member, later)
	if n := w.inbox(t, w.Viewer, ""); n[0].Excerpt != "Due "+tomorrow || n[0].Actor != nil {
		t.Errorf("notification %+v", n[0])
	}
}
