package sso_test

import (
	"crypto/sha256"
	"strings"
	"testing"
	"tracker/api/apitest"
)

func TestScimToken(t *testing.T) {
	t.Parallel()
	w := setup(t)
	path := "/api/v1/orgs/" + w.owner.OrgID.String() + "/sso/scim-token"
	admin := w.env.Member(w.owner, "admin")
	outsider := w.env.Register("Outsider")
	if r := w.env.Do("POST", path, w.owner.Token, nil); r.Status != 422 {
		t.Fatalf("without SSO: %d %s", r.Status, r.Body)
	}
	w.configure(t, nil).Expect(t, 200)
	w.env.Do("POST", path, admin.Token, nil).Expect(t, 403)
	w.env.Do("POST", path, outsider.Token, nil).Expect(t, 404)
	first := w.env.Do("POST", path, w.owner.Token, nil).Expect(t, 201).Map(t)
	tok := first["token"].(string)
	if !strings.HasPrefix(tok, "scim_") || len(tok) < 40 || !strings.HasPrefix(tok, first["token_prefix"].(string)) {
		t.Fatalf("token %v", first)
	}
	sum := sha256.Sum256([]byte(tok))
	if n := apitest.Scalar[int](t, w.env, `SELECT count(*) FROM scim_tokens WHERE token_hash = $1 AND revoked_at IS NULL`, sum[:]); n != 1 {
		t.Fatal("token not stored as its SHA-256")
	}
	second := w.env.Do("POST", path, w.owner.Token, nil).Expect(t, 201).Map(t)
	if second["token"] == tok {
		t.Fatal("rotation returned the same token")
	}
	if n := apitest.Scalar[int](t, w.env, `SELECT count(*) FROM scim_tokens WHERE token_hash = $1 AND revoked_at IS NOT NULL`, sum[:]); n != 1 {
		t.Fatal("rotation did not revoke the old token")
	}
	// Turning SSO off revokes the live token.
	w.env.Do("DELETE", "/api/v1/orgs/"+w.owner.OrgID.String()+"/sso", w.owner.Token, nil).Expect(t, 204)
	if n := apitest.Scalar[int](t, w.env, `SELECT count(*) FROM scim_tokens WHERE org_id = $1 AND revoked_at IS NULL`, w.owner.OrgID); n != 0 {
		t.Fatal("SSO off left a live SCIM token")
	}
}
