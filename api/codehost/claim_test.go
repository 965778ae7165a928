package codehost_test

import (
	"strings"
	"testing"

	chdomain "tracker/domain/codehost"
)

// TestListingARepositoryClaimsNothing is the attack of an org that lists
// someone else's repository in its own connection and makes a decoy
// project with the victim's key: the repository's pull requests, signed
// with the service-wide secret, must not move the decoy nor record the
// victim's pull request, sender or repository in the attacker's org.
func TestListingARepositoryClaimsNothing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	mallory := f.outside
	victim := f.ticket(t, f.owner.Token, f.project, "Backlog")
	decoyProject := f.projectIn(t, mallory.OrgID, "ABC")
	decoy := f.ticket(t, mallory.Token, decoyProject, "Backlog")
	if victim.TicketNumber != decoy.TicketNumber {
		t.Fatal("fixture: numbers differ")
	}
	f.env.Do("POST", "/api/v1/orgs/"+mallory.OrgID.String()+"/integrations/codehost", mallory.Token,
		map[string]any{"repositories": []string{"acme/app"}}).Expect(t, 201)

	body := pr("opened", ref(victim, "ABC"), "feature/abc", false, "acme/app")
	out := decode(t, f.send(t, delivery{id: "victim-1", body: body}).Expect(t, 200))
	if f.status(t, decoy.ID) != "Backlog" {
		t.Fatalf("the decoy moved: %+v", out)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND (via->>'pull_request_url' IS NOT NULL
		OR via->>'repository' IS NOT NULL OR via->>'sender' IS NOT NULL)`, mallory.OrgID); n != 0 {
		t.Fatalf("the attacker's org recorded %d rows of the victim's pull request", n)
	}
	if n := f.count(t, `SELECT count(*) FROM codehost_deliveries WHERE org_id = $1`, mallory.OrgID); n != 0 {
		t.Fatalf("a service-wide delivery was booked to the attacker's org: %d", n)
	}
	// The key is held by two orgs: the service-wide delivery is ambiguous
	// (a listing in a connection does not settle it), and nothing moves.
	if len(out.Transitions) != 0 || len(out.Skipped) != 1 || !strings.Contains(out.Skipped[0].Reason, "ambiguous") ||
		f.status(t, victim.ID) != "Backlog" {
		t.Fatalf("service-wide delivery: %+v", out)
	}
	// The victim settles it with a connection of her own, whose URL and
	// secret only she can set on the repository's webhook.
	m := f.env.Do("POST", "/api/v1/orgs/"+f.owner.OrgID.String()+"/integrations/codehost", f.owner.Token,
		map[string]any{"repositories": []string{"acme/app"}}).Expect(t, 201).Map(t)
	path := "/api/v1/integrations/codehost/webhook/" + m["id"].(string)
	out = decode(t, f.send(t, delivery{path: path, secret: m["secret"].(string), id: "victim-1", body: body}).Expect(t, 200))
	if len(out.Transitions) != 1 || f.status(t, victim.ID) != "InReview" || f.status(t, decoy.ID) != "Backlog" {
		t.Fatalf("through the victim's connection: %+v", out)
	}
	if n := f.count(t, `SELECT count(*) FROM audit_log WHERE org_id = $1 AND actor_id = $2`, mallory.OrgID, chdomain.UserID); n != 0 {
		t.Fatalf("the attacker's org has %d rows by the integration", n)
	}
}

// TestServiceWideDeliveriesSkipConnectedOrgs: an org with a connection is
// moved only through its connections' URLs. A service-wide delivery naming
// a key only that org holds answers as for a key nobody holds.
func TestServiceWideDeliveriesSkipConnectedOrgs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	tk := f.ticket(t, f.owner.Token, f.project, "Backlog")
	body := pr("opened", ref(tk, "ABC"), "", false, "acme/app")
	// An empty allowlist (any repository) and a listing of another
	// repository both take the org out of the service-wide path.
	for i, repos := range [][]string{{}, {"other/repo"}} {
		m := f.env.Do("POST", "/api/v1/orgs/"+f.owner.OrgID.String()+"/integrations/codehost", f.owner.Token,
			map[string]any{"repositories": repos}).Expect(t, 201).Map(t)
		out := decode(t, f.send(t, delivery{body: body}).Expect(t, 200))
		if len(out.Transitions) != 0 || len(out.Skipped) != 1 || out.Skipped[0].Reason != "no project with key ABC" ||
			f.status(t, tk.ID) != "Backlog" {
			t.Fatalf("connection %d: service-wide delivery %+v", i, out)
		}
		f.env.Do("DELETE", "/api/v1/orgs/"+f.owner.OrgID.String()+"/integrations/codehost/"+m["id"].(string), f.owner.Token, nil).Expect(t, 204)
	}
	// Without a connection, the service-wide URL reaches the org again.
	out := decode(t, f.send(t, delivery{body: body}).Expect(t, 200))
	if len(out.Transitions) != 1 || f.status(t, tk.ID) != "InReview" {
		t.Fatalf("unconnected org: %+v", out)
	}
}
