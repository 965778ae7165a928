package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/oauth2-proxy/mockoidc"

	"tracker/api/apitest"
	"tracker/internal/oidctest"
)

// Integration from another tenant: an org's identity provider and its SCIM
// token act in that org only. Mallory (the fixture's outsider) connects a
// provider he runs to his own org and issues its SCIM token; nothing of
// org A is reached through either.

// malloryIdP connects a real OIDC provider to Mallory's org through the API.
func (f *tenantFixture) malloryIdP(t *testing.T) *mockoidc.MockOIDC {
	t.Helper()
	m := oidctest.Start(t)
	f.env.Do("PUT", "/api/v1/orgs/"+f.outsider.OrgID.String()+"/sso", f.outsider.Token, map[string]any{
		"issuer_url": m.Issuer(), "client_id": m.ClientID, "client_secret": m.ClientSecret}).Expect(t, 200)
	return m
}

// ssoSignIn signs subject/email in to orgID through provider m, as a
// browser-less client does, and returns the callback's answer.
func (f *tenantFixture) ssoSignIn(t *testing.T, m *mockoidc.MockOIDC, orgID uuid.UUID, subject, email string) apitest.Resp {
	t.Helper()
	var d struct {
		AuthorizationURL string `json:"authorization_url"`
	}
	f.env.Do("GET", "/api/v1/auth/sso/discover?org_id="+orgID.String(), "", nil).Expect(t, 200).Decode(t, &d)
	q := oidctest.CallbackQuery(oidctest.Authorize(t, m, d.AuthorizationURL, oidctest.Person(subject, email)))
	return f.env.Do("GET", "/api/v1/auth/sso/callback?"+q.Encode(), "", nil)
}

func allowPrivateIssuers(c *Config) { c.WebhookAllowPrivate = true }

// TestIdentityProviderOfAnotherTenant: Mallory's provider asserting the
// email of each of org A's people gets no token and no membership for
// them; a person who also belongs to Mallory's org is signed in there with
// a session bound to Mallory's org, which is a non-member on every route of
// org A (the walk of every route the binary serves, so a new route joins
// it), and lists only Mallory's org. Nothing of org A changes.
func TestIdentityProviderOfAnotherTenant(t *testing.T) {
	t.Parallel()
	f := newTenantFixtureWith(t, allowPrivateIssuers)
	m := f.malloryIdP(t)
	mallory := f.outsider.OrgID
	before := f.snapshot(t)
	for _, victim := range []apitest.User{f.owner, f.viewer} {
		for _, email := range []string{victim.Email, strings.ToUpper(victim.Email)} {
			r := f.ssoSignIn(t, m, mallory, "mallory-"+uuid.NewString(), email)
			if r.Status != 409 || strings.Contains(string(r.Body), "access_token") {
				t.Fatalf("%s: %d %s", email, r.Status, r.Body)
			}
		}
		if n := apitest.Scalar[int](t, f.env, `SELECT (SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2)
			+ (SELECT count(*) FROM sso_identities WHERE user_id = $2)`, mallory, victim.ID); n != 0 {
			t.Fatalf("%s: a membership or link in Mallory's org", victim.Email)
		}
	}

	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}

	// Dual is an Admin of org A and a member of Mallory's org: Mallory's
	// provider may sign Dual in, to Mallory's org only.
	dual := f.env.Register("Dual")
	f.env.AddMember(f.owner, f.org, dual, "admin")
	f.env.AddMember(f.outsider, mallory, dual, "member")
	if after := f.snapshot(t); after == before {
		t.Fatal("the snapshot does not see Dual join org A")
	}
	before = f.snapshot(t)
	var auth struct {
		AccessToken  string    `json:"access_token"`
		RefreshToken string    `json:"refresh_token"`
		UserID       uuid.UUID `json:"user_id"`
	}
	f.ssoSignIn(t, m, mallory, "dual-at-mallory", dual.Email).Expect(t, 200).Decode(t, &auth)
	if auth.UserID != dual.ID {
		t.Fatalf("signed in as %s", auth.UserID)
	}
	var refreshed struct {
		AccessToken string `json:"access_token"`
	}
	f.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": auth.RefreshToken}).Expect(t, 200).Decode(t, &refreshed)
	var key struct{ Key string }
	if r := f.env.Do("POST", "/api/v1/api-keys", auth.AccessToken, map[string]any{"name": "k", "org_id": f.org}); r.Status != 404 {
		t.Errorf("a key in org A: %d %s", r.Status, r.Body)
	}
	f.env.Do("POST", "/api/v1/api-keys", auth.AccessToken, map[string]any{"name": "k", "scopes": []string{"admin"}}).Expect(t, 201).Decode(t, &key)
	// Dual's password session reaches org A.
	f.env.Do("GET", "/api/v1/projects/"+f.project.String(), dual.Token, nil).Expect(t, 200)
	allowed := map[string][]int{ // ids in the body: unknown to a non-member
		"POST /api/v1/tickets/batch-update":     {404, 422},
		"POST /api/v1/tickets/batch-delete":     {404, 422},
		"POST /api/v1/tickets/batch-transition": {200},
		"POST /api/v1/time-entries":             {404, 422},
		// The caller's own inbox and settings, not org A's: answered, and
		// shown below to hold nothing of org A.
		"GET /api/v1/notifications":              {200},
		"GET /api/v1/notifications/unread-count": {200},
		"GET /api/v1/notifications/stream":       {200},
		"POST /api/v1/notifications/read-all":    {204},
		"GET /api/v1/me/notification-settings":   {200},
		"PUT /api/v1/me/notification-settings":   {403, 422},
	}
	// Dual has a notification in org A, which no session of Mallory's
	// provider may see, mark read, or silence.
	f.env.Do("POST", "/api/v1/projects/"+f.project.String()+"/tickets", f.owner.Token,
		map[string]any{"title": "for Dual", "assignee_id": dual.ID}).Expect(t, 201)
	unread := func(tok string) int {
		var n struct{ Count int }
		f.env.Do("GET", "/api/v1/notifications/unread-count", tok, nil).Expect(t, 200).Decode(t, &n)
		return n.Count
	}
	if unread(dual.Token) != 1 {
		t.Fatal("Dual was not told of the assignment in org A")
	}
	before = f.snapshot(t)
	for name, tok := range map[string]string{"sso session": auth.AccessToken, "refreshed sso session": refreshed.AccessToken, "key it minted": key.Key} {
		t.Run(name, func(t *testing.T) {
			walked := f.keyWalk(t, tok, func(t *testing.T, route string, res apitest.Resp) {
				want := allowed[route]
				if want == nil {
					want = []int{404}
				}
				if !contains(want, res.Status) {
					t.Errorf("status %d, want %v: %s", res.Status, want, res.Body)
				}
			})
			if walked < 60 {
				t.Fatalf("walked only %d routes", walked)
			}
			if n := unread(tok); n != 0 {
				t.Errorf("shows %d of Dual's unread notifications of org A", n)
			}
			settings := map[string]any{"email": map[string]any{"enabled": false, "digest_minutes": 0}, "chat": map[string]any{"enabled": false}}
			if r := f.env.Do("PUT", "/api/v1/me/notification-settings", tok, settings); r.Status != 403 {
				t.Errorf("changes Dual's settings for every org: %d %s", r.Status, r.Body)
			}
			var orgs struct{ Items []struct{ ID uuid.UUID } }
			f.env.Do("GET", "/api/v1/orgs", tok, nil).Expect(t, 200).Decode(t, &orgs)
			if len(orgs.Items) != 1 || orgs.Items[0].ID != mallory {
				t.Errorf("lists orgs %+v, want only Mallory's %s", orgs.Items, mallory)
			}
		})
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
	if unread(dual.Token) != 1 {
		t.Error("a session of Mallory's provider marked Dual's notification of org A read")
	}
}

// TestSCIMTokenOfAnotherTenant: Mallory's SCIM token reads, finds and
// changes none of org A's people, and cannot enroll them into his org.
func TestSCIMTokenOfAnotherTenant(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	tok := f.scimToken(t, f.outsider, f.outsider.OrgID)
	before := f.snapshot(t)
	for _, victim := range []apitest.User{f.owner, f.viewer} {
		user := "/scim/v2/Users/" + victim.ID.String()
		for _, r := range []apitest.Resp{
			f.env.Do("GET", user, tok, nil),
			f.env.Do("PATCH", user, tok, map[string]any{"Operations": []map[string]any{{"op": "replace", "path": "active", "value": false}}}),
			f.env.Do("PUT", user, tok, map[string]any{"userName": victim.Email, "displayName": "Renamed", "active": false}),
			f.env.Do("DELETE", user, tok, nil),
		} {
			if !isSCIMError(r, 404) {
				t.Errorf("%s: %d %s", victim.Email, r.Status, r.Body)
			}
		}
		list := f.env.Do("GET", "/scim/v2/Users?filter="+url.QueryEscape(`userName eq "`+victim.Email+`"`), tok, nil).Expect(t, 200)
		if strings.Contains(string(list.Body), victim.ID.String()) || !strings.Contains(string(list.Body), `"totalResults":0`) {
			t.Errorf("listed %s: %s", victim.Email, list.Body)
		}
		if r := f.env.Do("POST", "/scim/v2/Users", tok, map[string]any{"userName": victim.Email, "displayName": "Enrolled"}); !isSCIMError(r, 409) ||
			strings.Contains(string(r.Body), victim.ID.String()) {
			t.Errorf("enrolling %s: %d %s", victim.Email, r.Status, r.Body)
		}
		if n := apitest.Scalar[int](t, f.env, `SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2`, f.outsider.OrgID, victim.ID); n != 0 {
			t.Errorf("%s enrolled into Mallory's org", victim.Email)
		}
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}
