package accounts_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/account"
)

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Kay")
	other := env.Register("Other")

	t.Run("create 201 shows the key once", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/api-keys", u.Token, map[string]any{"name": "ci"}).Expect(t, 201)
		var k account.APIKey
		r.Decode(t, &k)
		if !strings.HasPrefix(k.Key, "svc_live_") || !strings.HasPrefix(k.Key, k.KeyPrefix) || len(k.KeyPrefix) <= len("svc_live_") {
			t.Fatalf("key %q prefix %q", k.Key, k.KeyPrefix)
		}
		if strings.Join(k.Scopes, ",") != "read,write" || len(k.ProjectIDs) != 0 || k.ExpiresAt != nil {
			t.Fatalf("defaults %+v", k)
		}
		// The key authenticates; use is recorded; the list never shows the key.
		me := env.Do("GET", "/api/v1/auth/me", k.Key, nil).Expect(t, 200).Map(t)
		if me["user_id"] != u.ID.String() || strings.Join(toStrings(me["scopes"]), ",") != "read,write" {
			t.Fatalf("me via key %v", me)
		}
		list := env.Do("GET", "/api/v1/api-keys", u.Token, nil).Expect(t, 200)
		if strings.Contains(string(list.Body), k.Key) || strings.Contains(string(list.Body), `"key":`) {
			t.Fatalf("list leaks the key: %s", list.Body)
		}
		var keys []account.APIKey
		list.Decode(t, &keys)
		if len(keys) == 0 || keys[len(keys)-1].LastUsedAt == nil {
			t.Fatalf("last_used_at not recorded: %s", list.Body)
		}
	})

	t.Run("read scope allows GET only", func(t *testing.T) {
		key := env.APIKey(u, []string{"read"})
		env.Do("GET", "/api/v1/orgs", key, nil).Expect(t, 200)
		r := env.Do("POST", "/api/v1/orgs", key, map[string]any{"name": "N", "slug": "read-key-org"}).Expect(t, 403)
		if r.ErrorCode() != "FORBIDDEN" {
			t.Fatalf("code %q", r.ErrorCode())
		}
	})

	t.Run("write scope caps the owner at Member", func(t *testing.T) {
		key := env.APIKey(u, []string{"read", "write"})
		r := env.Do("POST", "/api/v1/orgs/"+u.OrgID.String()+"/invites", key, map[string]any{}).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Admin") {
			t.Fatalf("message %q", r.Error().Message)
		}
		admin := env.APIKey(u, []string{"admin"})
		env.Do("POST", "/api/v1/orgs/"+u.OrgID.String()+"/invites", admin, map[string]any{}).Expect(t, 201)
		// A key cannot mint a wider key.
		env.Do("POST", "/api/v1/api-keys", key, map[string]any{"name": "wider", "scopes": []string{"admin"}}).Expect(t, 403)
	})

	t.Run("deleted key is 401 at once", func(t *testing.T) {
		var k account.APIKey
		env.Do("POST", "/api/v1/api-keys", u.Token, map[string]any{"name": "temp"}).Expect(t, 201).Decode(t, &k)
		env.Do("GET", "/api/v1/auth/me", k.Key, nil).Expect(t, 200)
		env.Do("DELETE", "/api/v1/api-keys/"+k.ID.String(), other.Token, nil).Expect(t, 404) // not theirs
		env.Do("DELETE", "/api/v1/api-keys/"+k.ID.String(), u.Token, nil).Expect(t, 204)
		env.Do("GET", "/api/v1/auth/me", k.Key, nil).Expect(t, 401)
		env.Do("DELETE", "/api/v1/api-keys/"+k.ID.String(), u.Token, nil).Expect(t, 404)
	})

	t.Run("expiry", func(t *testing.T) {
		var k account.APIKey
		exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		env.Do("POST", "/api/v1/api-keys", u.Token, map[string]any{"name": "exp", "expires_at": exp}).Expect(t, 201).Decode(t, &k)
		if k.ExpiresAt == nil || !k.ExpiresAt.Equal(exp) {
			t.Fatalf("expires_at %v", k.ExpiresAt)
		}
		env.Do("GET", "/api/v1/auth/me", k.Key, nil).Expect(t, 200)
		if _, err := env.DB.Pool.Exec(context.Background(), "UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", k.ID); err != nil {
			t.Fatal(err)
		}
		env.Do("GET", "/api/v1/auth/me", k.Key, nil).Expect(t, 401)
	})

	t.Run("422", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"no name":         {},
			"long name":       {"name": strings.Repeat("n", 256)},
			"unknown scope":   {"name": "x", "scopes": []string{"root"}},
			"past expiry":     {"name": "x", "expires_at": time.Now().Add(-time.Hour)},
			"foreign project": {"name": "x", "project_ids": []string{uuid.NewString()}},
			"bad project id":  {"name": "x", "project_ids": []string{"nope"}},
		} {
			t.Run(name, func(t *testing.T) {
				r := env.Do("POST", "/api/v1/api-keys", u.Token, body).Expect(t, 422)
				if r.ErrorCode() != "VALIDATION_ERROR" || len(r.Error().Details) == 0 {
					t.Fatalf("error %s", r.Body)
				}
			})
		}
	})

	t.Run("401 without credentials", func(t *testing.T) {
		env.Do("GET", "/api/v1/api-keys", "", nil).Expect(t, 401)
		env.Do("POST", "/api/v1/api-keys", "", map[string]any{"name": "x"}).Expect(t, 401)
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
