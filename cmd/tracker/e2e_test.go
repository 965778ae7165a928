package main_test

import (
	"bytes"
	"context"
	"encoding/json"

	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tracker/internal/oidctest"
	"tracker/internal/syncbuf"
	"tracker/store/tempdb"
)

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

type client struct {
	t    *testing.T
	base string
}

func (c client) do(method, path, token string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var m map[string]any
	if len(raw) > 0 && raw[0] == '{' {
		_ = json.Unmarshal(raw, &m)
	}
	return res.StatusCode, m
}

func (c client) expect(want int, method, path, token string, body any) map[string]any {
	c.t.Helper()
	got, m := c.do(method, path, token, body)
	if got != want {
		c.t.Fatalf("%s %s: status %d, want %d: %v", method, path, got, want, m)
	}
	return m
}

// TestBinaryEndToEnd builds the real binary, migrates a fresh database with
// it, serves the API and drives the account and org flow over real HTTP.
func TestBinaryEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "tracker")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dbURL, drop, err := tempdb.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	const secret = "e2e-jwt-secret-that-must-not-be-logged"
	addr := freeAddr(t)
	envv := append(os.Environ(), "SERVICE_DATABASE_URL="+dbURL, "SERVICE_ADDR="+addr, "SERVICE_JWT_SECRET="+secret,
		"SERVICE_PUBLIC_URL=http://tracker.example", "SERVICE_TEMPORAL_ADDRESS=127.0.0.1:1",
		"SERVICE_WEBHOOK_ALLOW_PRIVATE=true", "SERVICE_SECRETS_KEY="+strings.Repeat("ab", 32))
	oidc := oidctest.Start(t)

	migrate := exec.CommandContext(ctx, bin, "migrate")
	migrate.Env = envv
	if out, err := migrate.CombinedOutput(); err != nil || !strings.Contains(string(out), "migrations applied") {
		t.Fatalf("migrate: %v\n%s", err, out)
	}

	logs := &syncbuf.Buffer{}
	srv := exec.CommandContext(ctx, bin, "api")
	srv.Env = envv
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()

	c := client{t: t, base: "http://" + addr}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, _ := c.doQuiet("/health"); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("api did not become healthy:\n%s", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}

	const password = "a-very-secret-password"
	reg := c.expect(201, "POST", "/api/v1/auth/register", "", map[string]any{"email": "ada@example.test", "password": password, "display_name": "Ada"})
	login := c.expect(200, "POST", "/api/v1/auth/login", "", map[string]any{"email": "ada@example.test", "password": password})
	if login["user_id"] != reg["user_id"] {
		t.Fatalf("login user %v", login)
	}
	refreshed := c.expect(200, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": login["refresh_token"]})
	c.expect(401, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": login["refresh_token"]})
	token := refreshed["access_token"].(string)
	// The reuse above revoked the rotated family; the access token still works until expiry.
	c.expect(200, "GET", "/api/v1/auth/me", token, nil)

	org := c.expect(201, "POST", "/api/v1/orgs", token, map[string]any{"name": "Analytical Engines", "slug": "engines"})
	orgID := org["id"].(string)
	bob := c.expect(201, "POST", "/api/v1/auth/register", "", map[string]any{"email": "bob@example.test", "password": password, "display_name": "Bob"})
	m := c.expect(201, "POST", "/api/v1/orgs/"+orgID+"/members", token, map[string]any{"user_id": bob["user_id"], "role": "viewer"})
	if m["role"] != "Viewer" {
		t.Fatalf("member %v", m)
	}
	c.expect(403, "POST", "/api/v1/orgs/"+orgID+"/invites", bob["access_token"].(string), map[string]any{})
	inv := c.expect(201, "POST", "/api/v1/orgs/"+orgID+"/invites", token, map[string]any{"email": "cy@example.test"})
	if !strings.HasPrefix(inv["invite_link"].(string), "http://tracker.example/invite/") {
		t.Fatalf("invite %v", inv)
	}
	cy := c.expect(201, "POST", "/api/v1/auth/register", "", map[string]any{"email": "cy@example.test", "password": password, "display_name": "Cy", "invite_code": inv["invite_code"]})
	if me := c.expect(200, "GET", "/api/v1/auth/me", cy["access_token"].(string), nil); me["org_id"] != orgID || me["role"] != "Member" {
		t.Fatalf("invitee %v", me)
	}

	key := c.expect(201, "POST", "/api/v1/api-keys", token, map[string]any{"name": "reader", "scopes": []string{"read"}, "org_id": orgID})
	k := key["key"].(string)
	c.expect(200, "GET", "/api/v1/orgs/"+orgID+"/members", k, nil)
	c.expect(403, "POST", "/api/v1/orgs", k, map[string]any{"name": "x", "slug": "x"})
	c.expect(204, "DELETE", "/api/v1/api-keys/"+key["id"].(string), token, nil)
	c.expect(401, "GET", "/api/v1/auth/me", k, nil)

	ssoSecrets := ssoEndToEnd(t, c, oidc, token, orgID)
	ssoSecrets = append(ssoSecrets, scimEndToEnd(t, c, oidc, token, orgID)...)

	h := c.expect(200, "GET", "/health", "", nil)
	if h["db_healthy"] != true || h["migration_version"].(float64) < 1 {
		t.Fatalf("health %v", h)
	}
	out := logs.String()
	for _, s := range append([]string{secret, password, token, k}, ssoSecrets...) {
		if strings.Contains(out, s) {
			t.Fatalf("a secret reached the log: %q", s[:8])
		}
	}
	if !strings.Contains(out, `"jwt_secret":"***"`) {
		t.Fatalf("config line not masked:\n%s", out)
	}
}

func (c client) doQuiet(path string) (int, error) {
	res, err := http.Get(c.base + path)
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}
