// Package oidctest runs a real OpenID Connect provider (mockoidc) on
// loopback for tests of single sign-on: the API's, SCIM's and the binary's.
package oidctest

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"testing"

	"github.com/oauth2-proxy/mockoidc"
)

// Start runs a provider on a loopback port until the test ends; middleware
// (for example a rewriter of the ID tokens it answers) wraps its handlers.
func Start(t testing.TB, middleware ...func(http.Handler) http.Handler) *mockoidc.MockOIDC {
	t.Helper()
	m, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, mw := range middleware {
		if err := m.AddMiddleware(mw); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ln, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return m
}

// NoRedirect is an HTTP client that follows no redirect: a test reads the
// Location itself.
var NoRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// Authorize plays the browser at the provider: it queues user (nil: the
// provider's default), visits authURL (the service's authorization_url)
// without following the redirect, fails unless it is a 302, and returns
// where the provider sends the browser: the service's callback with code
// and state.
func Authorize(t testing.TB, m *mockoidc.MockOIDC, authURL string, user mockoidc.User) *url.URL {
	t.Helper()
	if user != nil {
		m.QueueUser(user)
	}
	res, err := NoRedirect.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusFound {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("authorize: %d %s", res.StatusCode, b)
	}
	loc, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// CallbackQuery is the query the service's callback takes from the
// provider's redirect: its code and state.
func CallbackQuery(redirect *url.URL) url.Values {
	q := redirect.Query()
	return url.Values{"code": {q.Get("code")}, "state": {q.Get("state")}}
}

// Person is a provider user with a verified email.
func Person(subject, email string) *mockoidc.MockUser {
	return &mockoidc.MockUser{Subject: subject, Email: email, EmailVerified: true}
}
