// Package apitest runs HTTP tests through the real Fiber app (all
// middleware and the error mapping) against a fresh PostgreSQL database, with
// factories for users and memberships.
package apitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/accounts"
	"tracker/api/orgs"
	"tracker/domain"
	"tracker/domain/account"
	"tracker/domain/idempotency"
	"tracker/domain/org"
	"tracker/internal/tracing"
	"tracker/store"
	"tracker/store/storetest"
)

// Env is one test's app and database.
type Env struct {
	// FixtureRoutes is an OpenAPI fragment (paths, components) describing
	// routes the test mounts itself, not the service's: the Env's exchanges
	// are held to docs/openapi.yaml plus it (see contract.go).
	FixtureRoutes string
	T             testing.TB
	DB            *store.DB
	DBURL         string
	App           *fiber.App
	Accounts      *account.Service
	Orgs          *org.Service
	Metrics       *api.Metrics
	// Clock is what feature services under test are built with.
	Clock domain.Clock
	// Log is the app's logger (discarded); modules that log take it.
	Log *slog.Logger
}

// Options configure the app under test.
type Options struct {
	Registration string          // default open
	Limits       api.LoginLimits // default: no limits
	// Modules returns the feature modules under test, built on the env's
	// database; the account and org modules are always mounted.
	Modules func(e *Env) []api.Module
	// DB reuses a database (several apps on one database); default a fresh one.
	DB    *store.DB
	DBURL string
	// TrustedProxies are passed to api.Deps (app.Test's peer is 0.0.0.0).
	TrustedProxies []string
	// RateLimit is the /api/v1 request budget (default: off).
	RateLimit api.RateLimit
	// Tracing is passed to api.Deps (default: off).
	Tracing *tracing.Tracing
}

// Secret is the JWT secret of test apps.
const Secret = "test-secret-0123456789abcdef0123456789"

// New builds the app on a fresh database.
func New(t testing.TB, o Options) *Env {
	t.Helper()
	e := &Env{T: t, DB: o.DB, DBURL: o.DBURL}
	if e.DB == nil {
		e.DB, e.DBURL = storetest.NewWithURL(t)
	}
	if o.Registration == "" {
		o.Registration = account.RegistrationOpen
	}
	e.Clock = domain.SystemClock{}
	e.Accounts = account.New(e.DB, e.Clock, account.Tokens{Secret: []byte(Secret), AccessTTL: time.Hour},
		o.Registration, time.Minute)
	e.Orgs = org.New(e.DB, e.Clock, "http://tracker.test")
	e.Metrics = api.NewMetrics()
	e.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	mods := []api.Module{accounts.New(e.Accounts, o.Limits), orgs.New(e.Orgs)}
	if o.Modules != nil {
		mods = append(mods, o.Modules(e)...)
	}
	e.App = api.New(api.Deps{Log: e.Log, Metrics: e.Metrics, Auth: e.Accounts, Health: domain.System{DB: e.DB},
		Version: "test", Profile: "development", TrustedProxies: o.TrustedProxies, RateLimit: o.RateLimit,
		Idempotency: idempotency.New(e.DB, e.Clock), Tracing: o.Tracing}, mods...)
	return e
}

// Resp is a recorded response.
type Resp struct {
	Status int
	Body   []byte
	Header http.Header
}

// Decode unmarshals the body into v, failing the test on error.
func (r Resp) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map is the body as a JSON object.
func (r Resp) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.Decode(t, &m)
	return m
}

// ErrorCode is the envelope's error.code ("" when absent).
func (r Resp) ErrorCode() string {
	var b api.ErrorBody
	_ = json.Unmarshal(r.Body, &b)
	return b.Error.Code
}

// Error is the envelope's error object.
func (r Resp) Error() api.ErrorDetail {
	var b api.ErrorBody
	_ = json.Unmarshal(r.Body, &b)
	return b.Error
}

// Expect fails the test unless the status is want.
func (r Resp) Expect(t testing.TB, want int) Resp {
	t.Helper()
	if r.Status != want {
		t.Fatalf("status %d, want %d; body %s", r.Status, want, r.Body)
	}
	return r
}

// Do sends a request; token may be "" (no credentials), an access token or
// an API key; body is marshalled to JSON unless it is a string or []byte.
func (e *Env) Do(method, path, token string, body any) Resp {
	e.T.Helper()
	return e.DoHeaders(method, path, token, body, nil)
}

// DoHeaders is Do with extra request headers (Idempotency-Key, If-Match).
func (e *Env) DoHeaders(method, path, token string, body any, headers map[string]string) Resp {
	e.T.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.T.Fatalf("marshal body: %v", err)
		}
		raw = j
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return e.Send(req)
}

// Send sends a request built by the caller (another content type, a
// signature over the raw body) through the app; like Do it holds the
// exchange to the document.
func (e *Env) Send(req *http.Request) Resp {
	e.T.Helper()
	var raw []byte
	if req.Body != nil {
		var err error
		if raw, err = io.ReadAll(req.Body); err != nil {
			e.T.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
		}
		req.Body = io.NopCloser(bytes.NewReader(raw))
	}
	sent := req.Header.Clone()
	req.Header.Del(SkipContract) // the test's note to the check, not the app's
	target := req.URL.RequestURI()
	res, err := e.App.Test(req, -1)
	if err != nil {
		e.T.Fatalf("%s %s: %v", req.Method, target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	out := Resp{Status: res.StatusCode, Body: b, Header: res.Header}
	e.checkContract(req.Method, target, sent, raw, out)
	return out
}

// User is a registered user with a session.
type User struct {
	ID      uuid.UUID
	Email   string
	Name    string
	Token   string
	Refresh string
	OrgID   uuid.UUID // the personal org the user owns
}

var seq atomic.Int64

// Register creates a user through the API with a unique email; the user
// owns its personal org.
func (e *Env) Register(name string) User {
	e.T.Helper()
	email := fmt.Sprintf("%s-%d-%s@example.test", strings.ToLower(strings.ReplaceAll(name, " ", "")), seq.Add(1), uuid.NewString()[:6])
	r := e.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": email, "password": "correct-horse-1", "display_name": name}).Expect(e.T, 201)
	var a account.AuthResult
	r.Decode(e.T, &a)
	me := e.Do("GET", "/api/v1/auth/me", a.AccessToken, nil).Expect(e.T, 200)
	var m account.Me
	me.Decode(e.T, &m)
	return User{ID: a.UserID, Email: email, Name: name, Token: a.AccessToken, Refresh: a.RefreshToken, OrgID: m.OrgID}
}

// AddMember adds u to orgID with role, as admin.
func (e *Env) AddMember(admin User, orgID uuid.UUID, u User, role string) {
	e.T.Helper()
	e.Do("POST", "/api/v1/orgs/"+orgID.String()+"/members", admin.Token, map[string]any{"user_id": u.ID, "role": role}).Expect(e.T, 201)
}

// Member registers a new user and adds them to owner's org with role.
func (e *Env) Member(owner User, role string) User {
	e.T.Helper()
	u := e.Register(role)
	e.AddMember(owner, owner.OrgID, u, role)
	return u
}

// APIKey creates an API key for u with the given scopes and projects, in
// the org u joined last (the org a test added u to with Member or AddMember,
// else u's personal org): a key belongs to one org and reaches no other.
func (e *Env) APIKey(u User, scopes []string, projectIDs ...uuid.UUID) string {
	e.T.Helper()
	var orgID uuid.UUID
	if err := e.DB.Pool.QueryRow(e.T.Context(), `SELECT org_id FROM memberships WHERE user_id = $1
		ORDER BY joined_at DESC, org_id DESC LIMIT 1`, u.ID).Scan(&orgID); err != nil {
		e.T.Fatalf("org of %s: %v", u.Email, err)
	}
	return e.APIKeyIn(u, orgID, scopes, projectIDs...)
}

// APIKeyIn creates an API key for u bound to orgID.
func (e *Env) APIKeyIn(u User, orgID uuid.UUID, scopes []string, projectIDs ...uuid.UUID) string {
	e.T.Helper()
	body := map[string]any{"name": "test key", "scopes": scopes, "org_id": orgID}
	if len(projectIDs) > 0 {
		body["project_ids"] = projectIDs
	}
	r := e.Do("POST", "/api/v1/api-keys", u.Token, body).Expect(e.T, 201)
	var k account.APIKey
	r.Decode(e.T, &k)
	return k.Key
}

// Walk pages through a list with limit 2 and returns every item's id in
// order, failing the test if a page breaks the list contract (more items
// than the limit, has_more disagreeing with next_cursor) or the walk does
// not end.
func (e *Env) Walk(path, token string) []string {
	e.T.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var ids []string
	cursor := ""
	for range 1000 {
		u := path + sep + "limit=2"
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		var page struct {
			Items      []map[string]any `json:"items"`
			NextCursor *string          `json:"next_cursor"`
			HasMore    bool             `json:"has_more"`
		}
		e.Do("GET", u, token, nil).Expect(e.T, 200).Decode(e.T, &page)
		if len(page.Items) > 2 || page.HasMore != (page.NextCursor != nil) {
			e.T.Fatalf("page breaks the list contract: %+v", page)
		}
		for _, it := range page.Items {
			ids = append(ids, it["id"].(string))
		}
		if !page.HasMore {
			return ids
		}
		cursor = *page.NextCursor
	}
	e.T.Fatal("pagination did not end")
	return nil
}
