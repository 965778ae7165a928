package notifications_test

import (
	"testing"

	"tracker/api/apitest"
)

func TestWatchers(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.createTicket(t, w.Member, nil)
	url := w.ticketURL(id)
	watching := func(u apitest.User) bool {
		t.Helper()
		var out struct{ Watching *bool }
		w.Env.Do("GET", url, u.Token, nil).Expect(t, 200).Decode(t, &out)
		if out.Watching == nil {
			t.Fatal("ticket GET has no watching")
		}
		return *out.Watching
	}
	if !watching(w.Member) {
		t.Error("the reporter does not watch their new ticket")
	}
	if watching(w.Viewer) {
		t.Error("the Viewer watches without asking")
	}

	// Anyone who can read the ticket watches it themselves; both calls are idempotent.
	for range 2 {
		w.Env.Do("PUT", url+"/watchers/me", w.Viewer.Token, nil).Expect(t, 204)
	}
	if !watching(w.Viewer) {
		t.Error("PUT watchers/me: not watching")
	}
	for range 2 {
		w.Env.Do("DELETE", url+"/watchers/me", w.Viewer.Token, nil).Expect(t, 204)
	}
	if watching(w.Viewer) {
		t.Error("DELETE watchers/me: still watching")
	}

	// Member or above adds others who can read the ticket.
	w.Env.Do("PUT", url+"/watchers/"+w.Reporter.ID.String(), w.Admin.Token, nil).Expect(t, 204)
	apitest.ExpectCode(t, w.Env.Do("PUT", url+"/watchers/"+w.UnassignedReporter.ID.String(), w.Admin.Token, nil), 422, "VALIDATION_ERROR")
	apitest.ExpectCode(t, w.Env.Do("PUT", url+"/watchers/"+w.Outsider.ID.String(), w.Admin.Token, nil), 422, "VALIDATION_ERROR")
	apitest.ExpectCode(t, w.Env.Do("PUT", url+"/watchers/not-a-uuid", w.Admin.Token, nil), 422, "VALIDATION_ERROR")
	apitest.ExpectCode(t, w.Env.Do("PUT", url+"/watchers/"+w.Member.ID.String(), w.Viewer.Token, nil), 403, "FORBIDDEN")
	apitest.ExpectCode(t, w.Env.Do("DELETE", url+"/watchers/"+w.Member.ID.String(), w.Viewer.Token, nil), 403, "FORBIDDEN")

	var page struct {
		Items []struct {
			UserID      string `json:"user_id"`
			DisplayName string `json:"display_name"`
			Email       string `json:"email"`
		}
	}
	w.Env.Do("GET", url+"/watchers", w.Viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	got := map[string]bool{}
	for _, it := range page.Items {
		got[it.UserID] = true
	}
	if len(page.Items) != 2 || !got[w.Member.ID.String()] || !got[w.Reporter.ID.String()] {
		t.Errorf("watchers %+v, want the Member and the Reporter", page.Items)
	}
	w.Env.Do("DELETE", url+"/watchers/"+w.Reporter.ID.String(), w.Member.Token, nil).Expect(t, 204)
	var one struct {
		Items   []map[string]any
		HasMore bool `json:"has_more"`
	}
	w.Env.Do("GET", url+"/watchers?limit=1", w.Owner.Token, nil).Expect(t, 200).Decode(t, &one)
	if len(one.Items) != 1 || one.HasMore {
		t.Errorf("watchers after removing the Reporter: %+v", one)
	}

	// A watcher who loses access is no longer listed.
	w.Env.Do("PUT", url+"/watchers/me", w.Reporter.Token, nil).Expect(t, 204)
	w.Env.Exec(t, `DELETE FROM project_members WHERE user_id = $1`, w.Reporter.ID)
	w.Env.Do("GET", url+"/watchers", w.Owner.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 1 {
		t.Errorf("watchers after the Reporter lost the project: %+v", page.Items)
	}

	// Existence is not revealed; a Reporter outside the project is refused.
	apitest.ExpectCode(t, w.Env.Do("GET", url+"/watchers", w.Outsider.Token, nil), 404, "not_found")
	apitest.ExpectCode(t, w.Env.Do("PUT", url+"/watchers/me", w.Outsider.Token, nil), 404, "not_found")
	apitest.ExpectCode(t, w.Env.Do("GET", url+"/watchers", w.UnassignedReporter.Token, nil), 403, "FORBIDDEN")
	apitest.ExpectCode(t, w.Env.Do("PUT", url+"/watchers/me", w.UnassignedReporter.Token, nil), 403, "FORBIDDEN")
}
