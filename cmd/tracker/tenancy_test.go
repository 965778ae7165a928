package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/domain"
	"tracker/domain/chat/chattest"
	"tracker/internal/dnstest"
	"tracker/store/storetest"
)

// secrets are strings only org A's data contains; no answer to anyone else
// may carry them.
var secrets = []string{"SECRET-TITLE", "Secret Project", "Secret View", "secret body", "secret-label", "hook.example.com", "Secret Sprint",
	"secret-file.txt", "Secret Team", "Secret Field"}

// tenancyDomain is an email domain org A has added (pending verification).
const tenancyDomain = "tenancy.example"

// ownScope are routes about the caller's own account, not an org's data.
func ownScope(method, path string) bool {
	switch {
	case strings.HasPrefix(path, "/api/v1/auth/"), strings.HasPrefix(path, "/api/v1/api-keys"),
		path == "/api/v1/onboard", path == "/api/v1/version", path == "/health", path == "/metrics",
		path == "/api/v1/openapi.json", path == "/api/v1/openapi.yaml", strings.HasPrefix(path, "/docs"),
		path == "/api/v1/orgs" && (method == "GET" || method == "POST"):
		return true
	}
	return false
}

// tenantFixture is org A with one of everything, made through the API.
type tenantFixture struct {
	env                                          *apitest.Env
	slack                                        *chattest.SlackAPI
	owner, viewer, outsider                      apitest.User
	org, project, ticket, comment, label, sprint uuid.UUID
	view, field                                  uuid.UUID
	workflow, webhook, invite, entry, rate       uuid.UUID
	export, imp                                  uuid.UUID
	attachment                                   uuid.UUID
	attachmentKey                                string
	team                                         uuid.UUID
	codehost, notification                       uuid.UUID
	policy                                       uuid.UUID
	dns                                          *dnstest.Server
}

func (f *tenantFixture) create(path string, body any) uuid.UUID {
	f.env.T.Helper()
	r := f.env.Do("POST", path, f.owner.Token, body)
	if r.Status != 201 && r.Status != 200 && r.Status != 202 {
		f.env.T.Fatalf("POST %s: %d %s", path, r.Status, r.Body)
	}
	m := r.Map(f.env.T)
	for _, k := range []string{"id", "import_id"} {
		if s, ok := m[k].(string); ok {
			return uuid.MustParse(s)
		}
	}
	return uuid.Nil
}

func newTenantFixture(t *testing.T) *tenantFixture { return newTenantFixtureWith(t, nil) }

// newTenantFixtureWith is newTenantFixture with the config changed by
// configure first (nil: as is).
func newTenantFixtureWith(t *testing.T, configure func(*Config)) *tenantFixture {
	db := storetest.New(t)
	dns := dnstest.Start(t)
	sa := chattest.NewSlackAPI(t)
	// Temporal is unreachable: on-demand exports are recorded as failed runs,
	// imports wait in the outbox; neither matters to access checks.
	cfg := Config{JWTSecret: apitest.Secret, Registration: "open", PublicURL: "http://tracker.test",
		TemporalAddress: "127.0.0.1:1", TemporalNamespace: "default", TaskQueue: "tenancy",
		CodehostSecret: tenancyCodehostSecret, ChatSigningSecret: tenancyChatSecret, DNSResolver: dns.Addr,
		ChatAPIURL: sa.URL + "/api/", ChatClientID: chattest.ClientID, ChatClientSecret: chattest.ClientSecret}
	cfg.Attachments.LocalDir = t.TempDir()
	// A live stream ends at once, so the walks read its whole answer.
	cfg.NotificationStream = api.StreamOptions{Heartbeat: time.Second, MaxAge: 50 * time.Millisecond}
	if configure != nil {
		configure(&cfg)
	}
	s := newServices(cfg, db, domain.SystemClock{})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	app := api.New(api.Deps{Log: log, Metrics: api.NewMetrics(),
		Auth: s.Accounts, Health: domain.System{DB: db}, Version: "test", Profile: "development",
		Idempotency: s.Idempotency}, modules(cfg, s, log)...)
	// The walks are held to docs/openapi.yaml like every suite: each
	// refusal they provoke (403, 404, 422, 413...) must be declared.
	env := &apitest.Env{T: t, DB: db, App: app}
	f := &tenantFixture{env: env, dns: dns, slack: sa}
	f.owner = env.Register("Owner")
	f.viewer = env.Member(f.owner, "viewer")
	f.outsider = env.Register("Outsider")
	f.org = f.owner.OrgID
	org := f.org.String()
	f.project = f.create("/api/v1/projects", map[string]any{"org_id": org, "key": "TEN", "name": "Secret Project"})
	f.ticket = f.create("/api/v1/projects/"+f.project.String()+"/tickets", map[string]any{"title": "SECRET-TITLE"})
	f.comment = f.create("/api/v1/tickets/"+f.ticket.String()+"/comments", map[string]any{"body": "secret body"})
	f.label = f.create("/api/v1/orgs/"+org+"/labels", map[string]any{"name": "secret-label", "color": "#abc"})
	f.view = f.create("/api/v1/orgs/"+org+"/views", map[string]any{"name": "Secret View", "q": "SECRET", "visibility": "shared"})
	f.field = f.create("/api/v1/orgs/"+org+"/fields", map[string]any{"name": "Secret Field", "type": "select", "options": []string{"Secret Option"},
		"project_ids": []uuid.UUID{f.project}})
	env.Do("POST", "/api/v1/tickets/"+f.ticket.String()+"/labels/"+f.label.String(), f.owner.Token, nil).Expect(t, 200)
	f.sprint = f.create("/api/v1/projects/"+f.project.String()+"/sprints", map[string]any{"name": "Secret Sprint",
		"start_date": "2026-11-01", "end_date": "2026-11-14"})
	f.workflow = f.create("/api/v1/orgs/"+org+"/workflows", map[string]any{"name": "Flow",
		"statuses": []map[string]string{{"name": "Open", "category": "todo"}}, "transitions": []any{}})
	f.webhook = f.create("/api/v1/orgs/"+org+"/webhooks", map[string]any{"url": "https://hook.example.com/x", "event_types": []string{"ticket.created"}})
	f.invite = f.create("/api/v1/orgs/"+org+"/invites", map[string]any{})
	f.entry = f.create("/api/v1/time-entries", map[string]any{"user_id": f.owner.ID, "ticket_id": f.ticket, "project_id": f.project,
		"date": time.Now().UTC().Format("2006-01-02"), "duration_minutes": 30, "activity_type": "Coding"})
	f.rate = f.create("/api/v1/labor-rates", map[string]any{"user_id": f.owner.ID, "org_id": org, "loaded_rate_cents": 10000, "effective_date": "2026-01-01"})
	env.Do("PUT", "/api/v1/orgs/"+org+"/project/"+f.project.String()+"/tags", f.owner.Token,
		map[string]any{"tags": []map[string]string{{"key": "k", "value": "v"}}}).Expect(t, 200)
	env.Do("POST", "/api/v1/reports/capitalization/exports", f.owner.Token, map[string]any{"period": "2026-10"})
	var runs struct{ Items []struct{ ID uuid.UUID } }
	env.Do("GET", "/api/v1/reports/capitalization/exports", f.owner.Token, nil).Expect(t, 200).Decode(t, &runs)
	if len(runs.Items) != 1 {
		t.Fatalf("export runs %+v", runs)
	}
	f.export = runs.Items[0].ID
	f.team = f.create("/api/v1/orgs/"+org+"/teams", map[string]any{"name": "Secret Team"})
	env.Do("PUT", "/api/v1/teams/"+f.team.String()+"/members/"+f.owner.ID.String(), f.owner.Token, nil).Expect(t, 201)
	f.imp = f.create("/api/v1/import", map[string]any{"version": 1, "source": "t", "exported_at": time.Now().UTC(),
		"projects": []any{}, "labels": []any{}, "workflows": []any{}, "users": []any{}})
	f.attachment, f.attachmentKey = f.attach(t)
	f.notification = f.create("/api/v1/integrations/chat/notify", map[string]any{"notification_type": "mention",
		"ticket_id": f.ticket, "channel_id": "C1"})
	f.codehost = f.create("/api/v1/orgs/"+org+"/integrations/codehost", map[string]any{"repositories": []string{"acme/app"}})
	env.InstallChat(sa, f.owner, f.org, "TTEN").Expect(t, 201)
	env.Do("PUT", "/api/v1/integrations/chat/identities/me", f.owner.Token, map[string]any{"org_id": org, "slack_user_id": "UOWNER"}).Expect(t, 200)
	f.create("/api/v1/orgs/"+org+"/domains", map[string]any{"domain": tenancyDomain})
	f.policy = f.create("/api/v1/orgs/"+org+"/capitalization/policies", map[string]any{"framework": "asu_2025_06", "effective_from": "2026-01"})
	return f
}

// attach uploads secret-file.txt to the ticket through the local store.
func (f *tenantFixture) attach(t *testing.T) (uuid.UUID, string) {
	content := "secret attachment bytes"
	var up struct {
		UploadURL  string `json:"upload_url"`
		StorageKey string `json:"storage_key"`
	}
	f.env.Do("POST", "/api/v1/tickets/"+f.ticket.String()+"/attachments/presign", f.owner.Token, map[string]any{
		"filename": "secret-file.txt", "content_type": "text/plain", "size_bytes": len(content)}).Expect(t, 200).Decode(t, &up)
	req := httptest.NewRequest("PUT", up.UploadURL, strings.NewReader(content))
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("If-None-Match", "*")
	res, err := f.env.App.Test(req, -1)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("upload: %v %v", res, err)
	}
	id := f.create("/api/v1/tickets/"+f.ticket.String()+"/attachments/confirm", map[string]any{"filename": "secret-file.txt",
		"content_type": "text/plain", "size_bytes": len(content), "storage_key": up.StorageKey, "uploaded_by": f.owner.ID})
	return id, up.StorageKey
}

// fill puts org A's ids into a route pattern.
func (f *tenantFixture) fill(path string) string {
	parts := strings.Split(path, "/")
	byResource := map[string]uuid.UUID{"projects": f.project, "tickets": f.ticket, "comments": f.comment,
		"labels": f.label, "sprints": f.sprint, "workflows": f.workflow, "webhooks": f.webhook, "time-entries": f.entry,
		"labor-rates": f.rate, "orgs": f.org, "imports": f.imp, "exports": f.export, "invites": f.invite,
		"attachments": f.attachment, "views": f.view, "fields": f.field, "teams": f.team, "codehost": f.codehost, "notifications": f.notification,
		"policies": f.policy}
	for i, p := range parts {
		switch p {
		case ":id":
			id, ok := byResource[parts[i-1]]
			if !ok {
				panic("no fixture for " + path)
			}
			parts[i] = id.String()
		case ":org_id":
			parts[i] = f.org.String()
		case ":project_id", ":entity_id":
			parts[i] = f.project.String()
		case ":ticket_id":
			parts[i] = f.ticket.String()
		case ":label_id":
			parts[i] = f.label.String()
		case ":user_id":
			parts[i] = f.owner.ID.String()
		case ":entity_type":
			parts[i] = "project"
		case ":key":
			parts[i] = map[bool]string{true: "TEN", false: "k"}[parts[i-1] == "key"]
		case ":team_id":
			parts[i] = "TTEN"
		case ":delivery_id", ":link_id":
			parts[i] = uuid.NewString()
		case ":period":
			parts[i] = "2026-10"
		case ":domain":
			parts[i] = tenancyDomain
		}
	}
	q := fmt.Sprintf("?org_id=%s&project_id=%s&period=2026-11&ref=TEN-1&key=k&value=v", f.org, f.project)
	return strings.Join(parts, "/") + q
}

// body is a superset of every write's fields, all naming org A's things.
func (f *tenantFixture) body() map[string]any {
	ids := []uuid.UUID{f.ticket}
	return map[string]any{"org_id": f.org, "project_id": f.project, "ticket_id": f.ticket, "user_id": f.owner.ID,
		"ticket_ids": ids, "label_ids": []uuid.UUID{f.label}, "title": "x", "name": "x", "key": "NEW", "body": "x",
		"to_status": "Done", "status": "Done", "color": "#fff", "url": "https://hook.example.com/y",
		"event_types": []string{"ticket.created"}, "tags": []map[string]string{{"key": "k", "value": "w"}},
		"statuses": []map[string]string{{"name": "Open", "category": "todo"}}, "transitions": []any{},
		"start_date": "2026-11-01", "end_date": "2026-11-02", "date": time.Now().UTC().Format("2006-01-02"),
		"duration_minutes": 10, "activity_type": "Coding", "loaded_rate_cents": 1, "effective_date": "2026-02-01",
		"period": "2026-10", "reason": "x", "auto_close": true, "require_second_approver": true, "email": "x@example.test", "role": "member", "cascade": true,
		"filename": "x.txt", "content_type": "text/plain", "size_bytes": 23, "storage_key": f.attachmentKey, "uploaded_by": f.owner.ID,
		"notification_type": "mention", "channel_id": "C1", "thread_ts": "1700000000.000100",
		"team_id": f.team, "slack_user_id": "UWALK", "domain": "walk.example", "accept_unconnected_workspaces": false}
}

// snapshot counts what a stray write would change.
func (f *tenantFixture) snapshot(t *testing.T) string {
	var out string
	err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT concat_ws(',',
		(SELECT title || status || coalesce(deleted_at::text, '') FROM tickets WHERE id = $2),
		(SELECT count(*) FROM tickets WHERE org_id = $1 AND deleted_at IS NULL),
		(SELECT count(*) FROM projects WHERE org_id = $1 AND deleted_at IS NULL),
		(SELECT count(*) FROM comments WHERE org_id = $1),
		(SELECT count(*) FROM labels WHERE org_id = $1 AND deleted_at IS NULL),
		(SELECT count(*) FROM ticket_labels WHERE org_id = $1),
		(SELECT count(*) FROM ticket_links WHERE org_id = $1),
		(SELECT string_agg(name || q || shared::text, ';') FROM saved_views WHERE org_id = $1 AND owner_id = $5),
		(SELECT status || name FROM sprints WHERE id = $3),
		(SELECT count(*) FROM workflows WHERE org_id = $1),
		(SELECT count(*) FROM webhooks WHERE org_id = $1),
		(SELECT count(*) FROM invites WHERE org_id = $1 AND revoked_at IS NULL),
		(SELECT status || duration_minutes FROM time_entries WHERE id = $4),
		(SELECT count(*) FROM labor_rates WHERE org_id = $1),
		(SELECT string_agg(key || value, ';') FROM entity_tags WHERE org_id = $1),
		(SELECT count(*) FROM memberships WHERE org_id = $1),
		(SELECT count(*) FROM project_members WHERE org_id = $1),
		(SELECT count(*) FROM capitalization_exports WHERE org_id = $1),
		(SELECT count(*) || coalesce(string_agg(status, ';'), '') FROM imports WHERE org_id = $1),
		(SELECT count(*) FROM attachments WHERE org_id = $1),
		(SELECT string_agg(name, ';') FROM teams WHERE org_id = $1),
		(SELECT count(*) FROM team_members WHERE org_id = $1),
		(SELECT count(*) FROM sso_configs WHERE org_id = $1),
		(SELECT count(*) FROM scim_tokens WHERE org_id = $1),
		(SELECT string_agg(domain || coalesce(verified_at::text, ''), ';') FROM sso_domains WHERE org_id = $1),
		(SELECT count(*) FROM codehost_connections WHERE org_id = $1),
		(SELECT count(*) FROM chat_notifications WHERE org_id = $1),
		(SELECT count(*) FROM chat_thread_mappings WHERE org_id = $1),
		(SELECT count(*) FROM chat_subscriptions WHERE org_id = $1),
		(SELECT string_agg(team_id, ';') FROM chat_workspaces WHERE org_id = $1),
		(SELECT string_agg(slack_user_id, ';') FROM chat_identities WHERE org_id = $1 AND user_id = $5),
		(SELECT accept_unconnected_workspaces::text FROM chat_settings WHERE org_id = $1),
		(SELECT count(*) FROM audit_log WHERE org_id = $1),
		(SELECT count(*) FROM ticket_watchers WHERE org_id = $1),
		(SELECT count(*) || ':' || count(read_at) FROM notifications WHERE org_id = $1),
		(SELECT count(*) || ':' || count(reopened_at) || ':' || count(approved_at) || coalesce(string_agg(status, ';'), '') FROM period_closes WHERE org_id = $1),
		(SELECT count(*) FROM capitalization_policies WHERE org_id = $1),
		(SELECT count(*) FROM ticket_capitalization_overrides WHERE org_id = $1),
		(SELECT auto_close_periods || ':' || require_second_close_approver FROM organizations WHERE id = $1),
		(SELECT string_agg(key || name || options::text || project_ids::text || required::text, ';') FROM custom_fields WHERE org_id = $1))`, f.org, f.ticket, f.sprint, f.entry, f.owner.ID).Scan(&out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func leaks(body []byte) string {
	for _, s := range secrets {
		if strings.Contains(string(body), s) {
			return s
		}
	}
	return ""
}

// TestEveryRouteIsTenantScoped walks every route the binary serves: a
// non-member gets 404 and nothing of the org's data, a Viewer gets 403 on
// every write, and neither changes anything.
func TestEveryRouteIsTenantScoped(t *testing.T) {
	t.Parallel()
	f := newTenantFixture(t)
	before := f.snapshot(t)
	// Batch calls name tickets in the body, not the path: an outsider's
	// unknown ids are a 422 (documented), and batch-transition reports them
	// per ticket as "not found" in a 200.
	outsiderAllowed := map[string][]int{
		"POST /api/v1/tickets/batch-update":     {422},
		"POST /api/v1/tickets/batch-delete":     {422},
		"POST /api/v1/tickets/batch-transition": {200},
		"POST /api/v1/time-entries":             {404, 422},
	}
	// The caller's own inbox and settings answer anyone, showing only
	// their own (the leak check below holds them to it).
	for route, codes := range ownInbox {
		outsiderAllowed[route] = codes
	}
	// Signature-verified routes take no bearer token: a request without
	// their signature is a 401 whoever sends it.
	for _, r := range signedRoutes {
		outsiderAllowed[r] = []int{401}
	}
	viewerAllowed := map[string][]int{
		// Any member keeps private views of their own.
		"POST /api/v1/orgs/:org_id/views":       {201},
		"POST /api/v1/tickets/batch-transition": {200},
		// Any member links their own chat identity (not the org's data).
		"PUT /api/v1/integrations/chat/identities/me":    {200},
		"DELETE /api/v1/integrations/chat/identities/me": {204, 404},
		// Anyone who can read a ticket watches it.
		"PUT /api/v1/tickets/:ticket_id/watchers/me":    {204},
		"DELETE /api/v1/tickets/:ticket_id/watchers/me": {204},
	}
	for route, codes := range ownInbox {
		viewerAllowed[route] = codes
	}
	for _, r := range signedRoutes {
		viewerAllowed[r] = []int{401}
	}
	// A token link is authorized by its token, never the caller: without
	// one it is a 404 to anyone, member or not.
	for _, r := range tokenRoutes {
		viewerAllowed[r] = []int{404}
	}
	walked := 0
	for _, r := range f.env.App.GetRoutes(true) {
		if r.Method == "HEAD" || !strings.HasPrefix(r.Path, "/api/v1/") || ownScope(r.Method, r.Path) {
			continue
		}
		walked++
		route := r.Method + " " + r.Path
		path := f.fill(r.Path)
		var body any
		if r.Method != "GET" && r.Method != "DELETE" {
			body = f.body()
		}
		t.Run("outsider "+route, func(t *testing.T) {
			res := f.env.Do(r.Method, path, f.outsider.Token, body)
			want := outsiderAllowed[route]
			if want == nil {
				want = []int{404}
			}
			if !contains(want, res.Status) {
				t.Errorf("status %d, want %v: %s", res.Status, want, res.Body)
			}
			if s := leaks(res.Body); s != "" {
				t.Errorf("leaked %q: %s", s, res.Body)
			}
		})
		if r.Method == "GET" {
			continue
		}
		t.Run("viewer "+route, func(t *testing.T) {
			res := f.env.Do(r.Method, path, f.viewer.Token, body)
			want := viewerAllowed[route]
			if want == nil {
				want = []int{403}
			}
			if !contains(want, res.Status) {
				t.Errorf("status %d, want %v: %s", res.Status, want, res.Body)
			}
		})
	}
	if walked < 60 {
		t.Fatalf("walked only %d routes", walked)
	}
	if after := f.snapshot(t); after != before {
		t.Fatalf("org A changed:\nbefore %s\nafter  %s", before, after)
	}
}

// ownInbox are the routes of the caller's own notifications and settings:
// what any caller gets from them with the walks' ids and bodies (the id
// of /notifications/:id is no notification of theirs; the walks' body is
// no settings document).
var ownInbox = map[string][]int{
	"GET /api/v1/notifications":              {200},
	"GET /api/v1/notifications/unread-count": {200},
	"GET /api/v1/notifications/stream":       {200},
	"POST /api/v1/notifications/read-all":    {204},
	"POST /api/v1/notifications/:id/read":    {404},
	"GET /api/v1/me/notification-settings":   {200},
	"PUT /api/v1/me/notification-settings":   {422},
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
