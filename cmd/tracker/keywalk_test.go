package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
)

// keyWalk sends every org route of the walk with token and checks each
// answer with check; it returns how many routes it walked.
func (f *tenantFixture) keyWalk(t *testing.T, token string, check func(t *testing.T, route string, res apitest.Resp)) int {
	walked := 0
	for _, r := range f.env.App.GetRoutes(true) {
		// Signature-verified routes take no API key at all (forgeries:
		// TestSignedRoutesRefuseForgeries), nor do token links.
		if r.Method == "HEAD" || !strings.HasPrefix(r.Path, "/api/v1/") || ownScope(r.Method, r.Path) ||
			slices.Contains(signedRoutes, r.Method+" "+r.Path) || slices.Contains(tokenRoutes, r.Method+" "+r.Path) {
			continue
		}
		walked++
		route := r.Method + " " + r.Path
		var body any
		if r.Method != "GET" && r.Method != "DELETE" {
			body = f.body()
		}
		t.Run(route, func(t *testing.T) {
			res := f.env.Do(r.Method, f.fill(r.Path), token, body)
			check(t, route, res)
			if s := leaks(res.Body); s != "" {
				t.Errorf("leaked %q: %s", s, res.Body)
			}
		})
	}
	return walked
}

// TestRestrictedKeyReachesNoOrgLevelRoute walks every route with the Owner's
// admin key restricted to another (empty) project of the same org: every
// org-level route and every route of the fixture's project is 403 naming the
// key's restriction; only the reads that filter to the key's projects answer
// 200, and they show nothing of the fixture's project (its custom field, of
// that project only, is a 404). Nothing changes.
func TestRestrictedKeyReachesNoOrgLevelRoute(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	other := f.create("/api/v1/projects", map[string]any{"org_id": f.org, "key": "OTH", "name": "Other"})
	key := f.env.APIKey(f.owner, []string{"admin"}, other)
	before := f.snapshot(t)
	filtered := map[string]bool{ // reads filtered to the key's projects
		"GET /api/v1/projects": true,
		// Its ref names the fixture's ticket, which the key cannot see:
		// answered as a ticket that does not exist (null, no suggestion
		// from the fixture's project), so the answer tells nothing.
		"GET /api/v1/tickets/resolve":          true,
		"GET /api/v1/orgs/:org_id/tags/search": true,
		"GET /api/v1/orgs/:org_id/tickets":     true,
		// The definitions enabled for the key's projects: not the
		// fixture's field, which is its project's only.
		"GET /api/v1/orgs/:org_id/fields":         true,
		"GET /api/v1/users/:user_id/time-entries": true,
		"GET /api/v1/time-entries/submitted":      true,
		// The event feed: the key's projects' events only (none here).
		"GET /api/v1/orgs/:org_id/events": true,
		// Reported per ticket: the fixture's ticket fails, in a 200.
		"POST /api/v1/tickets/batch-transition": true,
	}
	walked := f.keyWalk(t, key, func(t *testing.T, route string, res apitest.Resp) {
		if route == "GET /api/v1/fields/:id" {
			// A definition enabled for none of the key's projects is, to
			// the key, no definition.
			if res.Status != 404 {
				t.Errorf("status %d, want 404 (a field of another project): %s", res.Status, res.Body)
			}
			return
		}
		if codes, ok := ownInbox[route]; ok {
			// Its own inbox, filtered to its projects; its user's
			// settings are not the restricted key's to change.
			if route == "PUT /api/v1/me/notification-settings" {
				codes = []int{403}
			}
			if !contains(codes, res.Status) {
				t.Errorf("status %d, want %v: %s", res.Status, codes, res.Body)
			}
			return
		}
		if filtered[route] {
			if res.Status != 200 {
				t.Errorf("status %d, want 200 (filtered read): %s", res.Status, res.Body)
			}
			return
		}
		if res.Status != 403 || !strings.Contains(res.Error().Message, "API key") {
			t.Errorf("status %d, want 403 naming the key's restriction: %s", res.Status, res.Body)
		}
	})
	if walked < 60 {
		t.Fatalf("walked only %d routes", walked)
	}
	t.Run("POST /api/v1/orgs", func(t *testing.T) {
		f.env.Do("POST", "/api/v1/orgs", key, map[string]any{"name": "New", "slug": "new-" + uuid.NewString()[:8]}).Expect(t, 403)
	})
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestKeyOfAnotherOrgIsANonMember walks every route with an admin key that
// an Admin of org A made in their personal org: the key belongs to that org,
// so in org A it is a non-member (404, nothing shown, nothing changed), while
// the same user's session reaches org A.
func TestKeyOfAnotherOrgIsANonMember(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	dual := f.env.Register("Dual")
	f.env.AddMember(f.owner, f.org, dual, "admin")
	key := f.env.APIKeyIn(dual, dual.OrgID, []string{"admin"}) // made in dual's personal org
	f.env.Do("GET", "/api/v1/projects/"+f.project.String(), dual.Token, nil).Expect(t, 200)
	before := f.snapshot(t)
	allowed := map[string][]int{ // ids in the body: unknown to a non-member
		"POST /api/v1/tickets/batch-update":     {404, 422},
		"POST /api/v1/tickets/batch-delete":     {404, 422},
		"POST /api/v1/tickets/batch-transition": {200},
		"POST /api/v1/time-entries":             {404, 422},
	}
	for route, codes := range ownInbox {
		allowed[route] = codes // the key's user's own, in the key's org
	}
	walked := f.keyWalk(t, key, func(t *testing.T, route string, res apitest.Resp) {
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
	var orgs struct{ Items []struct{ ID uuid.UUID } }
	f.env.Do("GET", "/api/v1/orgs", key, nil).Expect(t, 200).Decode(t, &orgs)
	if len(orgs.Items) != 1 || orgs.Items[0].ID != dual.OrgID {
		t.Errorf("key lists orgs %+v, want only its own %s", orgs.Items, dual.OrgID)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}
