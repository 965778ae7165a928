// Package sso holds per-org single sign-on by OpenID Connect with PKCE: the
// Owner's provider configuration (validated by discovery when saved, client
// secret sealed with secretbox), the email domains an org verifies, and the
// sign-in (discover, then callback) that finds the user the org's provider
// may vouch for (or creates one), adds a membership with the org's default
// role and starts a session bound to the org.
package sso

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/account"
	"tracker/internal/secretbox"
	"tracker/store"
)

// StateTTL is how long a sign-in may take between discover and callback.
const StateTTL = 10 * time.Minute

// CallbackPath is the redirect URI's path under SERVICE_PUBLIC_URL: the one
// to register at the identity provider.
const CallbackPath = "/api/v1/auth/sso/callback"

// providerTTL bounds how long a discovered provider (endpoints, key set) is
// reused before discovery runs again.
const providerTTL = time.Hour

// Service runs the SSO use cases.
type Service struct {
	db       *store.DB
	box      *secretbox.Box
	clock    domain.Clock
	accounts *account.Service
	client   *http.Client
	// resolver verifies org domains (DNS TXT challenges).
	resolver Resolver
	// publicURL is SERVICE_PUBLIC_URL: the redirect URI's base and where
	// browsers are sent after sign-in.
	publicURL string
	// allowPrivate admits issuers on loopback and private addresses and
	// over plain http (development and tests).
	allowPrivate bool

	mu        sync.Mutex
	providers map[string]cachedProvider
}

type cachedProvider struct {
	p  *oidc.Provider
	at time.Time
}

// New builds the service. client makes every call to identity providers
// (discovery, key sets, token exchange); resolver looks up the TXT records
// that verify org domains (DNSResolver).
func New(db *store.DB, box *secretbox.Box, clock domain.Clock, accounts *account.Service, client *http.Client,
	resolver Resolver, publicURL string, allowPrivate bool) *Service {
	return &Service{db: db, box: box, clock: clock, accounts: accounts, client: client, resolver: resolver, publicURL: publicURL,
		allowPrivate: allowPrivate, providers: map[string]cachedProvider{}}
}

// RedirectURI is the callback address registered at the provider.
func (s *Service) RedirectURI() string { return s.publicURL + CallbackPath }

// PublicURL is where a browser lands after sign-in.
func (s *Service) PublicURL() string { return s.publicURL }

// provider discovers (or reuses) the provider of an issuer.
func (s *Service) provider(ctx context.Context, issuer string, fresh bool) (*oidc.Provider, error) {
	s.mu.Lock()
	c, ok := s.providers[issuer]
	s.mu.Unlock()
	now := s.clock.Now()
	if ok && !fresh && now.Sub(c.at) < providerTTL {
		return c.p, nil
	}
	// The provider keeps this context's client (not its deadline) for its
	// key set fetches.
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), s.client), issuer)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.providers[issuer] = cachedProvider{p: p, at: now}
	s.mu.Unlock()
	return p, nil
}

// secretAAD binds a sealed client secret to its org.
func secretAAD(orgID uuid.UUID) []byte { return []byte("sso_client_secret:" + orgID.String()) }
