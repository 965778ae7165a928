package sso_test

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/oauth2-proxy/mockoidc"

	"tracker/api/apitest"
	"tracker/domain/account"
	"tracker/domain/sso"
	"tracker/domain/testfactory"
)

// register makes a password account with an exact email.
func (w *world) register(t *testing.T, email string) apitest.User {
	t.Helper()
	var a account.AuthResult
	w.env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": email, "password": "password-123",
		"display_name": "Registered"}).Expect(t, 201).Decode(t, &a)
	return apitest.User{ID: a.UserID, Email: email, Token: a.AccessToken, Refresh: a.RefreshToken}
}

// verifyDomain adds domain to the owner's org and proves it through the
// DNS server, as the domain's owner would.
func (w *world) verifyDomain(t *testing.T, domain string) {
	t.Helper()
	base := "/api/v1/orgs/" + w.owner.OrgID.String() + "/domains"
	var d sso.Domain
	w.env.Do("POST", base, w.owner.Token, map[string]any{"domain": domain}).Expect(t, 201).Decode(t, &d)
	w.dns.SetTXT(d.RecordName, d.RecordText)
	w.env.Do("POST", base+"/"+domain+"/verify", w.owner.Token, nil).Expect(t, 200)
}

func counts(t *testing.T, w *world, userID uuid.UUID) string {
	t.Helper()
	return apitest.Scalar[string](t, w.env, `SELECT concat_ws(',',
		(SELECT count(*) FROM memberships WHERE user_id = $1),
		(SELECT count(*) FROM sso_identities WHERE user_id = $1),
		(SELECT count(*) FROM refresh_tokens WHERE user_id = $1))`, userID)
}

// TestSSOOfAnotherOrgTakesNoAccount: Mallory's identity provider asserts
// the verified email of Alice, who registered on her own and belongs to
// no org of Mallory's. The sign-in gets no token for Alice, links nothing,
// and Alice does not become a member of Mallory's org; the same for an
// account an import made (a placeholder nobody claimed).
func TestSSOOfAnotherOrgTakesNoAccount(t *testing.T) {
	t.Parallel()
	w := setup(t) // w.owner is Mallory, whose org the provider serves
	alice := w.env.Register("Alice")
	w.configure(t, nil).Expect(t, 200)
	for _, email := range []string{alice.Email, strings.ToUpper(alice.Email)} {
		r := w.signIn(t, user(email))
		if r.Status != 409 || r.ErrorCode() != "CONFLICT" || strings.Contains(string(r.Body), "access_token") {
			t.Fatalf("%s: status %d, want 409 CONFLICT: %s", email, r.Status, r.Body)
		}
	}
	if got := counts(t, w, alice.ID); got != "1,0,1" { // her personal org, no link, her own session only
		t.Fatalf("alice's memberships, links, sessions: %s, want 1,0,1", got)
	}
	placeholder := testfactory.User(t, w.env.DB, testfactory.UserOpts{Name: "Imported", Email: "imported@example.org", Placeholder: true}).ID
	if r := w.signIn(t, user("imported@example.org")); r.Status != 409 {
		t.Fatalf("placeholder: %d %s", r.Status, r.Body)
	}
	if got := counts(t, w, placeholder); got != "0,0,0" {
		t.Fatalf("placeholder's memberships, links, sessions: %s", got)
	}
	if !apitest.Scalar[bool](t, w.env, `SELECT placeholder FROM users WHERE id = $1`, placeholder) {
		t.Fatal("the placeholder is no longer claimable")
	}
}

// TestSSOVerifiedDomainLinks: once the org proves (DNS TXT) that it
// controls an email domain, its provider may link an existing account of
// that domain; the membership it adds is reached through that org's
// sign-on only, never with the account's password.
func TestSSOVerifiedDomainLinks(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.configure(t, nil).Expect(t, 200)
	carol := w.register(t, "carol@corp.test")
	org := w.owner.OrgID.String()
	base := "/api/v1/orgs/" + org + "/domains"
	if r := w.signIn(t, user("carol@corp.test")); r.Status != 409 {
		t.Fatalf("before verification: %d %s", r.Status, r.Body)
	}

	// The domain routes: Admin; bad names 422; a duplicate 409.
	member := w.env.Member(w.owner, "member")
	admin := w.env.Member(w.owner, "admin")
	outsider := w.env.Register("Outsider")
	w.env.Do("POST", base, member.Token, map[string]any{"domain": "corp.test"}).Expect(t, 403)
	w.env.Do("POST", base, outsider.Token, map[string]any{"domain": "corp.test"}).Expect(t, 404)
	for _, bad := range []string{"", "localhost", "corp", "1.2.3.4", "a..b", "-x.test", "x-.test", "x_y.test", "corp.test.", "exa mple.test",
		"carol@corp.test", strings.Repeat("a", 64) + ".test"} {
		if r := w.env.Do("POST", base, admin.Token, map[string]any{"domain": bad}); r.Status != 422 {
			t.Errorf("domain %q: %d %s", bad, r.Status, r.Body)
		}
	}
	var d sso.Domain
	w.env.Do("POST", base, admin.Token, map[string]any{"domain": "Corp.Test"}).Expect(t, 201).Decode(t, &d)
	if d.Domain != "corp.test" || d.Status != "pending" || d.VerifiedAt != nil || d.RecordName != "_tracker-challenge.corp.test" ||
		!strings.HasPrefix(d.RecordText, "tracker-domain-verification=") || len(d.RecordText) < 40 {
		t.Fatalf("domain %+v", d)
	}
	w.env.Do("POST", base, admin.Token, map[string]any{"domain": "corp.test"}).Expect(t, 409)
	if r := w.env.Do("POST", base+"/corp.test/verify", admin.Token, nil); r.Status != 422 || !strings.Contains(string(r.Body), d.RecordName) {
		t.Fatalf("verify without the record: %d %s", r.Status, r.Body)
	}
	w.dns.SetTXT(d.RecordName, "tracker-domain-verification=someone-elses", "v=spf1 -all")
	w.env.Do("POST", base+"/corp.test/verify", admin.Token, nil).Expect(t, 422)
	if r := w.signIn(t, user("carol@corp.test")); r.Status != 409 {
		t.Fatalf("pending domain: %d %s", r.Status, r.Body)
	}
	w.dns.SetTXT(d.RecordName, "v=spf1 -all", d.RecordText)
	w.env.Do("POST", base+"/corp.test/verify", member.Token, nil).Expect(t, 403)
	w.env.Do("POST", base+"/corp.test/verify", admin.Token, nil).Expect(t, 200).Decode(t, &d)
	if d.Status != "verified" || d.VerifiedAt == nil {
		t.Fatalf("verified %+v", d)
	}
	var list struct{ Items []sso.Domain }
	w.env.Do("GET", base, admin.Token, nil).Expect(t, 200).Decode(t, &list)
	if len(list.Items) != 1 || list.Items[0].Status != "verified" {
		t.Fatalf("list %+v", list)
	}
	w.env.Do("GET", base, member.Token, nil).Expect(t, 403)

	// Carol's account is linked; only her sign-on session reaches the org.
	var a account.AuthResult
	w.signIn(t, &mockoidc.MockUser{Subject: "carol-sub", Email: "carol@corp.test", EmailVerified: true}).Expect(t, 200).Decode(t, &a)
	if a.UserID != carol.ID {
		t.Fatalf("signed in as %s, want carol %s", a.UserID, carol.ID)
	}
	w.env.Do("GET", "/api/v1/orgs/"+org+"/members", a.AccessToken, nil).Expect(t, 200)
	var login account.AuthResult
	w.env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "carol@corp.test", "password": "password-123"}).Expect(t, 200).Decode(t, &login)
	for _, tok := range []string{carol.Token, login.AccessToken} {
		w.env.Do("GET", "/api/v1/orgs/"+org+"/members", tok, nil).Expect(t, 404)
		if me := w.env.Do("GET", "/api/v1/auth/me", tok, nil).Expect(t, 200).Map(t); me["org_id"] == org {
			t.Fatalf("a password session started in the org: %v", me)
		}
		var orgs struct{ Items []struct{ ID string } }
		w.env.Do("GET", "/api/v1/orgs", tok, nil).Expect(t, 200).Decode(t, &orgs)
		for _, o := range orgs.Items {
			if o.ID == org {
				t.Fatal("a password session lists the org")
			}
		}
	}

	// Deleting the domain stops linking by email; Carol keeps her link.
	w.env.Do("DELETE", base+"/corp.test", member.Token, nil).Expect(t, 403)
	w.env.Do("DELETE", base+"/corp.test", admin.Token, nil).Expect(t, 204)
	w.env.Do("DELETE", base+"/corp.test", admin.Token, nil).Expect(t, 404)
	w.register(t, "dan@corp.test")
	if r := w.signIn(t, user("dan@corp.test")); r.Status != 409 {
		t.Fatalf("after delete: %d %s", r.Status, r.Body)
	}
	w.signIn(t, &mockoidc.MockUser{Subject: "carol-sub", Email: "carol@corp.test", EmailVerified: true}).Expect(t, 200)
	if n := apitest.Scalar[int](t, w.env, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND entity_type = 'sso_domain'`, w.owner.OrgID); n != 3 {
		t.Fatalf("%d domain audit rows, want created, verified, deleted", n)
	}
}

// TestSSOSessionIsConfined: a session started by an org's sign-on reaches
// that org only (its access token, the sessions its refresh token rotates
// into, and the API keys it mints), even for a person who belongs to
// other orgs; a password session of the same person is not confined.
func TestSSOSessionIsConfined(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.configure(t, nil).Expect(t, 200)
	sso := w.owner.OrgID.String()
	dual := w.env.Register("Dual")
	w.env.AddMember(w.owner, w.owner.OrgID, dual, "admin")
	other := w.env.Register("Other Owner")
	w.env.AddMember(other, other.OrgID, dual, "admin")
	elsewhere := []string{dual.OrgID.String(), other.OrgID.String()}
	personalKey := w.env.APIKeyIn(dual, dual.OrgID, []string{"admin"})
	var keys []account.APIKey
	w.env.Do("GET", "/api/v1/api-keys", dual.Token, nil).Expect(t, 200).Decode(t, &keys)
	if len(keys) != 1 {
		t.Fatalf("keys %+v", keys)
	}
	personalKeyID := keys[0].ID

	var a account.AuthResult
	w.signIn(t, &mockoidc.MockUser{Subject: "dual-sub", Email: dual.Email, EmailVerified: true}).Expect(t, 200).Decode(t, &a)
	if a.UserID != dual.ID {
		t.Fatalf("signed in as %s", a.UserID)
	}
	orgsOf := func(tok string) []string {
		var orgs struct{ Items []struct{ ID string } }
		w.env.Do("GET", "/api/v1/orgs", tok, nil).Expect(t, 200).Decode(t, &orgs)
		var ids []string
		for _, o := range orgs.Items {
			ids = append(ids, o.ID)
		}
		return ids
	}
	confined := func(name, tok string) {
		t.Helper()
		if me := w.env.Do("GET", "/api/v1/auth/me", tok, nil).Expect(t, 200).Map(t); me["org_id"] != sso || me["role"] != "Admin" {
			t.Fatalf("%s: me %v", name, me)
		}
		w.env.Do("GET", "/api/v1/orgs/"+sso+"/members", tok, nil).Expect(t, 200)
		for _, o := range elsewhere {
			w.env.Do("GET", "/api/v1/orgs/"+o+"/members", tok, nil).Expect(t, 404)
			w.env.Do("POST", "/api/v1/orgs/"+o+"/labels", tok, map[string]any{"name": "x", "color": "#fff"}).Expect(t, 404)
		}
		if ids := orgsOf(tok); len(ids) != 1 || ids[0] != sso {
			t.Fatalf("%s lists orgs %v, want only %s", name, ids, sso)
		}
	}
	confined("access token", a.AccessToken)

	// Keys minted with the session belong to its org; none elsewhere.
	w.env.Do("POST", "/api/v1/api-keys", a.AccessToken, map[string]any{"name": "k", "org_id": dual.OrgID}).Expect(t, 404)
	var k account.APIKey
	w.env.Do("POST", "/api/v1/api-keys", a.AccessToken, map[string]any{"name": "k", "scopes": []string{"admin"}}).Expect(t, 201).Decode(t, &k)
	if ids := orgsOf(k.Key); len(ids) != 1 || ids[0] != sso {
		t.Fatalf("the key lists orgs %v", ids)
	}
	w.env.Do("GET", "/api/v1/orgs/"+elsewhere[0]+"/members", k.Key, nil).Expect(t, 404)
	// The session sees and revokes only keys of its org.
	w.env.Do("GET", "/api/v1/api-keys", a.AccessToken, nil).Expect(t, 200).Decode(t, &keys)
	if len(keys) != 1 || keys[0].ID != k.ID {
		t.Fatalf("the session lists keys %+v", keys)
	}
	w.env.Do("DELETE", "/api/v1/api-keys/"+personalKeyID.String(), a.AccessToken, nil).Expect(t, 404)
	w.env.Do("GET", "/api/v1/orgs/"+dual.OrgID.String()+"/members", personalKey, nil).Expect(t, 200)
	// It makes no org in the person's name.
	w.env.Do("POST", "/api/v1/orgs", a.AccessToken, map[string]any{"name": "New", "slug": "new-" + uuid.NewString()[:8]}).Expect(t, 403)

	// Refreshing keeps the binding.
	var r account.AuthResult
	w.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": a.RefreshToken}).Expect(t, 200).Decode(t, &r)
	confined("refreshed access token", r.AccessToken)

	// The binding is signed: a token naming another bound org is refused.
	forged, err := jwt.NewWithClaims(jwt.SigningMethodHS256, account.Claims{OrgID: sso, BoundOrg: dual.OrgID.String(),
		Email: dual.Email, RegisteredClaims: jwt.RegisteredClaims{Subject: dual.ID.String(), Issuer: "tracker",
			ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour))}}).SignedString([]byte(apitest.Secret))
	if err != nil {
		t.Fatal(err)
	}
	w.env.Do("GET", "/api/v1/orgs/"+sso+"/members", forged, nil).Expect(t, 401)

	// The person's password session is not confined.
	if ids := orgsOf(dual.Token); len(ids) != 3 {
		t.Fatalf("password session lists %v", ids)
	}
	w.env.Do("GET", "/api/v1/orgs/"+other.OrgID.String()+"/members", dual.Token, nil).Expect(t, 200)

	// Removed from the org, the sign-on session ends: its refresh falls
	// back to no other org.
	w.env.Do("DELETE", "/api/v1/orgs/"+sso+"/members/"+dual.ID.String(), w.owner.Token, nil).Expect(t, 204)
	w.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": r.RefreshToken}).Expect(t, 401)
	w.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": dual.Refresh}).Expect(t, 200)
	// The linked identity does not enroll the person again: removed is
	// removed, whatever the provider says.
	if res := w.signIn(t, &mockoidc.MockUser{Subject: "dual-sub", Email: dual.Email, EmailVerified: true}); res.Status != 409 {
		t.Fatalf("a removed member signed in again: %d %s", res.Status, res.Body)
	}
	if n := apitest.Scalar[int](t, w.env, `SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2`, w.owner.OrgID, dual.ID); n != 0 {
		t.Fatal("the provider enrolled the removed member again")
	}
}

// TestSSOEmailShape: an email with surrounding spaces, a display name or no
// proper domain is refused (403) and creates nothing.
func TestSSOEmailShape(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.configure(t, nil).Expect(t, 200)
	before := apitest.Scalar[string](t, w.env, `SELECT (SELECT count(*) FROM users) || ',' || (SELECT count(*) FROM memberships)`)
	for _, email := range []string{" spaced@example.com", "spaced@example.com ", "nodomain@localhost", "trailing@example.com.",
		"ip@1.2.3.4", "Name <named@example.com>", "under@ex_ample.com", "two@@example.com", "@example.com", "nobody@"} {
		r := w.signIn(t, user(email))
		if r.Status != 403 || r.ErrorCode() != "FORBIDDEN" {
			t.Errorf("%q: %d %s", email, r.Status, r.Body)
		}
	}
	if after := apitest.Scalar[string](t, w.env, `SELECT (SELECT count(*) FROM users) || ',' || (SELECT count(*) FROM memberships)`); after != before {
		t.Fatalf("refused sign-ins created %s → %s", before, after)
	}
}

// TestSSOJustInTime: a person no account has gets one, a member of the
// sign-on org only (no personal org), reached only through its sign-on;
// the person has signed in, so registering cannot claim the account.
func TestSSOJustInTime(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.configure(t, map[string]any{"default_role": "viewer"}).Expect(t, 200)
	var a account.AuthResult
	w.signIn(t, user("fresh@newcomer.test")).Expect(t, 200).Decode(t, &a)
	if got := apitest.Scalar[string](t, w.env, `SELECT string_agg(org_id::text || role || sso_only::text, ';') FROM memberships WHERE user_id = $1`,
		a.UserID); got != w.owner.OrgID.String()+"viewertrue" {
		t.Fatalf("memberships %s", got)
	}
	if apitest.Scalar[bool](t, w.env, `SELECT placeholder OR password_hash IS NOT NULL FROM users WHERE id = $1`, a.UserID) {
		t.Fatal("a signed-in account is claimable or has a password")
	}
	w.env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "fresh@newcomer.test", "password": "password-123",
		"display_name": "Squatter"}).Expect(t, 409)
}
