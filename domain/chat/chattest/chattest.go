// Package chattest is a stand-in for the chat service's Web API (Slack's
// HTTP shape) for tests of the chat integration: the API's, the binary's.
package chattest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// SlackAPI is a real HTTP server speaking the chat Web API:
// chat.postMessage answers ok with a fresh ts (or the error codes set with
// FailPosts, in order), users.info answers the profiles set with AddUser
// (else user_not_found), and /commands/… takes response_url posts. It is
// also the chat service's side of the app's OAuth install (oauth.go): the
// authorize page and oauth.v2.access. Every call is recorded.
type SlackAPI struct {
	*httptest.Server
	mu        sync.Mutex
	emails    map[string]string // chat user id → email
	names     map[string]string // chat user id → display name
	lookups   []url.Values      // users.info forms
	posts     []url.Values      // chat.postMessage forms
	responses []map[string]any  // response_url posts
	failPosts []string
	grants    map[string]*grant // install code → what it grants
	exchanges []url.Values      // oauth.v2.access forms
}

// TS is the ts the stand-in answers to the n-th chat.postMessage (from 1).
func TS(n int) string { return fmt.Sprintf("1700001000.%06d", n) }

// NewSlackAPI starts a stand-in; it closes when the test ends. Point the
// service at URL+"/api/".
func NewSlackAPI(t testing.TB) *SlackAPI {
	s := &SlackAPI{emails: map[string]string{}, names: map[string]string{}, grants: map[string]*grant{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *SlackAPI) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.HasPrefix(r.URL.Path, "/commands/") {
		var m map[string]any
		_ = json.NewDecoder(r.Body).Decode(&m)
		m["path"] = r.URL.Path
		s.responses = append(s.responses, m)
		_, _ = w.Write([]byte(`ok`))
		return
	}
	if r.URL.Path == "/oauth/v2/authorize" {
		s.authorize(w, r)
		return
	}
	_ = r.ParseForm()
	switch {
	case strings.HasSuffix(r.URL.Path, "/oauth.v2.access"):
		s.access(w, r)
	case strings.HasSuffix(r.URL.Path, "/chat.postMessage"):
		f := url.Values{}
		for k, v := range r.PostForm {
			f[k] = v
		}
		f.Set("auth", r.Header.Get("Authorization"))
		if len(s.failPosts) > 0 {
			code := s.failPosts[0]
			s.failPosts = s.failPosts[1:]
			s.posts = append(s.posts, f)
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": code})
			return
		}
		ts := TS(len(s.posts) + 1)
		f.Set("answered_ts", ts)
		s.posts = append(s.posts, f)
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "channel": f.Get("channel"), "ts": ts})
	case strings.HasSuffix(r.URL.Path, "/users.info"):
		s.lookups = append(s.lookups, r.Form)
		user := r.Form.Get("user")
		email, ok := s.emails[user]
		name := s.names[user]
		if !ok && name == "" {
			_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "user_not_found"})
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "user": map[string]any{"id": user,
			"name": "someone", "real_name": "Some One", "profile": map[string]any{"email": email, "real_name": "Some One",
				"display_name": name}}})
	default:
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "unknown_method"})
	}
}

// AddUser makes users.info know a chat user: its email (empty: none) and
// display name.
func (s *SlackAPI) AddUser(id, email, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if email != "" {
		s.emails[id] = email
	}
	s.names[id] = name
}

// FailPosts makes the next chat.postMessage calls answer these error
// codes, one each.
func (s *SlackAPI) FailPosts(codes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failPosts = append(s.failPosts, codes...)
}

// Got is what the stand-in received so far: the chat.postMessage forms
// (with "auth", the Authorization header, and "answered_ts", the ts
// answered) and the response_url posts (with "path").
func (s *SlackAPI) Got() (posts []url.Values, responses []map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.posts...), append([]map[string]any(nil), s.responses...)
}

// Lookups are the users.info calls' forms so far.
func (s *SlackAPI) Lookups() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]url.Values(nil), s.lookups...)
}
