package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"tracker/internal/oidctest"
)

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
	loc := oidctest.Authorize(t, m, d["authorization_url"].(string), oidctest.Person("e2e-subject", "sso.person@example.test"))
	if !strings.HasPrefix(loc.String(), "http://tracker.example/api/v1/auth/sso/callback?") {
		t.Fatalf("provider redirect %q", loc)
	}
	q := oidctest.CallbackQuery(loc)
	auth := c.expect(200, "GET", "/api/v1/auth/sso/callback?"+q.Encode(), "", nil)
	token := auth["access_token"].(string)
	if me := c.expect(200, "GET", "/api/v1/auth/me", token, nil); me["org_id"] != orgID || me["role"] != "Member" {
		t.Fatalf("sso user %v", me)
	}
	c.expect(401, "GET", "/api/v1/auth/sso/callback?"+q.Encode(), "", nil)
	return []string{m.ClientSecret, token, auth["refresh_token"].(string)}
}

// ssoSignIn runs the browser-less sign-in of a person to the org and
// returns the callback's status and answer.
func ssoSignIn(t *testing.T, c client, m *mockoidc.MockOIDC, orgID, subject, email string) (int, map[string]any) {
	t.Helper()
	q := ssoAuthorize(t, c, m, orgID, subject, email)
	return c.do("GET", "/api/v1/auth/sso/callback?"+q.Encode(), "", nil)
}

// ssoAuthorize runs discover and the provider's authorization, returning
// the callback's code and state.
func ssoAuthorize(t *testing.T, c client, m *mockoidc.MockOIDC, orgID, subject, email string) url.Values {
	t.Helper()
	d := c.expect(200, "GET", "/api/v1/auth/sso/discover?org_id="+orgID, "", nil)
	return oidctest.CallbackQuery(oidctest.Authorize(t, m, d["authorization_url"].(string), oidctest.Person(subject, email)))
}

// scimDo sends a SCIM request (application/scim+json) to the binary.
func scimDo(t *testing.T, c client, method, path, token string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Content-Type", "application/scim+json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if len(raw) > 0 {
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/scim+json") {
			t.Fatalf("%s %s: content type %q", method, path, res.Header.Get("Content-Type"))
		}
		_ = json.Unmarshal(raw, &out)
	}
	return res.StatusCode, out
}

// scimEndToEnd provisions a person and a group through SCIM with the org's
// token over real HTTP, lets the person sign in by SSO, deactivates them
// (Okta's shape) and sees their access end at once. It returns the strings
// that must never reach the log.
func scimEndToEnd(t *testing.T, c client, m *mockoidc.MockOIDC, ownerToken, orgID string) []string {
	t.Helper()
	tok := c.expect(201, "POST", "/api/v1/orgs/"+orgID+"/sso/scim-token", ownerToken, nil)["token"].(string)
	expect := func(want int, method, path string, body any) map[string]any {
		t.Helper()
		got, out := scimDo(t, c, method, path, tok, body)
		if got != want {
			t.Fatalf("%s %s: %d, want %d: %v", method, path, got, want, out)
		}
		return out
	}
	if sp := expect(200, "GET", "/scim/v2/ServiceProviderConfig", nil); sp["patch"].(map[string]any)["supported"] != true {
		t.Fatalf("sp config %v", sp)
	}
	if got, e := scimDo(t, c, "GET", "/scim/v2/Users", "scim_wrong", nil); got != 401 || e["status"] != "401" {
		t.Fatalf("wrong token: %d %v", got, e)
	}
	u := expect(201, "POST", "/scim/v2/Users", map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"},
		"userName": "scim.person@example.test", "name": map[string]any{"givenName": "Scim", "familyName": "Person"},
		"emails": []map[string]any{{"value": "scim.person@example.test", "type": "work", "primary": true}}, "active": true})
	id := u["id"].(string)
	l := expect(200, "GET", "/scim/v2/Users?filter="+url.QueryEscape(`userName eq "SCIM.person@example.test"`), nil)
	if l["totalResults"].(float64) != 1 {
		t.Fatalf("filter %v", l)
	}
	g := expect(201, "POST", "/scim/v2/Groups", map[string]any{"displayName": "Provisioned", "members": []map[string]any{{"value": id}}})
	teams := c.expect(200, "GET", "/api/v1/orgs/"+orgID+"/teams", ownerToken, nil)
	if !strings.Contains(fmt.Sprint(teams), g["id"].(string)) {
		t.Fatalf("the group is not a team: %v", teams)
	}
	status, auth := ssoSignIn(t, c, m, orgID, "scim-subject", "scim.person@example.test")
	if status != 200 || auth["user_id"] != id {
		t.Fatalf("provisioned person's sign-in: %d %v", status, auth)
	}
	access := auth["access_token"].(string)
	c.expect(200, "GET", "/api/v1/orgs/"+orgID+"/members", access, nil)
	key := c.expect(201, "POST", "/api/v1/api-keys", access, map[string]any{"name": "k", "scopes": []string{"read"}, "org_id": orgID})["key"].(string)
	c.expect(200, "GET", "/api/v1/orgs/"+orgID+"/members", key, nil)

	u = expect(200, "PATCH", "/scim/v2/Users/"+id, map[string]any{"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"},
		"Operations": []map[string]any{{"op": "replace", "value": map[string]any{"active": false}}}})
	if u["active"] != false {
		t.Fatalf("deactivated %v", u)
	}
	c.expect(404, "GET", "/api/v1/orgs/"+orgID+"/members", access, nil)
	c.expect(401, "GET", "/api/v1/orgs/"+orgID+"/members", key, nil)
	c.expect(401, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": auth["refresh_token"]})
	if status, _ := ssoSignIn(t, c, m, orgID, "scim-subject", "scim.person@example.test"); status != 401 {
		t.Fatalf("deactivated person signed in: %d", status)
	}
	// Reactivated (Entra's shape): a new sign-in works again, here as a
	// browser does it (Accept: text/html → 303 to SERVICE_PUBLIC_URL with
	// the tokens in the fragment).
	expect(200, "PATCH", "/scim/v2/Users/"+id, map[string]any{"Operations": []map[string]any{{"op": "Replace", "path": "active", "value": "True"}}})
	q := ssoAuthorize(t, c, m, orgID, "scim-subject", "scim.person@example.test")
	req, _ := http.NewRequest("GET", c.base+"/api/v1/auth/sso/callback?"+q.Encode(), nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	res, err := oidctest.NoRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	if res.StatusCode != 303 || !strings.HasPrefix(loc, "http://tracker.example/#") {
		t.Fatalf("reactivated person's browser sign-in: %d %s", res.StatusCode, loc)
	}
	frag, err := url.ParseQuery(loc[strings.Index(loc, "#")+1:])
	if err != nil || frag.Get("user_id") != id {
		t.Fatalf("fragment %q: %v", loc, err)
	}
	c.expect(200, "GET", "/api/v1/orgs/"+orgID+"/members", frag.Get("access_token"), nil)
	return []string{tok, access, key, frag.Get("access_token"), frag.Get("refresh_token")}
}
