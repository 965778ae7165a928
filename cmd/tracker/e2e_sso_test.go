package main_test

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"
)

// startOIDC runs a real OIDC provider on loopback for the binary's tests.
func startOIDC(t *testing.T) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

// ssoEndToEnd connects the provider to an org as its Owner and signs a new
// person in through discover, the provider and the callback, over real HTTP.
// It returns the strings that must never reach the log.
func ssoEndToEnd(t *testing.T, c client, m *mockoidc.MockOIDC, ownerToken, orgID string) []string {
	t.Helper()
	cfg := c.expect(200, "PUT", "/api/v1/orgs/"+orgID+"/sso", ownerToken, map[string]any{"issuer_url": m.Issuer(),
		"client_id": m.ClientID, "client_secret": m.ClientSecret, "allowed_domains": []string{"example.test"}})
	if cfg["redirect_uri"] != "http://tracker.example/api/v1/auth/sso/callback" {
		t.Fatalf("sso config %v", cfg)
	}
	d := c.expect(200, "GET", "/api/v1/auth/sso/discover?org_id="+orgID, "", nil)
	m.QueueUser(&mockoidc.MockUser{Subject: "e2e-subject", Email: "sso.person@example.test", EmailVerified: true})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.Get(d["authorization_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), "http://tracker.example/api/v1/auth/sso/callback?") {
		t.Fatalf("provider redirect %q: %v", res.Header.Get("Location"), err)
	}
	q := url.Values{"code": {loc.Query().Get("code")}, "state": {loc.Query().Get("state")}}
	auth := c.expect(200, "GET", "/api/v1/auth/sso/callback?"+q.Encode(), "", nil)
	token := auth["access_token"].(string)
	if me := c.expect(200, "GET", "/api/v1/auth/me", token, nil); me["org_id"] != orgID || me["role"] != "Member" {
		t.Fatalf("sso user %v", me)
	}
	c.expect(401, "GET", "/api/v1/auth/sso/callback?"+q.Encode(), "", nil)
	return []string{m.ClientSecret, token, auth["refresh_token"].(string)}
}
