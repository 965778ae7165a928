package scim_test

import (
	"slices"
	"testing"

	"tracker/domain/scim"
)

func memberValues(g map[string]any) []string {
	var out []string
	ms, _ := g["members"].([]any)
	for _, m := range ms {
		out = append(out, m.(map[string]any)["value"].(string))
	}
	slices.Sort(out)
	return out
}

func sorted(ids ...string) []string { slices.Sort(ids); return ids }

// TestGroups follows the Okta and Entra group cases: create with members,
// filter by displayName and members.value, excludedAttributes=members,
// PATCH adding and removing members in one request (members[value eq]
// paths and Entra's value arrays), rename, PUT, duplicate, DELETE.
func TestGroups(t *testing.T) {
	t.Parallel()
	w := setup(t)
	a := w.create(t, "a@corp.test")["id"].(string)
	b := w.create(t, "b@corp.test")["id"].(string)
	c := w.create(t, "c@corp.test")["id"].(string)
	r := w.do(t, 201, "POST", "/scim/v2/Groups", map[string]any{"schemas": []string{scim.GroupSchema}, "displayName": "Engineering",
		"externalId": "grp-1", "members": []map[string]any{{"value": a}, {"value": b}}})
	g := r.Body
	id := g["id"].(string)
	meta := g["meta"].(map[string]any)
	if g["displayName"] != "Engineering" || g["externalId"] != "grp-1" || !slices.Equal(memberValues(g), sorted(a, b)) ||
		meta["resourceType"] != "Group" || meta["location"] != "http://tracker.test/scim/v2/Groups/"+id || r.Header.Get("ETag") == "" {
		t.Fatalf("created %v", g)
	}
	// The group is a team of the org.
	if w.scalar(t, `SELECT count(*) FROM teams WHERE id = $1 AND org_id = $2 AND name = 'Engineering'`, id, w.owner.OrgID) != 1 ||
		w.scalar(t, `SELECT count(*) FROM team_members WHERE team_id = $1`, id) != 2 {
		t.Fatal("not a team with two members")
	}
	scimError(t, w.scimDo(t, "POST", "/scim/v2/Groups", w.token, map[string]any{"displayName": "engineering"}), 409, "uniqueness")
	scimError(t, w.scimDo(t, "POST", "/scim/v2/Groups", w.token, map[string]any{"displayName": "X", "members": []map[string]any{{"value": w.owner2.ID.String()}}}), 400, "invalidValue")
	scimError(t, w.scimDo(t, "POST", "/scim/v2/Groups", w.token, map[string]any{"members": []map[string]any{}}), 400, "invalidValue")
	// Filters; Entra lists groups without members.
	l := w.do(t, 200, "GET", "/scim/v2/Groups?"+filterQ(`displayName eq "ENGINEERING"`)+"&excludedAttributes=members", nil).Body
	res := l["Resources"].([]any)
	if l["totalResults"].(float64) != 1 || res[0].(map[string]any)["members"] != nil || res[0].(map[string]any)["displayName"] != "Engineering" {
		t.Fatalf("filter + excludedAttributes %v", l)
	}
	l = w.do(t, 200, "GET", "/scim/v2/Groups?"+filterQ(`members.value eq "`+b+`"`), nil).Body
	if l["totalResults"].(float64) != 1 {
		t.Fatalf("members.value filter %v", l)
	}
	l = w.do(t, 200, "GET", "/scim/v2/Groups?"+filterQ(`members[value eq "`+c+`"]`), nil).Body
	if l["totalResults"].(float64) != 0 {
		t.Fatalf("members[value eq] filter %v", l)
	}
	// Entra's membership check.
	l = w.do(t, 200, "GET", "/scim/v2/Groups?"+filterQ(`id eq "`+id+`" and members[value eq "`+a+`"]`)+"&excludedAttributes=members", nil).Body
	if l["totalResults"].(float64) != 1 {
		t.Fatalf("membership check %v", l)
	}
	one := w.do(t, 200, "GET", "/scim/v2/Groups/"+id+"?excludedAttributes=members", nil).Body
	if one["members"] != nil || one["id"] != id {
		t.Fatalf("get excluded %v", one)
	}
	patch := func(ops ...map[string]any) map[string]any {
		return w.do(t, 200, "PATCH", "/scim/v2/Groups/"+id, map[string]any{"schemas": []string{scim.PatchSchema}, "Operations": ops}).Body
	}
	// Okta: add c and remove a in one request.
	g = patch(map[string]any{"op": "add", "path": "members", "value": []map[string]any{{"value": c, "display": "c"}}},
		map[string]any{"op": "remove", "path": `members[value eq "` + a + `"]`})
	if !slices.Equal(memberValues(g), sorted(b, c)) {
		t.Fatalf("okta add/remove %v", memberValues(g))
	}
	// Entra: "Add"/"Remove" with value arrays, and a rename.
	g = patch(map[string]any{"op": "Add", "path": "members", "value": []map[string]any{{"value": a}}},
		map[string]any{"op": "Remove", "path": "members", "value": []map[string]any{{"value": b}, {"value": c}}},
		map[string]any{"op": "Replace", "path": "displayName", "value": "Platform"})
	if !slices.Equal(memberValues(g), []string{a}) || g["displayName"] != "Platform" {
		t.Fatalf("entra add/remove %v", g)
	}
	// Path-less replace (Okta's rename); members replaced wholesale.
	g = patch(map[string]any{"op": "replace", "value": map[string]any{"id": id, "displayName": "Platform Team"}},
		map[string]any{"op": "replace", "path": "members", "value": []map[string]any{{"value": b}, {"value": c}}})
	if !slices.Equal(memberValues(g), sorted(b, c)) || g["displayName"] != "Platform Team" {
		t.Fatalf("replace %v", g)
	}
	g = patch(map[string]any{"op": "remove", "path": "members"})
	if len(memberValues(g)) != 0 {
		t.Fatalf("remove all %v", g)
	}
	// PUT replaces name and members.
	g = w.do(t, 200, "PUT", "/scim/v2/Groups/"+id, map[string]any{"schemas": []string{scim.GroupSchema}, "displayName": "Platform Team",
		"members": []map[string]any{{"value": a}}}).Body
	if !slices.Equal(memberValues(g), []string{a}) || g["externalId"] != nil {
		t.Fatalf("put %v", g)
	}
	// The same PUT again changes nothing: no audit row, same version.
	audits := w.scalar(t, `SELECT count(*) FROM audit_log WHERE entity_id = $1`, id)
	same := w.do(t, 200, "PUT", "/scim/v2/Groups/"+id, map[string]any{"displayName": "Platform Team", "members": []map[string]any{{"value": a}}}).Body
	if w.scalar(t, `SELECT count(*) FROM audit_log WHERE entity_id = $1`, id) != audits ||
		same["meta"].(map[string]any)["version"] != g["meta"].(map[string]any)["version"] ||
		same["meta"].(map[string]any)["lastModified"] != g["meta"].(map[string]any)["lastModified"] {
		t.Fatalf("a no-op PUT changed something: %v vs %v", same["meta"], g["meta"])
	}
	// If-Match with a stale version: 412 and nothing changed.
	stale := meta["version"].(string)
	req := map[string]any{"Operations": []map[string]any{{"op": "replace", "path": "displayName", "value": "x"}}}
	if r := w.scimDoIfMatch(t, "PATCH", "/scim/v2/Groups/"+id, stale, req); r.Status != 412 {
		t.Fatalf("stale If-Match: %d %s", r.Status, r.Raw)
	}
	if r := w.scimDoIfMatch(t, "PATCH", "/scim/v2/Groups/"+id, g["meta"].(map[string]any)["version"].(string), req); r.Status != 200 {
		t.Fatalf("current If-Match: %d %s", r.Status, r.Raw)
	}
	if n := w.scalar(t, `SELECT count(*) FROM audit_log WHERE entity_id = $1 AND actor_id = $2`, id, w.tokenID); n < 8 {
		t.Fatalf("%d audit rows", n)
	}
	if r := w.scimDoIfMatch(t, "DELETE", "/scim/v2/Groups/"+id, stale, nil); r.Status != 412 {
		t.Fatalf("stale If-Match on DELETE: %d %s", r.Status, r.Raw)
	}
	w.do(t, 204, "DELETE", "/scim/v2/Groups/"+id, nil)
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Groups/"+id, w.token, nil), 404, "")
	if w.scalar(t, `SELECT count(*) FROM team_members WHERE team_id = $1`, id) != 0 {
		t.Fatal("members left")
	}
}

// TestDiscovery: ServiceProviderConfig, Schemas and ResourceTypes.
func TestDiscovery(t *testing.T) {
	t.Parallel()
	w := setup(t)
	sp := w.do(t, 200, "GET", "/scim/v2/ServiceProviderConfig", nil).Body
	if sp["patch"].(map[string]any)["supported"] != true || sp["filter"].(map[string]any)["supported"] != true ||
		sp["bulk"].(map[string]any)["supported"] != false || sp["authenticationSchemes"].([]any)[0].(map[string]any)["type"] != "oauthbearertoken" {
		t.Fatalf("sp config %v", sp)
	}
	rt := w.do(t, 200, "GET", "/scim/v2/ResourceTypes", nil).Body
	if rt["totalResults"].(float64) != 2 {
		t.Fatalf("resource types %v", rt)
	}
	if u := w.do(t, 200, "GET", "/scim/v2/ResourceTypes/User", nil).Body; u["endpoint"] != "/Users" || u["schema"] != scim.UserSchema {
		t.Fatalf("User type %v", u)
	}
	sc := w.do(t, 200, "GET", "/scim/v2/Schemas", nil).Body
	if sc["totalResults"].(float64) != 2 {
		t.Fatalf("schemas %v", sc)
	}
	if g := w.do(t, 200, "GET", "/scim/v2/Schemas/"+scim.GroupSchema, nil).Body; g["name"] != "Group" || len(g["attributes"].([]any)) != 3 {
		t.Fatalf("group schema %v", g)
	}
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Schemas/urn:nope", w.token, nil), 404, "")
	scimError(t, w.scimDo(t, "GET", "/scim/v2/Nothing", w.token, nil), 404, "")
	scimError(t, w.scimDo(t, "POST", "/scim/v2/ServiceProviderConfig", w.token, map[string]any{}), 404, "")
}
