package scim_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"tracker/api/apitest"
	"tracker/domain/sso"
)

// verifyDomain adds domain to owner's org and proves it through the DNS
// server, as the domain's owner would.
func (w *world) verifyDomain(t *testing.T, owner apitest.User, domain string) {
	t.Helper()
	base := "/api/v1/orgs/" + owner.OrgID.String() + "/domains"
	var d sso.Domain
	w.env.Do("POST", base, owner.Token, map[string]any{"domain": domain}).Expect(t, 201).Decode(t, &d)
	w.dns.SetTXT(d.RecordName, d.RecordText)
	w.env.Do("POST", base+"/"+domain+"/verify", owner.Token, nil).Expect(t, 200)
}

// TestSCIMEnrollsNoOneElse: an org's SCIM token cannot pull a person who
// has an account (registered on their own, or a member of another org)
// into its org: 409 uniqueness, no membership, nothing about them shown;
// once the org has verified the email's domain, it can.
func TestSCIMEnrollsNoOneElse(t *testing.T) {
	t.Parallel()
	w := setup(t)
	alice := w.env.Register("Alice")
	bob := w.env.Member(w.owner2, "member")
	for _, p := range []apitest.User{alice, bob} {
		r := w.scimDo(t, "POST", "/scim/v2/Users", w.token, newUser(p.Email, "Stolen", "Name"))
		scimError(t, r, 409, "uniqueness")
		if strings.Contains(string(r.Raw), p.ID.String()) {
			t.Fatalf("the refusal shows the account: %s", r.Raw)
		}
		if n := w.scalar(t, `SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2`, w.owner.OrgID, p.ID); n != 0 {
			t.Fatalf("%s enrolled", p.Email)
		}
		if n := w.scalar(t, `SELECT count(*) FROM users WHERE id = $1 AND display_name = 'Stolen Name'`, p.ID); n != 0 {
			t.Fatal("the account was renamed")
		}
	}
	w.verifyDomain(t, w.owner, "example.test")
	w.do(t, 201, "POST", "/scim/v2/Users", newUser(alice.Email, "Alice", "Linked"))
	if n := w.scalar(t, `SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2 AND sso_only`, w.owner.OrgID, alice.ID); n != 1 {
		t.Fatal("a verified domain's person is not linked, or linked within a password's reach")
	}
}

// TestProvisionedAccountIsClaimable: a person SCIM provisioned, who has
// never signed in, registers with their email: the registration claims the
// account (same id, a password, a personal org) instead of 409, and reaches
// nothing of the org with that password; the org's sign-on still reaches
// it. Once the person has signed in by SSO, the account is no longer
// claimable.
func TestProvisionedAccountIsClaimable(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := "/api/v1/orgs/" + w.owner.OrgID.String() + "/members"
	dave := w.create(t, "dave@corp.test")
	var reg struct {
		UserID      string `json:"user_id"`
		AccessToken string `json:"access_token"`
	}
	w.env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "Dave@corp.test", "password": "password-123",
		"display_name": "Dave"}).Expect(t, 201).Decode(t, &reg)
	if reg.UserID != dave["id"] {
		t.Fatalf("registration made %s, want the provisioned %s", reg.UserID, dave["id"])
	}
	w.env.Do("GET", org, reg.AccessToken, nil).Expect(t, 404)
	var orgs struct{ Items []struct{ ID string } }
	w.env.Do("GET", "/api/v1/orgs", reg.AccessToken, nil).Expect(t, 200).Decode(t, &orgs)
	if len(orgs.Items) != 1 || orgs.Items[0].ID == w.owner.OrgID.String() {
		t.Fatalf("the claimer lists %v", orgs.Items)
	}
	// A second registration does not claim it again.
	w.env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "dave@corp.test", "password": "password-456",
		"display_name": "Dave again"}).Expect(t, 409)
	// SCIM still sees Dave active in the org, and the org's sign-on reaches it.
	if u := w.do(t, 200, "GET", "/scim/v2/Users/"+reg.UserID, nil).Body; u["active"] != true {
		t.Fatalf("scim user %v", u)
	}
	auth := w.signIn(t, "sub-dave", "dave@corp.test")
	if auth["user_id"] != reg.UserID {
		t.Fatalf("sign-in found %v", auth["user_id"])
	}
	w.env.Do("GET", org, auth["access_token"].(string), nil).Expect(t, 200)

	// Signed in by SSO first: the account is in use, not claimable.
	erin := w.create(t, "erin@corp.test")
	w.signIn(t, "sub-erin", "erin@corp.test")
	w.env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "erin@corp.test", "password": "password-123",
		"display_name": "Squatter"}).Expect(t, 409)
	if n := w.scalar(t, `SELECT count(*) FROM users WHERE id = $1 AND password_hash IS NULL`, erin["id"]); n != 1 {
		t.Fatal("a signed-in account got a password")
	}
}

// TestSCIMLastOwnerRace: two concurrent deactivations of an org's two
// Owners cannot both succeed. Both requests are held at the same row locks
// (a transaction of the test holds the Owners' memberships) and released
// together, so without a per-org lock both would see the other Owner
// still active.
func TestSCIMLastOwnerRace(t *testing.T) {
	t.Parallel()
	w := setup(t)
	second := w.env.Register("Second Owner")
	w.env.AddMember(w.owner, w.owner.OrgID, second, "owner")
	ctx := context.Background()
	hold, err := w.env.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = hold.Rollback(ctx) }()
	if _, err := hold.Exec(ctx, `SELECT 1 FROM memberships WHERE org_id = $1 AND role = 'owner' FOR UPDATE`, w.owner.OrgID); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]resp, 2)
	for i, id := range []string{w.owner.ID.String(), second.ID.String()} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = w.scimDo(t, "PATCH", "/scim/v2/Users/"+id, w.token, map[string]any{"Operations": []map[string]any{
				{"op": "replace", "path": "active", "value": false}}})
		}()
	}
	// Both requests are waiting on the held rows before they are let go.
	for waiting := 0; waiting < 2; {
		if err := w.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`, hold.Conn().PgConn().PID()).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}
	if err := hold.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	ok := 0
	for _, r := range results {
		switch r.Status {
		case 200:
			ok++
		case 400:
			scimError(t, r, 400, "mutability")
		default:
			t.Fatalf("status %d: %s", r.Status, r.Raw)
		}
	}
	if ok != 1 {
		t.Fatalf("%d deactivations succeeded, want 1", ok)
	}
	if n := w.scalar(t, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'owner' AND suspended_at IS NULL`, w.owner.OrgID); n != 1 {
		t.Fatalf("%d active Owners left, want 1", n)
	}
}

// TestLastActiveOwnerAcrossPaths: an Owner SCIM deactivated cannot act, so
// the REST member routes count only active Owners: the other Owner can
// neither leave nor be demoted.
func TestLastActiveOwnerAcrossPaths(t *testing.T) {
	t.Parallel()
	w := setup(t)
	second := w.env.Register("Second Owner")
	w.env.AddMember(w.owner, w.owner.OrgID, second, "owner")
	w.do(t, 200, "PATCH", "/scim/v2/Users/"+second.ID.String(), map[string]any{"Operations": []map[string]any{
		{"op": "replace", "path": "active", "value": false}}})
	members := "/api/v1/orgs/" + w.owner.OrgID.String() + "/members/" + w.owner.ID.String()
	w.env.Do("PATCH", members, w.owner.Token, map[string]any{"role": "admin"}).Expect(t, 409)
	w.env.Do("DELETE", members, w.owner.Token, nil).Expect(t, 409)
	if n := w.scalar(t, `SELECT count(*) FROM memberships WHERE org_id = $1 AND role = 'owner' AND suspended_at IS NULL`, w.owner.OrgID); n != 1 {
		t.Fatalf("%d active Owners", n)
	}
}

// TestFilterErrorIsPlain: a filter that does not parse is 400
// invalidFilter with a plain message: valid UTF-8, no parser internals.
func TestFilterErrorIsPlain(t *testing.T) {
	t.Parallel()
	w := setup(t)
	for _, f := range []string{`userName eq "a" and x`, `userName eq`, `(userName eq "a"`, `userName eq "é`, `userName ¤ "a"`, `userName eq "a" or`} {
		r := w.scimDo(t, "GET", "/scim/v2/Users?"+filterQ(f), w.token, nil)
		scimError(t, r, 400, "invalidFilter")
		detail, _ := r.Body["detail"].(string)
		if !utf8.ValidString(detail) || strings.ContainsRune(detail, utf8.RuneError) || strings.Contains(detail, "expected") ||
			strings.Contains(detail, "int32") || !strings.Contains(detail, "SCIM filter syntax") {
			t.Errorf("filter %q: detail %q", f, detail)
		}
	}
}
