package accounts_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"tracker/api"
	"tracker/api/apitest"
)

// from sends a JSON request as if forwarded for the client addresses xff.
func from(t *testing.T, env *apitest.Env, xff, path, body string) int {
	t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	return env.Send(req).Status // held to docs/openapi.yaml
}

func TestLimiterCoversEveryCredentialRoute(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/api/v1/auth/refresh", "/api/v1/auth/logout", "/api/v1/onboard"} {
		t.Run(path, func(t *testing.T) {
			env := apitest.New(t, apitest.Options{Limits: api.LoginLimits{PerIP: 2, Window: time.Minute}})
			body := `{"refresh_token":"rt_nope","email":"x@example.test","password":"12345678","org_name":"A","org_slug":"a"}`
			for range 2 {
				if s := from(t, env, "", path, body); s == 429 {
					t.Fatalf("limited too early")
				}
			}
			if s := from(t, env, "", path, body); s != 429 {
				t.Fatalf("status %d, want 429", s)
			}
		})
	}
}

func TestPasswordsAreBounded(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	long := strings.Repeat("p", 1025)
	for path, body := range map[string]map[string]any{
		"/api/v1/auth/register": {"email": "l@example.test", "password": long, "display_name": "L"},
		"/api/v1/auth/login":    {"email": "l@example.test", "password": long},
		"/api/v1/onboard":       {"email": "l@example.test", "password": long, "org_name": "L", "org_slug": "l"},
	} {
		r := env.Do("POST", path, "", body).Expect(t, 422)
		if d := r.Error().Details; len(d) != 1 || d[0] != "password: must be at most 1024 bytes" {
			t.Fatalf("%s: %s", path, r.Body)
		}
	}
	// 1024 bytes of multi-byte characters are still 1024 bytes.
	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "m@example.test",
		"password": strings.Repeat("é", 513), "display_name": "M"}).Expect(t, 422)
	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "m@example.test",
		"password": strings.Repeat("é", 512), "display_name": "M"}).Expect(t, 201)
}

func TestLimitersBehindTrustedProxies(t *testing.T) {
	t.Parallel()
	const login = "/api/v1/auth/login"
	victim := `{"email":"victim@example.test","password":"wrongwrong"}`

	t.Run("per email is per client: a third party cannot lock the victim out", func(t *testing.T) {
		env := apitest.New(t, apitest.Options{Limits: api.LoginLimits{PerEmail: 2, Window: time.Minute},
			TrustedProxies: []string{"0.0.0.0/32", "10.0.0.0/8"}})
		for range 2 {
			from(t, env, "203.0.113.9", login, victim)
		}
		if s := from(t, env, "203.0.113.9", login, victim); s != 429 {
			t.Fatalf("attacker: %d", s)
		}
		// Spoofing the left of the header does not give a fresh bucket: the
		// right-most untrusted address is the client.
		if s := from(t, env, "198.51.100.1, 203.0.113.9, 10.1.2.3", login, victim); s != 429 {
			t.Fatalf("spoofed: %d", s)
		}
		if s := from(t, env, "198.51.100.7", login, victim); s != 401 {
			t.Fatalf("victim: %d", s)
		}
	})
	t.Run("per IP: clients behind the proxy have their own buckets", func(t *testing.T) {
		env := apitest.New(t, apitest.Options{Limits: api.LoginLimits{PerIP: 1, Window: time.Minute},
			TrustedProxies: []string{"0.0.0.0"}})
		from(t, env, "203.0.113.1", login, victim)
		if s := from(t, env, "203.0.113.1", login, victim); s != 429 {
			t.Fatalf("same client: %d", s)
		}
		if s := from(t, env, "203.0.113.2", login, victim); s != 401 {
			t.Fatalf("other client: %d", s)
		}
	})
	t.Run("an untrusted peer's header is ignored", func(t *testing.T) {
		env := apitest.New(t, apitest.Options{Limits: api.LoginLimits{PerIP: 1, Window: time.Minute}})
		from(t, env, "203.0.113.1", login, victim)
		if s := from(t, env, "203.0.113.2", login, victim); s != 429 {
			t.Fatalf("forged header: %d", s)
		}
	})
}
