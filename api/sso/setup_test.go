package sso_test

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"tracker/internal/oidctest"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"

	"tracker/api"
	"tracker/api/apitest"
	ssoapi "tracker/api/sso"
	"tracker/domain"
	"tracker/domain/sso"
	"tracker/internal/dnstest"
)

// world is an app with SSO mounted and a real OIDC provider (mockoidc) on
// loopback; tamper, when set, rewrites the claims of the ID token the
// provider answers and returns the token to send instead.
type world struct {
	env    *apitest.Env
	oidc   *mockoidc.MockOIDC
	dns    *dnstest.Server
	owner  apitest.User
	skew   atomic.Int64 // the service clock's offset, in nanoseconds
	mu     sync.Mutex
	tamper func(t *testing.T, claims jwt.MapClaims) string
	t      *testing.T
}

func setup(t *testing.T) *world {
	t.Helper()
	w := &world{t: t}
	w.oidc = oidctest.Start(t, w.tamperToken)
	w.dns = dnstest.Start(t)
	box := apitest.SecretBox(t)
	clock := domain.ClockFunc(func() time.Time {
		return domain.SystemClock{}.Now().Add(time.Duration(w.skew.Load()))
	})
	w.env = apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{ssoapi.New(sso.New(e.DB, box, clock, e.Accounts, &http.Client{Timeout: 10 * time.Second},
			sso.DNSResolver(w.dns.Addr), "http://tracker.test", true))}
	}})
	w.owner = w.env.Register("Owner")
	return w
}

// configure saves the provider as the owner's org's SSO with extra fields.
func (w *world) configure(t *testing.T, extra map[string]any) apitest.Resp {
	t.Helper()
	body := map[string]any{"issuer_url": w.oidc.Issuer(), "client_id": w.oidc.ClientID, "client_secret": w.oidc.ClientSecret}
	for k, v := range extra {
		body[k] = v
	}
	return w.env.Do("PUT", "/api/v1/orgs/"+w.owner.OrgID.String()+"/sso", w.owner.Token, body)
}

// tamperToken is mockoidc middleware: it rewrites the token endpoint's ID
// token when a tamper function is set.
func (w *world) tamperToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		w.mu.Lock()
		tamper := w.tamper
		w.mu.Unlock()
		if tamper == nil || !strings.HasSuffix(req.URL.Path, mockoidc.TokenEndpoint) {
			next.ServeHTTP(rw, req)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, req)
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err == nil {
			if raw, ok := body["id_token"].(string); ok {
				parts := strings.Split(raw, ".")
				payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
				var claims jwt.MapClaims
				_ = json.Unmarshal(payload, &claims)
				body["id_token"] = tamper(w.t, claims)
			}
		}
		b, _ := json.Marshal(body)
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(rec.Code)
		_, _ = rw.Write(b)
	})
}

func (w *world) setTamper(f func(t *testing.T, claims jwt.MapClaims) string) {
	w.mu.Lock()
	w.tamper = f
	w.mu.Unlock()
}

// signWith signs claims as RS256 with key under the provider's key id.
func (w *world) signWith(t *testing.T, key *rsa.PrivateKey, claims jwt.MapClaims) string {
	t.Helper()
	kid, err := w.oidc.Keypair.KeyID()
	if err != nil {
		t.Fatal(err)
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func otherKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// discover starts a sign-in to the owner's org.
func (w *world) discover(t *testing.T) (authURL, state string) {
	t.Helper()
	var d sso.Discovered
	w.env.Do("GET", "/api/v1/auth/sso/discover?org_id="+w.owner.OrgID.String(), "", nil).Expect(t, 200).Decode(t, &d)
	return d.AuthorizationURL, d.State
}

// authorize plays the browser at the provider: it follows nothing and
// reads code and state from the redirect to the callback.
func (w *world) authorize(t *testing.T, authURL string, user mockoidc.User) (code, state string) {
	t.Helper()
	loc := oidctest.Authorize(t, w.oidc, authURL, user)
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != "http://tracker.test"+sso.CallbackPath {
		t.Fatalf("redirect to %s", got)
	}
	return loc.Query().Get("code"), loc.Query().Get("state")
}

func (w *world) callback(t *testing.T, code, state string) apitest.Resp {
	t.Helper()
	return w.env.Do("GET", "/api/v1/auth/sso/callback?"+url.Values{"code": {code}, "state": {state}}.Encode(), "", nil)
}

// signIn runs the whole flow for user and returns the callback's answer.
func (w *world) signIn(t *testing.T, user mockoidc.User) apitest.Resp {
	t.Helper()
	authURL, _ := w.discover(t)
	code, state := w.authorize(t, authURL, user)
	return w.callback(t, code, state)
}

// browserCallback calls the callback as a browser does.
func (w *world) browserCallback(t *testing.T, code, state string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", "/api/v1/auth/sso/callback?"+url.Values{"code": {code}, "state": {state}}.Encode(), bytes.NewReader(nil))
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	res, err := w.env.App.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// oidcSign signs claims with the provider's own key.
func (w *world) oidcSign(t *testing.T, claims jwt.MapClaims) string {
	t.Helper()
	return w.signWith(t, w.oidc.Keypair.PrivateKey, claims)
}
