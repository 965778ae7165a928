package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/chat"
)

// chatCommand sends a slash command signed with the walk's chat secret.
func (f *tenantFixture) chatCommand(t *testing.T, team, user, text string) map[string]any {
	t.Helper()
	body := []byte(url.Values{"team_id": {team}, "channel_id": {"C1"}, "user_id": {user}, "user_name": {"someone"},
		"command": {"/ticket"}, "text": {text}}.Encode())
	return f.signedChat(t, "/api/v1/integrations/chat/commands", "application/x-www-form-urlencoded", body)
}

// chatEvent delivers a signed event payload.
func (f *tenantFixture) chatEvent(t *testing.T, payload map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(payload)
	return f.signedChat(t, "/api/v1/integrations/chat/events", "application/json", body)
}

func (f *tenantFixture) signedChat(t *testing.T, path, contentType string, body []byte) map[string]any {
	t.Helper()
	sig, ts := chat.Sign(tenancyChatSecret, time.Now(), body)
	req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Signature", sig)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	return f.env.Send(req).Expect(t, 200).Map(t)
}

// walkOrg is an org of the chat walk: its owner, project key and ticket.
type walkOrg struct {
	owner  apitest.User
	key    string
	ticket uuid.UUID
}

func (f *tenantFixture) walkOrg(t *testing.T, owner apitest.User, key, title string) walkOrg {
	t.Helper()
	p := f.env.Do("POST", "/api/v1/projects", owner.Token, map[string]any{"org_id": owner.OrgID, "key": key, "name": key}).Expect(t, 201).Map(t)
	tk := f.env.Do("POST", "/api/v1/projects/"+p["id"].(string)+"/tickets", owner.Token, map[string]any{"title": title}).Expect(t, 201).Map(t)
	return walkOrg{owner: owner, key: key, ticket: uuid.MustParse(tk["id"].(string))}
}

// TestNoOrgIsReachedThroughAnotherOrgsWorkspace is the chat part of the
// "integration from another tenant" walk, in both tenancies. Org A (the
// walk's org, its workspace TTEN installed) and org C (no workspace, closed
// by its setting) hold tickets and map chat thread C1/1700000000.000100,
// as do Mallory's org (workspace TMAL installed) and org D (no workspace,
// open). From TMAL and from TX, a workspace connected to no org: lookups,
// creates, thread replies and other events reach neither A nor C (answers
// carry none of their titles, no ticket, comment job or event row is
// written for them, A's data is unchanged), nor does the install route let
// Mallory take A's workspace. What the spec's model still allows is shown
// too: in the installation tenancy TX reaches D, the one open org; in the
// connected tenancy TX reaches nothing, and A's own workspace reaches A.
func TestNoOrgIsReachedThroughAnotherOrgsWorkspace(t *testing.T) {
	t.Parallel()
	for _, tenancy := range []string{chat.TenancyInstallation, chat.TenancyConnected} {
		t.Run(tenancy, func(t *testing.T) {
			t.Parallel()
			walkChatTenancy(t, tenancy)
		})
	}
}

func walkChatTenancy(t *testing.T, tenancy string) {
	f := newTenantFixtureWith(t, func(c *Config) { c.ChatTenancy = tenancy })
	const channel, thread = "C1", "1700000000.000100"
	mallory := f.walkOrg(t, f.outsider, "MAL", "Mallory's decoy")
	carol := f.walkOrg(t, f.env.Register("Carol"), "CLO", "SECRET-CLOSED-TITLE")
	dave := f.walkOrg(t, f.env.Register("Dave"), "OPN", "Open org's ticket")
	f.env.Do("PUT", "/api/v1/orgs/"+carol.owner.OrgID.String()+"/integrations/chat/settings", carol.owner.Token,
		map[string]any{"accept_unconnected_workspaces": false}).Expect(t, 200)
	f.env.InstallChat(f.slack, mallory.owner, mallory.owner.OrgID, "TMAL").Expect(t, 201)
	for _, m := range []struct {
		u      apitest.User
		ticket uuid.UUID
	}{{mallory.owner, mallory.ticket}, {f.owner, f.ticket}, {carol.owner, carol.ticket}, {dave.owner, dave.ticket}} {
		f.env.Do("POST", "/api/v1/integrations/chat/thread-mappings", m.u.Token, map[string]any{"ticket_id": m.ticket,
			"channel_id": channel, "thread_ts": thread}).Expect(t, 201)
	}
	// Mallory cannot take A's workspace by installing the app in it for
	// his org (no route takes a bare team id).
	f.env.InstallChat(f.slack, mallory.owner, mallory.owner.OrgID, "TTEN").Expect(t, 409)

	before := f.snapshot(t)
	closed := func() string {
		return fmt.Sprint(apitest.Scalar[int](t, f.env, `SELECT count(*) FROM tickets WHERE org_id = $1`, carol.owner.OrgID),
			apitest.Scalar[int](t, f.env, `SELECT count(*) FROM outbox WHERE org_id = ANY($1)`, []uuid.UUID{f.org, carol.owner.OrgID}),
			apitest.Scalar[int](t, f.env, `SELECT count(*) FROM chat_events WHERE org_id = ANY($1)`, []uuid.UUID{f.org, carol.owner.OrgID}))
	}
	closedBefore := closed()
	secretsOf := []string{"SECRET-TITLE", "SECRET-CLOSED-TITLE", "Secret Project"}
	event := 0
	for _, team := range []string{"TMAL", "TX"} {
		for _, text := range []string{"TEN-1", "ten-1", "create TEN pwned", "CLO-1", "create CLO pwned", "help"} {
			r := f.chatCommand(t, team, "UMAL", text)
			for _, s := range secretsOf {
				if strings.Contains(fmt.Sprint(r), s) {
					t.Errorf("%s %q: leaked %q: %v", team, text, s, r)
				}
			}
			if r["response_type"] != "ephemeral" {
				t.Errorf("%s %q: %v", team, text, r)
			}
		}
		for _, ev := range []map[string]any{
			{"type": "message", "user": "UMAL", "text": "captured?", "channel": channel, "thread_ts": thread},
			{"type": "message", "user": "UMAL", "text": "broadcast", "channel": channel, "thread_ts": thread, "subtype": "thread_broadcast"},
			{"type": "reaction_added", "user": "UMAL", "reaction": "eyes"},
		} {
			event++
			ev["ts"] = fmt.Sprintf("1700000100.%06d", event)
			r := f.chatEvent(t, map[string]any{"type": "event_callback", "team_id": team, "event_id": fmt.Sprintf("EvWalk%d", event), "event": ev})
			want := "ignored"
			if ev["type"] == "message" && (team == "TMAL" || tenancy == chat.TenancyInstallation) {
				want = "queued" // into Mallory's own thread, or the open org D's
			}
			if r["status"] != want {
				t.Errorf("%s event %v: %v, want %s", team, ev, r, want)
			}
		}
	}
	// Where the replies went: Mallory's own, and (installation) D's.
	for org, n := range map[uuid.UUID]int{mallory.owner.OrgID: 2, dave.owner.OrgID: map[bool]int{true: 2, false: 0}[tenancy == chat.TenancyInstallation]} {
		if got := len(f.env.Outbox(t, org, chat.TopicReplyComment)); got != n {
			t.Errorf("org %s: %d reply jobs, want %d", org, got, n)
		}
	}
	// The spec's model for an open org, in the installation tenancy only.
	r := f.chatCommand(t, "TX", "UANY", "OPN-1")
	if open := r["response_type"] == "in_channel" && strings.Contains(fmt.Sprint(r), "Open org's ticket"); open != (tenancy == chat.TenancyInstallation) {
		t.Errorf("open org lookup from TX: %v", r)
	}
	if tenancy == chat.TenancyConnected && r["text"] != chat.NotConnected {
		t.Errorf("unconnected workspace: %v", r)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
	if after := closed(); after != closedBefore {
		t.Fatalf("org C or A written to: %s → %s", closedBefore, after)
	}
	// A's own workspace still reaches A (and only A).
	if r := f.chatCommand(t, "TTEN", "UOWNER", "TEN-1"); r["response_type"] != "in_channel" || !strings.Contains(fmt.Sprint(r), "SECRET-TITLE") {
		t.Fatalf("A's workspace: %v", r)
	}
	if r := f.chatCommand(t, "TTEN", "UOWNER", "OPN-1"); r["response_type"] != "ephemeral" || strings.Contains(fmt.Sprint(r), "Open org's ticket") {
		t.Fatalf("A's workspace reached D: %v", r)
	}
}
