package accounts_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"tracker/api"
	"tracker/api/apitest"
)

func TestOnboarding(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	if got := env.Do("GET", "/api/v1/onboard", "", nil).Expect(t, 200).Map(t); got["needs_onboarding"] != true {
		t.Fatalf("fresh server: %v", got)
	}
	env.Do("POST", "/api/v1/onboard", "", map[string]any{"email": "admin@example.test", "password": "short"}).Expect(t, 422)
	for _, slug := range []string{"Acme", "acme/../x", `a"b`, "a;b", "a\r\nb"} {
		r := env.Do("POST", "/api/v1/onboard", "", map[string]any{"email": "admin@example.test", "password": "12345678",
			"org_name": "Acme", "org_slug": slug}).Expect(t, 422)
		if !strings.Contains(string(r.Body), "org_slug") {
			t.Fatalf("slug %q: %s", slug, r.Body)
		}
	}

	// Two concurrent first runs: exactly one wins.
	body := map[string]any{"email": "admin@example.test", "password": "12345678", "org_name": "Acme", "org_slug": "acme"}
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = env.Do("POST", "/api/v1/onboard", "", body).Status
		}()
	}
	wg.Wait()
	if !(statuses[0] == 201 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 201) {
		t.Fatalf("statuses %v", statuses)
	}
	if got := env.Do("GET", "/api/v1/onboard", "", nil).Expect(t, 200).Map(t); got["needs_onboarding"] != false {
		t.Fatalf("after onboarding: %v", got)
	}
	r := env.Do("POST", "/api/v1/onboard", "", map[string]any{"email": "b@example.test", "password": "12345678", "org_name": "B", "org_slug": "b"}).Expect(t, 409)
	if r.ErrorCode() != "CONFLICT" {
		t.Fatalf("code %q", r.ErrorCode())
	}
	// The onboarded admin can log in, and the returned API key is an admin key of the org.
	env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "admin@example.test", "password": "12345678"}).Expect(t, 200)
}

func TestOnboardResult(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	got := env.Do("POST", "/api/v1/onboard", "", map[string]any{"email": "root@example.test", "password": "12345678", "org_name": "Acme", "org_slug": "acme"}).Expect(t, 201).Map(t)
	key, _ := got["api_key"].(string)
	if !strings.HasPrefix(key, "svc_live_") || got["api_key_prefix"] != key[:len(got["api_key_prefix"].(string))] || got["email"] != "root@example.test" {
		t.Fatalf("onboard %v", got)
	}
	me := env.Do("GET", "/api/v1/auth/me", key, nil).Expect(t, 200).Map(t)
	if me["org_id"] != got["org_id"] || me["role"] != "Owner" {
		t.Fatalf("me %v", me)
	}
	env.Do("POST", "/api/v1/orgs/"+got["org_id"].(string)+"/invites", key, map[string]any{}).Expect(t, 201)
}

func TestLoginRateLimits(t *testing.T) {
	t.Parallel()
	t.Run("per IP", func(t *testing.T) {
		env := apitest.New(t, apitest.Options{Limits: api.LoginLimits{PerIP: 3, Window: time.Minute}})
		for i := 0; i < 3; i++ {
			env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "x@example.test", "password": "wrongwrong"}).Expect(t, 401)
		}
		r := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "y@example.test", "password": "wrongwrong"}).Expect(t, 429)
		if r.ErrorCode() != "RATE_LIMITED" || r.Header.Get("Retry-After") == "" {
			t.Fatalf("429 without envelope or Retry-After: %v %s", r.Header, r.Body)
		}
		env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "z@example.test", "password": "12345678", "display_name": "Z"}).Expect(t, 429)
	})
	t.Run("per email", func(t *testing.T) {
		env := apitest.New(t, apitest.Options{Limits: api.LoginLimits{PerEmail: 2, Window: time.Minute}})
		for i := 0; i < 2; i++ {
			env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "Victim@example.test", "password": "wrongwrong"}).Expect(t, 401)
		}
		env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "victim@example.test", "password": "wrongwrong"}).Expect(t, 429)
		env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "someone@example.test", "password": "wrongwrong"}).Expect(t, 401)
	})
}
