package main

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"tracker/domain/codehost"
)

// tenancyCodehostSecret is the service-wide code-host secret of the walk's app.
const tenancyCodehostSecret = "tenancy-codehost-secret"

// signedRoutes are the signature-verified integration endpoints: public,
// refused with 401 unless signed.
var signedRoutes = []string{
	"POST /api/v1/integrations/codehost/webhook",
	"POST /api/v1/integrations/codehost/webhook/:connection_id",
}

// TestSignedRoutesRefuseForgeries sends every signature-verified route
// requests that would change org A's data if accepted (a pull request
// naming its ticket), unsigned and forged in several ways: each is a 401
// with the envelope and nothing changes.
func TestSignedRoutesRefuseForgeries(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	before := f.snapshot(t)
	body, _ := json.Marshal(map[string]any{"action": "closed",
		"pull_request": map[string]any{"title": "TEN-1", "merged": true, "head": map[string]any{"ref": "ten-1"}},
		"repository":   map[string]any{"full_name": "acme/app"}, "sender": map[string]any{"login": "x"}})
	good := codehost.Sign(tenancyCodehostSecret, body)
	forged := map[string]string{
		"unsigned":     "",
		"wrong secret": codehost.Sign("guess", body),
		"truncated":    good[:len(good)-2],
		"other body":   codehost.Sign(tenancyCodehostSecret, append([]byte(" "), body...)),
		"bearer only":  "",
	}
	paths := []string{"/api/v1/integrations/codehost/webhook",
		"/api/v1/integrations/codehost/webhook/" + f.codehost.String()}
	for _, p := range paths {
		for name, sig := range forged {
			req := httptest.NewRequest("POST", p, strings.NewReader(string(body)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Codehost-Event", "pull_request")
			if sig != "" {
				req.Header.Set("X-Codehost-Signature-256", sig)
			}
			if name == "bearer only" {
				req.Header.Set("Authorization", "Bearer "+f.owner.Token)
			}
			res, err := f.env.App.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != 401 {
				t.Errorf("%s %s: %d", p, name, res.StatusCode)
			}
		}
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}
