package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"tracker/domain/chat"
	"tracker/domain/codehost"
)

// tenancyCodehostSecret is the service-wide code-host secret of the walk's app.
const tenancyCodehostSecret = "tenancy-codehost-secret"

// tenancyChatSecret is the chat signing secret of the walk's app.
const tenancyChatSecret = "tenancy-chat-secret"

// signedRoutes are the signature-verified integration endpoints: public,
// refused with 401 unless signed (the chat install's callback: unless it
// carries the state of an install an Admin started).
var signedRoutes = []string{
	"POST /api/v1/integrations/codehost/webhook",
	"POST /api/v1/integrations/codehost/webhook/:connection_id",
	"POST /api/v1/integrations/chat/commands",
	"POST /api/v1/integrations/chat/events",
	"GET /api/v1/integrations/chat/oauth/callback",
}

// tokenRoutes are public routes authorized by a signed token in the link
// (the unsubscribe link of notification emails), never by the caller:
// without the token they are a 404 to anyone, a key or session changes
// nothing (api/delivery's tests forge tokens).
var tokenRoutes = []string{
	"GET /api/v1/email/unsubscribe",
	"POST /api/v1/email/unsubscribe",
}

// TestSignedRoutesRefuseForgeries sends every signature-verified route
// requests that would change org A's data if accepted (a pull request
// naming its ticket), unsigned and forged in several ways: each is a 401
// with the envelope and nothing changes.
func TestSignedRoutesRefuseForgeries(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	before := f.snapshot(t)
	body, _ := json.Marshal(map[string]any{"action": "closed",
		"pull_request": map[string]any{"title": "TEN-1", "merged": true, "head": map[string]any{"ref": "ten-1"}},
		"repository":   map[string]any{"full_name": "acme/app"}, "sender": map[string]any{"login": "x"}})
	good := codehost.Sign(tenancyCodehostSecret, body)
	forged := map[string]string{
		"unsigned":     "",
		"wrong secret": codehost.Sign("guess", body),
		"truncated":    good[:len(good)-2],
		"other body":   codehost.Sign(tenancyCodehostSecret, append([]byte(" "), body...)),
		"bearer only":  "",
	}
	paths := []string{"/api/v1/integrations/codehost/webhook",
		"/api/v1/integrations/codehost/webhook/" + f.codehost.String()}
	for _, p := range paths {
		for name, sig := range forged {
			req := httptest.NewRequest("POST", p, strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Codehost-Event", "pull_request")
			if sig != "" {
				req.Header.Set("X-Codehost-Signature-256", sig)
			}
			f.expectRefused(t, req, name)
		}
	}
	// The chat routes: a command creating a ticket in TEN from the org's
	// connected workspace, and a thread reply, forged.
	cmd := []byte(url.Values{"team_id": {"TTEN"}, "user_id": {"UOWNER"}, "channel_id": {"C1"}, "command": {"/ticket"},
		"text": {"create TEN forged"}}.Encode())
	ev := []byte(`{"type":"event_callback","team_id":"TTEN","event_id":"Ev1","event":{"type":"message","user":"UOWNER",` +
		`"text":"forged","channel":"C1","ts":"1700000001.000001","thread_ts":"1700000000.000100"}}`)
	now := time.Now()
	for p, body := range map[string][]byte{"/api/v1/integrations/chat/commands": cmd, "/api/v1/integrations/chat/events": ev} {
		good, ts := chat.Sign(tenancyChatSecret, now, body)
		wrong, _ := chat.Sign("guess", now, body)
		stale, staleTS := chat.Sign(tenancyChatSecret, now.Add(-10*time.Minute), body)
		other, _ := chat.Sign(tenancyChatSecret, now, append([]byte(" "), body...))
		forged := map[string][2]string{
			"unsigned":     {"", ""},
			"no timestamp": {good, ""},
			"wrong secret": {wrong, ts},
			"stale":        {stale, staleTS},
			"truncated":    {good[:len(good)-2], ts},
			"other body":   {other, ts},
			"bearer only":  {"", ""},
		}
		for name, h := range forged {
			req := httptest.NewRequest("POST", p, strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if h[0] != "" {
				req.Header.Set("X-Chat-Signature", h[0])
			}
			if h[1] != "" {
				req.Header.Set("X-Chat-Request-Timestamp", h[1])
			}
			f.expectRefused(t, req, name)
		}
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestChatInstallCallbackRefusesForgeries: the chat install's callback
// connects a workspace only with the state of an install an Admin started,
// once: with a code the chat service would honour but no state, a guessed
// one, a spent one or a bearer token instead, it is a 401 and nothing
// changes.
func TestChatInstallCallbackRefusesForgeries(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	start := f.env.Do("POST", "/api/v1/orgs/"+f.org.String()+"/integrations/chat/install", f.owner.Token, nil).Expect(t, 200).Map(t)
	installer := f.slack.AsInstaller("UOWNERI", f.owner.Email)
	back := f.slack.Authorize(t, start["authorize_url"].(string), "TFORGED", installer)
	f.env.Do("GET", back.RequestURI(), "", nil).Expect(t, 201) // the org's own install: its state is now spent
	f.env.Do("DELETE", "/api/v1/orgs/"+f.org.String()+"/integrations/chat/TFORGED", f.owner.Token, nil).Expect(t, 204)
	start = f.env.Do("POST", "/api/v1/orgs/"+f.org.String()+"/integrations/chat/install", f.owner.Token, nil).Expect(t, 200).Map(t)
	fresh := f.slack.Authorize(t, start["authorize_url"].(string), "TFORGED", installer).Query().Get("code") // honoured if exchanged
	before, exchanged := f.snapshot(t), len(f.slack.Exchanges())
	for name, q := range map[string]string{
		"unsigned":      "code=" + fresh,
		"guessed state": "code=" + fresh + "&state=" + strings.Repeat("A", 43),
		"spent state":   "code=" + fresh + "&state=" + back.Query().Get("state"),
		"bearer only":   "code=" + fresh + "&org_id=" + f.org.String(),
	} {
		f.expectRefused(t, httptest.NewRequest("GET", "/api/v1/integrations/chat/oauth/callback?"+q, nil), name)
	}
	if n := len(f.slack.Exchanges()); n != exchanged {
		t.Fatalf("forged callbacks exchanged %d codes", n-exchanged)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}

// expectRefused sends a forged request (case "bearer only" with the
// owner's token besides) and fails the test unless it is a 401.
func (f *tenantFixture) expectRefused(t *testing.T, req *http.Request, name string) {
	t.Helper()
	if name == "bearer only" {
		req.Header.Set("Authorization", "Bearer "+f.owner.Token)
	}
	res, err := f.env.App.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != 401 {
		t.Errorf("%s %s: %d", req.URL.Path, name, res.StatusCode)
	}
}
