package main

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/codehost"
)

// TestCodehostFromAnotherTenant is the code host's part of the walk of
// integrations from another tenant: Mallory, with an org of his own, lists
// a repository of org A's (one A's own connection does not list) in a
// connection of his and makes a decoy project with A's key. No pull request, whichever URL and secret it comes through,
// reaches org A from Mallory's connection, nor Mallory's org from A's
// repository through the service-wide secret.
func TestCodehostFromAnotherTenant(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	mallory := f.outsider
	before := f.snapshot(t)

	var conn struct{ ID, Secret string }
	f.env.Do("POST", "/api/v1/orgs/"+mallory.OrgID.String()+"/integrations/codehost", mallory.Token,
		map[string]any{"repositories": []string{"acme/web"}}).Expect(t, 201).Decode(t, &conn)
	var decoy struct{ ID uuid.UUID }
	f.env.Do("POST", "/api/v1/projects", mallory.Token, map[string]any{"org_id": mallory.OrgID, "key": "TEN", "name": "Decoy"}).
		Expect(t, 201).Decode(t, &decoy)
	f.env.Do("POST", "/api/v1/projects/"+decoy.ID.String()+"/tickets", mallory.Token, map[string]any{"title": "decoy"}).Expect(t, 201)
	malloryAudit := func() int {
		var n int
		f.env.ScanRow(t, &n, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND actor_id = $2`, mallory.OrgID, codehost.UserID)
		return n
	}

	// A's repository, merged, naming TEN-1 (held by A and by the decoy).
	// A's repositories are A's to point at URLs, and the service-wide
	// secret is the installation's: Mallory holds neither.
	body, _ := json.Marshal(map[string]any{"action": "closed",
		"pull_request": map[string]any{"title": "TEN-1 ship it", "merged": true, "html_url": "https://code.example/acme/web/pull/9",
			"head": map[string]any{"ref": "ten-1"}},
		"repository": map[string]any{"full_name": "acme/web"}, "sender": map[string]any{"login": "alice"}})
	send := func(path, secret, deliveryID string) apitest.Resp {
		req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Codehost-Event", "pull_request")
		req.Header.Set("X-Codehost-Delivery", deliveryID)
		req.Header.Set("X-Codehost-Signature-256", codehost.Sign(secret, body))
		return f.env.Send(req)
	}

	// Service-wide: A has a connection, so it is reached only through it;
	// the decoy's org has one too. Nobody moves, and the answer carries
	// nothing of A's.
	r := send("/api/v1/integrations/codehost/webhook", tenancyCodehostSecret, "walk-1").Expect(t, 200)
	if s := leaks(r.Body); s != "" || strings.Contains(string(r.Body), `"transitions":[{`) {
		t.Fatalf("service-wide delivery: %s", r.Body)
	}
	if n := malloryAudit(); n != 0 {
		t.Fatalf("service-wide delivery recorded %d rows in Mallory's org", n)
	}
	// Mallory's own URL and secret (a delivery he signs himself, claiming to
	// be acme/web) act in his org only.
	r = send("/api/v1/integrations/codehost/webhook/"+conn.ID, conn.Secret, "walk-2").Expect(t, 200)
	if leaks(r.Body) != "" || malloryAudit() != 1 {
		t.Fatalf("Mallory's connection: %s", r.Body)
	}
	// Mallory's secret does not open A's connection, nor does the
	// service-wide one.
	send("/api/v1/integrations/codehost/webhook/"+f.codehost.String(), conn.Secret, "walk-3").Expect(t, 401)
	send("/api/v1/integrations/codehost/webhook/"+f.codehost.String(), tenancyCodehostSecret, "walk-4").Expect(t, 401)
	// Mallory gives up his connection: the service-wide delivery now finds
	// TEN in two orgs, ambiguous, and still moves nothing of A's.
	f.env.Do("DELETE", "/api/v1/orgs/"+mallory.OrgID.String()+"/integrations/codehost/"+conn.ID, mallory.Token, nil).Expect(t, 204)
	r = send("/api/v1/integrations/codehost/webhook", tenancyCodehostSecret, "walk-5").Expect(t, 200)
	if !strings.Contains(string(r.Body), "ambiguous") || malloryAudit() != 1 {
		t.Fatalf("service-wide delivery, Mallory unconnected: %s", r.Body)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}
