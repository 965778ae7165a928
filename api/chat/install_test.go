package chat_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"tracker/api"
	"tracker/api/apitest"
	chatapi "tracker/api/chat"
	"tracker/domain"
	"tracker/domain/chat"
	"tracker/domain/chat/chattest"
	"tracker/domain/testfactory"
	"tracker/store/projectdb"
)

// start asks for an authorize URL as u for org and returns the answer.
func (f *chatFixture) start(t *testing.T, u apitest.User, org string) map[string]any {
	t.Helper()
	return f.env.Do("POST", "/api/v1/orgs/"+org+"/integrations/chat/install", u.Token, nil).Expect(t, 200).Map(t)
}

// land sends the installing browser back to the service's callback.
func (f *chatFixture) land(back *url.URL) apitest.Resp {
	return f.env.Do("GET", back.RequestURI(), "", nil)
}

func (f *chatFixture) sealed(t *testing.T, team string) []byte {
	t.Helper()
	return apitest.Scalar[[]byte](t, f.env, `SELECT bot_token_enc FROM chat_workspaces WHERE team_id = $1`, team)
}

// TestBareTeamIDClaimIsRefused: an org cannot connect a workspace by naming
// its team id (Mallory's claim used to take Alice's workspace: 201 for
// him, 409 for her, her commands acting in his org). No route takes a
// team id; Alice's install then connects her workspace to her org.
func TestBareTeamIDClaimIsRefused(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	mallory := f.outsider
	for _, org := range []string{mallory.OrgID.String(), f.owner.OrgID.String()} {
		r := f.env.DoHeaders("POST", "/api/v1/orgs/"+org+"/integrations/chat", mallory.Token,
			map[string]any{"team_id": "TALICEWS", "bot_token": "xoxb-1-a"},
			map[string]string{"X-Apitest-Skip-Contract": "the withdrawn connect-by-team-id route is not in the contract"})
		if r.Status != 404 {
			t.Fatalf("connect by team id in %s: %d %s", org, r.Status, r.Body)
		}
	}
	if n := f.count(t, `SELECT count(*) FROM chat_workspaces`); n != 0 {
		t.Fatalf("%d workspaces connected by team id", n)
	}
	w := f.env.InstallChat(f.slack, f.owner, f.owner.OrgID, "TALICEWS").Expect(t, 201).Map(t)
	if w["org_id"] != f.owner.OrgID.String() || w["team_id"] != "TALICEWS" {
		t.Fatalf("installed %v", w)
	}
	if r := f.command(t, "TALICEWS", "UALICE", "ABC-1"); r["response_type"] != "in_channel" || !strings.Contains(r["text"].(string), "Login") {
		t.Fatalf("Alice's lookup %v", r)
	}
}

// TestInstallProvesTheWorkspace: the install's state is single use, expires
// and is bound to the org and the Admin who started it; the chat service's
// oauth.v2.access names the workspace and its bot token (sealed); a
// workspace the install connected to another org is a 409 that changes
// nothing.
func TestInstallProvesTheWorkspace(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	alice, mallory := f.owner, f.outsider
	org := alice.OrgID.String()
	f.env.Do("POST", "/api/v1/orgs/"+org+"/integrations/chat/install", f.member.Token, nil).Expect(t, 403)
	f.env.Do("POST", "/api/v1/orgs/"+org+"/integrations/chat/install", mallory.Token, nil).Expect(t, 404)

	start := f.start(t, alice, org)
	au, err := url.Parse(start["authorize_url"].(string))
	if err != nil || au.Host != strings.TrimPrefix(f.slack.URL, "http://") || au.Path != "/oauth/v2/authorize" {
		t.Fatalf("authorize_url %v", start)
	}
	redirect := "http://tracker.test/api/v1/integrations/chat/oauth/callback"
	q := au.Query()
	state := start["state"].(string)
	if q.Get("client_id") != chattest.ClientID || q.Get("scope") != chat.InstallScopes || q.Get("redirect_uri") != redirect ||
		q.Get("state") != state || len(state) < 40 || start["redirect_uri"] != redirect {
		t.Fatalf("authorize_url %v", start)
	}
	if exp, err := time.Parse(time.RFC3339, start["expires_at"].(string)); err != nil || time.Until(exp) > chat.InstallTTL || time.Until(exp) < chat.InstallTTL-time.Minute {
		t.Fatalf("expires_at %v", start["expires_at"])
	}
	if n := f.count(t, `SELECT count(*) FROM chat_install_states WHERE state_hash = sha256(convert_to($1, 'UTF8')) AND org_id = $2 AND created_by = $3`,
		state, alice.OrgID, alice.ID); n != 1 {
		t.Fatal("state not stored as its SHA-256, bound to the org and the admin")
	}

	// The browser comes back; the code buys the workspace and its token.
	back := f.slack.Authorize(t, start["authorize_url"].(string), "TALICE", f.slack.AsInstaller("UALICEADMIN", alice.Email))
	w := f.land(back).Expect(t, 201)
	got := w.Map(t)
	if got["team_id"] != "TALICE" || got["org_id"] != org || got["has_bot_token"] != true || got["installed_at"] == nil ||
		got["team_name"] != "Workspace TALICE" || strings.Contains(string(w.Body), "xoxb") || w.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("callback %s", w.Body)
	}
	ex := f.slack.Exchanges()
	if len(ex) != 1 || ex[0].Get("client_id") != chattest.ClientID || ex[0].Get("client_secret") != chattest.ClientSecret ||
		ex[0].Get("code") != back.Query().Get("code") || ex[0].Get("redirect_uri") != redirect {
		t.Fatalf("oauth.v2.access %v", ex)
	}
	sealed := f.sealed(t, "TALICE")
	if len(sealed) == 0 || bytes.Contains(sealed, []byte("xoxb")) {
		t.Fatalf("stored token %q", sealed)
	}
	// Replayed: the state is spent, the chat service is not asked again.
	apitest.ExpectCode(t, f.land(back), 401, "unauthorized")
	if n := len(f.slack.Exchanges()); n != 1 {
		t.Fatalf("%d exchanges after a replay", n)
	}

	// Mallory installs the app in Alice's workspace for his org: 409, and
	// the connection, its token and where Alice's commands act are unchanged.
	f.projectIn(t, mallory.OrgID, "ABC")
	apitest.ExpectCode(t, f.env.InstallChat(f.slack, mallory, mallory.OrgID, "TALICE"), 409, "CONFLICT")
	if owner := apitest.Scalar[string](t, f.env, `SELECT org_id::text FROM chat_workspaces WHERE team_id = 'TALICE'`); owner != org ||
		!bytes.Equal(f.sealed(t, "TALICE"), sealed) {
		t.Fatalf("the conflict changed Alice's connection: org %s", owner)
	}
	if r := f.command(t, "TALICE", "UALICE", "ABC-1"); r["response_type"] != "in_channel" || !strings.Contains(r["text"].(string), "Login") {
		t.Fatalf("Alice's lookup after the conflict %v", r)
	}
	if a := f.env.Audit(t, "organization", mallory.OrgID); hasAction(a, "chat_workspace_connected", 1) {
		t.Fatalf("Mallory's org recorded a connection: %+v", a)
	}

	// The state is bound to its org: a callback naming another org still
	// connects the one that started it.
	mstart := f.start(t, mallory, mallory.OrgID.String())
	mback := f.slack.Authorize(t, mstart["authorize_url"].(string), "TMAL", f.slack.AsInstaller("UMALADMIN", mallory.Email))
	q = mback.Query()
	q.Set("org_id", org)
	mback.RawQuery = q.Encode()
	if m := f.land(mback).Expect(t, 201).Map(t); m["org_id"] != mallory.OrgID.String() {
		t.Fatalf("connected to %v", m)
	}

	// Alice reinstalls: 200, the token refreshed, the connection kept.
	re := f.env.InstallChat(f.slack, alice, alice.OrgID, "TALICE").Expect(t, 200).Map(t)
	if re["created_at"] != got["created_at"] || bytes.Equal(f.sealed(t, "TALICE"), sealed) {
		t.Fatalf("reinstall %v", re)
	}
	if a := f.env.Audit(t, "organization", alice.OrgID); !hasAction(a, "chat_workspace_connected", 1) || !hasAction(a, "chat_workspace_reinstalled", 1) {
		t.Fatalf("audit %+v", a)
	}
}

// TestInstallRefusals: an expired, cancelled or missing state, a code the
// chat service refuses, an org-wide install and an Admin demoted before the
// callback connect nothing.
func TestInstallRefusals(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	org := f.owner.OrgID.String()
	before := f.count(t, `SELECT count(*) FROM chat_workspaces`)

	start := f.start(t, f.owner, org)
	f.env.Exec(t, `UPDATE chat_install_states SET expires_at = now() - interval '1 second'`)
	r := apitest.ExpectCode(t, f.land(f.slack.Authorize(t, start["authorize_url"].(string), "T1", nil)), 401, "unauthorized")
	if !strings.Contains(r.Error().Message, "expired") || len(f.slack.Exchanges()) != 0 {
		t.Fatalf("expired: %s, %d exchanges", r.Body, len(f.slack.Exchanges()))
	}

	start = f.start(t, f.owner, org)
	denied := f.slack.Authorize(t, start["authorize_url"].(string), "T1", url.Values{"deny": {"1"}})
	apitest.ExpectCode(t, f.land(denied), 400, "BAD_REQUEST")
	apitest.ExpectCode(t, f.land(denied), 401, "unauthorized") // spent

	apitest.ExpectCode(t, f.env.Do("GET", "/api/v1/integrations/chat/oauth/callback?code=code-1", "", nil), 401, "unauthorized")
	apitest.ExpectCode(t, f.env.Do("GET", "/api/v1/integrations/chat/oauth/callback?code=code-1&state=guessed", f.owner.Token, nil), 401, "unauthorized")

	// A code the chat service does not know (forged, or already used).
	start = f.start(t, f.owner, org)
	back := f.slack.Authorize(t, start["authorize_url"].(string), "T1", f.slack.AsInstaller("UOWNER", f.owner.Email))
	q := back.Query()
	q.Set("code", "code-999")
	back.RawQuery = q.Encode()
	if r := apitest.ExpectCode(t, f.land(back), 401, "unauthorized"); !strings.Contains(r.Error().Message, "invalid_code") {
		t.Fatalf("refused code %s", r.Body)
	}

	start = f.start(t, f.owner, org)
	grid := f.slack.Authorize(t, start["authorize_url"].(string), "", url.Values{"enterprise": {"E1"}})
	apitest.ExpectCode(t, f.land(grid), 422, "VALIDATION_ERROR")

	// The Admin who started is no longer one when the browser comes back.
	admin := f.env.Member(f.owner, "admin")
	start = f.start(t, admin, org)
	f.env.Exec(t, `UPDATE memberships SET role = 'member' WHERE user_id = $1`, admin.ID)
	installer := f.slack.AsInstaller("UADMIN", admin.Email)
	r = apitest.ExpectCode(t, f.land(f.slack.Authorize(t, start["authorize_url"].(string), "T1", installer)), 403, "FORBIDDEN")
	if !strings.Contains(r.Error().Message, "Admin role") {
		t.Fatalf("demoted starter %s", r.Body)
	}

	if n := f.count(t, `SELECT count(*) FROM chat_workspaces`); n != before {
		t.Fatalf("refused installs connected %d workspaces", n-before)
	}
}

// TestUnprovenClaimRoutesNothing: a workspace connected by team id before
// the install existed (a row without installed_at) routes nothing to the
// org that claimed it, closes that org to unconnected workspaces, and
// gives way when the workspace's real owner installs the app.
func TestUnprovenClaimRoutesNothing(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	mallory := f.outsider
	decoy := f.projectIn(t, mallory.OrgID, "MAL")
	testfactory.Ticket(t, f.env.DB, projectdb.Row{ID: decoy}, mallory.ID, testfactory.TicketOpts{Title: "Decoy"})
	testfactory.ChatWorkspace(t, f.env.DB, "TALICE", mallory.OrgID, mallory.ID)

	if r := f.command(t, "TALICE", "UALICE", "create MAL captured"); r["text"] != "No project MAL." {
		t.Fatalf("claimed workspace reached the claimer: %v", r)
	}
	if r := f.command(t, "TALICE", "UALICE", "ABC-1"); r["response_type"] != "in_channel" {
		t.Fatalf("the claimed workspace is one connected to no org: %v", r)
	}
	w := f.env.InstallChat(f.slack, f.owner, f.owner.OrgID, "TALICE").Expect(t, 201).Map(t)
	if w["org_id"] != f.owner.OrgID.String() {
		t.Fatalf("install %v", w)
	}
	if a := f.env.Audit(t, "organization", mallory.OrgID); !hasAction(a, "chat_workspace_claim_replaced", 1) {
		t.Fatalf("Mallory's org was not told: %+v", a)
	}
}

// TestInstallNotConfigured: without the app's client id and secret the
// install is a 503 for an Admin (after the access check).
func TestInstallNotConfigured(t *testing.T) {
	t.Parallel()
	w := apitest.NewOrg(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{chatapi.New(chat.New(e.DB, domain.SystemClock{}, chat.Config{PublicURL: "http://tracker.test",
			Box: apitest.SecretBox(t)}))}
	}})
	path := "/api/v1/orgs/" + w.Owner.OrgID.String() + "/integrations/chat/install"
	w.Env.Do("POST", path, w.Outsider.Token, nil).Expect(t, 404)
	w.Env.Do("POST", path, w.Member.Token, nil).Expect(t, 403)
	if r := apitest.ExpectCode(t, w.Env.Do("POST", path, w.Owner.Token, nil), 503, "SERVICE_UNAVAILABLE"); !strings.Contains(r.Error().Message, "SERVICE_CHAT_CLIENT_ID") {
		t.Fatalf("503 %s", r.Body)
	}
}

// TestInstallApprovedByAnotherOrgsAdminIsRefused: Mallory starts an install
// for his org and has Alice (an admin of workspace TALICE, not of his org)
// approve it; the chat service's page cannot tell her which org it is for.
// The approving account's email is no Admin's of Mallory's org: 403, and
// nothing is connected; Alice's own install then connects TALICE to her org.
func TestInstallApprovedByAnotherOrgsAdminIsRefused(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	alice, mallory := f.owner, f.outsider
	start := f.start(t, mallory, mallory.OrgID.String())
	back := f.slack.Authorize(t, start["authorize_url"].(string), "TALICE", f.slack.AsInstaller("UALICEADMIN", alice.Email))
	r := apitest.ExpectCode(t, f.land(back), 403, "FORBIDDEN")
	if !strings.Contains(r.Error().Message, "approved the install is not an Admin") {
		t.Fatalf("refusal %s", r.Body)
	}
	// A member who is not an Admin approving is refused too.
	start = f.start(t, alice, alice.OrgID.String())
	back = f.slack.Authorize(t, start["authorize_url"].(string), "TALICE", f.slack.AsInstaller("UMEMBER", f.member.Email))
	apitest.ExpectCode(t, f.land(back), 403, "FORBIDDEN")
	// An account without an email in the chat service.
	start = f.start(t, alice, alice.OrgID.String())
	back = f.slack.Authorize(t, start["authorize_url"].(string), "TALICE", url.Values{"user": {"UNOBODY"}})
	apitest.ExpectCode(t, f.land(back), 403, "FORBIDDEN")
	if n := f.count(t, `SELECT count(*) FROM chat_workspaces`); n != 0 {
		t.Fatalf("%d workspaces connected", n)
	}
	w := f.env.InstallChat(f.slack, alice, alice.OrgID, "TALICE").Expect(t, 201).Map(t)
	if w["org_id"] != alice.OrgID.String() {
		t.Fatalf("Alice's install %v", w)
	}
}
