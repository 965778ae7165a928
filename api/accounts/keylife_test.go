package accounts_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/projects"
	"tracker/domain/account"
	"tracker/domain/project"
)

func withProjects(e *apitest.Env) []api.Module {
	return []api.Module{projects.New(project.New(e.DB, e.Clock))}
}

func mintKey(t *testing.T, env *apitest.Env, token string, body map[string]any, want int) account.APIKey {
	t.Helper()
	var k account.APIKey
	r := env.Do("POST", "/api/v1/api-keys", token, body).Expect(t, want)
	if want == 201 {
		r.Decode(t, &k)
	}
	return k
}

// TestKeyLifecycle: a key never mints a key that outlives it or reaches
// further; a key manages the user's other keys only with the admin scope and
// no project restriction, and never keys of another org.
func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{Modules: withProjects})
	u := env.Register("Kay")
	var p struct{ ID uuid.UUID }
	env.Do("POST", "/api/v1/projects", u.Token, map[string]any{"org_id": u.OrgID, "key": "KL", "name": "P"}).Expect(t, 201).Decode(t, &p)

	t.Run("child expiry is capped at the parent's", func(t *testing.T) {
		exp := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		parent := mintKey(t, env, u.Token, map[string]any{"name": "parent", "scopes": []string{"admin"}, "expires_at": exp}, 201)
		never := mintKey(t, env, parent.Key, map[string]any{"name": "forever", "scopes": []string{"admin"}}, 201)
		later := mintKey(t, env, parent.Key, map[string]any{"name": "later", "expires_at": exp.Add(24 * time.Hour)}, 201)
		sooner := mintKey(t, env, parent.Key, map[string]any{"name": "sooner", "expires_at": exp.Add(-time.Minute)}, 201)
		for _, k := range []account.APIKey{never, later} {
			if k.ExpiresAt == nil || !k.ExpiresAt.Equal(exp) {
				t.Errorf("%s expires %v, want the parent's %v", k.Name, k.ExpiresAt, exp)
			}
		}
		if sooner.ExpiresAt == nil || !sooner.ExpiresAt.Equal(exp.Add(-time.Minute)) {
			t.Errorf("sooner expiry changed: %v", sooner.ExpiresAt)
		}
		var stored time.Time
		if err := env.DB.Pool.QueryRow(t.Context(), `SELECT expires_at FROM api_keys WHERE id = $1`, never.ID).Scan(&stored); err != nil || !stored.Equal(exp) {
			t.Fatalf("stored expiry %v %v", stored, err)
		}
	})

	t.Run("child is never wider", func(t *testing.T) {
		restricted := env.APIKey(u, []string{"admin"}, p.ID)
		child := mintKey(t, env, restricted, map[string]any{"name": "child"}, 201)
		if len(child.ProjectIDs) != 1 || child.ProjectIDs[0] != p.ID {
			t.Fatalf("child of a restricted key is not restricted: %+v", child)
		}
		write := env.APIKey(u, []string{"read", "write"})
		mintKey(t, env, write, map[string]any{"name": "wider", "scopes": []string{"admin"}}, 403)
	})

	t.Run("only an unrestricted admin key manages other keys", func(t *testing.T) {
		victim := mintKey(t, env, u.Token, map[string]any{"name": "victim"}, 201)
		write := mintKey(t, env, u.Token, map[string]any{"name": "write"}, 201)
		restricted := mintKey(t, env, u.Token, map[string]any{"name": "restricted", "scopes": []string{"admin"}, "project_ids": []uuid.UUID{p.ID}}, 201)
		admin := mintKey(t, env, u.Token, map[string]any{"name": "admin", "scopes": []string{"admin"}}, 201)
		for _, k := range []account.APIKey{write, restricted} {
			var keys []account.APIKey
			env.Do("GET", "/api/v1/api-keys", k.Key, nil).Expect(t, 200).Decode(t, &keys)
			if len(keys) != 1 || keys[0].ID != k.ID {
				t.Errorf("%s lists %d keys, want only itself", k.Name, len(keys))
			}
			env.Do("DELETE", "/api/v1/api-keys/"+victim.ID.String(), k.Key, nil).Expect(t, 403)
		}
		env.Do("GET", "/api/v1/auth/me", victim.Key, nil).Expect(t, 200)
		var keys []account.APIKey
		env.Do("GET", "/api/v1/api-keys", admin.Key, nil).Expect(t, 200).Decode(t, &keys)
		if len(keys) < 4 {
			t.Errorf("admin key lists %d keys", len(keys))
		}
		env.Do("DELETE", "/api/v1/api-keys/"+victim.ID.String(), admin.Key, nil).Expect(t, 204)
		env.Do("GET", "/api/v1/auth/me", victim.Key, nil).Expect(t, 401)
		// A key may always revoke itself.
		env.Do("DELETE", "/api/v1/api-keys/"+write.ID.String(), write.Key, nil).Expect(t, 204)
		env.Do("GET", "/api/v1/auth/me", write.Key, nil).Expect(t, 401)
	})

	t.Run("keys of another org are out of a key's reach", func(t *testing.T) {
		var o struct{ ID uuid.UUID }
		env.Do("POST", "/api/v1/orgs", u.Token, map[string]any{"name": "Second", "slug": "second-" + uuid.NewString()[:8]}).Expect(t, 201).Decode(t, &o)
		elsewhere := mintKey(t, env, u.Token, map[string]any{"name": "personal"}, 201)
		// Move it to the second org, as if made in a session there.
		if _, err := env.DB.Pool.Exec(t.Context(), `UPDATE api_keys SET org_id = $1 WHERE id = $2`, o.ID, elsewhere.ID); err != nil {
			t.Fatal(err)
		}
		admin := env.APIKeyIn(u, u.OrgID, []string{"admin"})
		var keys []account.APIKey
		env.Do("GET", "/api/v1/api-keys", admin, nil).Expect(t, 200).Decode(t, &keys)
		for _, k := range keys {
			if k.ID == elsewhere.ID {
				t.Fatal("admin key lists a key of another org")
			}
		}
		env.Do("DELETE", "/api/v1/api-keys/"+elsewhere.ID.String(), admin, nil).Expect(t, 404)
		env.Do("GET", "/api/v1/auth/me", elsewhere.Key, nil).Expect(t, 200)
	})
}
