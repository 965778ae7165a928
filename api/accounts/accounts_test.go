package accounts_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/account"
)

func TestRegister(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	taken := env.Register("Taken")

	t.Run("201", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/auth/register", "", map[string]any{
			"email": "new.person@example.test", "password": "12345678", "display_name": "New Person",
			"reporter_id": uuid.NewString(), // deprecated fields are ignored
		}).Expect(t, 201)
		var a account.AuthResult
		r.Decode(t, &a)
		if a.AccessToken == "" || !strings.HasPrefix(a.RefreshToken, "rt_") || a.UserID == uuid.Nil ||
			a.Email != "new.person@example.test" || a.DisplayName != "New Person" {
			t.Fatalf("auth result %+v", a)
		}
		// A personal org with the user as Owner.
		me := env.Do("GET", "/api/v1/auth/me", a.AccessToken, nil).Expect(t, 200).Map(t)
		if me["role"] != "Owner" || me["org_id"] == nil {
			t.Fatalf("me %v", me)
		}
	})

	t.Run("400", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/auth/register", "", `{"email":`).Expect(t, 400)
		if r.ErrorCode() != "BAD_REQUEST" {
			t.Fatalf("code %q", r.ErrorCode())
		}
	})

	t.Run("409", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/auth/register", "", map[string]any{
			"email": strings.ToUpper(taken.Email), "password": "12345678", "display_name": "Dup"}).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatalf("code %q", r.ErrorCode())
		}
	})

	t.Run("422", func(t *testing.T) {
		tests := []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"bad email", map[string]any{"email": "nope", "password": "12345678", "display_name": "x"}, "email"},
			{"short password", map[string]any{"email": "a1@example.test", "password": "1234567", "display_name": "x"}, "password"},
			{"no display name", map[string]any{"email": "a2@example.test", "password": "12345678"}, "display_name"},
			{"long display name", map[string]any{"email": "a3@example.test", "password": "12345678", "display_name": strings.Repeat("x", 256)}, "display_name"},
			{"wrong type", map[string]any{"email": 5, "password": "12345678", "display_name": "x"}, "email"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := env.Do("POST", "/api/v1/auth/register", "", tt.body).Expect(t, 422)
				e := r.Error()
				if e.Code != "VALIDATION_ERROR" || len(e.Details) == 0 || !strings.HasPrefix(e.Details[0], tt.field+":") {
					t.Fatalf("error %+v", e)
				}
			})
		}
	})
}

func TestRegistrationModes(t *testing.T) {
	t.Parallel()
	disabled := apitest.New(t, apitest.Options{Registration: account.RegistrationDisabled})
	r := disabled.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "x@example.test", "password": "12345678", "display_name": "X"}).Expect(t, 403)
	if r.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("code %q", r.ErrorCode())
	}

	// invite_only: seed an owner through the domain (registration is closed over HTTP).
	env := apitest.New(t, apitest.Options{Registration: account.RegistrationInviteOnly})
	open := account.New(env.DB, env.Clock, env.Accounts.Tokens, account.RegistrationOpen, 0)
	owner, err := open.Register(context.Background(), account.RegisterInput{Email: "owner@example.test", Password: "12345678", DisplayName: "Owner"})
	if err != nil {
		t.Fatal(err)
	}
	me := env.Do("GET", "/api/v1/auth/me", owner.AccessToken, nil).Expect(t, 200).Map(t)
	orgID := me["org_id"].(string)

	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "y@example.test", "password": "12345678", "display_name": "Y"}).Expect(t, 422)
	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "y@example.test", "password": "12345678", "display_name": "Y", "invite_code": "bogus"}).Expect(t, 422)

	inv := env.Do("POST", "/api/v1/orgs/"+orgID+"/invites", owner.AccessToken, map[string]any{"role": "viewer"}).Expect(t, 201).Map(t)
	code := inv["invite_code"].(string)
	if inv["invite_link"] != "http://tracker.test/invite/"+code || inv["role"] != "Viewer" {
		t.Fatalf("invite %v", inv)
	}
	reg := env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "y@example.test", "password": "12345678", "display_name": "Y", "invite_code": code}).Expect(t, 201)
	var a account.AuthResult
	reg.Decode(t, &a)
	// The session starts in the invite's org with the invite's role.
	me = env.Do("GET", "/api/v1/auth/me", a.AccessToken, nil).Expect(t, 200).Map(t)
	if me["org_id"] != orgID || me["role"] != "Viewer" {
		t.Fatalf("me %v", me)
	}
	// A used code cannot be used again.
	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "z@example.test", "password": "12345678", "display_name": "Z", "invite_code": code}).Expect(t, 422)

	// An invite addressed to an email only works for it; a revoked one not at all.
	inv2 := env.Do("POST", "/api/v1/orgs/"+orgID+"/invites", owner.AccessToken, map[string]any{"email": "w@example.test"}).Expect(t, 201).Map(t)
	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "other@example.test", "password": "12345678", "display_name": "O", "invite_code": inv2["invite_code"]}).Expect(t, 422)
	env.Do("DELETE", "/api/v1/orgs/"+orgID+"/invites/"+inv2["id"].(string), owner.AccessToken, nil).Expect(t, 204)
	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "w@example.test", "password": "12345678", "display_name": "W", "invite_code": inv2["invite_code"]}).Expect(t, 422)
}

func TestLoginRefreshLogout(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Lou")

	t.Run("login 200 and 401", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": u.Email, "password": "correct-horse-1"}).Expect(t, 200)
		var a account.AuthResult
		r.Decode(t, &a)
		if a.UserID != u.ID || a.AccessToken == "" || a.RefreshToken == "" {
			t.Fatalf("login %+v", a)
		}
		for _, body := range []map[string]any{
			{"email": u.Email, "password": "wrong-password"},
			{"email": "nobody@example.test", "password": "whatever1"},
		} {
			r := env.Do("POST", "/api/v1/auth/login", "", body).Expect(t, 401)
			if r.ErrorCode() != "unauthorized" {
				t.Fatalf("code %q", r.ErrorCode())
			}
		}
		env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": u.Email}).Expect(t, 422)
	})

	t.Run("refresh rotates and reuse revokes the family", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": u.Email, "password": "correct-horse-1"}).Expect(t, 200)
		var first account.AuthResult
		r.Decode(t, &first)
		var second account.AuthResult
		env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": first.RefreshToken}).Expect(t, 200).Decode(t, &second)
		if second.RefreshToken == first.RefreshToken || second.AccessToken == "" {
			t.Fatal("refresh did not rotate")
		}
		env.Do("GET", "/api/v1/auth/me", second.AccessToken, nil).Expect(t, 200)
		// Reusing the rotated token is refused and revokes the newer one too.
		env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": first.RefreshToken}).Expect(t, 401)
		env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": second.RefreshToken}).Expect(t, 401)
		// Another login family is untouched.
		env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": u.Refresh}).Expect(t, 200)
	})

	t.Run("logout revokes", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": u.Email, "password": "correct-horse-1"}).Expect(t, 200)
		var a account.AuthResult
		r.Decode(t, &a)
		env.Do("POST", "/api/v1/auth/logout", "", map[string]any{"refresh_token": a.RefreshToken}).Expect(t, 204)
		env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": a.RefreshToken}).Expect(t, 401)
		env.Do("POST", "/api/v1/auth/logout", "", map[string]any{"refresh_token": "rt_unknown"}).Expect(t, 401)
		env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{}).Expect(t, 422)
		// The access token stays valid until it expires.
		env.Do("GET", "/api/v1/auth/me", a.AccessToken, nil).Expect(t, 200)
	})
}

func TestMeAndTokenChecks(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Mia")

	me := env.Do("GET", "/api/v1/auth/me", u.Token, nil).Expect(t, 200).Map(t)
	if me["user_id"] != u.ID.String() || me["email"] != u.Email || me["role"] != "Owner" {
		t.Fatalf("me %v", me)
	}
	if s := me["scopes"].([]any); len(s) != 1 || s[0] != "*" {
		t.Fatalf("scopes %v", me["scopes"])
	}
	if ids, ok := me["allowed_project_ids"].([]any); !ok || len(ids) != 0 {
		t.Fatalf("allowed_project_ids %v", me["allowed_project_ids"])
	}

	parts := strings.Split(u.Token, ".")
	claims, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := strings.Replace(string(claims), u.Email, "root@example.test", 1)
	none := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": u.ID.String(), "org_id": u.OrgID.String(), "iss": "tracker", "exp": time.Now().Add(time.Hour).Unix()})
	noneTok, _ := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	wrongKey, _ := account.Tokens{Secret: []byte("another-secret"), AccessTTL: time.Hour}.Issue(u.ID, u.OrgID, u.Email, "Owner", false, time.Now())
	expired, _ := env.Accounts.Tokens.Issue(u.ID, u.OrgID, u.Email, "Owner", false, time.Now().Add(-2*time.Hour))
	hs512 := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"sub": u.ID.String(), "org_id": u.OrgID.String(), "iss": "tracker", "exp": time.Now().Add(time.Hour).Unix()})
	hs512Tok, _ := hs512.SignedString([]byte(apitest.Secret))

	for name, tok := range map[string]string{
		"none":       "",
		"garbage":    "not-a-token",
		"alg none":   noneTok,
		"tampered":   parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(tampered)) + "." + parts[2],
		"wrong key":  wrongKey,
		"expired":    expired,
		"other alg":  hs512Tok,
		"random key": "svc_live_doesnotexist",
	} {
		t.Run(name, func(t *testing.T) {
			r := env.Do("GET", "/api/v1/auth/me", tok, nil).Expect(t, 401)
			if r.ErrorCode() != "unauthorized" {
				t.Fatalf("code %q", r.ErrorCode())
			}
		})
	}
}

func TestTokenContents(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Tess")

	// The access token: HS256, 1 hour, carrying user id, org id, email and role.
	var claims account.Claims
	tok, err := jwt.ParseWithClaims(u.Token, &claims, func(*jwt.Token) (any, error) { return []byte(apitest.Secret), nil })
	if err != nil || !tok.Valid || tok.Method.Alg() != "HS256" {
		t.Fatalf("token %v %v", tok, err)
	}
	if claims.Subject != u.ID.String() || claims.OrgID != u.OrgID.String() || claims.Email != u.Email || claims.Role != "Owner" {
		t.Fatalf("claims %+v", claims)
	}
	if life := claims.ExpiresAt.Sub(claims.IssuedAt.Time); life != time.Hour {
		t.Fatalf("access token lifetime %v", life)
	}

	// The refresh token: stored only as its SHA-256, valid for 30 days.
	var expires time.Time
	var n int
	err = env.DB.Pool.QueryRow(context.Background(), `SELECT expires_at - created_at = interval '30 days', expires_at,
		(SELECT count(*) FROM refresh_tokens WHERE token_hash = $2)
		FROM refresh_tokens WHERE token_hash = $1`, account.HashToken(u.Refresh), []byte(u.Refresh)).Scan(new(bool), &expires, &n)
	if err != nil {
		t.Fatalf("refresh token not stored by hash: %v", err)
	}
	if d := time.Until(expires); d < 29*24*time.Hour || d > 30*24*time.Hour+time.Minute || n != 0 {
		t.Fatalf("refresh token expires in %v; stored in clear %d", d, n)
	}

	// API keys likewise: the row holds the SHA-256 of the key and its prefix, never the key.
	key := env.APIKey(u, []string{"read"})
	var byHash, inClear int
	err = env.DB.Pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM api_keys WHERE key_hash = sha256($1::bytea)),
		(SELECT count(*) FROM api_keys k WHERE position($2 in k::text) > 0)`, []byte(key), key).Scan(&byHash, &inClear)
	if err != nil || byHash != 1 || inClear != 0 {
		t.Fatalf("key by hash %d, in clear %d (%v)", byHash, inClear, err)
	}
}
