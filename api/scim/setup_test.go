package scim_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"tracker/internal/oidctest"

	"github.com/oauth2-proxy/mockoidc"

	"tracker/api"
	"tracker/api/apitest"
	scimapi "tracker/api/scim"
	ssoapi "tracker/api/sso"
	"tracker/domain/scim"
	"tracker/domain/sso"
	"tracker/internal/dnstest"
)

// world is an app with SSO and SCIM mounted, a real OIDC provider on
// loopback, and two orgs connected to it, each with its SCIM token.
type world struct {
	env           *apitest.Env
	oidc          *mockoidc.MockOIDC
	dns           *dnstest.Server
	owner, owner2 apitest.User
	token, token2 string
	tokenID       string
}

func setup(t *testing.T) *world {
	t.Helper()
	w := &world{}
	w.oidc = oidctest.Start(t)
	w.dns = dnstest.Start(t)
	box := apitest.SecretBox(t)
	w.env = apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{
			ssoapi.New(sso.New(e.DB, box, e.Clock, e.Accounts, &http.Client{Timeout: 10 * time.Second}, sso.DNSResolver(w.dns.Addr),
				"http://tracker.test", true)),
			scimapi.New(scim.New(e.DB, e.Clock, "http://tracker.test")),
		}
	}})
	w.owner = w.env.Register("Owner")
	w.owner2 = w.env.Register("Other Owner")
	var tok map[string]any
	w.token, tok = w.connect(t, w.owner)
	w.tokenID = tok["id"].(string)
	w.token2, _ = w.connect(t, w.owner2)
	return w
}

// connect configures the provider as SSO of the user's org and issues its
// SCIM token, through the API.
func (w *world) connect(t *testing.T, owner apitest.User) (string, map[string]any) {
	t.Helper()
	org := owner.OrgID.String()
	w.env.Do("PUT", "/api/v1/orgs/"+org+"/sso", owner.Token, map[string]any{"issuer_url": w.oidc.Issuer(),
		"client_id": w.oidc.ClientID, "client_secret": w.oidc.ClientSecret}).Expect(t, 200)
	tok := w.env.Do("POST", "/api/v1/orgs/"+org+"/sso/scim-token", owner.Token, nil).Expect(t, 201).Map(t)
	return tok["token"].(string), tok
}

// resp is a SCIM answer.
type resp struct {
	Status int
	Body   map[string]any
	Raw    []byte
	Header http.Header
}

// scimDo sends a SCIM request as application/scim+json.
func (w *world) scimDo(t *testing.T, method, path, token string, body any) resp {
	t.Helper()
	return w.send(t, method, path, token, "", body)
}

// scimDoIfMatch sends a request with If-Match and the org's token.
func (w *world) scimDoIfMatch(t *testing.T, method, path, ifMatch string, body any) resp {
	t.Helper()
	return w.send(t, method, path, w.token, ifMatch, body)
}

// send sends a SCIM request; headers are extra name, value pairs.
func (w *world) send(t *testing.T, method, path, token, ifMatch string, body any, headers ...string) resp {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/scim+json")
	}
	req.Header.Set("Accept", "application/scim+json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res := w.env.Send(req) // held to docs/openapi.yaml
	raw := res.Body
	out := resp{Status: res.Status, Raw: raw, Header: res.Header}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			t.Fatalf("%s %s: %d not JSON: %s", method, path, res.Status, raw)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/scim+json") {
			t.Fatalf("%s %s: content type %q", method, path, ct)
		}
	}
	return out
}

// do is scimDo with the org's token, failing unless the status is want.
func (w *world) do(t *testing.T, want int, method, path string, body any) resp {
	t.Helper()
	r := w.scimDo(t, method, path, w.token, body)
	if r.Status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Raw)
	}
	return r
}

// scimError checks a SCIM error answer.
func scimError(t *testing.T, r resp, status int, scimType string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Raw)
	}
	schemas, _ := r.Body["schemas"].([]any)
	if len(schemas) != 1 || schemas[0] != "urn:ietf:params:scim:api:messages:2.0:Error" {
		t.Fatalf("not a SCIM error: %s", r.Raw)
	}
	if s, ok := r.Body["status"].(string); !ok || s != itoa(status) {
		t.Fatalf("status %v is not the string %q", r.Body["status"], itoa(status))
	}
	if r.Body["scimType"] != nil && scimType == "" || scimType != "" && r.Body["scimType"] != scimType {
		t.Fatalf("scimType %v, want %q: %s", r.Body["scimType"], scimType, r.Raw)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func filterQ(f string) string { return "filter=" + url.QueryEscape(f) }

// newUser is an Okta-shaped POST body.
func newUser(userName, given, family string) map[string]any {
	return map[string]any{
		"schemas":     []string{scim.UserSchema},
		"userName":    userName,
		"name":        map[string]any{"givenName": given, "familyName": family},
		"emails":      []map[string]any{{"primary": true, "value": userName, "type": "work"}},
		"active":      true,
		"externalId":  "ext-" + userName,
		"displayName": given + " " + family,
	}
}

func (w *world) create(t *testing.T, userName string) map[string]any {
	t.Helper()
	return w.do(t, 201, "POST", "/scim/v2/Users", newUser(userName, "Given", "Family")).Body
}

func (w *world) scalar(t *testing.T, sql string, args ...any) int {
	t.Helper()
	return apitest.Scalar[int](t, w.env, sql, args...)
}

// signIn signs a person in to the owner's org through the provider (the
// browser-less flow) and returns the auth result.
func (w *world) signIn(t *testing.T, subject, email string) map[string]any {
	t.Helper()
	d := w.env.Do("GET", "/api/v1/auth/sso/discover?org_id="+w.owner.OrgID.String(), "", nil).Expect(t, 200).Map(t)
	q := oidctest.CallbackQuery(oidctest.Authorize(t, w.oidc, d["authorization_url"].(string), oidctest.Person(subject, email)))
	return w.env.Do("GET", "/api/v1/auth/sso/callback?"+q.Encode(), "", nil).Expect(t, 200).Map(t)
}
