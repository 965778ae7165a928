package main

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/scim"
	"tracker/domain/testfactory"
)

// scimToken connects an org to an identity provider (the configuration row
// as PUT /sso writes it; discovery is TestSSO's business) and issues its
// SCIM token through the API.
func (f *tenantFixture) scimToken(t *testing.T, owner apitest.User, orgID uuid.UUID) string {
	t.Helper()
	testfactory.SSOConfig(t, f.env.DB, orgID)
	var tok struct{ Token string }
	f.env.Do("POST", "/api/v1/orgs/"+orgID.String()+"/sso/scim-token", owner.Token, nil).Expect(t, 201).Decode(t, &tok)
	return tok.Token
}

// fillSCIM puts org A's ids into a SCIM route pattern.
func (f *tenantFixture) fillSCIM(path string) string {
	path = strings.Replace(path, "/Users/:id", "/Users/"+f.owner.ID.String(), 1)
	path = strings.Replace(path, "/Groups/:id", "/Groups/"+f.team.String(), 1)
	path = strings.Replace(path, "/ResourceTypes/:name", "/ResourceTypes/User", 1)
	return strings.Replace(path, "/Schemas/:id", "/Schemas/"+scim.UserSchema, 1)
}

func isSCIMError(res apitest.Resp, status int) bool {
	var e struct {
		Schemas []string `json:"schemas"`
		Status  string   `json:"status"`
	}
	_ = json.Unmarshal(res.Body, &e)
	return res.Status == status && len(e.Schemas) == 1 && e.Schemas[0] == "urn:ietf:params:scim:api:messages:2.0:Error" &&
		e.Status == strconv.Itoa(status) && strings.HasPrefix(res.Header.Get("Content-Type"), "application/scim+json")
}

// TestSCIMRoutesWalk walks every route under /scim/v2/: without a token,
// with a wrong one, with a person's access token and with a revoked token
// → 401 SCIM error; with another org's token → 404 for org A's users and
// groups and nothing of org A in lists; none of it changes org A. Then
// hostile input with org A's own token → 4xx SCIM errors, never a 5xx.
func TestSCIMRoutesWalk(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	own := f.scimToken(t, f.owner, f.org)
	// Issuing again revokes the first token.
	revoked := own
	var rotated struct{ Token string }
	f.env.Do("POST", "/api/v1/orgs/"+f.org.String()+"/sso/scim-token", f.owner.Token, nil).Expect(t, 201).Decode(t, &rotated)
	own = rotated.Token
	other := f.scimToken(t, f.outsider, f.outsider.OrgID)
	before := f.snapshot(t)
	walked := 0
	var routes [][2]string
	for _, r := range f.env.App.GetRoutes(true) {
		if r.Method == "HEAD" || !strings.HasPrefix(r.Path, "/scim/v2/") {
			continue
		}
		routes = append(routes, [2]string{r.Method, r.Path})
	}
	for _, r := range routes {
		method, pattern := r[0], r[1]
		walked++
		path := f.fillSCIM(pattern)
		var body any
		if method != "GET" && method != "DELETE" {
			body = map[string]any{"userName": "walk@example.test", "displayName": "Walk",
				"Operations": []map[string]any{{"op": "replace", "value": map[string]any{"active": false}}}}
		}
		t.Run(method+" "+pattern, func(t *testing.T) {
			for name, tok := range map[string]string{"absent": "", "wrong": "scim_" + strings.Repeat("x", 43),
				"access token": f.owner.Token, "revoked": revoked, "API key": f.env.APIKeyIn(f.owner, f.org, []string{"admin"})} {
				res := f.env.Do(method, path, tok, body)
				if !isSCIMError(res, 401) {
					t.Errorf("%s token: %d %s", name, res.Status, res.Body)
				}
			}
			res := f.env.Do(method, path, other, body)
			switch {
			case strings.Contains(pattern, "/Users/:id"), strings.Contains(pattern, "/Groups/:id"):
				if !isSCIMError(res, 404) {
					t.Errorf("other org's token: %d %s", res.Status, res.Body)
				}
			case method == "GET":
				if res.Status != 200 {
					t.Errorf("other org's token: %d %s", res.Status, res.Body)
				}
			default: // POST /Users, /Groups: the other org's own business
				if res.Status >= 500 {
					t.Errorf("other org's token: %d %s", res.Status, res.Body)
				}
			}
			if s := leaks(res.Body); s != "" || strings.Contains(string(res.Body), f.owner.ID.String()) {
				t.Errorf("leaked %q: %s", s, res.Body)
			}
		})
	}
	if walked < 17 {
		t.Fatalf("walked only %d SCIM routes", walked)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}

	// Hostile input with org A's own token: never a 5xx; refusals are
	// SCIM errors. DELETE gets hostile paths only (a valid one deletes).
	bodies := f.hostileBodies()
	for _, r := range routes {
		method, pattern := r[0], r[1]
		base := f.fillSCIM(pattern)
		t.Run("hostile "+method+" "+pattern, func(t *testing.T) {
			check := func(name, path string, body any) {
				res := f.env.Do(method, path, own, body)
				if res.Status >= 500 || (res.Status >= 400 && !isSCIMError(res, res.Status)) {
					t.Errorf("%s %s: %d %.300s", name, path, res.Status, res.Body)
				}
			}
			if method != "DELETE" {
				for _, q := range append(hostileQueries, "?filter="+url.QueryEscape(strings.Repeat("(", 1000)), "?filter=%00",
					"?filter="+url.QueryEscape(`userName eq "`+strings.Repeat("x", 3000)+`"`), "?startIndex=-99999999999999999999",
					"?count=99999999999", "?attributes=%FF", "?excludedAttributes="+strings.Repeat("a,", 700)) {
					check("query", base+q, nil)
				}
			}
			for _, v := range []string{"%00", "%FF", "x%00y", strings.Repeat("9", 300), "..%2F..%2Fapi"} {
				p := strings.ReplaceAll(strings.ReplaceAll(base, f.owner.ID.String(), v), f.team.String(), v)
				if p != base {
					check("path", p, nil)
				}
			}
			if method == "GET" || method == "DELETE" {
				return
			}
			for name, b := range bodies {
				check(name, base, b)
			}
			// An attribute named twice, in any case (SCIM's names are
			// case-insensitive), is invalidSyntax on every route with a
			// body, and changes nothing.
			for _, b := range []string{
				`{"schemas":[],"userName":"a@example.test","USERNAME":"b@example.test","displayName":"x","Operations":[]}`,
				`{"schemas":[],"displayName":"x","displayName":"y","members":[],"Operations":[{"op":"replace","OP":"add"}]}`,
			} {
				before := f.snapshot(t)
				res := f.env.Do(method, base, own, b)
				if res.Status != 400 || !isSCIMError(res, 400) || !strings.Contains(string(res.Body), "invalidSyntax") {
					t.Errorf("duplicate names %s: %d %.300s", b, res.Status, res.Body)
				}
				if after := f.snapshot(t); after != before {
					t.Errorf("duplicate names %s changed org A", b)
				}
			}
		})
	}
}

// TestSCIMDeactivationKeepsWork: deactivating (then deleting) the person who
// made everything in org A ends their access to it at once and loses
// nothing of their tickets, comments, time entries or attachments;
// reactivation gives the access back.
func TestSCIMDeactivationKeepsWork(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	tok := f.scimToken(t, f.owner, f.org)
	second := f.env.Register("Second Owner")
	f.env.AddMember(f.owner, f.org, second, "owner")
	key := f.env.APIKeyIn(f.owner, f.org, []string{"read"})
	work := func() string {
		var out string
		if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT concat_ws(',',
			(SELECT count(*) FROM tickets WHERE org_id = $1 AND reporter_id = $2 AND deleted_at IS NULL),
			(SELECT count(*) FROM comments WHERE org_id = $1 AND author_id = $2),
			(SELECT count(*) FROM time_entries WHERE org_id = $1 AND user_id = $2),
			(SELECT count(*) FROM attachments WHERE org_id = $1),
			(SELECT count(*) FROM team_members WHERE org_id = $1 AND user_id = $2),
			(SELECT count(*) FROM memberships WHERE org_id = $1 AND user_id = $2))`, f.org, f.owner.ID).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := work()
	if before != "1,1,1,1,1,1" {
		t.Fatalf("fixture work %s", before)
	}
	ticket := "/api/v1/tickets/" + f.ticket.String()
	f.env.Do("GET", ticket, f.owner.Token, nil).Expect(t, 200)
	f.env.Do("GET", ticket, key, nil).Expect(t, 200)
	patch := func(active any) {
		t.Helper()
		body := map[string]any{"Operations": []map[string]any{{"op": "replace", "path": "active", "value": active}}}
		if res := f.env.Do("PATCH", "/scim/v2/Users/"+f.owner.ID.String(), tok, body); res.Status != 200 {
			t.Fatalf("PATCH active %v: %d %s", active, res.Status, res.Body)
		}
	}
	patch(false)
	f.env.Do("GET", ticket, f.owner.Token, nil).Expect(t, 404)
	f.env.Do("GET", ticket, key, nil).Expect(t, 401)
	f.env.Do("GET", ticket, second.Token, nil).Expect(t, 200)
	if after := work(); after != before {
		t.Fatalf("deactivation lost work: %s → %s", before, after)
	}
	patch(true)
	f.env.Do("GET", ticket, f.owner.Token, nil).Expect(t, 200)
	if res := f.env.Do("DELETE", "/scim/v2/Users/"+f.owner.ID.String(), tok, nil); res.Status != 204 {
		t.Fatalf("DELETE: %d %s", res.Status, res.Body)
	}
	f.env.Do("GET", ticket, f.owner.Token, nil).Expect(t, 404)
	if after := work(); after != before {
		t.Fatalf("SCIM delete lost work: %s → %s", before, after)
	}
}
