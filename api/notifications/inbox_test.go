package notifications_test

import (
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/testfactory"
)

func TestInbox(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.createTicket(t, w.Member, nil)
	for _, body := range []string{"one", "two", "three"} {
		w.comment(t, w.Admin, id, body, nil)
	}
	all := w.inbox(t, w.Member, "")
	if len(all) != 3 || all[0].Excerpt != "three" || all[2].Excerpt != "one" {
		t.Fatalf("inbox %+v, want three, two, one", all)
	}
	// Keyset pages, newest first.
	var seen []string
	cursor := ""
	for range 5 {
		var page struct {
			Items      []note
			NextCursor *string `json:"next_cursor"`
		}
		w.Env.Do("GET", "/api/v1/notifications?limit=2"+cursor, w.Member.Token, nil).Expect(t, 200).Decode(t, &page)
		for _, n := range page.Items {
			seen = append(seen, n.Excerpt)
		}
		if page.NextCursor == nil {
			break
		}
		cursor = "&cursor=" + *page.NextCursor
	}
	if len(seen) != 3 || seen[0] != "three" || seen[2] != "one" {
		t.Errorf("paged %v", seen)
	}
	count := func(u apitest.User, q string) int64 {
		var c struct{ Count int64 }
		w.Env.Do("GET", "/api/v1/notifications/unread-count"+q, u.Token, nil).Expect(t, 200).Decode(t, &c)
		return c.Count
	}
	if n := count(w.Member, ""); n != 3 {
		t.Errorf("unread %d, want 3", n)
	}
	// Someone else's notification is not found, and stays unread.
	apitest.ExpectCode(t, w.Env.Do("POST", "/api/v1/notifications/"+all[0].ID.String()+"/read", w.Admin.Token, nil), 404, "not_found")
	apitest.ExpectCode(t, w.Env.Do("POST", "/api/v1/notifications/"+uuid.NewString()+"/read", w.Member.Token, nil), 404, "not_found")
	apitest.ExpectCode(t, w.Env.Do("POST", "/api/v1/notifications/nope/read", w.Member.Token, nil), 404, "not_found")
	w.Env.Do("POST", "/api/v1/notifications/"+all[0].ID.String()+"/read", w.Member.Token, nil).Expect(t, 204)
	w.Env.Do("POST", "/api/v1/notifications/"+all[0].ID.String()+"/read", w.Member.Token, nil).Expect(t, 204)
	if n := count(w.Member, ""); n != 2 {
		t.Errorf("unread %d after reading one, want 2", n)
	}
	if u := w.inbox(t, w.Member, "&unread=true"); len(u) != 2 || u[0].Excerpt != "two" {
		t.Errorf("unread list %+v", u)
	}
	// Another org's filter shows nothing; read-all in another org reads nothing here.
	other := uuid.NewString()
	if n := count(w.Member, "?org_id="+other); n != 0 {
		t.Errorf("unread in another org %d", n)
	}
	w.Env.Do("POST", "/api/v1/notifications/read-all", w.Member.Token, map[string]any{"org_id": other}).Expect(t, 204)
	if n := count(w.Member, ""); n != 2 {
		t.Errorf("unread %d after read-all of another org, want 2", n)
	}
	w.Env.Do("POST", "/api/v1/notifications/read-all?org_id="+w.Owner.OrgID.String(), w.Member.Token, nil).Expect(t, 204)
	if n := count(w.Member, ""); n != 0 {
		t.Errorf("unread %d after read-all, want 0", n)
	}
	apitest.ExpectCode(t, w.Env.Do("GET", "/api/v1/notifications?unread=maybe", w.Member.Token, nil), 422, "VALIDATION_ERROR")
	apitest.ExpectCode(t, w.Env.Do("GET", "/api/v1/notifications?org_id=x", w.Member.Token, nil), 422, "VALIDATION_ERROR")
	apitest.ExpectCode(t, w.Env.Do("GET", "/api/v1/notifications?cursor=zz", w.Member.Token, nil), 422, "VALIDATION_ERROR")

	// An API key sees its own org's notifications, a key restricted to
	// another project none of this one's.
	key := w.Env.APIKey(w.Member, []string{"read"})
	if n := len(w.inbox(t, apitest.User{Token: key}, "")); n != 3 {
		t.Errorf("the Member's key sees %d notifications, want 3", n)
	}
	p := testfactory.Project(t, w.Env.DB, w.Owner.OrgID, testfactory.ProjectOpts{})
	restricted := w.Env.APIKey(w.Member, []string{"read"}, p.ID)
	if n := len(w.inbox(t, apitest.User{Token: restricted}, "")); n != 0 {
		t.Errorf("a key restricted to another project sees %d notifications", n)
	}
	mine := w.Env.APIKey(w.Member, []string{"read"}, w.Project.ID)
	if n := len(w.inbox(t, apitest.User{Token: mine}, "")); n != 3 {
		t.Errorf("a key restricted to the project sees %d notifications, want 3", n)
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	w := setup(t)
	var s struct {
		Email struct {
			Enabled       bool `json:"enabled"`
			DigestMinutes int  `json:"digest_minutes"`
		} `json:"email"`
		Chat  struct{ Enabled bool } `json:"chat"`
		Types map[string]bool        `json:"types"`
	}
	w.Env.Do("GET", "/api/v1/me/notification-settings", w.Member.Token, nil).Expect(t, 200).Decode(t, &s)
	if !s.Email.Enabled || s.Email.DigestMinutes != 10 || s.Chat.Enabled || len(s.Types) != 9 || !s.Types["commented"] {
		t.Errorf("defaults %+v", s)
	}
	apitest.ExpectCode(t, w.Env.Do("PUT", "/api/v1/me/notification-settings", w.Member.Token, map[string]any{
		"email": map[string]any{"enabled": true, "digest_minutes": 1441}, "chat": map[string]any{"enabled": true}}), 422, "VALIDATION_ERROR")
	apitest.ExpectCode(t, w.Env.Do("PUT", "/api/v1/me/notification-settings", w.Member.Token, map[string]any{
		"email": map[string]any{"enabled": true, "digest_minutes": 0}, "chat": map[string]any{"enabled": true}, "types": map[string]bool{"gossip": true}}), 422, "VALIDATION_ERROR")
	apitest.ExpectCode(t, w.Env.Do("PUT", "/api/v1/me/notification-settings", w.Member.Token, map[string]any{"types": map[string]bool{}}), 422, "VALIDATION_ERROR")
	w.Env.Do("PUT", "/api/v1/me/notification-settings", w.Member.Token, map[string]any{
		"email": map[string]any{"enabled": false, "digest_minutes": 0}, "chat": map[string]any{"enabled": true},
		"types": map[string]bool{"commented": false}}).Expect(t, 200).Decode(t, &s)
	if s.Email.Enabled || s.Email.DigestMinutes != 0 || !s.Chat.Enabled || s.Types["commented"] || !s.Types["mentioned"] {
		t.Errorf("stored %+v", s)
	}
	// A type turned off reaches nobody, the inbox included; the others do.
	id := w.createTicket(t, w.Member, nil)
	w.comment(t, w.Admin, id, "plain", nil)
	w.comment(t, w.Admin, id, "hey @"+w.Member.Email, nil)
	w.expectTypes(t, w.Member, id, "mentioned")
	if n := apitest.Scalar[int64](t, w.Env, `SELECT count(*) FROM outbox WHERE topic = 'notification.created' AND payload->>'user_id' = $1`, w.Member.ID.String()); n != 1 {
		t.Errorf("%d outbox rows for the Member, want 1", n)
	}
	// Chat defaults to on once a chat identity is linked.
	w.Env.Exec(t, `INSERT INTO chat_identities (org_id, user_id, slack_user_id) VALUES ($1, $2, 'UVIEW')`, w.Owner.OrgID, w.Viewer.ID)
	w.Env.Do("GET", "/api/v1/me/notification-settings", w.Viewer.Token, nil).Expect(t, 200).Decode(t, &s)
	if !s.Chat.Enabled {
		t.Error("chat off for a user with a linked identity")
	}
}
