package sso_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
	"tracker/api/apitest"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/oauth2-proxy/mockoidc"

	"tracker/domain/account"
)

func user(email string) *mockoidc.MockUser {
	return &mockoidc.MockUser{Subject: "sub-" + uuid.NewString(), Email: email, EmailVerified: true}
}

func TestSSOConfig(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := "/api/v1/orgs/" + w.owner.OrgID.String() + "/sso"
	admin := w.env.Member(w.owner, "admin")
	outsider := w.env.Register("Outsider")

	w.env.Do("GET", org, w.owner.Token, nil).Expect(t, 404)
	w.env.Do("GET", "/api/v1/auth/sso/discover?org_id="+w.owner.OrgID.String(), "", nil).Expect(t, 404)
	for name, extra := range map[string]map[string]any{
		"owner default role":   {"default_role": "owner"},
		"unknown role":         {"default_role": "boss"},
		"bad domain":           {"allowed_domains": []string{"not a domain"}},
		"issuer not a URL":     {"issuer_url": "issuer"},
		"no discovery there":   {"issuer_url": "http://127.0.0.1:1/nothing"},
		"issuer of a non-OIDC": {"issuer_url": w.oidc.Issuer() + "/elsewhere"},
		"client id missing":    {"client_id": ""},
	} {
		r := w.configure(t, extra)
		if r.Status != 422 || r.ErrorCode() != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	if r := w.configure(t, map[string]any{"issuer_url": "http://127.0.0.1:1/nothing"}); !strings.Contains(string(r.Body), "OIDC discovery failed") {
		t.Errorf("discovery failure gives no reason: %s", r.Body)
	}
	r := w.env.Do("PUT", org, admin.Token, map[string]any{"issuer_url": w.oidc.Issuer(), "client_id": "x", "client_secret": "y"})
	if r.Status != 403 || r.Error().Message != "this operation requires the Owner role" {
		t.Fatalf("admin: %d %s", r.Status, r.Body)
	}
	w.env.Do("PUT", org, outsider.Token, map[string]any{"issuer_url": w.oidc.Issuer(), "client_id": "x", "client_secret": "y"}).Expect(t, 404)

	got := w.configure(t, map[string]any{"allowed_domains": []string{"@Example.COM"}, "default_role": "viewer"}).Expect(t, 200)
	if strings.Contains(string(got.Body), w.oidc.ClientSecret) {
		t.Fatalf("secret returned: %s", got.Body)
	}
	m := got.Map(t)
	if m["default_role"] != "Viewer" || m["redirect_uri"] != "http://tracker.test/api/v1/auth/sso/callback" ||
		m["allowed_domains"].([]any)[0] != "example.com" || m["client_secret_set"] != true {
		t.Fatalf("config: %v", m)
	}
	read := w.env.Do("GET", org, w.owner.Token, nil).Expect(t, 200)
	if strings.Contains(string(read.Body), w.oidc.ClientSecret) || read.Map(t)["issuer_url"] != w.oidc.Issuer() {
		t.Fatalf("get: %s", read.Body)
	}
	w.env.Do("GET", org, admin.Token, nil).Expect(t, 403)
	// The secret is stored sealed, never in clear.
	sealed := apitest.Scalar[[]byte](t, w.env, `SELECT client_secret_sealed FROM sso_configs WHERE org_id = $1`, w.owner.OrgID)
	if strings.Contains(string(sealed), w.oidc.ClientSecret) {
		t.Fatal("client secret stored in clear")
	}
	// A PUT without the secret keeps the stored one.
	w.env.Do("PUT", org, w.owner.Token, map[string]any{"issuer_url": w.oidc.Issuer(), "client_id": w.oidc.ClientID}).Expect(t, 200)
	if r := w.signIn(t, user("kept@example.com")); r.Status != 200 {
		t.Fatalf("sign-in after PUT without secret: %d %s", r.Status, r.Body)
	}

	w.env.Do("DELETE", org, admin.Token, nil).Expect(t, 403)
	w.env.Do("DELETE", org, w.owner.Token, nil).Expect(t, 204)
	w.env.Do("DELETE", org, w.owner.Token, nil).Expect(t, 404)
	w.env.Do("GET", "/api/v1/auth/sso/discover?org_id="+w.owner.OrgID.String(), "", nil).Expect(t, 404)
	w.env.Do("GET", "/api/v1/auth/sso/discover?org_id=nope", "", nil).Expect(t, 422)
}

func TestSSOSignIn(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.configure(t, nil).Expect(t, 200)
	authURL, state := w.discover(t)
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	qv := u.Query()
	if qv.Get("code_challenge_method") != "S256" || qv.Get("code_challenge") == "" || qv.Get("nonce") == "" ||
		qv.Get("state") != state || qv.Get("client_id") != w.oidc.ClientID ||
		qv.Get("redirect_uri") != "http://tracker.test/api/v1/auth/sso/callback" {
		t.Fatalf("authorization url: %s", authURL)
	}
	if n := apitest.Scalar[int](t, w.env, `SELECT count(*) FROM sso_states WHERE code_verifier = $1 OR state_hash = $2`, qv.Get("code_challenge"), []byte(state)); n != 0 {
		t.Fatal("challenge stored as verifier, or state stored in clear")
	}

	// A new person: user created, Member by default, a working session.
	code, st := w.authorize(t, authURL, user("new.person@example.com"))
	var res account.AuthResult
	w.callback(t, code, st).Expect(t, 200).Decode(t, &res)
	if res.Email != "new.person@example.com" || res.AccessToken == "" || !strings.HasPrefix(res.RefreshToken, "rt_") {
		t.Fatalf("auth result %+v", res)
	}
	me := w.env.Do("GET", "/api/v1/auth/me", res.AccessToken, nil).Expect(t, 200).Map(t)
	if me["org_id"] != w.owner.OrgID.String() || me["role"] != "Member" {
		t.Fatalf("me: %v", me)
	}
	w.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": res.RefreshToken}).Expect(t, 200)

	// Signing in again (same subject) finds the same user, whatever email
	// the provider now sends; another subject with the email of a linked
	// account is someone else (409).
	sub := "sub-stable"
	again := func(subject, email string) account.AuthResult {
		var a account.AuthResult
		w.signIn(t, &mockoidc.MockUser{Subject: subject, Email: email, EmailVerified: true}).Expect(t, 200).Decode(t, &a)
		return a
	}
	first := again(sub, "stable@example.com")
	if second := again(sub, "renamed@example.com"); second.UserID != first.UserID {
		t.Fatalf("subject not matched: %s vs %s", second.UserID, first.UserID)
	}
	r := w.signIn(t, &mockoidc.MockUser{Subject: "sub-other", Email: "new.person@example.com", EmailVerified: true})
	if r.Status != 409 || r.ErrorCode() != "CONFLICT" || !strings.Contains(r.Error().Message, "another identity") {
		t.Fatalf("another subject for a linked account: %d %s", r.Status, r.Body)
	}
	// A member of the org who registered with a password is linked by
	// email on their first sign-in; their membership stays as it was.
	existing := w.env.Register("Existing")
	w.env.AddMember(w.owner, w.owner.OrgID, existing, "viewer")
	if a := again("sub-existing", existing.Email); a.UserID != existing.ID {
		t.Fatal("existing member not found by email")
	}
	if got := apitest.Scalar[string](t, w.env, `SELECT role || sso_only::text FROM memberships WHERE org_id = $1 AND user_id = $2`,
		w.owner.OrgID, existing.ID); got != "viewerfalse" {
		t.Fatalf("existing member's membership %s", got)
	}
	if n := apitest.Scalar[int](t, w.env, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND action = 'joined_by_sso'`, w.owner.OrgID); n != 2 {
		t.Fatalf("join audit rows %d", n)
	}

	// A browser is redirected with the tokens in the fragment.
	authURL, _ = w.discover(t)
	code, st = w.authorize(t, authURL, user("browser@example.com"))
	hr := w.browserCallback(t, code, st)
	loc := hr.Header.Get("Location")
	if hr.StatusCode != 303 || !strings.HasPrefix(loc, "http://tracker.test/#") || !strings.Contains(loc, "access_token=") {
		t.Fatalf("browser: %d %s", hr.StatusCode, loc)
	}
}

// TestSSOSignInRefused: each tampered or refused sign-in is a 4xx with the
// envelope and creates nothing.
func TestSSOSignInRefused(t *testing.T) {
	t.Parallel()
	w := setup(t)
	w.configure(t, map[string]any{"allowed_domains": []string{"example.com"}}).Expect(t, 200)
	count := func() string {
		return apitest.Scalar[string](t, w.env, `SELECT concat_ws(',', (SELECT count(*) FROM users), (SELECT count(*) FROM memberships),
			(SELECT count(*) FROM sso_identities), (SELECT count(*) FROM refresh_tokens))`)
	}
	expectRefused := func(name string, r interface {
		ErrorCode() string
	}, status, want int) {
		t.Helper()
		if status != want || r.ErrorCode() == "" {
			t.Errorf("%s: status %d, want %d", name, status, want)
		}
	}

	// State replay: the second use of a state is refused.
	authURL, _ := w.discover(t)
	code, st := w.authorize(t, authURL, user("replay@example.com"))
	w.callback(t, code, st).Expect(t, 200)
	before := count()
	r := w.callback(t, code, st)
	expectRefused("replayed state", r, r.Status, 401)
	r = w.callback(t, "x", "never-issued")
	expectRefused("unknown state", r, r.Status, 401)
	r = w.callback(t, "", "")
	expectRefused("missing code and state", r, r.Status, 422)

	// Expired state: the service's clock passes the 10 minutes.
	authURL, _ = w.discover(t)
	code, st = w.authorize(t, authURL, user("late@example.com"))
	w.skew.Store(int64(11 * time.Minute))
	r = w.callback(t, code, st)
	w.skew.Store(0)
	expectRefused("expired state", r, r.Status, 401)

	// Wrong nonce: the browser's request to the provider carries another.
	authURL, _ = w.discover(t)
	u, _ := url.Parse(authURL)
	q := u.Query()
	q.Set("nonce", "attacker-nonce")
	u.RawQuery = q.Encode()
	code, st = w.authorize(t, u.String(), user("nonce@example.com"))
	r = w.callback(t, code, st)
	expectRefused("wrong nonce", r, r.Status, 401)

	tampered := map[string]func(t *testing.T, c jwt.MapClaims) string{
		"signed by another key": func(t *testing.T, c jwt.MapClaims) string { return w.signWith(t, otherKey(t), c) },
		"alg none": func(t *testing.T, c jwt.MapClaims) string {
			s, err := jwt.NewWithClaims(jwt.SigningMethodNone, c).SignedString(jwt.UnsafeAllowNoneSignatureType)
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"expired": func(t *testing.T, c jwt.MapClaims) string {
			c["exp"] = time.Now().Add(-time.Hour).Unix()
			c["iat"] = time.Now().Add(-2 * time.Hour).Unix()
			return w.oidcSign(t, c)
		},
		"other audience":   func(t *testing.T, c jwt.MapClaims) string { c["aud"] = "someone-else"; return w.oidcSign(t, c) },
		"other issuer":     func(t *testing.T, c jwt.MapClaims) string { c["iss"] = "https://evil.example"; return w.oidcSign(t, c) },
		"email unverified": func(t *testing.T, c jwt.MapClaims) string { c["email_verified"] = false; return w.oidcSign(t, c) },
	}
	for name, f := range tampered {
		w.setTamper(f)
		r := w.signIn(t, user(strings.ReplaceAll(name, " ", "-")+"@example.com"))
		want := 401
		if name == "email unverified" {
			want = 403
		}
		expectRefused(name, r, r.Status, want)
	}
	w.setTamper(nil)
	r = w.signIn(t, user("someone@elsewhere.org"))
	expectRefused("disallowed domain", r, r.Status, 403)

	if after := count(); after != before {
		t.Fatalf("refused sign-ins created something: %s → %s", before, after)
	}

	// A deactivated user, and a member suspended in this org, cannot sign in.
	var a account.AuthResult
	w.signIn(t, &mockoidc.MockUser{Subject: "x-leaver", Email: "leaver@example.com", EmailVerified: true}).Expect(t, 200).Decode(t, &a)
	if _, err := w.env.DB.Pool.Exec(context.Background(), `UPDATE users SET active = false WHERE id = $1`, a.UserID); err != nil {
		t.Fatal(err)
	}
	r = w.signIn(t, &mockoidc.MockUser{Subject: "x-leaver", Email: "leaver@example.com", EmailVerified: true})
	expectRefused("deactivated user", r, r.Status, 401)
	w.signIn(t, &mockoidc.MockUser{Subject: "x-suspended", Email: "suspended@example.com", EmailVerified: true}).Expect(t, 200).Decode(t, &a)
	if _, err := w.env.DB.Pool.Exec(context.Background(), `UPDATE memberships SET suspended_at = now() WHERE user_id = $1`, a.UserID); err != nil {
		t.Fatal(err)
	}
	r = w.signIn(t, &mockoidc.MockUser{Subject: "x-suspended", Email: "suspended@example.com", EmailVerified: true})
	expectRefused("suspended member", r, r.Status, 401)
}
