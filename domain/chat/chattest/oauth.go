package chattest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// The chat app's OAuth credentials the stand-in knows: configure the
// service under test with them.
const (
	ClientID     = "1111.2222"
	ClientSecret = "stand-in-client-secret"
)

// grant is what an install code buys at oauth.v2.access, once.
type grant struct {
	team, teamName, enterprise, redirectURI, token, installer string
	used                                                      bool
}

// authorize is the chat service's authorize page after its user approved:
// the workspace is the one the browser chose (the team parameter, which
// Slack's page takes too), and the browser goes back to redirect_uri with
// a code and the state. user is the chat account approving (default
// UINSTALLER; AsInstaller gives it an email); deny=1 plays a user who
// cancels (error=access_denied); enterprise=E… an org-wide (Enterprise
// Grid) install.
func (s *SlackAPI) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if q.Get("client_id") != ClientID || err != nil || redirect.Host == "" || q.Get("scope") == "" || q.Get("state") == "" ||
		(q.Get("team") == "" && q.Get("enterprise") == "") {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"ok":false,"error":"invalid_authorize_request"}`))
		return
	}
	back := url.Values{"state": {q.Get("state")}}
	if q.Get("deny") == "1" {
		back.Set("error", "access_denied")
	} else {
		code := fmt.Sprintf("code-%d", len(s.grants)+1)
		g := &grant{team: q.Get("team"), teamName: q.Get("team_name"), enterprise: q.Get("enterprise"), redirectURI: q.Get("redirect_uri"),
			token: fmt.Sprintf("xoxb-%s-%d", q.Get("team"), len(s.grants)+1), installer: q.Get("user")}
		if g.installer == "" {
			g.installer = "UINSTALLER"
		}
		if g.teamName == "" {
			g.teamName = "Workspace " + g.team
		}
		s.grants[code] = g
		back.Set("code", code)
	}
	redirect.RawQuery = back.Encode()
	w.Header().Del("Content-Type")
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// access is oauth.v2.access: the app's credentials, an unused code and the
// redirect_uri it was issued for buy the workspace and a bot token.
func (s *SlackAPI) access(w http.ResponseWriter, r *http.Request) {
	f := url.Values{}
	for k, v := range r.PostForm {
		f[k] = v
	}
	if id, secret, ok := r.BasicAuth(); ok {
		f.Set("client_id", id)
		f.Set("client_secret", secret)
	}
	s.exchanges = append(s.exchanges, f)
	g := s.grants[f.Get("code")]
	fail := ""
	switch {
	case f.Get("client_id") != ClientID:
		fail = "invalid_client_id"
	case f.Get("client_secret") != ClientSecret:
		fail = "bad_client_secret"
	case g == nil || g.used:
		fail = "invalid_code"
	case f.Get("redirect_uri") != g.redirectURI:
		fail = "bad_redirect_uri"
	}
	if fail != "" {
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": fail})
		return
	}
	g.used = true
	out := map[string]any{"ok": true, "access_token": g.token, "token_type": "bot", "scope": "commands,chat:write,users:read,users:read.email",
		"bot_user_id": "UBOT" + g.team, "app_id": "A0STANDIN", "authed_user": map[string]any{"id": g.installer},
		"is_enterprise_install": g.enterprise != "", "enterprise": nil, "team": map[string]any{"id": g.team, "name": g.teamName}}
	if g.enterprise != "" {
		out["enterprise"] = map[string]any{"id": g.enterprise, "name": "Grid"}
		out["team"] = nil
	}
	_ = json.NewEncoder(w).Encode(out)
}

// Authorize plays the installing user's browser at the authorize URL the
// service answered: it chooses workspace team (extra, e.g. deny=1, is added
// to the query) and returns where the chat service sends the browser back
// (the service's callback with a code and the state).
func (s *SlackAPI) Authorize(t testing.TB, authorizeURL, team string, extra url.Values) *url.URL {
	t.Helper()
	u, err := url.Parse(authorizeURL)
	if err != nil {
		t.Fatalf("authorize URL %q: %v", authorizeURL, err)
	}
	q := u.Query()
	if team != "" {
		q.Set("team", team)
	}
	for k, v := range extra {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Fatalf("authorize %s: %d", u, res.StatusCode)
	}
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// Exchanges are the oauth.v2.access calls' forms so far (client_id and
// client_secret included, however they were sent).
func (s *SlackAPI) Exchanges() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.exchanges...)
}

// Token is the bot token the stand-in grants on its n-th install code
// (from 1) for team.
func Token(team string, n int) string { return fmt.Sprintf("xoxb-%s-%d", team, n) }

// AsInstaller makes chat account id, with email, the one approving an
// install: pass its answer to Authorize.
func (s *SlackAPI) AsInstaller(id, email string) url.Values {
	s.AddUser(id, email, "")
	return url.Values{"user": {id}}
}
