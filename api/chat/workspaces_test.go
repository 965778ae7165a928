package chat_test

import (
	"strings"
	"testing"
)

func TestWorkspacesAndIdentities(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	org := f.owner.OrgID.String()
	path := "/api/v1/orgs/" + org + "/integrations/chat"
	f.connect(t, f.owner, f.owner.OrgID, "T9")
	list := f.env.Do("GET", path, f.owner.Token, nil).Expect(t, 200)
	items := list.Map(t)["items"].([]any)
	if len(items) != 1 || strings.Contains(string(list.Body), "xoxb") {
		t.Fatalf("list %s", list.Body)
	}
	if w := items[0].(map[string]any); w["team_id"] != "T9" || w["team_name"] != "Workspace T9" || w["has_bot_token"] != true || w["installed_at"] == nil {
		t.Fatalf("workspace %v", w)
	}
	f.env.Do("GET", path, f.member.Token, nil).Expect(t, 403)
	f.env.Do("DELETE", path+"/T9", f.member.Token, nil).Expect(t, 403)
	f.env.Do("DELETE", path+"/T9", f.owner.Token, nil).Expect(t, 204)
	f.env.Do("DELETE", path+"/T9", f.owner.Token, nil).Expect(t, 404)

	me := "/api/v1/integrations/chat/identities/me"
	f.env.Do("GET", me+"?org_id="+org, f.member.Token, nil).Expect(t, 404)
	f.env.Do("PUT", me, f.member.Token, map[string]any{"slack_user_id": "bad id", "org_id": org}).Expect(t, 422)
	f.env.Do("PUT", me, f.outsider.Token, map[string]any{"slack_user_id": "U1", "org_id": org}).Expect(t, 404)
	got := f.env.Do("PUT", me, f.member.Token, map[string]any{"slack_user_id": "U1", "org_id": org}).Expect(t, 200).Map(t)
	if got["slack_user_id"] != "U1" || got["user_id"] != f.member.ID.String() {
		t.Fatalf("link %v", got)
	}
	f.env.Do("PUT", me, f.viewer.Token, map[string]any{"slack_user_id": "U1", "org_id": org}).Expect(t, 409)
	// Relinking replaces the member's link.
	f.env.Do("PUT", me, f.member.Token, map[string]any{"slack_user_id": "U2", "org_id": org}).Expect(t, 200)
	if g := f.env.Do("GET", me+"?org_id="+org, f.member.Token, nil).Expect(t, 200).Map(t); g["slack_user_id"] != "U2" {
		t.Fatalf("me %v", g)
	}
	// Without org_id: the token's org (the owner's own).
	f.env.Do("PUT", me, f.owner.Token, map[string]any{"slack_user_id": "UOWNER"}).Expect(t, 200)
	if g := f.env.Do("GET", me, f.owner.Token, nil).Expect(t, 200).Map(t); g["org_id"] != org {
		t.Fatalf("default org %v", g)
	}
	f.env.Do("DELETE", me+"?org_id="+org, f.member.Token, nil).Expect(t, 204)
	f.env.Do("GET", me+"?org_id="+org, f.member.Token, nil).Expect(t, 404)
}
