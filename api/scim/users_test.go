package scim_test

import (
	"fmt"
	"strings"
	"testing"

	"tracker/api/apitest"
	"tracker/domain/scim"
)

// TestOktaUserPlan follows the Okta SCIM 2.0 test plan (Users): list with
// paging, userName eq for an unknown and a known user, create, duplicate,
// get by id, unknown id, update, deactivate and reactivate in Okta's shape.
func TestOktaUserPlan(t *testing.T) {
	t.Parallel()
	w := setup(t)
	// Required test: the owner, a member since before SCIM, is a user.
	l := w.do(t, 200, "GET", "/scim/v2/Users?count=1&startIndex=1", nil).Body
	if l["schemas"].([]any)[0] != scim.ListSchema || l["totalResults"].(float64) != 1 || l["startIndex"].(float64) != 1 ||
		l["itemsPerPage"].(float64) != 1 || len(l["Resources"].([]any)) != 1 {
		t.Fatalf("list %v", l)
	}
	// Unknown userName: totalResults 0, an empty Resources.
	l = w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(`userName eq "nobody@example.test"`)+"&startIndex=1&count=100", nil).Body
	if l["totalResults"].(float64) != 0 || len(l["Resources"].([]any)) != 0 {
		t.Fatalf("unknown user %v", l)
	}
	// Create: 201, active, the attributes sent, meta.
	r := w.do(t, 201, "POST", "/scim/v2/Users", newUser("Okta.Person@Example.test", "Okta", "Person"))
	u := r.Body
	id := u["id"].(string)
	if u["active"] != true || u["userName"] != "Okta.Person@Example.test" || u["externalId"] != "ext-Okta.Person@Example.test" ||
		u["name"].(map[string]any)["givenName"] != "Okta" || u["displayName"] != "Okta Person" {
		t.Fatalf("created %v", u)
	}
	meta := u["meta"].(map[string]any)
	if meta["resourceType"] != "User" || meta["location"] != "http://tracker.test/scim/v2/Users/"+id || meta["created"] == nil ||
		meta["lastModified"] == nil || !strings.HasPrefix(meta["version"].(string), `W/"`) {
		t.Fatalf("meta %v", meta)
	}
	if r.Header.Get("Location") != meta["location"] || r.Header.Get("ETag") != meta["version"] {
		t.Fatalf("headers %v", r.Header)
	}
	// userName eq, another case: found.
	l = w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(`userName eq "okta.person@example.TEST"`), nil).Body
	if l["totalResults"].(float64) != 1 || l["Resources"].([]any)[0].(map[string]any)["id"] != id {
		t.Fatalf("case-insensitive userName %v", l)
	}
	// Duplicate (any case): 409 uniqueness.
	scimError(t, w.scimDo(t, "POST", "/scim/v2/Users", w.token, newUser("OKTA.person@example.test", "A", "B")), 409, "uniqueness")
	// Get by id; unknown id and a malformed one: 404 SCIM error.
	got := w.do(t, 200, "GET", "/scim/v2/Users/"+id, nil).Body
	if got["userName"] != "Okta.Person@Example.test" {
		t.Fatalf("get %v", got)
	}
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Users/0191e0a8-8d1a-7cc4-9a51-8b3b2d6d4c01", w.token, nil), 404, "")
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Users/not-an-id", w.token, nil), 404, "")
	// Update (PUT, Okta sends the whole user).
	put := newUser("Okta.Person@Example.test", "Okta", "Renamed")
	put["id"] = id
	u = w.do(t, 200, "PUT", "/scim/v2/Users/"+id, put).Body
	if u["name"].(map[string]any)["familyName"] != "Renamed" || u["displayName"] != "Okta Renamed" || u["active"] != true {
		t.Fatalf("put %v", u)
	}
	// Okta's deactivation: replace without a path.
	u = w.do(t, 200, "PATCH", "/scim/v2/Users/"+id, map[string]any{"schemas": []string{scim.PatchSchema},
		"Operations": []map[string]any{{"op": "replace", "value": map[string]any{"active": false}}}}).Body
	if u["active"] != false {
		t.Fatalf("deactivated %v", u)
	}
	if w.scalar(t, `SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2 AND suspended_at IS NOT NULL`, w.owner.OrgID, id) != 1 {
		t.Fatal("membership not suspended (or not kept)")
	}
	l = w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(`active eq false`), nil).Body
	if l["totalResults"].(float64) != 1 {
		t.Fatalf("active eq false %v", l)
	}
	// Reactivation.
	u = w.do(t, 200, "PATCH", "/scim/v2/Users/"+id, map[string]any{"schemas": []string{scim.PatchSchema},
		"Operations": []map[string]any{{"op": "replace", "value": map[string]any{"active": true}}}}).Body
	if u["active"] != true {
		t.Fatalf("reactivated %v", u)
	}
	// Every change is audited with the token as actor.
	if n := w.scalar(t, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND actor_id = $2 AND entity_id = $3
		AND via->>'actor' = 'scim_token'`, w.owner.OrgID, w.tokenID, id); n < 4 {
		t.Fatalf("%d audit rows by the token", n)
	}
}

// TestEntraUserValidator follows the Microsoft Entra SCIM validator's user
// cases: externalId filter, "Replace" ops with a path and with a value
// filter, active as the string "False", path-less dotted keys, remove, and
// DELETE then GET 404.
func TestEntraUserValidator(t *testing.T) {
	t.Parallel()
	w := setup(t)
	body := map[string]any{
		"schemas":          []string{scim.UserSchema, scim.EnterpriseURN},
		"externalId":       "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
		"userName":         "Test_User_ab6490ee@contoso.test",
		"active":           true,
		"emails":           []map[string]any{{"primary": true, "type": "work", "value": "Test_User_fd0ea19b@contoso.test"}},
		"meta":             map[string]any{"resourceType": "User"},
		"name":             map[string]any{"formatted": "givenName familyName", "familyName": "familyName", "givenName": "givenName"},
		"roles":            []any{},
		scim.EnterpriseURN: map[string]any{"department": "Sales", "employeeNumber": "7"},
	}
	u := w.do(t, 201, "POST", "/scim/v2/Users", body).Body
	id := u["id"].(string)
	if u["active"] != true {
		t.Fatalf("created %v", u)
	}
	l := w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(`externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"`), nil).Body
	if l["totalResults"].(float64) != 1 {
		t.Fatalf("externalId filter %v", l)
	}
	l = w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(`emails.value eq "test_user_fd0ea19b@contoso.test"`), nil).Body
	if l["totalResults"].(float64) != 1 {
		t.Fatalf("emails.value filter %v", l)
	}
	patch := func(ops ...map[string]any) map[string]any {
		return w.do(t, 200, "PATCH", "/scim/v2/Users/"+id, map[string]any{"schemas": []string{scim.PatchSchema}, "Operations": ops}).Body
	}
	u = patch(
		map[string]any{"op": "Replace", "path": `emails[type eq "work"].value`, "value": "updated.work@contoso.test"},
		map[string]any{"op": "Replace", "path": "name.familyName", "value": "newFamily"},
		map[string]any{"op": "Add", "value": map[string]any{"displayName": "Entra Person", "name.givenName": "newGiven"}},
		map[string]any{"op": "replace", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager", "value": "x"},
		// Entra's default mappings: attributes not kept are accepted.
		map[string]any{"op": "Add", "path": `phoneNumbers[type eq "work"].value`, "value": "555"},
		map[string]any{"op": "Add", "path": `addresses[type eq "work"].formatted`, "value": "1 Main St"},
		map[string]any{"op": "Replace", "path": "title", "value": "Engineer"},
		map[string]any{"op": "Add", "value": map[string]any{"preferredLanguage": "en", scim.EnterpriseURN + ":department": "Sales"}},
	)
	emails := u["emails"].([]any)
	if len(emails) != 1 || emails[0].(map[string]any)["value"] != "updated.work@contoso.test" ||
		u["name"].(map[string]any)["familyName"] != "newFamily" || u["name"].(map[string]any)["givenName"] != "newGiven" ||
		u["displayName"] != "Entra Person" {
		t.Fatalf("patched %v", u)
	}
	// Entra's legacy deactivation: the string "False".
	u = patch(map[string]any{"op": "Replace", "path": "active", "value": "False"})
	if u["active"] != false {
		t.Fatalf("active %v", u)
	}
	u = patch(map[string]any{"op": "Replace", "path": "active", "value": "True"}, map[string]any{"op": "Remove", "path": "externalId"})
	if u["active"] != true || u["externalId"] != nil {
		t.Fatalf("reactivated %v", u)
	}
	// userName change (the person has no other org): allowed; then the
	// filter finds the new name.
	u = patch(map[string]any{"op": "replace", "path": "userName", "value": "renamed@contoso.test"})
	if u["userName"] != "renamed@contoso.test" {
		t.Fatalf("renamed %v", u)
	}
	scimError(t, w.scimDo(t, "PATCH", "/scim/v2/Users/"+id, w.token, map[string]any{"Operations": []map[string]any{{"op": "remove", "path": "userName"}}}), 400, "mutability")
	scimError(t, w.scimDo(t, "PATCH", "/scim/v2/Users/"+id, w.token, map[string]any{"Operations": []map[string]any{{"op": "replace", "path": "active", "value": "maybe"}}}), 400, "invalidValue")
	scimError(t, w.scimDo(t, "PATCH", "/scim/v2/Users/"+id, w.token, map[string]any{"Operations": []map[string]any{{"op": "move", "path": "active"}}}), 400, "invalidSyntax")
	scimError(t, w.scimDo(t, "PATCH", "/scim/v2/Users/"+id, w.token, map[string]any{"Operations": []map[string]any{{"op": "remove"}}}), 400, "noTarget")
	// DELETE: 204, then 404, gone from lists; the membership row is kept
	// (suspended) for history.
	w.do(t, 204, "DELETE", "/scim/v2/Users/"+id, nil)
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Users/"+id, w.token, nil), 404, "")
	scimError(t, w.scimDo(t, "DELETE", "/scim/v2/Users/"+id, w.token, nil), 404, "")
	l = w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(`userName eq "renamed@contoso.test"`), nil).Body
	if l["totalResults"].(float64) != 0 {
		t.Fatalf("deleted user listed %v", l)
	}
	if w.scalar(t, `SELECT count(*) FROM memberships WHERE user_id = $1 AND suspended_at IS NOT NULL`, id) != 1 {
		t.Fatal("membership not kept suspended")
	}
	// Provisioned again: the same person comes back.
	again := w.do(t, 201, "POST", "/scim/v2/Users", newUser("renamed@contoso.test", "Back", "Again")).Body
	if again["id"] != id || again["active"] != true {
		t.Fatalf("re-provisioned %v", again)
	}
}

// TestUserFilters covers the filter grammar over SQL: operators and
// attribute names in any case, and/or/not, pr, paging.
func TestUserFilters(t *testing.T) {
	t.Parallel()
	w := setup(t)
	for i := range 5 {
		w.create(t, fmt.Sprintf("filter%d@corp.test", i))
	}
	w.create(t, "other_1%@else.test")
	count := func(f string) int {
		t.Helper()
		return int(w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(f), nil).Body["totalResults"].(float64))
	}
	for f, want := range map[string]int{
		`userName sw "filter"`:    5,
		`USERNAME SW "FILTER"`:    5,
		`userName co "@corp"`:     5,
		`userName ew "else.test"`: 1,
		`userName co "1%"`:        1, // % is literal
		`userName co "_"`:         1,
		`userName eq "filter1@corp.test" or userName eq "filter2@corp.test"`:  2,
		`userName sw "filter" and externalId eq "ext-filter3@corp.test"`:      1,
		`externalId eq "EXT-filter3@corp.test"`:                               0, // externalId is case-exact
		`externalId pr`:                                                       6,
		`not (userName sw "filter")`:                                          2, // the owner too
		`displayName eq "given family"`:                                       6,
		`name.givenName eq "Given"`:                                           6,
		`emails.value co "corp.test"`:                                         5,
		`emails[value sw "filter0"]`:                                          1,
		`active eq true`:                                                      7,
		`active Eq "true"`:                                                    7,
		`(userName sw "filter0" or userName sw "filter1") and active eq true`: 2,
		`urn:ietf:params:scim:schemas:core:2.0:User:userName sw "filter"`:     5,
		`userName eq "x' OR '1'='1"`:                                          0, // values are parameters, never SQL
		`userName co "%"`:                                                     1,
	} {
		if got := count(f); got != want {
			t.Errorf("%s: %d, want %d", f, got, want)
		}
	}
	for _, f := range []string{`userName eq`, `nosuch eq "x"`, `active gt true`, `userName eq 1`, `((((`, `userName eq "x") or (`,
		`urn:other:schema:userName eq "x"`, strings.Repeat("a", 3000)} {
		scimError(t, w.scimDo(t, "GET", "/scim/v2/Users?"+filterQ(f), w.token, nil), 400, "invalidFilter")
	}
	// Paging: 1-based startIndex, count, totals over the whole filter.
	var seen []string
	for start := 1; start <= 7; start += 3 {
		l := w.do(t, 200, "GET", fmt.Sprintf("/scim/v2/Users?startIndex=%d&count=3", start), nil).Body
		if l["totalResults"].(float64) != 7 || l["startIndex"].(float64) != float64(start) {
			t.Fatalf("page %d: %v", start, l)
		}
		for _, r := range l["Resources"].([]any) {
			seen = append(seen, r.(map[string]any)["id"].(string))
		}
	}
	if len(seen) != 7 {
		t.Fatalf("paged %d users", len(seen))
	}
	l := w.do(t, 200, "GET", "/scim/v2/Users?count=0", nil).Body
	if l["totalResults"].(float64) != 7 || len(l["Resources"].([]any)) != 0 {
		t.Fatalf("count=0 %v", l)
	}
	l = w.do(t, 200, "GET", "/scim/v2/Users?startIndex=0&count=-4", nil).Body
	if l["startIndex"].(float64) != 1 {
		t.Fatalf("startIndex 0 %v", l)
	}
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Users?count=abc", w.token, nil), 400, "invalidValue")
	// attributes / excludedAttributes.
	one := w.do(t, 200, "GET", "/scim/v2/Users?attributes=userName,name.givenName&"+filterQ(`userName eq "filter0@corp.test"`), nil).Body["Resources"].([]any)[0].(map[string]any)
	if one["userName"] == nil || one["id"] == nil || one["emails"] != nil || one["name"].(map[string]any)["familyName"] != nil ||
		one["name"].(map[string]any)["givenName"] != "Given" {
		t.Fatalf("attributes %v", one)
	}
	one = w.do(t, 200, "GET", "/scim/v2/Users?excludedAttributes=emails,name&"+filterQ(`userName eq "filter0@corp.test"`), nil).Body["Resources"].([]any)[0].(map[string]any)
	if one["emails"] != nil || one["name"] != nil || one["userName"] == nil {
		t.Fatalf("excludedAttributes %v", one)
	}
}

// TestTokens: no token, a wrong one, a revoked one, SSO turned off → 401
// SCIM error; another org's token sees nothing of this org.
func TestTokens(t *testing.T) {
	t.Parallel()
	w := setup(t)
	u := w.create(t, "isolated@corp.test")
	id := u["id"].(string)
	g := w.do(t, 201, "POST", "/scim/v2/Groups", map[string]any{"displayName": "Isolated", "members": []map[string]any{{"value": id}}}).Body
	for _, tok := range []string{"", "scim_wrong", "not-a-scim-token", w.owner.Token} {
		for _, p := range []string{"/scim/v2/Users", "/scim/v2/Users/" + id, "/scim/v2/ServiceProviderConfig", "/scim/v2/nowhere"} {
			var r resp
			if p == "/scim/v2/nowhere" {
				// The token is checked before routing: a path the document
				// does not have answers 401 too, which it cannot declare.
				r = w.send(t, "GET", p, tok, "", nil, apitest.SkipContract, "an unknown path, answered before routing")
			} else {
				r = w.scimDo(t, "GET", p, tok, nil)
			}
			scimError(t, r, 401, "")
			if r.Header.Get("WWW-Authenticate") == "" {
				t.Fatal("401 without WWW-Authenticate")
			}
		}
	}
	// The other org's token: nothing of this org, by list, filter or id.
	for _, p := range []string{"/scim/v2/Users?" + filterQ(`userName eq "isolated@corp.test"`), "/scim/v2/Groups?" + filterQ(`displayName eq "Isolated"`)} {
		l := w.scimDo(t, "GET", p, w.token2, nil)
		if l.Status != 200 || l.Body["totalResults"].(float64) != 0 {
			t.Fatalf("%s with the other org's token: %s", p, l.Raw)
		}
	}
	l := w.scimDo(t, "GET", "/scim/v2/Users", w.token2, nil)
	if strings.Contains(string(l.Raw), id) || l.Body["totalResults"].(float64) != 1 {
		t.Fatalf("other org lists %s", l.Raw)
	}
	for _, m := range []string{"GET", "PUT", "PATCH", "DELETE"} {
		var body any
		if m == "PUT" || m == "PATCH" {
			body = map[string]any{"userName": "x@y.test", "displayName": "x", "Operations": []map[string]any{{"op": "replace", "value": map[string]any{"active": false}}}}
		}
		scimError(t, w.scimDo(t, m, "/scim/v2/Users/"+id, w.token2, body), 404, "")
		scimError(t, w.scimDo(t, m, "/scim/v2/Groups/"+g["id"].(string), w.token2, body), 404, "")
	}
	w.do(t, 200, "GET", "/scim/v2/Users/"+id, nil)
	// Rotating the token revokes the old one; turning SSO off revokes it.
	w.token, _ = w.connect(t, w.owner)
	w.do(t, 200, "GET", "/scim/v2/Users/"+id, nil)
	w.env.Do("DELETE", "/api/v1/orgs/"+w.owner.OrgID.String()+"/sso", w.owner.Token, nil).Expect(t, 204)
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Users", w.token, nil), 401, "")
}

// TestDeactivationEndsAccess: a person linked from another org, with a
// session and an API key in this org, loses access at once when
// deactivated, and gets it back when reactivated; nothing of theirs is lost.
func TestDeactivationEndsAccess(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := "/api/v1/orgs/" + w.owner.OrgID.String() + "/members"
	p := w.env.Register("Linked")
	// POST of a person who has an account links them once the org has
	// verified the email's domain: 201, membership with the default role,
	// their own name kept; they reach the org through its sign-on.
	w.verifyDomain(t, w.owner, "example.test")
	u := w.do(t, 201, "POST", "/scim/v2/Users", newUser(strings.ToUpper(p.Email), "Other", "Name")).Body
	id := u["id"].(string)
	if id != p.ID.String() || u["userName"] != p.Email || u["displayName"] != "Linked" {
		t.Fatalf("linked %v", u)
	}
	w.env.Do("GET", org, p.Token, nil).Expect(t, 404) // a password reaches no membership the provider made
	signedIn := w.signIn(t, "sub-linked", p.Email)
	session := signedIn["access_token"].(string)
	w.env.Do("GET", org, session, nil).Expect(t, 200)
	var k struct{ Key string }
	w.env.Do("POST", "/api/v1/api-keys", session, map[string]any{"name": "k", "scopes": []string{"read"}}).Expect(t, 201).Decode(t, &k)
	key := k.Key
	w.env.Do("GET", org, key, nil).Expect(t, 200)
	// A linked person's userName is not this provider's to change.
	scimError(t, w.scimDo(t, "PATCH", "/scim/v2/Users/"+id, w.token, map[string]any{"Operations": []map[string]any{
		{"op": "replace", "path": "userName", "value": "stolen@corp.test"}}}), 400, "mutability")
	// Deactivate (Okta shape).
	w.do(t, 200, "PATCH", "/scim/v2/Users/"+id, map[string]any{"Operations": []map[string]any{{"op": "replace", "value": map[string]any{"active": false}}}})
	w.env.Do("GET", org, session, nil).Expect(t, 404)
	w.env.Do("GET", org, key, nil).Expect(t, 401)
	w.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": signedIn["refresh_token"]}).Expect(t, 401)
	// Their own org still works: the password session and its refresh token live.
	w.env.Do("GET", "/api/v1/orgs/"+p.OrgID.String()+"/members", p.Token, nil).Expect(t, 200)
	w.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": p.Refresh}).Expect(t, 200)
	// Reactivate (Entra shape): access is back (the key stays revoked).
	w.do(t, 200, "PATCH", "/scim/v2/Users/"+id, map[string]any{"Operations": []map[string]any{{"op": "Replace", "path": "active", "value": "True"}}})
	w.env.Do("GET", org, session, nil).Expect(t, 200)
	w.env.Do("GET", org, key, nil).Expect(t, 401)

	// A person who only exists through this org: signed in by SSO, then
	// deactivated: the refresh token dies too; SSO sign-in is refused.
	s := w.do(t, 201, "POST", "/scim/v2/Users", newUser("sso.only@example.com", "Sso", "Only")).Body
	auth := w.signIn(t, "sub-sso-only", "sso.only@example.com")
	if auth["user_id"] != s["id"] {
		t.Fatalf("sign-in found %v, want %v", auth["user_id"], s["id"])
	}
	tok := auth["access_token"].(string)
	w.env.Do("GET", org, tok, nil).Expect(t, 200)
	w.do(t, 204, "DELETE", "/scim/v2/Users/"+s["id"].(string), nil)
	w.env.Do("GET", org, tok, nil).Expect(t, 404)
	w.env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": auth["refresh_token"]}).Expect(t, 401)
	if n := w.scalar(t, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND entity_id = $2 AND action = 'scim_deleted'`, w.owner.OrgID, s["id"]); n != 1 {
		t.Fatalf("%d scim_deleted audit rows", n)
	}
	// The last active Owner cannot be deactivated.
	scimError(t, w.scimDo(t, "PATCH", "/scim/v2/Users/"+w.owner.ID.String(), w.token, map[string]any{"Operations": []map[string]any{
		{"op": "replace", "path": "active", "value": false}}}), 400, "mutability")
}

// A number no double holds is refused as invalid syntax, as on every other
// route, even in an attribute the service ignores: the user is not created.
func TestHugeNumberRefused(t *testing.T) {
	t.Parallel()
	w := setup(t)
	r := w.scimDo(t, "POST", "/scim/v2/Users", w.token, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
		"userName":"huge@corp.test","x-score":1e400}`)
	scimError(t, r, 400, "invalidSyntax")
	if w.scalar(t, `SELECT count(*) FROM users WHERE email = 'huge@corp.test'`) != 0 {
		t.Fatal("the user was created")
	}
}

// TestHostileBodies: malformed bodies are 4xx SCIM errors, never 5xx.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.create(t, "hostile@corp.test")["id"].(string)
	bodies := []string{"", "{", "[]", "null", `"x"`, `{"userName": "a\u0000b@x.test"}`, "{\"userName\": \"\xff@x.test\"}",
		`{"userName": 5}`, `{"userName": "not-an-email"}`, `{"userName": "` + strings.Repeat("a", 400) + `@x.test"}`,
		`{"Operations": "x"}`, `{"Operations": [1]}`, `{"Operations": [{"op": "add", "path": "emails[type eq", "value": 1}]}`,
		`{"Operations": [{"op": "add", "path": 7}]}`, `{"Operations": [{"op": "replace", "value": 3}]}`,
		`{"Operations": [{"op": "replace", "path": "emails[type eq \"work\"].nope", "value": 1}]}`,
		`{"displayName": ["x"], "members": [{"value": "nobody"}]}`, `{"displayName": "x", "members": "y"}`,
		`{"emails": [{"value": 1}]}`, `{"name": "x", "userName": "n@x.test"}`, strings.Repeat("[", 10000)}
	for _, b := range bodies {
		for _, rt := range []struct{ m, p string }{{"POST", "/scim/v2/Users"}, {"PUT", "/scim/v2/Users/" + id}, {"PATCH", "/scim/v2/Users/" + id},
			{"POST", "/scim/v2/Groups"}} {
			r := w.scimDo(t, rt.m, rt.p, w.token, b)
			if r.Status >= 500 || (r.Status >= 300 && r.Body["schemas"] == nil) {
				t.Errorf("%s %s %.60q: %d %s", rt.m, rt.p, b, r.Status, r.Raw)
			}
		}
	}
}

// A SCIM body that names an attribute twice, in the same case or another
// (SCIM's names are case-insensitive: userName and USERNAME are one
// attribute, and which one a reader keeps is anyone's guess) is a 400
// invalidSyntax; nothing is created or changed.
func TestDuplicateAttributeNames(t *testing.T) {
	t.Parallel()
	w := setup(t)
	id := w.do(t, 201, "POST", "/scim/v2/Users", newUser("dup.names@example.test", "Dup", "Names")).Body["id"].(string)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"a@example.test","USERNAME":"b@example.test"}`},
		{"POST", "/scim/v2/Users", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"a@example.test","userName":"b@example.test"}`},
		{"PATCH", "/scim/v2/Users/" + id, `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"active","value":false,"VALUE":true}]}`},
		{"PUT", "/scim/v2/Users/" + id, `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"dup.names@example.test","active":true,"Active":false}`},
		{"POST", "/scim/v2/Groups", `{"schemas":["urn:ietf:params:scim:schemas:core:2.0:Group"],"displayName":"a","displayname":"b"}`},
	} {
		scimError(t, w.scimDo(t, c.method, c.path, w.token, c.body), 400, "invalidSyntax")
	}
	u := w.do(t, 200, "GET", "/scim/v2/Users/"+id, nil).Body
	if u["active"] != true {
		t.Fatalf("changed by a refused body: %v", u)
	}
	if l := w.do(t, 200, "GET", "/scim/v2/Users?"+filterQ(`userName eq "a@example.test"`), nil).Body; l["totalResults"].(float64) != 0 {
		t.Fatalf("created by a refused body: %v", l)
	}
}
