package chat_test

import (
	"context"
	"strings"
	"testing"
)

func TestWorkspacesAndIdentities(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	org := f.owner.OrgID.String()
	path := "/api/v1/orgs/" + org + "/integrations/chat"
	f.env.Do("POST", path, f.member.Token, map[string]any{"team_id": "T9"}).Expect(t, 403)
	f.env.Do("POST", path, f.outsider.Token, map[string]any{"team_id": "T9"}).Expect(t, 404)
	f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "lower"}).Expect(t, 422)
	f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "T9", "bot_token": "nope"}).Expect(t, 422)
	w := f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "T9", "team_name": "Acme", "bot_token": "xoxb-123-abc"}).Expect(t, 201)
	if strings.Contains(string(w.Body), "xoxb") || w.Map(t)["has_bot_token"] != true {
		t.Fatalf("connect %s", w.Body)
	}
	var sealed []byte
	if err := f.env.DB.Pool.QueryRow(context.Background(), `SELECT bot_token_enc FROM chat_workspaces WHERE team_id = 'T9'`).Scan(&sealed); err != nil ||
		strings.Contains(string(sealed), "xoxb") {
		t.Fatalf("stored token %q %v", sealed, err)
	}
	f.env.Do("POST", path, f.owner.Token, map[string]any{"team_id": "T9"}).Expect(t, 409)
	f.env.Do("POST", "/api/v1/orgs/"+f.outsider.OrgID.String()+"/integrations/chat", f.outsider.Token, map[string]any{"team_id": "T9"}).Expect(t, 409)
	list := f.env.Do("GET", path, f.owner.Token, nil).Expect(t, 200)
	if items := list.Map(t)["items"].([]any); len(items) != 1 || strings.Contains(string(list.Body), "xoxb") {
		t.Fatalf("list %s", list.Body)
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
