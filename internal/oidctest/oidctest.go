// Package oidctest runs a real OpenID Connect provider (mockoidc) on
// loopback for tests of single sign-on: the API's, SCIM's and the binary's.
package oidctest

import (
	"net"
	"net/http"
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
